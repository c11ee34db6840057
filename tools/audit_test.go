package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/audit"
	"github.com/sqlmcp/sqlmcp/identity"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/tools"
)

// serveAudited serves the SQLite fixture with the audit file at path, each
// call made as id (the zero Identity: anonymous).
func serveAudited(t testing.TB, path string, id identity.Identity, logs *syncBuffer) (*mcp.ClientSession, *audit.File) {
	t.Helper()
	f, err := audit.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := dbtest.SQLite(t, nil)
	cat, err := schema.New(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := zerolog.Nop()
	if logs != nil {
		log = zerolog.New(logs)
	}
	srv := tools.NewServer(db, cat, &tools.Options{Logger: log, Audit: f, Name: "shop"})
	if id.Subject != "" {
		// What the HTTP layer does for an authenticated request.
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				return next(identity.With(ctx, id), method, req)
			}
		})
	}
	return mcptest.Connect(t, srv), f
}

// TestAuditFile: each tool call is one line of the audit file, with who
// called, the database, the role (none yet), the tool, its arguments as
// the log has them, the verdict, rows, bytes and duration; the chain
// verifies.
func TestAuditFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var logs syncBuffer
	id := identity.Identity{Subject: "ana", Issuer: "https://id.example.com", Fingerprint: "sha256:0123abcd", Groups: []string{"analysts"}}
	cs, f := serveAudited(t, path, id, &logs)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"run_query", map[string]any{"sql": "SELECT name FROM customers ORDER BY id"}},
		{"run_query", map[string]any{"sql": "DELETE FROM customers"}},
		{"describe_table", map[string]any{"table": "customers"}},
		{"run_query", map[string]any{"sql": "SELECT nope FROM customers"}},
	}
	for _, c := range calls {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1+len(calls) {
		t.Fatalf("%d lines, want an opening line and %d calls:\n%s", len(lines), len(calls), b)
	}
	var got []map[string]any
	for _, l := range lines[1:] {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		for _, k := range []string{"seq", "prev", "time", "duration_ms"} {
			if _, ok := ev[k]; !ok {
				t.Errorf("line without %s: %s", k, l)
			}
			delete(ev, k)
		}
		got = append(got, ev)
	}
	who := map[string]any{"event": "tool_call", "subject": "ana", "issuer": "https://id.example.com", "token_fingerprint": "sha256:0123abcd", "database": "shop", "role": ""}
	with := func(m map[string]any) map[string]any {
		for k, v := range who {
			m[k] = v
		}
		return m
	}
	want := []map[string]any{
		with(map[string]any{"tool": "run_query", "sql": "SELECT name FROM customers ORDER BY id", "verdict": "ok", "rows": 4.0, "truncated": false, "bytes": got[0]["bytes"]}),
		with(map[string]any{"tool": "run_query", "sql": "DELETE FROM customers", "verdict": "refused", "error": got[1]["error"]}),
		with(map[string]any{"tool": "describe_table", "table": "customers", "verdict": "ok", "rows": got[2]["rows"], "bytes": got[2]["bytes"]}),
		with(map[string]any{"tool": "run_query", "sql": "SELECT nope FROM customers", "verdict": "error", "sqlstate": "42703", "error": got[3]["error"]}),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit lines (-want +got):\n%s", diff)
	}
	if n, _ := got[0]["bytes"].(float64); n < 20 {
		t.Errorf("bytes %v for a result of 4 rows", got[0]["bytes"])
	}
	if e, _ := got[1]["error"].(string); !strings.Contains(e, "DELETE") {
		t.Errorf("refusal logged as %q", e)
	}
	// No row data: the customers' names are in the result, not the file.
	if strings.Contains(string(b), "Ada") {
		t.Errorf("the audit file holds row data:\n%s", b)
	}
	// The log carries who called too, and the same verdicts.
	if n := len(logs.Find(map[string]any{"event": "tool_call", "subject": "ana", "issuer": "https://id.example.com"})); n != len(calls) {
		t.Errorf("%d tool_call log events name the caller, want %d:\n%s", n, len(calls), logs.String())
	}
	r, err := audit.Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Problems != nil || r.Lines != 5 {
		t.Errorf("verify: %d lines, problems %v", r.Lines, r.Problems)
	}
}

// TestAuditFileAnonymous: a call without an identity (stdio) has the
// caller's fields, empty.
func TestAuditFileAnonymous(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	cs, f := serveAudited(t, path, identity.Identity{}, nil)
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_tables", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, _ := os.ReadFile(path)
	line := strings.Split(strings.TrimSpace(string(b)), "\n")[1]
	if !strings.Contains(line, `"event":"tool_call","subject":"","issuer":"","token_fingerprint":"","database":"shop","role":"","tool":"list_tables"`) {
		t.Errorf("anonymous call's line: %s", line)
	}
}
