package tools_test

import (
	"database/sql"
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
CREATE TABLE venues (venue_id INTEGER PRIMARY KEY, city_id INTEGER, name TEXT, capacity TEXT, opened TEXT, grade TEXT);
INSERT INTO cities VALUES (1, 'Salford'), (2, 'Leeds');
INSERT INTO venues VALUES
  (1, 1, 'Arena', '998', '2001-05-01', 'K'), (2, 1, 'Hall', '1045', '1999-12-31', '1'),
  (3, 2, 'Dome', '995', '2010-01-15', '2'), (4, 2, 'Barn', '120', '2015-07-04', '10'),
  (5, 1, 'Club', '90', '2020-02-29', '11'), (6, 2, 'Yard', '300', '2021-03-03', '12');`

// TestDescribeTableWarns: describe_table warns that numbers and dates are
// stored as text, with the cast to use, and guesses the join no foreign
// key declares, marked as a guess, on both engines; list_tables and the
// server's instructions carry the database's overview from the
// annotations.
func TestDescribeTableWarns(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
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
			} else {
				dsn := dbtest.PostgresDSN(t)
				dbtest.PostgresExec(t, dsn, venuesSQL)
				db = dbtest.Open(t, dsn, &source.Options{})
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
			dateCast := "date(opened)"
			if engine == "postgres" {
				dateCast = "CAST(opened AS date)"
			}
			for _, want := range []string{
				"integers stored as text: sort and compare with CAST(capacity AS INTEGER)",
				"dates stored as text: sort and compare with " + dateCast,
				"integers stored as text (and <data-ID>K</data-ID>): sort and compare with CAST(grade AS INTEGER)",
				"joins guessed from key names and types (no foreign key declared; check them):\n- venues(city_id) -> cities(city_id)",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("describe_table venues lacks %q:\n%s", want, text)
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
