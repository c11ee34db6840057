package duckdb_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
)

// FuzzGuard starts from the hostile corpus: the door never panics, gives
// the same verdict twice, and whatever it runs leaves the served files
// and the file beside them byte for byte unchanged, with nothing written
// and no answer holding the outside file's text.
func FuzzGuard(f *testing.F) {
	dir, outside := fixture(f)
	out := f.TempDir()
	for _, h := range hostileCorpus {
		f.Add(h.expand(dir, outside, out))
	}
	for _, s := range []string{"FROM people", "SELECT * FROM sales PIVOT (sum(amount) FOR year IN (2024))", "EXPLAIN SELECT 1",
		"WITH s AS (SELECT 1) SELECT * FROM s", "DESCRIBE nested", "SELECT 1; SELECT 2", "SELECT 1 -- ;COPY"} {
		f.Add(s)
	}
	before, outsideBefore := fingerprint(f, dir), fingerprint(f, filepath.Dir(outside))
	b := open(f, dir, duckdb.Engine{})
	f.Fuzz(func(t *testing.T, sql string) {
		_, rows, err1 := run(t.Context(), b, source.Statement{SQL: sql, Fetch: 11})
		_, _, err2 := run(t.Context(), b, source.Statement{SQL: sql, Fetch: 11})
		if refused(err1) != refused(err2) {
			t.Fatalf("two verdicts: %v, then %v", err1, err2)
		}
		if contains(rows, secret) {
			t.Fatal("an answer holds the outside file's text")
		}
		if got := fingerprint(t, dir); !equal(got, before) {
			t.Fatalf("the served files changed")
		}
		if got := fingerprint(t, filepath.Dir(outside)); !equal(got, outsideBefore) {
			t.Fatalf("the files beside the served folder changed")
		}
		if got := fingerprint(t, out); len(got) > 0 {
			t.Fatalf("a statement wrote %v", got)
		}
	})
}

func refused(err error) bool {
	return errors.As(err, new(*guard.Error)) || errors.As(err, new(*guard.SyntaxError))
}
