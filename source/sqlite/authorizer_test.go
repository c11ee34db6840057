package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/guard"
)

// TestAuthorizerReads pins what SQLite's authorizer reports a statement
// reads (guard/sqlite_policy.go relies on it): one read per column
// reference, * expanded, views' and CTEs' bodies with their name as the
// context, column "" for a table read for its rows only, nothing at all
// for USING and NATURAL JOIN columns.
func TestAuthorizerReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reads.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Exec(`CREATE TABLE a (id INTEGER PRIMARY KEY, x, y);
		CREATE TABLE b (id INT, z);
		CREATE TABLE n (p, q);
		CREATE VIEW v1 AS SELECT id, x FROM a;
		CREATE VIEW v2 AS SELECT x FROM v1;
		CREATE VIEW vc AS SELECT count(*) AS c FROM b`)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	dc, err := (&sqlite3.SQLiteDriver{}).Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := &sqliteConn{SQLiteConn: dc.(*sqlite3.SQLiteConn)}
	defer sc.Close()
	g, err := guard.NewSQLite(sc)
	if err != nil {
		t.Fatal(err)
	}
	type r = guard.SQLiteRead
	for _, c := range []struct {
		sql  string
		want []r
	}{
		{"SELECT x FROM a WHERE y > 1 ORDER BY x", []r{{"a", "x", ""}, {"a", "y", ""}, {"a", "x", ""}}},
		{"SELECT x AS e FROM a ORDER BY e", []r{{"a", "x", ""}}},
		{"SELECT x FROM a ORDER BY 1", []r{{"a", "x", ""}}},
		{"SELECT * FROM a", []r{{"a", "id", ""}, {"a", "x", ""}, {"a", "y", ""}}},
		{"SELECT t.* FROM a t, b", []r{{"a", "id", ""}, {"a", "x", ""}, {"a", "y", ""}, {"b", "", ""}}},
		{"SELECT count(*) FROM a", []r{{"a", "", ""}}},
		{"SELECT rowid FROM n", []r{{"n", "ROWID", ""}, {"n", "", ""}}},
		{"SELECT rowid FROM a", []r{{"a", "id", ""}, {"a", "", ""}}},
		{"SELECT (x, y) = (1, 2) FROM a", []r{{"a", "x", ""}, {"a", "y", ""}}},
		{"SELECT x FROM a WHERE id IN (SELECT id FROM b)", []r{{"a", "x", ""}, {"b", "id", ""}, {"a", "id", ""}}},
		{"SELECT s FROM (SELECT x AS s FROM a) AS b", []r{{"a", "x", ""}}},
		{"WITH c AS (SELECT x FROM a) SELECT x FROM c", []r{{"a", "x", "c"}}},
		{"WITH c AS MATERIALIZED (SELECT 1 FROM b) SELECT count(*) FROM c", []r{{"c", "", ""}, {"b", "", "c"}}},
		{"SELECT x FROM v1", []r{{"a", "id", "v1"}, {"a", "x", "v1"}, {"v1", "x", ""}}},
		{"SELECT x FROM v2", []r{{"a", "id", "v1"}, {"a", "x", "v1"}, {"v1", "x", "v2"}, {"v2", "x", ""}}},
		{"SELECT count(*) FROM v1", []r{{"a", "id", "v1"}, {"a", "x", "v1"}, {"a", "", ""}}},
		{"SELECT c FROM vc", []r{{"vc", "c", ""}, {"b", "", "vc"}}},
		{"SELECT 1 FROM a JOIN b USING (id)", []r{{"a", "", ""}}},
		{"SELECT 1 FROM a t NATURAL JOIN a u", nil},
		{"SELECT name FROM sqlite_schema", []r{{"sqlite_master", "name", ""}}},
		{"SELECT name FROM pragma_table_info('a')", []r{{"pragma_table_info", "name", ""}}},
		{"SELECT value FROM json_each('[1]')", []r{{"json_each", "value", ""}}},
	} {
		got, err := g.Reads(c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if len(got) == 0 {
			got = nil
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: reads (-want +got):\n%s", c.sql, diff)
		}
	}
}
