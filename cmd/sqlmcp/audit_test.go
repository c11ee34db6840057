package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// auditedServer starts the test binary as sqlmcp serving db over stdio
// with the audit file at path, syncing every sync, its standard error
// going to the file stderr names; the *exec.Cmd is there to kill. The
// process is the client session's to wait for: exec.Cmd.Wait may not be
// called twice at once, and the session calls it when the server's
// output ends (a second Wait beside it can block for good, each waiting
// for the other's share of the copying goroutines' results), so the
// standard error is a file, which needs no copying goroutine.
func auditedServer(t *testing.T, db, path string, sync time.Duration, stderr string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	f, err := os.OpenFile(stderr, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close() // the child holds its own copy
	cmd := exec.Command(os.Args[0], "serve", "--db", db, "--audit-file", path, "--audit-sync", sync.String())
	cmd.Env = append(os.Environ(), "SQLMCP_TEST_BE_MAIN=1")
	cmd.Stderr = f
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, cmd
}

// gone waits until process pid has exited: it no longer runs, or is a
// zombie its parent has not reaped.
func gone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		// The state follows the command's name in brackets.
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			return
		}
	}
	t.Fatalf("process %d still runs 10 s after SIGKILL", pid)
}

// auditSQL is the sql of every tool_call line in the audit file at path.
func auditSQL(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev struct{ Event, SQL string }
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if ev.Event == "tool_call" {
			got[ev.SQL] = true
		}
	}
	return got
}

// verifyAudit runs sqlmcp audit verify on files.
func verifyAudit(t *testing.T, files ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(t.Context(), append([]string{"audit", "verify"}, files...), nil, &out, &out, func(string) string { return "" })
	return out.String(), err
}

// TestAuditFileSurvivesKill: sqlmcp, making calls with its audit file on,
// is killed with SIGKILL; the file holds every call but at most those of
// the last sync interval (in practice a kill loses next to none: each line
// is written to the file as its call ends, and the interval bounds what a
// crash of the machine loses), and audit verify passes on it; a restart
// continues the chain.
func TestAuditFileSurvivesKill(t *testing.T) {
	db := dbtest.SQLiteFile(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const sync = 500 * time.Millisecond
	stderr := filepath.Join(t.TempDir(), "stderr")
	cs, cmd := auditedServer(t, db, path, sync, stderr)

	type made struct {
		sql string
		end time.Time
	}
	var calls []made
	deadline := time.Now().Add(2 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		sql := fmt.Sprintf("SELECT %d AS n", i)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": sql}})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
		calls = append(calls, made{sql, time.Now()})
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	gone(t, cmd.Process.Pid)
	if b, _ := os.ReadFile(stderr); !strings.Contains(string(b), `"audit_file":"`+path+`"`) {
		t.Errorf("the start event does not name the audit file:\n%s", b)
	}

	got := auditSQL(t, path)
	lost := 0
	for _, c := range calls {
		if got[c.sql] {
			continue
		}
		lost++
		if killed.Sub(c.end) > sync {
			t.Errorf("%q, ended %s before the kill, is not in the audit file", c.sql, killed.Sub(c.end))
		}
	}
	t.Logf("%d calls, %d in the audit file, %d lost to SIGKILL", len(calls), len(got), lost)
	if out, err := verifyAudit(t, path); err != nil || !strings.Contains(out, "the chain is intact") {
		t.Errorf("audit verify after the kill: %v\n%s", err, out)
	}

	// A restart continues the chain, and a clean stop writes all.
	cs, _ = auditedServer(t, db, path, sync, stderr)
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": "SELECT 'after'"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close() // waits for the server to exit
	if !auditSQL(t, path)["SELECT 'after'"] {
		t.Errorf("the call after the restart is not in the audit file")
	}
	out, err := verifyAudit(t, path)
	if err != nil || !strings.Contains(out, "the chain is intact") || !strings.Contains(out, fmt.Sprintf("seq 1 to %d;", len(got)+2)) {
		t.Errorf("audit verify after the restart: %v\n%s", err, out)
	}

	// The last hash kept: a line cut from the end shows with --through.
	last := out[strings.Index(out, "the last line's hash is ")+len("the last line's hash is "):][:64]
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1], 0o600)
	if out, err = verifyAudit(t, path); err != nil {
		t.Errorf("audit verify after the last line is cut: %v (the chain alone cannot tell)\n%s", err, out)
	}
	if out, err = verifyAudit(t, "--through", last, path); err == nil || !strings.Contains(out, "no line has the hash kept") {
		t.Errorf("audit verify --through after the last line is cut: %v\n%s", err, out)
	}

	// An edited line is found, and the exit status says so.
	b, _ = os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"SELECT 3 AS n"`), []byte(`"SELECT 4 AS n"`), 1), 0o600)
	out, err = verifyAudit(t, path)
	if err == nil || !strings.Contains(out, path+":5: edited") {
		t.Errorf("audit verify after an edit: %v\n%s", err, out)
	}
}

func TestAuditFlags(t *testing.T) {
	db := dbtest.SQLiteFile(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--audit-max-size", "lots"}, "a size is a number of bytes"},
		{[]string{"--audit-max-size", "1KB"}, "--audit-max-size 1KB is too small"},
		{[]string{"--audit-keep", "0"}, "--audit-keep must be 1 or more"},
		{[]string{"--audit-sync", "0s"}, "--audit-sync must be positive"},
	} {
		err := run(t.Context(), append([]string{"serve", "--db", db}, c.args...), nil, &bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" })
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
	// check says where the audit file goes, and when its folder is missing.
	var out bytes.Buffer
	err := run(t.Context(), []string{"check", "--db", db, "--audit-file", "/no/such/dir/audit.jsonl", "--audit-max-size", "1GB"}, nil, &out, &out, func(string) string { return "" })
	if err == nil || !strings.Contains(out.String(), "audit file: /no/such/dir/audit.jsonl, fsynced every 1s, rotated past 1GB keeping 10, hash-chained") ||
		!strings.Contains(out.String(), "error: the audit file's folder /no/such/dir does not exist") {
		t.Errorf("check with a missing folder: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := run(t.Context(), []string{"audit", "verify", "/no/such/file"}, nil, &out, &out, func(string) string { return "" }); err == nil {
		t.Errorf("verify of a missing file: no error")
	}
}
