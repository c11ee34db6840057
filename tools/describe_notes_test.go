package tools_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/tools"
)

// venuesSQL is a schema a model trips on: capacities and dates kept as
// text, and a key to another table that no foreign key declares.
const venuesSQL = `
CREATE TABLE cities (city_id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE venues (venue_id INTEGER PRIMARY KEY, city_id INTEGER, name TEXT, capacity TEXT, opened TEXT, grade TEXT, fee TEXT);
INSERT INTO cities VALUES (1, 'Salford'), (2, 'Leeds');
INSERT INTO venues VALUES
  (1, 1, 'Arena', '998', '2001-05-01', 'K', '12.5'), (2, 1, 'Hall', '1045', '1999-12-31', '1', '9.75'),
  (3, 2, 'Dome', '995', '2010-01-15', '2', '100.25'), (4, 2, 'Barn', '120', '2015-07-04', '10', '7.5'),
  (5, 1, 'Club', '90', '2020-02-29', '11', '15.125'), (6, 2, 'Yard', '300', '2021-03-03', '12', '8.0');`

// TestDescribeTableWarns: describe_table warns that numbers and dates are
// stored as text, with the cast to use, and guesses the join no foreign
// key declares, marked as a guess, on every engine; the casts it names
// sort as numbers and dates there; list_tables and the server's
// instructions carry the database's overview from the annotations.
func TestDescribeTableWarns(t *testing.T) {
	casts := map[string][3]string{ // integer, number, date
		"sqlite":   {"CAST(%s AS INTEGER)", "CAST(%s AS REAL)", "date(%s)"},
		"postgres": {"CAST(%s AS bigint)", "CAST(%s AS numeric)", "CAST(%s AS date)"},
		"mysql":    {"CAST(%s AS SIGNED)", "CAST(%s AS DOUBLE)", "date(%s)"},
	}
	for _, engine := range []string{"sqlite", "postgres", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			var db *source.DB
			if engine == "sqlite" {
				path := filepath.Join(t.TempDir(), "venues.db")
				w, err := sql.Open("sqlite3", path)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.Exec(venuesSQL); err != nil {
					t.Fatal(err)
				}
				w.Close()
				db = dbtest.Open(t, path, nil)
			} else if engine == "postgres" {
				dsn := dbtest.PostgresDSN(t)
				dbtest.PostgresExec(t, dsn, venuesSQL)
				db = dbtest.Open(t, dsn, &source.Options{})
			} else {
				db = dbtest.Open(t, dbtest.MySQLDSN(t, strings.Split(strings.TrimSpace(venuesSQL), ";\n")...), &source.Options{})
			}
			ann := filepath.Join(t.TempDir(), "notes.yaml")
			if err := os.WriteFile(ann, []byte("description: Concert venues of two cities.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cat, err := schema.New(db, &schema.Options{Annotations: ann})
			if err != nil {
				t.Fatal(err)
			}
			srv := tools.NewServer(db, cat, &tools.Options{Logger: zerolog.Nop()})
			ct, st := mcp.NewInMemoryTransports()
			if _, err := srv.Connect(t.Context(), st, nil); err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(t.Context(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			call := func(name string, args map[string]any) string {
				t.Helper()
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %+v", name, err, res.Content)
				}
				return res.Content[0].(*mcp.TextContent).Text
			}
			// The values that are not integers come from the rows: marked.
			text := dataID.ReplaceAllString(call("describe_table", map[string]any{"table": "venues"}), "<${1}data-ID>")
			cast := func(kind int, col string) string { return fmt.Sprintf(casts[engine][kind], col) }
			for _, want := range []string{
				"integers stored as text: sort and compare with " + cast(0, "capacity"),
				"numbers stored as text: sort and compare with " + cast(1, "fee"),
				"dates stored as text: sort and compare with " + cast(2, "opened"),
				"integers stored as text (and <data-ID>K</data-ID>): sort and compare with " + cast(0, "grade"),
				"joins guessed from key names and types (no foreign key declared; check them):\n- venues(city_id) -> cities(city_id)",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("describe_table venues lacks %q:\n%s", want, text)
				}
			}
			// The casts run on the engine and sort as numbers and dates do.
			for _, c := range []struct {
				kind      int
				col, want string
			}{{0, "capacity", "Hall"}, {1, "fee", "Dome"}, {2, "opened", "Yard"}} {
				got := call("run_query", map[string]any{"sql": "SELECT name FROM venues ORDER BY " + cast(c.kind, c.col) + " DESC LIMIT 1"})
				if !strings.Contains(got, "\n"+c.want+"\n") {
					t.Errorf("ordered by %s, the first venue is not %s:\n%s", cast(c.kind, c.col), c.want, got)
				}
			}
			if strings.Contains(text, "name TEXT [") || strings.Contains(text, "name text [") {
				t.Errorf("a text column of words got a warning:\n%s", text)
			}
			if text := call("list_tables", nil); !strings.HasPrefix(text, "About this database: Concert venues of two cities.\n") {
				t.Errorf("list_tables does not start with the overview:\n%s", text)
			}
			if got := cs.InitializeResult().Instructions; !strings.Contains(got, "Concert venues of two cities.") {
				t.Errorf("the instructions lack the overview:\n%s", got)
			}
		})
	}
}

// demoBiggestText is the length of describe_table's answer for the demo's
// biggest table (attendance) before text columns holding numbers and
// dates were flagged; the flags must not make it longer.
const demoBiggestText = 816

// TestDescribeDemoBiggest: describe_table's answer for the demo's biggest
// table is no longer than it was.
func TestDescribeDemoBiggest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.sqlite")
	if err := demo.Build(path); err != nil {
		t.Fatal(err)
	}
	cs := serve(t, dbtest.Open(t, path, nil), zerolog.Nop())
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "describe_table", Arguments: map[string]any{"table": "attendance"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; len(text) > demoBiggestText {
		t.Errorf("describe_table attendance is %d bytes, more than %d:\n%s", len(text), demoBiggestText, text)
	}
}
