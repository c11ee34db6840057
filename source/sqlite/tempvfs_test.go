package sqlite_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/sqlite"
)

// TestTempFilesBounded: a statement whose sort, DISTINCT or materialized
// subquery spills past the temporary file bound stops at once with an
// error that says so, long before its time limit; statements whose spills
// fit, and the database file itself, are untouched.
func TestTempFilesBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, note TEXT)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO t SELECT i, 'name ' || i, hex(randomblob(40)) FROM n",
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	was := sqlite.SetTempFileLimit(4 << 20)
	t.Cleanup(func() { sqlite.SetTempFileLimit(was) })
	db := dbtest.Open(t, path, &source.Options{Limits: sqlmcp.Limits{Timeout: 3 * time.Second}})
	for name, sql := range map[string]string{
		"a sort of a cross join":  "SELECT a.id, b.note FROM t a, t b ORDER BY b.note, a.id",
		"a DISTINCT of one":       "SELECT count(*) FROM (SELECT DISTINCT a.note, b.name FROM t a, t b)",
		"a materialized subquery": "WITH m AS MATERIALIZED (SELECT a.note || b.note AS x FROM t a, t b) SELECT max(x) FROM m",
	} {
		start := time.Now()
		_, err := db.Query(t.Context(), sql, 0)
		if err == nil || !strings.Contains(err.Error(), "more than 4 MiB of temporary disk space") {
			t.Errorf("%s: %v, want the temporary file's bound", name, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s: took %v", name, took)
		}
	}
	// A sort that spills less than the bound answers.
	res, err := db.Query(t.Context(), "SELECT note FROM t ORDER BY note DESC", 5)
	if err != nil || len(res.Rows) != 5 {
		t.Fatalf("a sort within the bound: %v", err)
	}
	// The bound is the statement's, not each file's: one materialized
	// result of 3 MB answers, four of them in one statement do not.
	const m = "m%d AS MATERIALIZED (SELECT note || note || %d AS x FROM t)"
	one := "WITH " + fmt.Sprintf(m, 1, 1) + " SELECT count(x) FROM m1"
	if res, err := db.Query(t.Context(), one, 0); err != nil || res.Rows[0][0] != int64(20000) {
		t.Fatalf("one materialized result within the bound: %v, %v", res, err)
	}
	var defs, reads []string
	for i := 1; i <= 4; i++ {
		defs = append(defs, fmt.Sprintf(m, i, i))
		reads = append(reads, fmt.Sprintf("(SELECT count(x) FROM m%d)", i))
	}
	four := "WITH " + strings.Join(defs, ", ") + " SELECT " + strings.Join(reads, " + ")
	if _, err := db.Query(t.Context(), four, 0); err == nil || !strings.Contains(err.Error(), "more than 4 MiB of temporary disk space") {
		t.Errorf("four materialized results of 3 MB: %v, want the statement's bound", err)
	}
	// Each run has a budget of its own: the next call answers.
	if _, err := db.Query(t.Context(), one, 0); err != nil {
		t.Errorf("one materialized result after the refusal: %v", err)
	}
}
