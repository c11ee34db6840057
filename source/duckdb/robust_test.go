package duckdb_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
)

// TestHostileText: text written to crash or stall a parser gets a clear
// error, and the source answers the next call.
func TestHostileText(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	for name, sql := range map[string]string{
		"deep brackets":     "SELECT " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000),
		"long chain":        "SELECT " + strings.Repeat("1 + ", 50000) + "1",
		"deep subqueries":   strings.Repeat("SELECT * FROM (", 800) + "SELECT 1" + strings.Repeat(")", 800),
		"NUL byte":          "SELECT 1\x00; COPY (SELECT 1) TO '/tmp/x'",
		"invalid UTF-8":     "SELECT '\xff'",
		"unterminated":      "SELECT 'abc",
		"comment only":      "-- nothing",
		"over a megabyte":   "SELECT '" + strings.Repeat("x", 1<<20) + "'",
		"EXPLAIN of COPY":   "EXPLAIN COPY (SELECT 1) TO '/tmp/x'",
		"EXPLAIN alone":     "EXPLAIN",
		"keyword in string": "SELECT 'COPY (SELECT 1) TO ''/tmp/x''; ATTACH'",
	} {
		t.Run(name, func(t *testing.T) {
			_, rows, err := run(t.Context(), b, source.Statement{SQL: sql, Fetch: 2})
			var ge *guard.Error
			var se *guard.SyntaxError
			switch {
			case name == "keyword in string":
				if err != nil || len(rows) != 1 {
					t.Errorf("a string holding keywords: %v", err)
				}
			case name == "deep brackets" && err == nil:
				// DuckDB reads brackets without nesting its tree: fine.
			case err == nil:
				t.Errorf("accepted: %d rows", len(rows))
			case !errors.As(err, &ge) && !errors.As(err, &se):
				var ee *source.EngineError
				if !errors.As(err, &ee) {
					t.Errorf("err = %T %v, want the guard's or DuckDB's error", err, err)
				}
			}
		})
	}
	if _, rows, err := run(t.Context(), b, source.Statement{SQL: "SELECT 2"}); err != nil || rows[0][0] != int64(2) {
		t.Errorf("afterwards: %v %v", rows, err)
	}
}

// TestBindingBound: a statement that makes DuckDB bind more queries than
// the guard allows (a wide UNION ALL, a chain of WITH queries each naming
// the one before twice, inlined) is refused before DuckDB binds it, and
// the shapes real queries have stay allowed.
func TestBindingBound(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	branches := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("SELECT %d AS x", i)
		}
		return strings.Join(parts, " UNION ALL ")
	}
	chain := func(depth int) string {
		var q strings.Builder
		q.WriteString("WITH c0 AS (SELECT 1 AS x)")
		for i := 1; i <= depth; i++ {
			fmt.Fprintf(&q, ", C%d AS NOT MATERIALIZED (SELECT x FROM c%d UNION ALL SELECT x FROM c%d)", i, i-1, i-1)
		}
		fmt.Fprintf(&q, " SELECT count(*) FROM c%d", depth)
		return q.String()
	}
	for name, sql := range map[string]string{
		"8,000 UNION ALL branches":     branches(8000),
		"a doubling WITH chain of 20":  chain(20),
		"a doubling chain in EXPLAIN":  "EXPLAIN " + chain(12),
		"a doubling chain in subquery": "SELECT (" + chain(11) + ")",
		"a WITH query nothing names":   "WITH unused AS (" + branches(2000) + ") SELECT 1",
	} {
		_, _, err := run(t.Context(), b, source.Statement{SQL: sql})
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Error(), "bind") {
			t.Errorf("%s: err = %v, want the guard's refusal", name, err)
		}
	}
	for name, want := range map[string]struct {
		sql  string
		rows int
	}{
		"500 UNION ALL branches":         {branches(500), 500},
		"a doubling WITH chain of 8":     {chain(8), 1},
		"a WITH query named three times": {"WITH p AS (SELECT id FROM people) SELECT a.id FROM p a JOIN p b USING (id) JOIN p c USING (id)", 3},
		"a recursive WITH query":         {"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r", 5},
	} {
		if _, rows, err := run(t.Context(), b, source.Statement{SQL: want.sql}); err != nil || len(rows) != want.rows {
			t.Errorf("%s: %d rows, %v; want %d rows", name, len(rows), err, want.rows)
		}
	}
}

// TestJoinBound: a statement that makes DuckDB order more joins than the
// guard allows, however it spells them, is refused before DuckDB plans it,
// and 64 joins pass the guard.
func TestJoinBound(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	joins := func(n int, item string) string {
		var q strings.Builder
		q.WriteString("SELECT count(*) FROM people p")
		for i := range n {
			q.WriteString(" " + strings.ReplaceAll(item, "{i}", fmt.Sprint(i)))
		}
		return q.String()
	}
	for name, sql := range map[string]string{
		"65 JOINs":                   joins(65, "JOIN people p{i} ON p{i}.id = p.id"),
		"65 commas":                  joins(65, ", people p{i}"),
		"65 through a WITH query":    "WITH w AS (" + joins(40, "JOIN people p{i} ON p{i}.id = p.id") + ") " + joins(25, "JOIN people q{i} ON true") + ", w",
		"a WITH query named twice":   "WITH w AS (" + joins(33, "JOIN people p{i} ON p{i}.id = p.id") + ") SELECT * FROM w a, w b",
		"65 in a WITH query unnamed": "WITH w AS (" + joins(65, ", people p{i}") + ") SELECT 1",
		"65 in subqueries":           joins(33, "JOIN (SELECT p.id FROM people p JOIN people q ON p.id = q.id) s{i} ON s{i}.id = p.id"),
	} {
		_, _, err := run(t.Context(), b, source.Statement{SQL: sql})
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Error(), "joins") {
			t.Errorf("%s: err = %v, want the guard's refusal", name, err)
		}
	}
	// 64 are planned; running them may need more memory than the limit.
	_, _, err := run(t.Context(), b, source.Statement{SQL: joins(64, "JOIN people p{i} ON p{i}.id = p.id")})
	if ge := (*guard.Error)(nil); errors.As(err, &ge) {
		t.Errorf("64 JOINs: %v", err)
	}
	if _, rows, err := run(t.Context(), b, source.Statement{SQL: joins(8, ", people p{i}")}); err != nil || len(rows) != 1 {
		t.Errorf("8 commas: %d rows, %v", len(rows), err)
	}
}

// TestTimeoutThroughTheDoor: Limits.Timeout stops a runaway query inside
// DuckDB and the door reports a *source.TimeoutError.
func TestTimeoutThroughTheDoor(t *testing.T) {
	dir, _ := fixture(t)
	db, err := source.Open(t.Context(), dir, &source.Options{Limits: sqlmcp.Limits{Timeout: 500 * time.Millisecond},
		Engines: []source.Engine{duckdb.Engine{}}})
	must(t, err)
	defer db.Close()
	_, err = db.Query(t.Context(), "SELECT count(*) FROM range(1000000000000) a, range(1000) b WHERE a.range + b.range = 3", 0)
	var te *source.TimeoutError
	if !errors.As(err, &te) || te.Running {
		t.Fatalf("err = %v, want a timeout, stopped", err)
	}
	res, err := db.Query(t.Context(), "SELECT 1", 0)
	if err != nil || len(res.Rows) != 1 {
		t.Errorf("afterwards: %v", err)
	}
}
