package sqlite_test

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// bomb is the compile bomb: each WITH level repeats the one below twice,
// so the expression SQLite builds after inlining doubles per level.
func bomb(levels int) string {
	var b strings.Builder
	b.WriteString("WITH a0 AS (SELECT 1 AS x)")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, ", a%d AS NOT MATERIALIZED (SELECT x + x AS x FROM a%d)", i, i-1)
	}
	fmt.Fprintf(&b, " SELECT x FROM a%d", levels)
	return b.String()
}

// repeatJoin joins n copies of s with sep.
func repeatJoin(s, sep string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strings.ReplaceAll(s, "{i}", fmt.Sprint(i))
	}
	return strings.Join(parts, sep)
}

// TestSQLiteLimitsFire: each limit SQLite enforces on sqlmcp's connections
// stops a statement past it with an error that says what to change.
func TestSQLiteLimitsFire(t *testing.T) {
	db := dbtest.SQLite(t, nil)
	for _, c := range []struct{ name, sql, want string }{
		{"value length", "SELECT length(zeroblob(9000000))", "no value may be longer than 4194304 bytes"},
		{"value length grown", "SELECT length(replace(hex(zeroblob(2000000)), '0', '00'))", "no value may be longer than"},
		{"expression depth", "SELECT " + strings.Repeat("(1 + ", 600) + "1" + strings.Repeat(")", 600), "Expression tree is too large (maximum depth 500)"},
		{"compound select", repeatJoin("SELECT {i}", " UNION ALL ", 201), "too many terms in compound SELECT"},
		{"variable number", "SELECT ?101", "variable number must be between ?1 and ?100"},
		{"function arguments", "SELECT char(" + repeatJoin("65", ",", 101) + ")", "too many arguments on function char"},
		{"like pattern", "SELECT 'a' LIKE '" + strings.Repeat("%a", 26) + "'", "LIKE and GLOB patterns may be at most 50 bytes"},
		{"glob pattern", "SELECT 'a' GLOB '" + strings.Repeat("*a", 26) + "'", "LIKE and GLOB patterns may be at most 50 bytes"},
		{"heap", bomb(24), "more memory than this server lets SQLite use"},
		{"trim characters", "SELECT trim('abc', '" + strings.Repeat("é", 65) + "')", "at most 64 characters to strip"},
		{"unhex with separators", "SELECT unhex('01-02', '-')", "unhex(X, Y) is not available on this server"},
		{"common table expressions", "WITH " + repeatJoin("a{i} AS NOT MATERIALIZED (SELECT 1)", ", ", 1001) + " SELECT 1", "the SQL defines 1001 common table expressions"},
		{"json_patch", `SELECT json_patch('{"a":1}', '{"b":2}')`, "json_patch is not available on this server"},
		{"jsonb_patch", `SELECT jsonb_patch('{"a":1}', '{"b":2}')`, "json_patch is not available on this server"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := db.Query(t.Context(), c.sql, 0)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	// The connection still answers after each.
	if _, err := db.Query(t.Context(), "SELECT 1", 0); err != nil {
		t.Fatal(err)
	}
}

// TestSQLiteOrdinaryStillCompiles: SQL that is big but not explosive stays
// inside the limits.
func TestSQLiteOrdinaryStillCompiles(t *testing.T) {
	db := dbtest.SQLite(t, nil)
	linear := "WITH c0 AS (SELECT 1 AS x)"
	for i := 1; i <= 120; i++ {
		linear += fmt.Sprintf(", c%d AS (SELECT x + 1 AS x FROM c%d)", i, i-1)
	}
	linear += " SELECT x FROM c120"
	nested := "SELECT count(*) FROM customers WHERE id IN (" + strings.Repeat("SELECT customer_id FROM \"order\" WHERE customer_id IN (", 20) +
		"SELECT id FROM customers" + strings.Repeat(")", 21)
	for _, c := range []struct{ name, sql string }{
		{"linear CTE chain", linear},
		{"50-way union", repeatJoin("SELECT {i} AS n, 'x{i}' AS s", " UNION ", 50)},
		{"long CASE", "SELECT CASE id " + repeatJoin("WHEN {i} THEN 'v{i}'", " ", 300) + " END FROM customers"},
		{"nested subqueries", nested},
		{"wide IN list", "SELECT count(*) FROM customers WHERE id IN (" + repeatJoin("{i}", ",", 2000) + ")"},
		{"long LIKE", "SELECT count(*) FROM customers WHERE name LIKE '%" + strings.Repeat("a", 40) + "%'"},
		{"trim of 64 characters", "SELECT trim(name, '" + strings.Repeat("é", 64) + "') FROM customers"},
		{"unhex", "SELECT unhex('0102')"},
		{"bomb of 16 levels", bomb(16)},
		{"1,000 common table expressions", "WITH " + repeatJoin("a{i} AS (SELECT {i} AS x)", ", ", 998) + ", w AS (SELECT 1) SELECT x FROM a997 WINDOW w AS ()"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := db.Query(t.Context(), c.sql, 0); err != nil {
				t.Fatalf("refused: %v", err)
			}
		})
	}
}

// TestSQLiteLongValuesCut: a value longer than --max-cell-bytes comes back
// cut with its real size, read no further than shown.
func TestSQLiteLongValuesCut(t *testing.T) {
	db := dbtest.SQLite(t, nil)
	res, err := db.Query(t.Context(), "SELECT zeroblob(4000000), hex(zeroblob(1500000)), 'é' || hex(zeroblob(2000)), x'00ff'", 0)
	if err != nil {
		t.Fatal(err)
	}
	row := res.Rows[0]
	for i, want := range []string{
		"<blob 4000000 bytes: x'00000000000000000000000000000000'…>",
		strings.Repeat("0", 2048) + "…[cut: 3000000 bytes in all]",
		"é" + strings.Repeat("0", 2046) + "…[cut: 4002 bytes in all]",
		"<blob 2 bytes: x'00ff'>",
	} {
		if row[i] != want {
			t.Errorf("cell %d: got %.120q, want %.120q", i, row[i], want)
		}
	}
}

// TestLinearFunctionsMatchSQLite: sqlmcp's instr, replace and trim give what
// SQLite's built-in ones give, on text, BLOBs, numbers, NULLs, multi-byte
// characters and edge cases.
func TestLinearFunctionsMatchSQLite(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	plain, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	db := dbtest.Open(t, path, nil)
	args := []string{"NULL", "''", "'a'", "'aa'", "'aaa'", "'abcabc'", "'bc'", "'héllo wörld'", "'ö'", "'wö'", "'l'",
		"x''", "x'00'", "x'0102'", "x'610062'", "x'c3b6'", "x'b6'", "12", "1.5", "1.0/3", "2", "'3'", "-0.0", "'a' || char(0) || 'b'", "char(0)"}
	var exprs []string
	for _, x := range args {
		for _, y := range args {
			exprs = append(exprs, fmt.Sprintf("instr(%s, %s)", x, y))
			exprs = append(exprs, fmt.Sprintf("replace(%s, %s, 'Z')", x, y), fmt.Sprintf("replace(%s, %s, %s)", x, y, x))
		}
	}
	for _, x := range args {
		for _, y := range append(args, "'ab'", "'ba'", "'öh'", "x'c3'", "x'c380'", "'"+strings.Repeat("xyzé", 16)+"'") {
			for _, f := range []string{"trim", "ltrim", "rtrim"} {
				exprs = append(exprs, fmt.Sprintf("%s(%s, %s)", f, x, y))
			}
		}
	}
	exprs = append(exprs, "instr(name, 'a')", "replace(name, 'a', 'éé')", "trim(name, 'aA')", "rtrim(name, 'ecal')",
		"trim('ababXab', 'ab')", "ltrim(x'c380c3' || 'a', x'c3')", "rtrim('aé' || x'80', x'80')", "trim(' x ')")
	for _, e := range exprs {
		q := "SELECT quote(" + e + ") FROM customers ORDER BY id"
		var want []string
		rows, err := plain.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s)
			want = append(want, s)
		}
		rows.Close()
		res, err := db.Query(t.Context(), q, 0)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for i, r := range res.Rows {
			if r[0] != want[i] {
				t.Errorf("%s: got %v, want %v", e, r[0], want[i])
				break
			}
		}
	}
}

// TestSQLiteInterruptDoesNotLinger: after a timeout interrupts a statement,
// the next statement on the same connection runs.
func TestSQLiteInterruptDoesNotLinger(t *testing.T) {
	db := dbtest.SQLite(t, &source.Options{Limits: sqlmcp.Limits{Timeout: 200 * time.Millisecond}, MaxConns: 1})
	for range 3 {
		_, err := db.Query(t.Context(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", 0)
		var te *source.TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("got %v, want a timeout", err)
		}
		if _, err := db.Query(t.Context(), "SELECT 1", 0); err != nil {
			t.Fatalf("the statement after a timeout: %v", err)
		}
	}
}
