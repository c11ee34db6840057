package schema_test

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	_ "github.com/mattn/go-sqlite3" // the writable handle that changes the schema

	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/schema"
)

// demoCatalog builds the demo database, with its BIRD descriptions beside
// it, and returns its catalog with the demo's annotations.
func demoCatalog(t testing.TB) *schema.Catalog {
	t.Helper()
	path := filepath.Join(t.TempDir(), "demo.sqlite")
	if err := demo.Build(path); err != nil {
		t.Fatal(err)
	}
	db := dbtest.Open(t, path, nil)
	cat, err := schema.New(db, &schema.Options{Annotations: filepath.Join(filepath.Dir(path), "annotations.json")})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// fixtureCatalog returns the catalog of a fresh fixture at path.
func fixtureCatalog(t testing.TB, path string, opts *schema.Options) *schema.Catalog {
	t.Helper()
	cat, err := schema.New(dbtest.Open(t, path, nil), opts)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// tableNamed returns the named table, failing t when there is none.
func tableNamed(t *testing.T, tables []*schema.Table, name string) *schema.Table {
	t.Helper()
	for _, tb := range tables {
		if tb.Name == name {
			return tb
		}
	}
	t.Fatalf("no table %q", name)
	return nil
}

// writeFile writes b to dir/name, making dir.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTablesKinds(t *testing.T) {
	tables, err := fixtureCatalog(t, dbtest.SQLiteFile(t), nil).Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var names []string
	for _, tb := range tables {
		got[tb.Name] = tb.Kind
		names = append(names, tb.Name)
	}
	want := map[string]string{
		"customers": "table", "products": "table", "order": "table", "Order Items": "table",
		"drop_log": "table", "SchoolStats": "table", "customer_totals": "view",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tables and kinds (-want +got):\n%s", diff)
	}
	wantNames := []string{"customer_totals", "customers", "drop_log", "order", "Order Items", "products", "SchoolStats"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("order of tables, want by name ignoring case (-want +got):\n%s", diff)
	}
}

func TestColumns(t *testing.T) {
	tables, err := fixtureCatalog(t, dbtest.SQLiteFile(t), nil).Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	zero := "0"
	newStatus := "'new'"
	tests := []struct {
		table string
		want  []schema.Column
	}{
		{"customers", []schema.Column{
			// SQLite declares no NOT NULL on an INTEGER PRIMARY KEY, but
			// it is the rowid, which is never NULL.
			{Name: "id", Type: "INTEGER", PrimaryKey: 1},
			{Name: "name", Type: "TEXT"},
			{Name: "email", Type: "VARCHAR(120)", Nullable: true},
			{Name: "city", Type: "TEXT", Nullable: true},
			{Name: "joined", Type: "DATE", Nullable: true},
			{Name: "delete_flag", Type: "INTEGER", Default: &zero},
		}},
		{"order", []schema.Column{
			{Name: "id", Type: "INTEGER", PrimaryKey: 1},
			{Name: "customer_id", Type: "INTEGER"},
			{Name: "placed_at", Type: "DATETIME"},
			{Name: "status", Type: "TEXT", Default: &newStatus},
		}},
		{"Order Items", []schema.Column{
			{Name: "order_id", Type: "INTEGER", PrimaryKey: 1},
			{Name: "product_id", Type: "INTEGER", PrimaryKey: 2},
			{Name: "quantity", Type: "INTEGER"},
		}},
		{"customer_totals", []schema.Column{
			{Name: "id", Type: "INTEGER", Nullable: true},
			{Name: "name", Type: "TEXT", Nullable: true},
			{Name: "orders", Type: "", Nullable: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.table, func(t *testing.T) {
			got := tableNamed(t, tables, tt.table).Columns
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("columns of %q (-want +got):\n%s", tt.table, diff)
			}
		})
	}
}

// TestKeysAndIndexes checks the foreign keys out of and into each table,
// and its indexes, against testdata/sqlite/schema.sql.
func TestKeysAndIndexes(t *testing.T) {
	tables, err := fixtureCatalog(t, dbtest.SQLiteFile(t), nil).Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	fk := func(table, col, ref, refCol string) schema.ForeignKey {
		return schema.ForeignKey{Table: table, Columns: []string{col}, RefTable: ref, RefColumns: []string{refCol}}
	}
	var (
		orderToCustomers = fk("order", "customer_id", "customers", "id")
		itemsToOrder     = fk("Order Items", "order_id", "order", "id")
		itemsToProducts  = fk("Order Items", "product_id", "products", "id")
	)
	type keys struct {
		Out, In []schema.ForeignKey
		Indexes []schema.Index
	}
	tests := []struct {
		table string
		want  keys
	}{
		{"customers", keys{In: []schema.ForeignKey{orderToCustomers}}},
		{"products", keys{In: []schema.ForeignKey{itemsToProducts}}},
		{"order", keys{
			Out:     []schema.ForeignKey{orderToCustomers},
			In:      []schema.ForeignKey{itemsToOrder},
			Indexes: []schema.Index{{Name: "order_customer", Columns: []string{"customer_id"}}},
		}},
		{"Order Items", keys{
			Out: []schema.ForeignKey{itemsToOrder, itemsToProducts},
			// The composite primary key is a unique index SQLite makes.
			Indexes: []schema.Index{{Name: "sqlite_autoindex_Order Items_1", Columns: []string{"order_id", "product_id"}, Unique: true}},
		}},
		{"drop_log", keys{}},
		{"SchoolStats", keys{Indexes: []schema.Index{{Name: "sqlite_autoindex_SchoolStats_1", Columns: []string{"CDSCode"}, Unique: true}}}},
		{"customer_totals", keys{}},
	}
	// The schema declares a set of keys; the catalog lists them in
	// SQLite's order (the last declared first), which is not the point here.
	sortKeys := cmpopts.SortSlices(func(a, b schema.ForeignKey) bool {
		return strings.Join(a.Columns, ",") < strings.Join(b.Columns, ",")
	})
	for _, tt := range tests {
		t.Run(tt.table, func(t *testing.T) {
			tb := tableNamed(t, tables, tt.table)
			got := keys{Out: tb.ForeignKeys, In: tb.ReferencedBy, Indexes: tb.Indexes}
			if diff := cmp.Diff(tt.want, got, sortKeys, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("keys of %q (-want +got):\n%s", tt.table, diff)
			}
			// Empty lists are [] in JSON, not null.
			if tb.ForeignKeys == nil || tb.ReferencedBy == nil || tb.Indexes == nil {
				t.Errorf("%q has a nil list: keys %v, referenced by %v, indexes %v", tt.table, tb.ForeignKeys, tb.ReferencedBy, tb.Indexes)
			}
		})
	}
}

// TestVirtualTables: FTS and R*Tree tables (the modules go-sqlite3 builds
// in) are listed with their columns, and do not stop the rest of the
// catalog from being read.
func TestVirtualTables(t *testing.T) {
	tests := []struct {
		name, ddl, table string
		columns          []string
	}{
		{"fts4", "CREATE VIRTUAL TABLE notes USING fts4(title, body)", "notes", []string{"title", "body"}},
		{"rtree", "CREATE VIRTUAL TABLE boxes USING rtree(id, x0, x1)", "boxes", []string{"id", "x0", "x1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := dbtest.SQLiteFile(t)
			w, err := sql.Open("sqlite3", path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = w.Exec(tt.ddl)
			w.Close()
			if err != nil {
				t.Fatal(err)
			}
			tables, err := fixtureCatalog(t, path, nil).Tables(t.Context())
			if err != nil {
				t.Fatalf("Tables with %s: %v", tt.ddl, err)
			}
			tb := tableNamed(t, tables, tt.table)
			var names []string
			for _, c := range tb.Columns {
				names = append(names, c.Name)
			}
			got := []any{tb.Kind, names}
			want := []any{"virtual", tt.columns}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("kind and columns of %s (-want +got):\n%s", tt.table, diff)
			}
			tableNamed(t, tables, "customers")
		})
	}
}

func TestTablesNoticesSchemaChange(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	cat := fixtureCatalog(t, path, nil)
	before, err := cat.Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	again, err := cat.Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(again) == 0 || again[0] != before[0] {
		t.Error("Tables read the schema again with nothing changed, want the cached tables")
	}

	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	change := func(t *testing.T, ddl string) []*schema.Table {
		t.Helper()
		if _, err := w.ExecContext(t.Context(), ddl); err != nil {
			t.Fatal(err)
		}
		tables, err := cat.Tables(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return tables
	}

	t.Run("create table", func(t *testing.T) {
		tables := change(t, "CREATE TABLE audit (at TEXT NOT NULL, what TEXT)")
		want := []schema.Column{{Name: "at", Type: "TEXT"}, {Name: "what", Type: "TEXT", Nullable: true}}
		if diff := cmp.Diff(want, tableNamed(t, tables, "audit").Columns); diff != "" {
			t.Errorf("columns of the new table (-want +got):\n%s", diff)
		}
		if got, want := len(tables), len(before)+1; got != want {
			t.Errorf("got %d tables, want %d", got, want)
		}
	})
	t.Run("add column", func(t *testing.T) {
		tables := change(t, "ALTER TABLE audit ADD COLUMN who TEXT")
		if got, want := len(tableNamed(t, tables, "audit").Columns), 3; got != want {
			t.Errorf("audit has %d columns, want %d", got, want)
		}
	})
	t.Run("drop table", func(t *testing.T) {
		tables := change(t, "DROP TABLE audit")
		for _, tb := range tables {
			if tb.Name == "audit" {
				t.Error("the dropped table is still listed")
			}
		}
	})
	// ANALYZE moves the schema version and changes nothing a reading
	// shows: the tables, and what was built on them, stay.
	t.Run("analyze", func(t *testing.T) {
		kept, err := cat.Tables(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var before int64
		if err := w.QueryRowContext(t.Context(), "PRAGMA schema_version").Scan(&before); err != nil {
			t.Fatal(err)
		}
		tables := change(t, "ANALYZE")
		var after int64
		if err := w.QueryRowContext(t.Context(), "PRAGMA schema_version").Scan(&after); err != nil {
			t.Fatal(err)
		}
		if after == before {
			t.Fatal("ANALYZE did not move the schema version: the test proves nothing")
		}
		if len(tables) == 0 || tables[0] != kept[0] {
			t.Error("the same schema under a new version gave new tables")
		}
	})
}

func TestBIRDDescriptions(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	dir := filepath.Join(filepath.Dir(path), "database_description")
	// UTF-8 with a byte-order mark, a quoted header, a name in the wrong
	// case, a field over two lines and a row with too many fields.
	writeFile(t, dir, "customers.csv", []byte("\xef\xbb\xbf"+
		`"original_column_name","column_name","column_description","data_format","value_description"`+"\n"+
		"ID,customer id,Identifier of the customer,integer,\n"+
		"email,,the \"primary\" contact address,,NULL = unknown\n"+
		"\n"+
		"city,,City of the customer,text,,extra field\n"+
		"delete_flag,soft delete flag,\"Soft-delete\nmarker\",integer,1 = deleted; 0 = live\n"))
	// Windows-1252, CRLF, a file name in the wrong case, and a ragged row.
	writeFile(t, dir, "schoolstats.csv", []byte(
		"original_column_name,column_name,column_description,data_format,value_description\r\n"+
			"cdscode,CDS code,\"County\x96District\x96School code\",text,\r\n"+
			"\"Free Meal Count (K-12)\",free meal count,Students eligible for \x93free\x94 meals at the caf\xe9,real,NULL = not reported\r\n"+
			"School Name,,Name of the school\r\n"))

	tables, err := fixtureCatalog(t, path, nil).Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	type note struct{ Description, Values string }
	tests := []struct {
		table, column string
		want          note
	}{
		{"customers", "id", note{"customer id. Identifier of the customer", ""}},
		{"customers", "name", note{}},
		{"customers", "email", note{`the "primary" contact address`, "NULL = unknown"}},
		{"customers", "city", note{"City of the customer", ""}},
		{"customers", "delete_flag", note{"soft delete flag. Soft-delete marker", "1 = deleted; 0 = live"}},
		{"SchoolStats", "CDSCode", note{"CDS code. County–District–School code", ""}},
		{"SchoolStats", "Free Meal Count (K-12)", note{"free meal count. Students eligible for “free” meals at the café", "NULL = not reported"}},
		{"SchoolStats", "School Name", note{"Name of the school", ""}},
		{"SchoolStats", "Enrollment (K-12)", note{}},
		{"products", "name", note{}},
	}
	for _, tt := range tests {
		t.Run(tt.table+"."+tt.column, func(t *testing.T) {
			col, err := tableNamed(t, tables, tt.table).Column(tt.column)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, note{col.Description, col.Values}); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBIRDDescriptionsFolder(t *testing.T) {
	t.Run("named in options", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "elsewhere")
		writeFile(t, dir, "products.csv", []byte("original_column_name,column_name,column_description\ncategory,,Kind of product\n"))
		tables, err := fixtureCatalog(t, dbtest.SQLiteFile(t), &schema.Options{Descriptions: dir}).Tables(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		col, err := tableNamed(t, tables, "products").Column("category")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := col.Description, "Kind of product"; got != want {
			t.Errorf("description: got %q, want %q", got, want)
		}
	})
	t.Run("named but empty", func(t *testing.T) {
		dir := t.TempDir()
		_, err := schema.New(dbtest.SQLite(t, nil), &schema.Options{Descriptions: dir})
		if err == nil || !strings.Contains(err.Error(), "no .csv files in "+dir) {
			t.Errorf("got %v, want an error saying %s holds no .csv files", err, dir)
		}
	})
}

func TestAnnotations(t *testing.T) {
	type note struct{ Table, Description, Values string }
	tests := []struct {
		name, file, text string
		want             map[string]note // by "table.column", or "table" for the table
	}{
		{"yaml", "notes.yaml", `tables:
  customers:
    description: People who bought something.
    columns:
      email: Contact address.
      delete_flag: {description: Soft-delete marker, values: "1 = deleted, 0 = live"}
  Order Items:
    columns:
      QUANTITY: How many.
`, map[string]note{
			"customers":             {Description: "People who bought something."},
			"customers.email":       {Description: "Contact address."},
			"customers.delete_flag": {Description: "Soft-delete marker", Values: "1 = deleted, 0 = live"},
			"Order Items.quantity":  {Description: "How many."},
		}},
		{"json", "notes.json", `{"tables": {
	"Customers": {
		"description": "People who bought something.",
		"columns": {
			"EMAIL": "Contact address.",
			"delete_flag": {"description": "Soft-delete marker", "values": "1 = deleted, 0 = live"}
		}
	},
	"customer_totals": {"description": "Orders per customer."}
}}
`, map[string]note{
			"customers":             {Description: "People who bought something."},
			"customers.email":       {Description: "Contact address."},
			"customers.delete_flag": {Description: "Soft-delete marker", Values: "1 = deleted, 0 = live"},
			"customer_totals":       {Description: "Orders per customer."},
		}},
		{"empty", "notes.yaml", "", map[string]note{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), tt.file, []byte(tt.text))
			tables, err := fixtureCatalog(t, dbtest.SQLiteFile(t), &schema.Options{Annotations: path}).Tables(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]note{}
			for _, tb := range tables {
				if tb.Description != "" {
					got[tb.Name] = note{Description: tb.Description}
				}
				for _, c := range tb.Columns {
					if c.Description != "" || c.Values != "" {
						got[tb.Name+"."+c.Name] = note{Description: c.Description, Values: c.Values}
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnnotationsWinOverBIRD(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	writeFile(t, filepath.Join(filepath.Dir(path), "database_description"), "customers.csv",
		[]byte("original_column_name,column_name,column_description,data_format,value_description\n"+
			"email,,From BIRD,,NULL = unknown\n"+
			"city,,City from BIRD,,\n"))
	notes := writeFile(t, t.TempDir(), "notes.yaml", []byte("tables:\n  customers:\n    columns:\n      email: From annotations\n"))
	tables, err := fixtureCatalog(t, path, &schema.Options{Annotations: notes}).Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	customers := tableNamed(t, tables, "customers")
	type note struct{ Description, Values string }
	for _, tt := range []struct {
		column string
		want   note
	}{
		{"email", note{"From annotations", "NULL = unknown"}},
		{"city", note{"City from BIRD", ""}},
	} {
		col, err := customers.Column(tt.column)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, note{col.Description, col.Values}); diff != "" {
			t.Errorf("notes of %s (-want +got):\n%s", tt.column, diff)
		}
	}
}

// TestAnnotationsUnknownKey: a misspelt key must stop the server at start,
// naming the file, the line and the key, rather than drop a note silently.
func TestAnnotationsUnknownKey(t *testing.T) {
	tests := []struct {
		name, text string
		line, key  string
	}{
		{"top level", "table:\n  customers:\n    description: People.\n", "line 1", "table"},
		{"table level", "tables:\n  customers:\n    descripton: People.\n", "line 3", "descripton"},
		{"column level", "tables:\n  customers:\n    columns:\n      delete_flag: {description: Soft-delete marker, value: \"1 = deleted\"}\n", "line 4", "value"},
		{"column level json", `{"tables": {"customers": {"columns": {"delete_flag": {"desc": "Soft-delete marker"}}}}}`, "line 1", "desc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "notes.yaml", []byte(tt.text))
			_, err := schema.New(dbtest.SQLite(t, nil), &schema.Options{Annotations: path})
			if err == nil {
				t.Fatalf("schema.New accepted the unknown key %q in\n%s", tt.key, tt.text)
			}
			t.Logf("error: %v", err)
			for _, want := range []string{path, tt.line, tt.key} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

func TestAnnotationsMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.yaml")
	_, err := schema.New(dbtest.SQLite(t, nil), &schema.Options{Annotations: path})
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("got %v, want a not-exist error naming %s", err, path)
	}
}

func TestTableLookup(t *testing.T) {
	cat := fixtureCatalog(t, dbtest.SQLiteFile(t), nil)
	tests := []struct {
		name, want string
		closest    []string // when not found
	}{
		{name: "customers", want: "customers"},
		{name: "CUSTOMERS", want: "customers"},
		{name: `"Order Items"`, want: "Order Items"},
		{name: "[order items]", want: "Order Items"},
		{name: " `order` ", want: "order"},
		{name: "customer", closest: []string{"customer_totals", "customers"}},
		{name: "orders", closest: []string{"order"}},
		{name: "nothing_like_it", closest: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb, err := cat.Table(t.Context(), tt.name)
			if tt.want != "" {
				if err != nil {
					t.Fatal(err)
				}
				if tb.Name != tt.want {
					t.Errorf("got %q, want %q", tb.Name, tt.want)
				}
				return
			}
			var nf *schema.NotFoundError
			if !errors.As(err, &nf) {
				t.Fatalf("got %v, want a *schema.NotFoundError", err)
			}
			if diff := cmp.Diff(tt.closest, nf.Closest); diff != "" {
				t.Errorf("closest (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckFailsClosed: an annotations file that names a table or column
// the database does not have, and a --schema that does not exist, are
// errors at start; the bare name of a PostgreSQL table in public works.
func TestCheckFailsClosed(t *testing.T) {
	for _, e := range dbtest.All(t, nil) {
		t.Run(e.Name, func(t *testing.T) {
			write := func(text string) string {
				path := filepath.Join(t.TempDir(), "notes.yaml")
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				return path
			}
			for _, tt := range []struct{ notes, want string }{
				{"tables:\n  customerz:\n    description: x\n", `no table "customerz" in the database; did you mean customers`},
				{"tables:\n  customers:\n    columns:\n      nmae: x\n", `table "customers" has no column "nmae"`},
				{"tables:\n  customers:\n    columns:\n      name: Full name\n", ""},
			} {
				cat, err := schema.New(e.DB, &schema.Options{Annotations: write(tt.notes)})
				if err != nil {
					t.Fatal(err)
				}
				err = cat.Check(t.Context())
				switch {
				case tt.want == "" && err != nil:
					t.Errorf("%q: %v", tt.notes, err)
				case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
					t.Errorf("%q: got %v, want %q", tt.notes, err, tt.want)
				}
				if tt.want == "" {
					tb, err := cat.Table(t.Context(), "customers")
					if c, _ := tb.Column("name"); err != nil || c.Description != "Full name" {
						t.Errorf("the note on customers.name did not apply: %+v, %v", c, err)
					}
				}
			}
			if e.Name == "postgres" {
				cat, err := schema.New(e.DB, &schema.Options{Schemas: []string{"nosuchschema"}})
				if err != nil {
					t.Fatal(err)
				}
				if err := cat.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "no such schema") {
					t.Errorf("--schema nosuchschema: got %v", err)
				}
			}
		})
	}
}

// TestLongNamesBounded: a served file may name a table, its columns and
// its indexes with any length; the catalog shows each name past 1 KiB cut
// with its size, and the table as broken, saying why, so no tool's answer
// carries the megabytes (150 columns of 100 KB made describe_table 30 MB).
// A name within the bound is untouched.
func TestLongNamesBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	long := func(prefix string, n int) string { return prefix + strings.Repeat("x", n) }
	var cols []string
	for i := range 20 {
		cols = append(cols, `"`+long(fmt.Sprint("c", i, "_"), 100_000)+`" TEXT`)
	}
	for _, q := range []string{
		`CREATE TABLE "` + long("t_", 50_000) + `" (id INTEGER)`,
		`CREATE TABLE wide (` + strings.Join(cols, ", ") + `)`,
		`CREATE TABLE fine (id INTEGER PRIMARY KEY, "` + long("n_", 1000) + `" TEXT)`,
		`CREATE INDEX "` + long("i_", 5000) + `" ON fine (id)`,
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	cat, err := schema.New(dbtest.Open(t, path, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := cat.Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, tb := range tables {
		size += len(tb.Name)
		for _, c := range tb.Columns {
			size += len(c.Name)
		}
		for _, ix := range tb.Indexes {
			size += len(ix.Name)
		}
		if !strings.Contains(tb.Broken, "longer than the 1024 this server serves") {
			t.Errorf("table %.80q: broken %q, want it broken for its long names", tb.Name, tb.Broken)
		}
	}
	if size > 20_000 {
		t.Errorf("the catalog's names hold %d bytes, want them cut", size)
	}
	if len(tables) != 3 {
		t.Fatalf("got %d tables, want 3", len(tables))
	}
	if c := tables[0].Columns[1].Name; tables[0].Name != "fine" || c != long("n_", 1000) {
		t.Errorf("a name within the bound was cut: %.80q, %.80q", tables[0].Name, c)
	}
}
