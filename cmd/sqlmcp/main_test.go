package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// TestMain lets the test binary stand in for sqlmcp in a subprocess.
func TestMain(m *testing.M) {
	serveDuckDBWorker()
	if os.Getenv("SQLMCP_TEST_BE_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestStartErrors(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	notDB := t.TempDir() + "/notes.txt"
	os.WriteFile(notDB, []byte("not a database"), 0o644)
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"unknown flag", []string{"--bogus"}, nil, "flag provided but not defined: -bogus"},
		{"unknown command", []string{"frob"}, nil, `unknown command "frob"`},
		{"no database", nil, nil, "no database: pass --db PATH"},
		{"missing file", []string{"--db", "/no/such.db"}, nil, "no such database file: /no/such.db"},
		{"not sqlite", []string{"--db", notDB}, nil, "is not a SQLite database"},
		{"db and demo", []string{"--db", path, "--demo"}, nil, "give --db or --demo, not both"},
		{"bad env", []string{"--db", path}, map[string]string{"SQLMCP_TIMEOUT": "soon"}, `SQLMCP_TIMEOUT="soon" is not a valid --timeout value`},
		{"rows over limit", []string{"--db", path, "--max-rows", "5000"}, nil, "--max-rows 5000 is more than --max-rows-limit 1000"},
		{"bad log level", []string{"--db", path, "--log-level", "loud"}, nil, `--log-level "loud"`},
		{"bad annotations", []string{"--db", path, "--annotations", notDB}, nil, "reading annotations"},
		{"url with write mode", []string{"--db", "file:" + path + "?mode=rw"}, nil, `parameter "mode" is not supported`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			getenv := func(k string) string { return tt.env[k] }
			err := run(t.Context(), tt.args, strings.NewReader(""), &stdout, &stderr, getenv)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want a usage error (exit status 2)", err)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %q, want one line containing %q", err, tt.want)
			}
		})
	}
}

func TestEnvironmentSetsFlags(t *testing.T) {
	env := map[string]string{"SQLMCP_DB": "x.db", "SQLMCP_MAX_ROWS": "7", "SQLMCP_TIMEOUT": "3s"}
	cfg, err := parseServe([]string{"--max-rows", "9"}, nil, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.db != "x.db" || cfg.limits.MaxRows != 9 || cfg.limits.Timeout.String() != "3s" {
		t.Errorf("got db %q, max rows %d, timeout %s; want x.db, 9 (the flag wins), 3s", cfg.db, cfg.limits.MaxRows, cfg.limits.Timeout)
	}
}

func TestVersion(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"version"}, nil, &stdout, nil, os.Getenv); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "sqlmcp ") {
		t.Errorf("got %q", stdout.String())
	}
}

// TestStdio runs sqlmcp as a subprocess, as an MCP client starts it, and
// calls every tool over stdio.
func TestStdio(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	want := dbtest.Fingerprint(t, path)
	var stderr bytes.Buffer
	cs := startStdio(t, &stderr, "serve", "--db", path, "--log-level", "warn")
	for _, c := range everyTool {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError || !strings.Contains(text, c.want) || res.StructuredContent == nil {
			t.Errorf("%s: got isError=%v %q, want %q and structured content", c.tool, res.IsError, text, c.want)
		}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": "DELETE FROM customers"}})
	if err != nil || !res.IsError {
		t.Errorf("a DELETE over stdio: got %v, %+v; want a refusal", err, res)
	}
	cs.Close()
	if got := dbtest.Fingerprint(t, path); got != want {
		t.Error("the database file changed")
	}
	// stdout is the protocol; the audit log went to stderr as JSON lines.
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if line != "" && !strings.HasPrefix(line, "{") {
			t.Errorf("a stderr line that is not JSON: %q", line)
		}
	}
	// The fixture is in rollback-journal mode: the operator is told at start.
	if !strings.Contains(stderr.String(), `"event":"journal"`) || !strings.Contains(stderr.String(), "WAL mode") {
		t.Errorf("no warning about rollback-journal mode at start; stderr:\n%s", stderr.String())
	}
}

// startStdio starts the test binary as sqlmcp with args and connects the
// go-sdk client to it over stdio; the server's stderr goes to stderr.
func startStdio(t *testing.T, stderr io.Writer, args ...string) *mcp.ClientSession {
	t.Helper()
	return startStdioEnv(t, stderr, os.Environ(), args...)
}

// startStdioEnv is startStdio with the environment env.
func startStdioEnv(t *testing.T, stderr io.Writer, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(env, "SQLMCP_TEST_BE_MAIN=1")
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestDemo builds the demo into a fresh cache and serves it.
func TestDemo(t *testing.T) {
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}` + "\n")
	err := run(ctx, []string{"serve", "--demo", "--cache-dir", t.TempDir()}, in, &stdout, &stderr, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), `"demo":true`) || !strings.Contains(stderr.String(), `"event":"start"`) {
		t.Errorf("no start event for the demo in the log: %s", stderr.String())
	}
}

func TestHealthcheck(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
		}
	}))
	defer up.Close()
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"healthcheck", up.URL + "/healthz"}, nil, &stdout, nil, os.Getenv); err != nil || stdout.String() != "ok\n" {
		t.Errorf("a healthy server: got %v, %q", err, stdout.String())
	}
	if err := run(t.Context(), []string{"healthcheck", up.URL + "/other"}, nil, &stdout, nil, os.Getenv); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a 404: got %v, want an error naming it", err)
	}
	up.Close()
	if err := run(t.Context(), []string{"healthcheck", up.URL + "/healthz"}, nil, &stdout, nil, os.Getenv); err == nil {
		t.Error("a server that is down: got no error")
	}
	stdout.Reset()
	if err := run(t.Context(), []string{"healthcheck", "--help"}, nil, &stdout, nil, os.Getenv); err != nil || !strings.Contains(stdout.String(), "sqlmcp healthcheck [URL]") {
		t.Errorf("--help: got %v, %q; want the usage", err, stdout.String())
	}
	var ue usageError
	if err := run(t.Context(), []string{"healthcheck", "127.0.0.1:8080"}, nil, &stdout, nil, os.Getenv); !errors.As(err, &ue) || !strings.Contains(err.Error(), "is not an http:// or https:// URL") {
		t.Errorf("a URL without a scheme: got %v, want a usage error saying so", err)
	}
}
