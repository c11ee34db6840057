package duckdb_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
)

// TestAccepts runs the queries DuckDB's SQL is liked for: the guard
// accepts each and DuckDB answers.
func TestAccepts(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	for name, sql := range map[string]string{
		"FROM first":          "FROM people",
		"GROUP BY ALL":        "SELECT kind, count(*) FROM events GROUP BY ALL ORDER BY ALL",
		"CTE":                 "WITH c AS (SELECT id FROM nested WHERE id < 5) SELECT sum(id) FROM c",
		"recursive CTE":       "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT max(n) FROM r",
		"window":              "SELECT id, row_number() OVER (ORDER BY id DESC), lag(id) OVER (ORDER BY id), sum(id) OVER () FROM nested",
		"QUALIFY":             "SELECT id, year FROM sales QUALIFY row_number() OVER (PARTITION BY year ORDER BY amount DESC) = 1",
		"set operations":      "SELECT id FROM people UNION SELECT id FROM events EXCEPT SELECT 2 INTERSECT SELECT 3",
		"PIVOT in FROM":       "FROM sales PIVOT (sum(amount) FOR year IN (2024, 2025))",
		"UNPIVOT in FROM":     "FROM (SELECT 1 AS a, 2 AS b) UNPIVOT (v FOR k IN (a, b))",
		"nested access":       "SELECT pair[1], point.b, attrs['k'], list_transform(pair, x -> x * 2), [x + 1 FOR x IN pair] FROM nested",
		"struct star":         "SELECT point.* FROM nested",
		"COLUMNS":             "SELECT max(COLUMNS(* EXCLUDE (pair, point, attrs))) FROM nested",
		"quoted names":        `SELECT "full name", "e-mail, primary", "say ""hi""" FROM people`,
		"DESCRIBE":            "DESCRIBE nested",
		"SUMMARIZE":           "SUMMARIZE sales",
		"SHOW TABLES":         "SHOW TABLES",
		"EXPLAIN":             "EXPLAIN SELECT * FROM sales WHERE year = 2024",
		"EXPLAIN after notes": "-- the plan\n/* of a filter */ EXPLAIN SELECT * FROM sales WHERE year = 2024",
		"catalog":             "SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE NOT internal",
		"information_schema":  "SELECT table_name FROM information_schema.tables",
		"VALUES":              "VALUES (1, 'a'), (2, 'b')",
		"range":               "SELECT * FROM range(3)",
		"unnest":              "SELECT unnest(tags) FROM events",
		"json":                "SELECT meta.x, to_json(meta), json_extract_string(to_json(meta), '$.y') FROM events",
		"string functions":    "SELECT regexp_extract(\"full name\", '(\\w+)$'), upper(\"full name\"), strftime(DATE '2024-01-02', '%Y') FROM people",
		"random":              "SELECT random() < 2, uuid() IS NOT NULL",
		"USING SAMPLE":        "SELECT count(*) FROM nested USING SAMPLE 10 ROWS",
		"trailing semicolon":  "SELECT 1;",
		"comments":            "-- a comment\nSELECT /* inline */ 1 -- trailing",
		"parameter":           "SELECT $1::INTEGER + 1",
		"histogram":           "FROM histogram(nested, id)",
		"ORDER BY ... LIMIT":  "SELECT id FROM nested ORDER BY id DESC LIMIT 3",
		"a view named like a": "SELECT count(*) FROM sales s JOIN nested n ON s.id = n.id",
	} {
		t.Run(name, func(t *testing.T) {
			var args []any
			if strings.Contains(sql, "$1") {
				args = []any{41}
			}
			_, rows, err := run(t.Context(), b, source.Statement{SQL: sql, Args: args, Fetch: 101})
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			if len(rows) == 0 {
				t.Errorf("%s: no rows", sql)
			}
		})
	}
}

// TestFolderCatalog reads the served folder's catalog: one view a file,
// one for the partitioned folder, nested types, descriptions from Parquet
// metadata and row counts from it.
func TestFolderCatalog(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	tables, err := b.ReadTables(t.Context(), reader{b}, nil)
	must(t, err)
	got := map[string]source.TableDef{}
	var names []string
	for _, tb := range tables {
		got[tb.Name] = tb
		names = append(names, tb.Name)
	}
	if diff := cmp.Diff([]string{"events", "nested", "people", "sales"}, names); diff != "" {
		t.Fatalf("views (-want +got):\n%s", diff)
	}
	nested := got["nested"]
	if nested.Description != "Nested values, one per id" || nested.Estimate != 100 || nested.Kind != "view" {
		t.Errorf("nested = %q, estimate %d, kind %s", nested.Description, nested.Estimate, nested.Kind)
	}
	types := map[string]string{}
	for _, c := range nested.Columns {
		types[c.Name] = c.Type
		if c.Name == "pair" && c.Description != "the id and the next" {
			t.Errorf("pair's description = %q", c.Description)
		}
	}
	if diff := cmp.Diff(map[string]string{
		"id": "BIGINT", "pair": "BIGINT[]", "point": "STRUCT(a BIGINT,b VARCHAR)", "attrs": "MAP(VARCHAR,BIGINT)", "label": "VARCHAR",
	}, types); diff != "" {
		t.Errorf("nested's types (-want +got):\n%s", diff)
	}
	if got["sales"].Estimate != 50 {
		t.Errorf("sales estimate = %d, want 50 (from the Parquet footers)", got["sales"].Estimate)
	}
	var cols []string
	for _, c := range got["people"].Columns {
		cols = append(cols, c.Name)
	}
	if diff := cmp.Diff([]string{"id", "full name", "e-mail, primary", `say "hi"`}, cols); diff != "" {
		t.Errorf("people's columns (-want +got):\n%s", diff)
	}
	_, rows, err := run(t.Context(), b, source.Statement{SQL: `SELECT "say ""hi""" FROM people ORDER BY id`})
	must(t, err)
	if diff := cmp.Diff([][]any{{"hello, world"}, {`she said "no"`}, {"two\nlines"}}, rows); diff != "" {
		t.Errorf("quoted CSV fields (-want +got):\n%s", diff)
	}
}

// TestCells checks the values DuckDB's types become. Dates and times are
// written as their types hold them, as PostgreSQL's are: a DATE is no
// midnight in UTC, a TIME no moment of year 1, and a TIMESTAMP without a
// zone has none.
func TestCells(t *testing.T) {
	b := open(t, duckFile(t), duckdb.Engine{})
	_, rows, err := run(t.Context(), b, source.Statement{SQL: `SELECT c.tags, c.address, o.total, o.placed, DATE '2024-01-02', TIME '10:11:12.5',
		TIMESTAMPTZ '2024-01-02 10:11:12+02', TIMESTAMP_NS '2024-01-02 10:11:12.123456789', '10:11:12+02'::TIMETZ, [DATE '2024-01-02', NULL],
		MAP {'a': 1}, 170141183460469231731687303715884105727::HUGEINT,
		18446744073709551615::UBIGINT, INTERVAL 1 DAY + INTERVAL 2 HOUR, '00000000-0000-0000-0000-000000000001'::UUID, 'nan'::DOUBLE
		FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.id = 10`})
	must(t, err)
	want := []any{
		[]any{"vip"},
		json.RawMessage(`{"city":"London","zip":"N1"}`),
		json.Number("12.50"),
		"2024-01-02T03:04:05",
		"2024-01-02",
		"10:11:12.5",
		"2024-01-02T08:11:12Z",
		"2024-01-02T10:11:12.123456789",
		"10:11:12+02:00",
		[]any{"2024-01-02", nil},
		json.RawMessage(`{"a":1}`),
		json.Number("170141183460469231731687303715884105727"),
		json.Number("18446744073709551615"),
		"1 day 02:00:00",
		"00000000-0000-0000-0000-000000000001",
	}
	got := rows[0][:len(want)]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	if f, ok := rows[0][len(want)].(float64); !ok || f == f {
		t.Errorf("NaN came as %#v", rows[0][len(want)])
	}
}

// TestDuckDBFile serves a DuckDB database: read-only, with its keys and
// comments, and its bytes unchanged.
func TestDuckDBFile(t *testing.T) {
	path := duckFile(t)
	before := fingerprint(t, filepath.Dir(path))
	b := open(t, "duckdb:"+path, duckdb.Engine{})
	if info := b.Info(); info.Path != path || info.Database != "shop" {
		t.Errorf("info = %+v", info)
	}
	tables, err := b.ReadTables(t.Context(), reader{b}, nil)
	must(t, err)
	got := map[string]source.TableDef{}
	for _, tb := range tables {
		got[tb.Name] = tb
	}
	if c := got["customers"]; c.Description != "People who bought something" || c.Kind != "table" || c.Columns[0].PrimaryKey != 1 {
		t.Errorf("customers = %+v", c)
	}
	if diff := cmp.Diff([]source.KeyDef{{Columns: []string{"customer_id"}, RefSchema: "main", RefName: "customers", RefColumns: []string{"id"}}},
		got["orders"].ForeignKeys); diff != "" {
		t.Errorf("orders' keys (-want +got):\n%s", diff)
	}
	if got["big_orders"].Kind != "view" {
		t.Errorf("big_orders = %+v", got["big_orders"])
	}
	for _, sql := range []string{"INSERT INTO orders VALUES (13, 2, 1, now())", "UPDATE orders SET total = 0", "DELETE FROM orders", "DROP TABLE orders"} {
		if _, _, err := run(t.Context(), b, source.Statement{SQL: sql}); !errors.As(err, new(*guard.Error)) {
			t.Errorf("%s: err = %v, want the guard's refusal", sql, err)
		}
		if _, err := duckdb.RunUnguarded(t.Context(), b, sql); err == nil {
			t.Errorf("%s ran with the guard off", sql)
		}
		if _, err := duckdb.RawQuery(t.Context(), b, sql); err == nil {
			t.Errorf("%s ran on the read-only instance", sql)
		}
	}
	_, rows, err := run(t.Context(), b, source.Statement{SQL: "SELECT count(*) FROM big_orders"})
	must(t, err)
	if rows[0][0] != int64(2) {
		t.Errorf("big orders = %v", rows[0][0])
	}
	b.Close()
	if got := fingerprint(t, filepath.Dir(path)); !equal(got, before) {
		t.Error("the DuckDB file changed")
	}
}

// TestSingleFile serves one Parquet file as one view.
func TestSingleFile(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, filepath.Join(dir, "nested.parquet"), duckdb.Engine{})
	_, rows, err := run(t.Context(), b, source.Statement{SQL: "SELECT count(*) FROM nested"})
	must(t, err)
	if rows[0][0] != int64(100) {
		t.Errorf("count = %v", rows[0][0])
	}
	// The folder's other files are not served.
	if _, _, err := run(t.Context(), b, source.Statement{SQL: "SELECT count(*) FROM people"}); err == nil {
		t.Error("a file beside the served one was read")
	}
}

// TestClaims checks which --db values the engine takes.
func TestClaims(t *testing.T) {
	dir, _ := fixture(t)
	sqliteFile := filepath.Join(t.TempDir(), "app.db")
	must(t, os.WriteFile(sqliteFile, []byte("SQLite format 3\x00"+strings.Repeat("\x00", 100)), 0o644))
	parquetNoExt := filepath.Join(t.TempDir(), "blob")
	data, err := os.ReadFile(filepath.Join(dir, "nested.parquet"))
	must(t, err)
	must(t, os.WriteFile(parquetNoExt, data, 0o644))
	for dsn, want := range map[string]bool{
		dir: true, filepath.Join(dir, "people.csv"): true, "missing.csv.gz": true, "sales.parquet": true,
		"x.ndjson": true, "shop.duckdb": true, "duckdb:anything": true, parquetNoExt: true,
		sqliteFile: false, "postgres://u@h/db": false, "sqlite:app.db": false, "missing.db": false,
	} {
		if got := (duckdb.Engine{}).Claims(dsn); got != want {
			t.Errorf("Claims(%q) = %v, want %v", dsn, got, want)
		}
	}
}

// TestOpenErrors checks that bad input is a clear error.
func TestOpenErrors(t *testing.T) {
	empty := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	must(t, os.WriteFile(bad, []byte("not parquet"), 0o644))
	for dsn, want := range map[string]string{
		filepath.Join(empty, "missing.csv"): "no such file",
		empty:                               "no data files",
		bad:                                 "DuckDB cannot read it",
	} {
		_, err := (duckdb.Engine{}).Open(context.Background(), dsn, source.Config{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) = %v, want an error saying %q", dsn, err, want)
		}
	}
}

// TestTimeout stops a runaway query inside DuckDB when the call's context
// ends, and the backend answers the next call.
func TestTimeout(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, _, err := run(ctx, b, source.Statement{SQL: "SELECT count(*) FROM range(1000000000000) a WHERE a.range % 7 = 3"})
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("err = %v, ctx = %v", err, ctx.Err())
	}
	_, rows, err := run(t.Context(), b, source.Statement{SQL: "SELECT 1"})
	if err != nil || rows[0][0] != int64(1) {
		t.Errorf("after the timeout: %v %v", rows, err)
	}
}

// TestFetch reads one row past the cap and no more, keeping the query's
// order: DuckDB's driver would materialize the whole result, so the
// query is wrapped in a LIMIT.
func TestFetch(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	_, rows, err := run(t.Context(), b, source.Statement{SQL: "SELECT range AS n FROM range(1000000) ORDER BY n DESC -- newest first", Fetch: 11})
	must(t, err)
	if len(rows) != 11 || rows[0][0] != int64(999999) || rows[10][0] != int64(999989) {
		t.Errorf("rows = %v", rows)
	}
}

// TestValues runs the value tools' SQL on a nested Parquet view and a CSV
// with awkward names.
func TestValues(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	v := b.Values()
	nested := source.TableRef{Schema: "main", Name: "nested", Kind: "view", Estimate: 100}
	people := source.TableRef{Schema: "main", Name: "people", Kind: "view"}
	for _, sql := range v.Sample(nested, "pair", 10000) {
		_, rows, err := run(t.Context(), b, source.Statement{SQL: sql, Fetch: 1001})
		must(t, err)
		if len(rows) != 100 || len(rows[0][0].([]any)) != 2 {
			t.Errorf("sample of pair: %d rows, first %v", len(rows), rows[0])
		}
	}
	_, rows, err := run(t.Context(), b, source.Statement{SQL: v.Distinct(people, "full name", true, 10), Args: []any{"o'b"}})
	must(t, err)
	if diff := cmp.Diff([][]any{{"O'Brien, Pat", int64(1)}}, rows); diff != "" {
		t.Errorf("distinct with a filter (-want +got):\n%s", diff)
	}
	_, rows, err = run(t.Context(), b, source.Statement{SQL: v.CountDistinct(nested, "point", false, 100000)})
	must(t, err)
	if rows[0][0] != int64(100) {
		t.Errorf("distinct points = %v", rows[0][0])
	}
}

// TestEngineErrors: DuckDB's errors about a missing table, column or
// function carry the code and the name callers tell them apart by.
func TestEngineErrors(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	for sql, want := range map[string][2]string{
		"SELECT * FROM nope":                {source.UndefinedTable, "nope"},
		"SELECT nope FROM people":           {source.UndefinedColumn, "nope"},
		"SELECT p.nope FROM people p":       {source.UndefinedColumn, "p.nope"},
		"SELECT count_starr(*) FROM people": {source.UndefinedFunction, "count_starr"},
		"SELECT CAST('x' AS INTEGER)":       {"", ""},
	} {
		_, _, err := run(t.Context(), b, source.Statement{SQL: sql, Fetch: 2})
		var ee *source.EngineError
		if !errors.As(err, &ee) || ee.Code != want[0] || ee.Name != want[1] || strings.Contains(ee.Message, "LINE ") {
			t.Errorf("%s: %#v, want code %q about %q", sql, err, want[0], want[1])
		}
	}
}

// TestViews serves the views a configuration names, and only their files.
func TestViews(t *testing.T) {
	dir, _ := fixture(t)
	e := duckdb.Engine{Views: []duckdb.View{
		{Name: "customers", Path: filepath.Join(dir, "people.csv")},
		{Name: "revenue", Path: filepath.Join(dir, "sales")},
		{Name: "parts", Path: filepath.Join(dir, "sales", "year=*", "part-*.parquet")},
		{Name: "exports", Path: filepath.Join(dir, "export_*.csv")},
	}}
	// Two CSV exports with their columns in different orders, and a
	// third written after the source opened, which is not read.
	must(t, os.WriteFile(filepath.Join(dir, "export_1.csv"), []byte("id,city\n1,Oslo\n2,Rome\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "export_2.csv"), []byte("city,id\nLima,3\n"), 0o644))
	b := open(t, dir, e)
	must(t, os.WriteFile(filepath.Join(dir, "export_3.csv"), []byte("id,city\n4,Baku\n"), 0o644))
	_, rows, err := run(t.Context(), b, source.Statement{SQL: "SELECT (SELECT count(*) FROM customers), (SELECT count(*) FROM revenue), (SELECT count(*) FROM parts), (SELECT string_agg(city, ',' ORDER BY id) FROM exports)"})
	must(t, err)
	if diff := cmp.Diff([][]any{{int64(3), int64(50), int64(50), "Oslo,Rome,Lima"}}, rows); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if _, _, err := run(t.Context(), b, source.Statement{SQL: "FROM nested"}); err == nil {
		t.Error("a file no view names was served")
	}
	if _, err := duckdb.RunUnguarded(t.Context(), b, "SELECT * FROM read_parquet('"+filepath.Join(dir, "nested.parquet")+"')"); err == nil {
		t.Error("the sandbox let a file no view names be read")
	}
	// A file the glob matches now, written after the source opened, is
	// not one DuckDB may open.
	if rows, err := duckdb.RawQuery(t.Context(), b, "SELECT * FROM read_csv('"+filepath.Join(dir, "export_*.csv")+"')"); err == nil {
		t.Errorf("the sandbox let the glob be read again, with the later file: %v", rows)
	}
	if _, err := duckdb.RawQuery(t.Context(), b, "SELECT * FROM read_csv('"+filepath.Join(dir, "export_3.csv")+"')"); err == nil {
		t.Error("the sandbox let a file written after the source opened be read")
	}
}

// TestBudgets: a source's memory limit and threads are DuckDB's own
// settings, read back from the locked instance into the report; a size
// DuckDB cannot read stops the source.
func TestBudgets(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{MemoryLimit: "512MB", Threads: 1})
	sandbox := b.Info().Guard[2]
	for _, want := range []string{"sandbox: enable_external_access=false, lock_configuration=true, access_mode=read_only, ",
		"memory_limit=488.2 MiB (512MB), threads=1, temp_directory=", "max_temp_directory_size=953.6 MiB (1GB)"} {
		if !strings.Contains(sandbox, want) {
			t.Errorf("the sandbox line lacks %q: %s", want, sandbox)
		}
	}
	rows, err := duckdb.RawQuery(t.Context(), b, "SELECT current_setting('threads'), current_setting('memory_limit')")
	must(t, err)
	if diff := cmp.Diff([][]any{{int64(1), "488.2 MiB"}}, rows); diff != "" {
		t.Errorf("settings in force (-want +got):\n%s", diff)
	}
	if _, err := (duckdb.Engine{MemoryLimit: "lots"}).Open(t.Context(), dir, source.Config{}); err == nil || !strings.Contains(err.Error(), "lots") {
		t.Errorf("a memory limit DuckDB cannot read: err = %v; want DuckDB's refusal of it", err)
	}
}

// TestGlobCharactersInFileNames: a served file whose name holds DuckDB's
// glob characters (* ? [) is read as exactly that file, never as a
// pattern over its neighbours, hidden ones included.
func TestGlobCharactersInFileNames(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a*b.csv": "star", "axb.csv": "x", "q?.csv": "question", "qz.csv": "z",
		"[.]dot.csv": "bracket", "**.csv": "stars", "{c,d}.csv": "brace", "c.csv": "c",
		".dot.csv": "HIDDEN-7c1e",
	}
	for name, v := range files {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte("v\n"+v+"\n"), 0o644))
	}
	b := open(t, dir, duckdb.Engine{})
	for view, want := range map[string]string{"a*b": "star", "axb": "x", "q?": "question", "qz": "z", "[.]dot": "bracket", "**": "stars", "{c,d}": "brace", "c": "c"} {
		_, rows, err := run(t.Context(), b, source.Statement{SQL: `SELECT string_agg(v, ',' ORDER BY v) FROM "` + view + `"`})
		if err != nil {
			t.Errorf("%s: %v", view, err)
			continue
		}
		if got := toString(rows[0][0]); got != want {
			t.Errorf("view %q reads %q, want only its own file's %q", view, got, want)
		}
	}
	if w := b.(interface{ Warnings() []source.Warning }).Warnings(); len(w) != 0 {
		t.Errorf("warnings %v, want none", w)
	}
}
