package sqlite_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// windows is n window functions over t.x, in expressions of 90 arguments
// (SQLite's 2,000 result columns would stop more than that, not its
// compiler).
func windows(n int) string {
	var cols []string
	for i := 0; i < n; i += 90 {
		var args []string
		for j := i; j < min(i+90, n); j++ {
			args = append(args, fmt.Sprintf("count(*) OVER (PARTITION BY x + %d)", j))
		}
		if len(args) == 1 {
			args = append(args, "0")
		}
		cols = append(cols, "max("+strings.Join(args, ", ")+")")
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM t"
}

// TestCostlyViewsRefused: a served file's view is compiled into every
// statement that reads it, by SQLite's code generator, which the interrupt
// does not reach; the bounds on window functions and common table
// expressions count the views a statement reads, at each mention, and a
// view past them alone is refused however it is reached, so the file opens
// and its other tables answer. (A view of 2,250 window functions took
// SQLite 27 s to compile, and pragma_table_list, which the catalog reads,
// compiled it: sqlmcp could not start on the file.)
func TestCostlyViewsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "views.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE t (x INTEGER)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20) INSERT INTO t SELECT i FROM n",
		"CREATE VIEW heavy AS " + windows(400),
		"CREATE VIEW light AS " + windows(120),
		"CREATE VIEW twice AS SELECT * FROM light AS a, light AS b",
		"CREATE VIEW defs AS WITH " + repeatJoin("d{i} AS (SELECT 1 AS y)", ", ", 1001) + " SELECT y FROM d0",
		"CREATE VIEW plain AS SELECT x FROM t",
		// Circular views compile to an error; costing them must end.
		"CREATE VIEW circle_a AS SELECT * FROM circle_b",
		"CREATE VIEW circle_b AS SELECT * FROM circle_a",
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	w.Close()
	db := dbtest.Open(t, path, nil)
	for _, c := range []struct{ name, sql, want string }{
		{"a costly view", "SELECT count(*) FROM heavy", "400 window functions (OVER), counting those of the views it reads"},
		{"a costly view in a subquery", "SELECT * FROM (SELECT * FROM [heavy])", "window functions"},
		{"a view costly through the views it reads", "SELECT * FROM twice", "240 window functions"},
		{"a view read twice", "SELECT 1 FROM light AS a, light AS b", "240 window functions"},
		{"a view past the definitions", "SELECT * FROM defs", "1001 common table expressions"},
		{"a view named by a computed text", "SELECT * FROM pragma_table_xinfo(char(104, 101, 97, 118, 121))", `reading the view "heavy" (its body compiles to 400 window functions`},
		{"every view compiled", "SELECT count(*) FROM pragma_table_list", "pragma_table_list compiles every view"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := db.Query(t.Context(), c.sql, 0)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	for _, q := range []string{"SELECT count(*) FROM light", "SELECT * FROM plain", "SELECT x FROM t"} {
		if _, err := db.Query(t.Context(), q, 0); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	if _, err := db.Query(t.Context(), "SELECT * FROM circle_a", 0); err == nil || !strings.Contains(err.Error(), "circularly defined") {
		t.Errorf("a circular view: got %v, want SQLite's error", err)
	}
}

// TestLongSchemaTextCut: a served file's declared types and defaults are
// its author's text, of any length; the catalog and a result's columns
// keep at most a few hundred bytes of each, with the marker saying the
// real size. (150 columns typed with 100,000 bytes each made describe_table
// answer 30 MB and SELECT * 15 MB, past --max-bytes.)
func TestLongSchemaTextCut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("T", 100000)
	if _, err := w.Exec(`CREATE TABLE w (a "` + long + `" DEFAULT '` + long + `', b INTEGER DEFAULT 7); INSERT INTO w (b) VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	db := dbtest.Open(t, path, nil)
	tables, err := db.ReadTables(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 || len(tables[0].Columns) != 2 {
		t.Fatalf("tables %+v, want w with 2 columns", tables)
	}
	a, b := tables[0].Columns[0], tables[0].Columns[1]
	if len(a.Type) > 300 || !strings.Contains(a.Type, "100000 bytes in all") {
		t.Errorf("the long type is %d bytes (%.40q...), want it cut with its size", len(a.Type), a.Type)
	}
	if a.Default == nil || len(*a.Default) > 1100 || !strings.Contains(*a.Default, "100002 bytes in all") {
		t.Errorf("the long default is not cut with its size: %.80v", a.Default)
	}
	if b.Type != "INTEGER" || b.Default == nil || *b.Default != "7" {
		t.Errorf("the short column is %+v, want INTEGER and 7 whole", b)
	}
	res, err := db.Query(t.Context(), "SELECT * FROM w", 0)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Columns[0].Type; len(c) > 300 || !strings.Contains(c, "100000 bytes in all") {
		t.Errorf("the result's long type is %d bytes, want it cut with its size", len(c))
	}
	if c := res.Columns[1].Type; c != "INTEGER" {
		t.Errorf("the result's short type is %q, want INTEGER", c)
	}
}

// TestViewChainRefused: a chain of views, each joining the one before to
// itself, doubles the tables SQLite plans per level, and its planner looks
// at the interrupt only when done (1,024 tables took 1.8 s to compile,
// 2,048 took 7.9 s); a statement may read at most 1,000 tables with the
// views it reads written out. SQLite works out a view's columns, through
// the views it reads, before the authorizer hears of any read, and
// pragma_table_list does so for every view: at 16 levels sqlmcp ran 48 s
// and failed to start. So pragma_table_list is refused while a view is
// too costly, and the catalog lists the tables from the schema table.
func TestViewChainRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chain.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	qs := []string{"CREATE TABLE t (x INTEGER)", "INSERT INTO t VALUES (1)", "CREATE VIEW v0 AS SELECT x FROM t"}
	for i := 1; i <= 16; i++ {
		qs = append(qs, fmt.Sprintf("CREATE VIEW v%d AS SELECT a.x + b.x AS x FROM v%d AS a, v%d AS b", i, i-1, i-1))
	}
	for _, q := range qs {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	w.Close()
	db := dbtest.Open(t, path, nil)
	for q, want := range map[string]string{
		"SELECT * FROM v10":                             "reads tables 1024 times",
		"SELECT 1 FROM v9 AS a, v9 AS b":                "reads tables 1024 times",
		"SELECT * FROM pragma_table_xinfo('v1' || '0')": `reading the view "v10"`,
		"SELECT count(*) FROM pragma_table_list":        "pragma_table_list compiles every view",
	} {
		if _, err := db.Query(t.Context(), q, 0); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", q, err, want)
		}
	}
	res, err := db.Query(t.Context(), "SELECT * FROM v6", 0)
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("SELECT * FROM v6: %v", err)
	}
	tables, err := db.ReadTables(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	broken := map[string]bool{}
	for _, tb := range tables {
		if tb.Broken != "" {
			broken[tb.Name] = true
		}
		if tb.Name == "t" && (len(tb.Columns) != 1 || tb.Kind != "table") {
			t.Errorf("t is %+v, want a table of one column", tb)
		}
	}
	if len(tables) != 18 || len(broken) != 7 || !broken["v16"] || broken["v9"] {
		t.Errorf("%d tables, broken %v; want 18, v10 to v16 broken", len(tables), broken)
	}
}
