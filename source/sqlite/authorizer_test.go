package sqlite

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
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
	rd := func(table, column, view string) r { return r{Table: table, Column: column, View: view} }
	for _, c := range []struct {
		sql  string
		want []r
	}{
		{"SELECT x FROM a WHERE y > 1 ORDER BY x", []r{rd("a", "x", ""), rd("a", "y", ""), rd("a", "x", "")}},
		{"SELECT x AS e FROM a ORDER BY e", []r{rd("a", "x", "")}},
		{"SELECT x FROM a ORDER BY 1", []r{rd("a", "x", "")}},
		{"SELECT * FROM a", []r{rd("a", "id", ""), rd("a", "x", ""), rd("a", "y", "")}},
		{"SELECT t.* FROM a t, b", []r{rd("a", "id", ""), rd("a", "x", ""), rd("a", "y", ""), rd("b", "", "")}},
		{"SELECT count(*) FROM a", []r{rd("a", "", "")}},
		{"SELECT rowid FROM n", []r{rd("n", "ROWID", ""), rd("n", "", "")}},
		{"SELECT rowid FROM a", []r{rd("a", "id", ""), rd("a", "", "")}},
		{"SELECT (x, y) = (1, 2) FROM a", []r{rd("a", "x", ""), rd("a", "y", "")}},
		{"SELECT x FROM a WHERE id IN (SELECT id FROM b)", []r{rd("a", "x", ""), rd("b", "id", ""), rd("a", "id", "")}},
		{"SELECT s FROM (SELECT x AS s FROM a) AS b", []r{rd("a", "x", "")}},
		{"WITH c AS (SELECT x FROM a) SELECT x FROM c", []r{rd("a", "x", "c")}},
		{"WITH c AS MATERIALIZED (SELECT 1 FROM b) SELECT count(*) FROM c", []r{rd("c", "", ""), rd("b", "", "c")}},
		{"SELECT x FROM v1", []r{rd("a", "id", "v1"), rd("a", "x", "v1"), rd("v1", "x", "")}},
		{"SELECT x FROM v2", []r{rd("a", "id", "v1"), rd("a", "x", "v1"), rd("v1", "x", "v2"), rd("v2", "x", "")}},
		{"SELECT count(*) FROM v1", []r{rd("a", "id", "v1"), rd("a", "x", "v1"), rd("a", "", "")}},
		{"SELECT c FROM vc", []r{rd("vc", "c", ""), rd("b", "", "vc")}},
		{"SELECT 1 FROM a JOIN b USING (id)", []r{rd("a", "", "")}},
		{"SELECT 1 FROM a t NATURAL JOIN a u", nil},
		{"SELECT name FROM sqlite_schema", []r{rd("sqlite_master", "name", "")}},
		{"SELECT name FROM pragma_table_info('a')", []r{rd("pragma_table_info", "name", "")}},
		{"SELECT value FROM json_each('[1]')", []r{rd("json_each", "value", "")}},
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

// onePolicy lets queries read the tables and views it lists, every column
// allowed but those it denies.
type onePolicy map[string][]guard.PolicyColumn

func (p onePolicy) Relation(schema, name string) (guard.PolicyRelation, bool) {
	cols, ok := p[name]
	if schema != "" || !ok {
		return guard.PolicyRelation{}, false
	}
	return guard.PolicyRelation{Name: name, Columns: cols}, true
}

// guardedConn makes a file of ddl and returns a writing handle on it and a
// connection of a guarded pool of one, each closed when the test ends.
func guardedConn(t *testing.T, ddl string) (w *sql.DB, c *sql.Conn) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if _, err := w.Exec(ddl); err != nil {
		t.Fatal(err)
	}
	db, err := openSQLite(path, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if c, err = db.Conn(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return w, c
}

// TestPolicySchemaChangeBeforeStep: a statement judged under a policy that
// SQLite compiles again when it steps, because another connection changed
// the schema meanwhile, may read only what was judged.
func TestPolicySchemaChangeBeforeStep(t *testing.T) {
	w, c := guardedConn(t, `CREATE TABLE u (id INTEGER PRIMARY KEY, name TEXT, password TEXT);
		INSERT INTO u VALUES (1, 'ann', 'pw-secret');
		CREATE VIEW names AS SELECT id, name FROM u`)
	p := onePolicy{
		"u":     {{Name: "id"}, {Name: "name"}, {Name: "password", Access: guard.Denied}},
		"names": {{Name: "id"}, {Name: "name"}},
	}
	err := c.Raw(func(dc any) error {
		sc := dc.(*sqliteConn)
		st, _, err := sc.prepare("SELECT name FROM names", p, false)
		if err != nil {
			return err
		}
		defer st.Close()
		if _, err := w.Exec("DROP VIEW names; CREATE VIEW names AS SELECT id, password AS name FROM u"); err != nil {
			return err
		}
		var got []any
		err = stepSQLite(st, nil, 0, 0, true, nil, func(row []any) bool { got = append(got, row...); return true })
		if err == nil {
			t.Errorf("the recompiled statement ran, returning %v", got)
		}
		if e := sc.guard.StepRefusal(errors.Is(err, errRecompiled)); e == nil || strings.Contains(e.Error(), "password") {
			t.Errorf("StepRefusal after the recompiled statement's refusal: %v (the engine said %v)", e, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// schemaLooks counts the guard's looks at sqlite_schema for the type of
// one name.
type schemaLooks struct {
	*sqliteConn
	looks int
}

func (c *schemaLooks) Query(query string, args []driver.Value) (driver.Rows, error) {
	if strings.Contains(query, "FROM main.sqlite_schema WHERE name = ?1") {
		c.looks++
	}
	return c.SQLiteConn.Query(query, args)
}

// TestPolicyLooksOncePerName: under a policy, the guard looks up the type
// of each name a statement gives once, however often it gives it: a
// megabyte of FROM t, t, t, ... was a hundred thousand queries.
func TestPolicyLooksOncePerName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "looks.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec(`CREATE TABLE a (x); CREATE TABLE hidden (y)`); err != nil {
		t.Fatal(err)
	}
	dc, err := (&sqlite3.SQLiteDriver{}).Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := &schemaLooks{sqliteConn: &sqliteConn{SQLiteConn: dc.(*sqlite3.SQLiteConn)}}
	defer sc.Close()
	g, err := guard.NewSQLite(sc)
	if err != nil {
		t.Fatal(err)
	}
	p := onePolicy{"a": {{Name: "x"}}}
	for _, sql := range []string{
		"SELECT 1 FROM " + strings.Repeat("nosuch, NoSuch, ", 200) + "nosuch",
		"SELECT 1 FROM a WHERE x IN (" + strings.Repeat("SELECT 1 FROM Nosuch UNION ", 200) + "SELECT 1)",
	} {
		sc.looks = 0
		st, _, err := g.PreparePolicy(sql, p)
		if err == nil {
			st.Close()
			t.Fatalf("%.60q was accepted", sql)
		}
		if sc.looks == 0 || sc.looks > 2 {
			t.Errorf("%.60q: %d looks at sqlite_schema; want one or two (%v)", sql, sc.looks, err)
		}
	}
}

// TestPolicyRecompiledMaskStays: a statement judged under a policy whose
// table another connection makes again, with the same columns in another
// order, reads only what was judged when SQLite compiles it again; but the
// masked column would then stand at another place in the result than the
// mask. The run is refused before any column or row is handed on.
func TestPolicyRecompiledMaskStays(t *testing.T) {
	w, c := guardedConn(t, `CREATE TABLE u (id INTEGER PRIMARY KEY, email TEXT, name TEXT);
		INSERT INTO u VALUES (1, 'ann@example.com', 'ann')`)
	p := onePolicy{"u": {{Name: "id"}, {Name: "email", Access: guard.Masked}, {Name: "name"}}}
	err := c.Raw(func(dc any) error {
		sc := dc.(*sqliteConn)
		st, masked, err := sc.prepare("SELECT * FROM u", p, false)
		if err != nil {
			return err
		}
		defer st.Close()
		if len(masked) != 1 || masked[0].Position != 1 {
			t.Fatalf("masked %+v, want the email at 1", masked)
		}
		if _, err := w.Exec(`DROP TABLE u; CREATE TABLE u (id INTEGER PRIMARY KEY, name TEXT, email TEXT);
			INSERT INTO u VALUES (1, 'ann', 'ann@example.com')`); err != nil {
			return err
		}
		var names []string
		var got []any
		err = stepSQLite(st, nil, 0, 0, true, func(cols []source.Column) {
			for _, col := range cols {
				names = append(names, col.Name)
			}
		}, func(row []any) bool { got = append(got, row...); return true })
		if !errors.Is(err, errRecompiled) || names != nil || got != nil {
			t.Errorf("the recompiled statement: %v, columns %v, rows %v; want it refused before either", err, names, got)
		}
		if e := sc.guard.StepRefusal(true); e == nil {
			t.Error("no refusal for the recompiled statement")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
