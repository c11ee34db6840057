package main

import (
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/eval"
)

// dialectScript answers question 1 with a write, 5 with SQL that fails,
// 4 with a wrong query, 33 with SQLite's gold SQL (julianday, which
// neither MySQL nor DuckDB has), and the rest with the gold SQL of
// dialect d.
func dialectScript(d sqlmcp.Dialect) func(eval.Question) string {
	return func(q eval.Question) string {
		switch q.ID {
		case 1:
			return "DELETE FROM schools"
		case 4:
			return "SELECT 'wrong'"
		case 5:
			return "SELECT nope FROM nowhere"
		case 33:
			return q.SQL
		}
		return q.Gold(d)
	}
}

// checkDialectRun checks a run of dialectScript over the demo's 36
// questions: right but for 1, 4, 5 and 33, whose SQLite gold SQL does
// not run on d.
func checkDialectRun(t *testing.T, out, stdout string) {
	t.Helper()
	preds := readPredictions(t, out)
	if len(preds) != 36 {
		t.Fatalf("%d predictions, want 36", len(preds))
	}
	for id, p := range preds {
		right := id != 1 && id != 4 && id != 5 && id != 33
		if p.Correct != right {
			t.Errorf("question %d: got %+v, want correct %v", id, p, right)
		}
	}
	if p := preds[1]; p.ErrorKind != "refused" {
		t.Errorf("a write: got %+v, want refused", p)
	}
	if p := preds[5]; p.ErrorKind != "sql error" {
		t.Errorf("failing SQL: got %+v, want an SQL error", p)
	}
	if p := preds[33]; p.Error == "" || p.ErrorKind == "gold" {
		t.Errorf("SQLite's SQL: got %+v, want it to fail on the predicted side", p)
	}
	if !strings.Contains(stdout, "accuracy 88.89 % (32 of 36)") {
		t.Errorf("the summary lacks the accuracy:\n%s", stdout)
	}
}
