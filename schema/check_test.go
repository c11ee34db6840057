package schema_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
)

// problems runs Check and returns what it found, one line each.
func problems(t *testing.T, cat *schema.Catalog) []string {
	t.Helper()
	err := cat.Check(t.Context())
	if err == nil {
		return nil
	}
	ce, ok := schema.IsCheckError(err)
	if !ok {
		t.Fatalf("Check: %v", err)
	}
	var out []string
	for _, p := range ce.Problems {
		line := p.Kind + ": " + p.Error()
		if p.Warning {
			line = "warning " + line
		}
		if p.File != "" {
			line = strings.ReplaceAll(line, p.File, "FILE")
		}
		out = append(out, line)
	}
	return out
}

// TestCheckAnnotationsEveryProblem: every name the database lacks is
// reported at its line with the closest names, after matching any case
// and schema-qualified names; names that match are not.
func TestCheckAnnotationsEveryProblem(t *testing.T) {
	notes := `tables:
  customerz:
    description: x
  CUSTOMERS:
    columns:
      nmae: x
      Email: fine
  public.products:
    columns:
      prise: x
  drop_log: {}
`
	for _, e := range dbtest.All(t, nil) {
		t.Run(e.Name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "notes.yaml")
			if err := os.WriteFile(path, []byte(notes), 0o644); err != nil {
				t.Fatal(err)
			}
			cat, err := schema.New(e.DB, &schema.Options{Annotations: path})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{
				`annotations: annotations FILE:2: no table "customerz" in the database; did you mean customers?`,
				`annotations: annotations FILE:6: table "CUSTOMERS" has no column "nmae"; did you mean name?`,
				`annotations: annotations FILE:10: table "public.products" has no column "prise"; did you mean price?`,
			}
			if e.Name == "sqlite" { // no schemas there
				want[2] = `annotations: annotations FILE:8: no table "public.products" in the database; did you mean products?`
			}
			if d := cmp.Diff(want, problems(t, cat)); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
}

// TestCheckSchemasAndGrants: on a database whose tables sit in several
// schemas, a schema that does not exist or holds nothing, and tables the
// role may not read, are named with the grants that are missing; the
// tables are marked, or hidden.
func TestCheckSchemasAndGrants(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, `CREATE SCHEMA sales; CREATE SCHEMA hr; CREATE SCHEMA empty;
		CREATE TABLE sales.orders (id int, total numeric); CREATE TABLE sales.refunds (id int);
		CREATE TABLE hr.staff (id int, name text); CREATE TABLE hr.salaries (id int, amount int)`)
	role, roleDSN := dbtest.PostgresRole(t, dsn, `GRANT USAGE ON SCHEMA public, sales, empty TO {{role}};
		GRANT SELECT ON ALL TABLES IN SCHEMA public TO {{role}}; GRANT SELECT ON sales.orders TO {{role}};
		GRANT USAGE ON SCHEMA hr TO {{role}}; GRANT SELECT (id) ON hr.staff TO {{role}}`)
	db := dbtest.Open(t, roleDSN, nil)

	cat, err := schema.New(db, &schema.Options{Schemas: []string{"sales", "hr", "empty", "salse"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`schemas: schema "empty" holds no table or view; leave it out of the schemas`,
		`schemas: schema "salse": no such schema; did you mean sales?`,
		`grants: the role may not read 1 of the tables and views in schema hr (hr.salaries); as their owner run: GRANT SELECT ON ALL TABLES IN SCHEMA hr TO ` + role + `; ALTER DEFAULT PRIVILEGES IN SCHEMA hr GRANT SELECT ON TABLES TO ` + role,
		`grants: the role may not read 1 of the tables and views in schema sales (sales.refunds); as their owner run: GRANT SELECT ON ALL TABLES IN SCHEMA sales TO ` + role + `; ALTER DEFAULT PRIVILEGES IN SCHEMA sales GRANT SELECT ON TABLES TO ` + role,
	}
	if d := cmp.Diff(want, problems(t, cat)); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
	tb, err := cat.Table(t.Context(), "sales.refunds")
	if err != nil || tb.Unreadable != "the role has no SELECT on it" {
		t.Errorf("sales.refunds: Unreadable %q, %v", tb.Unreadable, err)
	}
	if tb, err := cat.Table(t.Context(), "hr.staff"); err != nil || tb.Unreadable != "" {
		t.Errorf("hr.staff, one column granted: Unreadable %q, %v; want readable", tb.Unreadable, err)
	}

	// Every schema: some tables readable, so the unreadable ones are a
	// warning; a schema without USAGE says so.
	dbtest.PostgresExec(t, dsn, `REVOKE USAGE ON SCHEMA hr FROM `+role)
	cat, _ = schema.New(db, nil)
	got := problems(t, cat)
	wantHR := `warning grants: the role may not use schema hr, so none of its tables and views can be read (hr.salaries, hr.staff); as its owner run: GRANT USAGE ON SCHEMA hr TO ` + role + `; GRANT SELECT ON ALL TABLES IN SCHEMA hr TO ` + role + `; ALTER DEFAULT PRIVILEGES IN SCHEMA hr GRANT SELECT ON TABLES TO ` + role
	if len(got) != 2 || got[0] != wantHR || !strings.HasPrefix(got[1], "warning grants: the role may not read 1 of the tables and views in schema sales") {
		t.Errorf("problems:\n%s\nwant first:\n%s", strings.Join(got, "\n"), wantHR)
	}

	// Hidden: the tables are left out, and the problem says so.
	cat, _ = schema.New(db, &schema.Options{HideUnreadable: true})
	got = problems(t, cat)
	if len(got) != 2 || !strings.Contains(got[0], "; they are hidden;") {
		t.Errorf("hidden: problems %q", got)
	}
	tables, err := cat.Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if tb.Unreadable != "" || tb.Schema == "hr" {
			t.Errorf("hidden: %s is listed (%q)", tb.Name, tb.Unreadable)
		}
	}
	if _, err := cat.Table(t.Context(), "sales.orders"); err != nil {
		t.Errorf("sales.orders is readable and should be listed: %v", err)
	}

	// No table readable at all: an error, not a warning.
	dbtest.PostgresExec(t, dsn, `REVOKE SELECT ON ALL TABLES IN SCHEMA public FROM `+role+`; REVOKE USAGE ON SCHEMA sales FROM `+role)
	cat, _ = schema.New(db, nil)
	got = problems(t, cat)
	if len(got) < 3 {
		t.Errorf("no table readable: problems %q, want one per schema", got)
	}
	for _, p := range got {
		if strings.HasPrefix(p, "warning") {
			t.Errorf("no table readable, yet a warning: %s", p)
		}
	}
}

// TestCheckCorruptSQLite: a SQLite file whose pages are damaged is
// refused by Check, naming the damage.
func TestCheckCorruptSQLite(t *testing.T) {
	path := dbtest.DamagedSQLiteFile(t)
	cat, err := schema.New(dbtest.Open(t, path, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := problems(t, cat)
	if len(got) != 1 || !strings.HasPrefix(got[0], "corrupt: the file is damaged: ") || !strings.HasSuffix(got[0], "restore it from a backup, or recover what is left with sqlite3 FILE .recover | sqlite3 NEW.db") {
		t.Errorf("problems = %q", got)
	}
}

// TestCheckBigSQLiteBounded: quick_check stops at the timeout on a file
// too big to check in it, and says the file was checked in part.
func TestCheckBigSQLiteBounded(t *testing.T) {
	path := sqliteFile(t, "CREATE TABLE t (x TEXT)", "CREATE INDEX t_x ON t (x)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000) INSERT INTO t SELECT hex(randomblob(40)) FROM n")
	db := dbtest.Open(t, path, &source.Options{Limits: sqlmcp.Limits{Timeout: 20 * time.Millisecond}})
	cat, err := schema.New(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := problems(t, cat)
	want := "warning corrupt: PRAGMA quick_check did not finish within 20ms, so the file was checked only in part; run sqlite3 FILE 'PRAGMA quick_check' once to check it whole"
	if len(got) != 1 || got[0] != want {
		t.Errorf("problems = %q, want %q", got, want)
	}
}

// sqliteFile makes a SQLite file in a temporary folder with stmts run on
// a writable handle, and returns its path.
func sqliteFile(t *testing.T, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, q := range stmts {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return path
}
