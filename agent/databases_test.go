package agent_test

import (
	"database/sql"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/toolstest"
)

// TestEveryDialectHasARule: each Dialect constant the root package
// declares has a rule for the prompt, so an engine added without one
// fails here.
func TestEveryDialectHasARule(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dbtest.Root(), "sqlmcp.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	dialects := []string{"mysql"} // may arrive as a constant later
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Dialect" {
				continue
			}
			for _, val := range v.Values {
				if lit, ok := val.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					dialects = append(dialects, s)
				}
			}
		}
	}
	if len(dialects) < 4 {
		t.Fatalf("found only the dialects %v in sqlmcp.go", dialects)
	}
	for _, d := range dialects {
		if agent.DialectRule(d) == "" {
			t.Errorf("dialect %q has no rule in agent/prompt.go", d)
		}
	}
	for d, want := range map[string]string{"duckdb": "read_csv", "mysql": "backticks"} {
		if !strings.Contains(agent.DialectRule(d), want) {
			t.Errorf("the %s rule lacks %q: %s", d, want, agent.DialectRule(d))
		}
	}
}

// archiveFile is a copy of the SQLite fixture where every order has
// shipped.
func archiveFile(t *testing.T) (string, int) {
	path := dbtest.SQLiteFile(t)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if _, err := db.Exec(`UPDATE "order" SET status = 'shipped'`); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM "order"`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 2 {
		t.Fatal("the archive must differ from the fixture's two shipped orders")
	}
	return path, n
}

// TestChoosesTheDatabase: on a server of several databases, with none
// named, the prompt lists them with their tables and each engine's rule,
// the model's calls name the database it chose (submit_answer too), the
// SQL runs there, and the answer says which.
func TestChoosesTheDatabase(t *testing.T) {
	archive, shipped := archiveFile(t)
	eachProvider(t, func(t *testing.T, p provider) {
		cs := toolstest.ServeSet(t, "shop="+dbtest.SQLiteFile(t), "archive="+archive)
		f := newFake(t, p,
			turn(text("The archive holds old orders."), use("d1", "list_tables", `{"database":"archive"}`)),
			turn(use("d2", "run_query", map[string]string{"sql": shippedSQL, "database": "archive"})),
			turn(use("d3", "submit_answer", map[string]string{"database": "archive", "sql": shippedSQL, "answer": strconv.Itoa(shipped) + " orders have shipped."})),
		)
		var tools []agent.Event
		r := askOn(t, f, cs, &agent.Options{OnEvent: func(e agent.Event) {
			if e.Kind == "tool" {
				tools = append(tools, e)
			}
		}}, "How many orders in the archive have shipped?", "")
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.a.Dialect() != "" || len(r.a.Databases()) != 2 {
			t.Errorf("dialect %q, databases %v: want none, and the two to choose from", r.a.Dialect(), r.a.Databases())
		}
		sys := p.System(f.Bodies()[0])
		for _, want := range []string{"This server has 2 databases", "names the database it is for", "Say in your answer which database",
			"- shop (sqlite, 7 tables): The shop database.", "Tables of archive", "- In shop, archive: The database is SQLite"} {
			if !strings.Contains(sys, want) {
				t.Errorf("the system prompt lacks %q:\n%s", want, sys)
			}
		}
		submit := p.Tools(f.Bodies()[0])["submit_answer"]
		if req, _ := json.Marshal(submit); !strings.Contains(string(req), `"required":["database","sql","answer"]`) {
			t.Errorf("submit_answer does not require database: %s", req)
		}
		if len(tools) != 3 {
			t.Fatalf("%d tool calls, want 3", len(tools))
		}
		for _, e := range tools {
			var args struct{ Database string }
			if json.Unmarshal(e.Args, &args); args.Database != "archive" || e.IsError {
				t.Errorf("%s %s: database %q, error %v: want archive, no error:\n%s", e.Tool, e.Args, args.Database, e.IsError, e.Text)
			}
		}
		if !strings.HasPrefix(mcptest.Unmark(tools[1].Text), "<data-ID>\nshipped\n"+strconv.Itoa(shipped)+"\n") {
			t.Errorf("run_query on archive read %q, want %d shipped", tools[1].Text, shipped)
		}
		want := strconv.Itoa(shipped) + " orders have shipped. (database archive)"
		if r.ans.Database != "archive" || r.ans.Text != want || !slices.Equal(r.ans.Rows[0], []any{float64(shipped)}) || !r.ans.Submitted {
			t.Errorf("answer: database %q, text %q, rows %v: want archive, %q, %d", r.ans.Database, r.ans.Text, r.ans.Rows, want, shipped)
		}
	})
}
