//go:build !nomysql

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// TestEvalDemoMySQL: sqlmcp demo --mysql writes a script that loads into
// MariaDB (or MySQL), and sqlmcp eval --demo --db mysql://... scores the
// demo's questions there by their MySQL gold SQL.
func TestEvalDemoMySQL(t *testing.T) {
	cacheDir, dir := t.TempDir(), t.TempDir()
	script := filepath.Join(dir, "demo.sql")
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"demo", "--mysql", script, "--cache-dir", cacheDir}, strings.NewReader(""), &stdout, &stdout, func(string) string { return "" }); err != nil {
		t.Fatalf("demo --mysql: %v\n%s", err, stdout.String())
	}
	data, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	// The demo's text holds no semicolon at a line's end: each statement
	// ends there. A few statements go a round trip.
	var chunks []string
	var b strings.Builder
	for _, s := range strings.SplitAfter(string(data), ";\n") {
		if b.Len() > 0 && b.Len()+len(s) > 2<<20 {
			chunks = append(chunks, b.String())
			b.Reset()
		}
		b.WriteString(s)
	}
	chunks = append(chunks, b.String())
	dsn := dbtest.MySQLDSN(t, chunks...)

	fake := newFakeEval(t, dialectScript(sqlmcp.MySQL))
	out := filepath.Join(dir, "oneshot")
	got, err := runEvalCmd(t, "--demo", "--db", dsn, "--system", "oneshot", "--out", out, "--base-url", fake.BaseURL(), "--model", "fake-1")
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	checkDialectRun(t, out, got)

	// The agent's loop, through a server on the same database.
	out = filepath.Join(dir, "agent")
	got, err = runEvalCmd(t, "--demo", "--db", dsn, "--system", "agent", "--out", out, "--limit", "3", "--max-turns", "2",
		"--base-url", fake.BaseURL(), "--model", "fake-1")
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	preds := readPredictions(t, out)
	if p := preds[0]; !p.Correct || p.Turns != 1 {
		t.Errorf("agent: question 0: got %+v, want right in one turn", p)
	}
	if p := preds[1]; p.Correct || p.Refused != 2 {
		t.Errorf("agent: a write: got %+v, want refused twice", p)
	}
	if !strings.Contains(got, fmt.Sprintf("accuracy %.2f %% (2 of 3)", 200.0/3)) {
		t.Errorf("agent: the summary lacks the accuracy:\n%s", got)
	}
}
