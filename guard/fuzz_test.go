package guard_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// fuzzSeeds are hostile inputs beyond the shared corpus: dollar quotes
// (PostgreSQL's, text to SQLite), nested and unterminated comments, writes
// wrapped in CTEs, PRAGMA spellings, ATTACH in its disguises and Unicode
// identifiers. {{dir}} stands for the directory where a write would land.
var fuzzSeeds = []string{
	"SELECT $$; DELETE FROM customers; $$",
	"SELECT $tag$ ; DROP TABLE customers; $tag$",
	"$$DELETE FROM customers$$",
	"SELECT 1 /* outer /* inner */ ; DELETE FROM customers; */",
	"/* /* */ */ DELETE FROM customers",
	"SELECT 1 /* unterminated ; DELETE FROM customers",
	"SELECT 1 -- c\r; DELETE FROM customers",
	"WITH x AS (SELECT 1) DELETE FROM customers WHERE id IN (SELECT * FROM x)",
	"WITH x AS (SELECT 1) UPDATE customers SET name = (SELECT * FROM x)",
	"WITH x AS (SELECT 1) INSERT INTO drop_log(note) SELECT * FROM x RETURNING *",
	"WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM x) DELETE FROM customers",
	"WITH x AS MATERIALIZED (SELECT 1) SELECT * FROM x; DELETE FROM customers",
	"PRAGMA main.user_version = 1",
	"PRAGMA user_version(1)",
	"pragma \"user_version\" = 1",
	"PRAGMA temp.journal_mode = MEMORY",
	"PRAGMA writable_schema = 1; UPDATE sqlite_schema SET sql = 'x'",
	"PRAGMA schema_version = 1",
	"PRAGMA foreign_keys = ON",
	"PRAGMA query_only",
	"SELECT * FROM pragma_user_version",
	"SELECT * FROM pragma_schema_version",
	"SELECT * FROM pragma_integrity_check",
	"SELECT * FROM pragma_table_info('customers')",
	"ATTACH '{{dir}}/a.db' AS a",
	"ATTACH DATABASE 'file:{{dir}}/b.db?mode=rwc' AS b",
	"attach '' as e",
	"SELECT 1 FROM (SELECT 1); ATTACH '{{dir}}/c.db' AS c",
	"VACUUM INTO '{{dir}}/v.db'",
	"VACUUM main INTO 'file:{{dir}}/w.db'",
	"SELECT writefile('{{dir}}/f.txt', 'x')",
	"SELECT load_extension('{{dir}}/x')",
	"SELECT \"名前\" FROM customers",
	"SELECT 1 AS \"ünïcödé\", 'ß' AS \"ΣΑΣ\"",
	"SELECT name AS 名前 FROM customers WHERE name = 'Ada Lovelace'",
	"DELETE FROM ｃｕｓｔｏｍｅｒｓ",
	"SELECT 1;\u00a0DELETE FROM customers",
	"SELECT 1;\u2028DELETE FROM customers",
	"SELECT 1\v; DELETE FROM customers",
	"SELECT 'it''s'; DELETE FROM customers",
	"SELECT [a;b] FROM (SELECT 1 AS [a;b]); DELETE FROM customers",
	"SELECT `a;b` FROM (SELECT 1 AS `a;b`); DELETE FROM customers",
	"SELECT \"a\"\"; DELETE FROM customers",
	"SELECT x'00'; DELETE FROM customers",
	"EXPLAIN SELECT 1; DELETE FROM customers",
	"EXPLAIN QUERY PLAN DELETE FROM customers",
	"SELECT * FROM customers WHERE id = ?; DELETE FROM customers",
	"SELECT changes(), total_changes(), last_insert_rowid()",
	"SELECT sqlite_offset(id) FROM customers",
	"SELECT * FROM json_each('[1,2,3]')",
	"SELECT randomblob(2000000000)",
	"SELECT printf('%.*c', 2000000000, 'x')",
	"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
	"BEGIN EXCLUSIVE",
	"END",
	"ROLLBACK TO a",
	"CREATE TEMP TRIGGER t AFTER INSERT ON customers BEGIN SELECT 1; END",
	"DROP TABLE IF EXISTS temp.x",
	"INSERT INTO temp.sqlite_master VALUES ('table', 'x', 'x', 0, 'CREATE TABLE x(a)')",
	"SELECT 1 UNION ALL SELECT 2 ORDER BY 1 LIMIT -1 OFFSET 0;;;  ",
	"\ufeffSELECT 1",
}

// FuzzCheck holds the guard to its promise alone, on a writable connection
// with no read-only engine behind it: it never panics, answers the same
// twice, and whatever it accepts runs without changing a byte of the
// fixture or writing a file.
func FuzzCheck(f *testing.F) {
	dir := f.TempDir() // where {{dir}} points: writes there would show
	for _, c := range dbtest.HostileSQLite {
		f.Add(c.SQL)
	}
	for _, c := range dbtest.AllowedSQLite {
		f.Add(c.SQL)
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}

	path := dbtest.SQLiteFile(f)
	want := dbtest.Fingerprint(f, path)
	dc, err := (&sqlite3.SQLiteDriver{}).Open(path)
	if err != nil {
		f.Fatal(err)
	}
	conn := dc.(*sqlite3.SQLiteConn)
	f.Cleanup(func() { conn.Close() })
	// Bound values as source does, so a zeroblob bomb fails fast instead of
	// taking a gigabyte; the limit is the engine's, not the guard's.
	conn.SetLimit(sqlite3.SQLITE_LIMIT_LENGTH, 1<<20)
	g, err := guard.NewSQLite(conn)
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > guard.MaxSQLBytes+10 {
			t.Skip("longer than the guard reads")
		}
		text = strings.ReplaceAll(text, "{{dir}}", dir)
		st, err := g.Prepare(text)
		first := "accepted"
		if err != nil {
			first = "refused: " + err.Error()
		}
		if second := verdict(g, text); second != first {
			t.Fatalf("Prepare(%.200q) answered differently when asked twice:\n first: %s\nsecond: %s", text, first, second)
		}
		if err != nil {
			return
		}
		defer st.Close()
		step(t, st.(*sqlite3.SQLiteStmt))
		if err := st.Close(); err != nil {
			t.Fatalf("closing the statement of %.200q: %v", text, err)
		}
		if !conn.AutoCommit() {
			t.Fatalf("accepted %.200q, which left a transaction open", text)
		}
		if got := conn.GetLimit(sqlite3.SQLITE_LIMIT_ATTACHED); got != 0 {
			t.Fatalf("accepted %.200q, after which the ATTACH limit is %d, want 0", text, got)
		}
		if got := dbtest.Fingerprint(t, path); got != want {
			t.Fatalf("accepted %.200q, and the database file changed", text)
		}
		assertOnly(t, filepath.Dir(path), filepath.Base(path))
		dbtest.AssertEmptyDir(t, dir)
	})
}

// verdict is what the guard says of text, as one comparable string.
func verdict(g *guard.SQLite, text string) string {
	st, err := g.Prepare(text)
	if err != nil {
		return "refused: " + err.Error()
	}
	st.Close()
	return "accepted"
}

// step runs an accepted statement to its end, or for 10,000 rows or a
// second, whichever comes first. Errors while stepping are fine (the
// engine may stop a query); a write is not, and the caller looks for one.
func step(t *testing.T, st *sqlite3.SQLiteStmt) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	dr, err := st.QueryContext(ctx, nil)
	if err != nil {
		return
	}
	rows := dr.(*sqlite3.SQLiteRows)
	defer rows.Close()
	// As source does: keep stored values rather than the driver's
	// conversions of DATE or BOOLEAN columns.
	decl := rows.DeclTypes()
	for i := range decl {
		decl[i] = ""
	}
	dest := make([]driver.Value, len(decl))
	for range 10_000 {
		if err := rows.Next(dest); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Logf("stepping stopped: %v", err)
			}
			return
		}
	}
}

// assertOnly fails the test if dir holds anything but name: a journal or
// WAL file left beside the database means something wrote.
func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != name {
			t.Errorf("a file appeared beside the database: %s", e.Name())
		}
	}
}
