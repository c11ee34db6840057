package tools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/toolstest"
)

// callDB calls tool with args and returns what the model reads, and whether
// it is an error.
func callDB(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v", tool, args, err)
	}
	return render(t, res), res.IsError
}

// TestSeveralDatabases: one server over a SQLite database and two
// PostgreSQL ones answers every tool on each, lists the databases, and
// refuses a call without database, or with an unknown one, listing them.
func TestSeveralDatabases(t *testing.T) {
	pg1, pg2 := dbtest.PostgresDSN(t), dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, pg2, `CREATE TABLE only_here (id int PRIMARY KEY, label text); INSERT INTO only_here VALUES (1, 'second')`)
	cs := toolstest.ServeSet(t, "shop="+dbtest.SQLiteFile(t), "pg="+pg1, "pg_two="+pg2)

	init := cs.InitializeResult()
	for _, want := range []string{"3 databases", "- shop (sqlite): The shop database.", "- pg (postgres): The pg database.", "- pg_two (postgres)"} {
		if !strings.Contains(init.Instructions, want) {
			t.Errorf("instructions lack %q:\n%s", want, init.Instructions)
		}
	}

	caps, _ := json.Marshal(init.Capabilities.Experimental["sqlmcp"])
	if want := `{"databases":{"pg":"postgres","pg_two":"postgres","shop":"sqlite"}}`; string(caps) != want {
		t.Errorf("experimental.sqlmcp = %s, want %s", caps, want)
	}

	got, isErr := callDB(t, cs, "list_tables", nil)
	for _, want := range []string{"3 databases; call list_tables with database", "- shop (sqlite, 7 tables): The shop database.",
		"- pg (postgres, 8 tables): The pg database.", "- pg_two (postgres, 9 tables): The pg_two database.", `"name": "pg_two"`} {
		if isErr || !strings.Contains(got, want) {
			t.Errorf("list_tables without database lacks %q:\n%s", want, got)
		}
	}

	listing := `the databases are shop (sqlite: The shop database), pg (postgres: The pg database), pg_two (postgres: The pg_two database)`
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"table": "customers"}, "this server has 3 databases: say which with database; " + listing},
		{map[string]any{"table": "customers", "database": "nope"}, `no database named "nope"; ` + listing},
	} {
		if got, isErr := callDB(t, cs, "describe_table", tc.args); !isErr || !strings.Contains(got, tc.want) {
			t.Errorf("describe_table %v: %q, want an error saying %q", tc.args, got, tc.want)
		}
	}

	for _, db := range []string{"shop", "pg", "pg_two"} {
		for _, c := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"list_tables", nil, "customers"},
			{"describe_table", map[string]any{"table": "customers"}, "columns:"},
			{"search_schema", map[string]any{"query": "email"}, "email"},
			{"sample_values", map[string]any{"table": "customers", "column": "city"}, "city"},
			{"distinct_values", map[string]any{"table": "customers", "column": "city"}, "distinct"},
			{"run_query", map[string]any{"sql": "SELECT count(*) AS n FROM customers"}, "1 row"},
		} {
			args := map[string]any{"database": db}
			for k, v := range c.args {
				args[k] = v
			}
			if got, isErr := callDB(t, cs, c.tool, args); isErr || !strings.Contains(got, c.want) {
				t.Errorf("%s on %s: %q, want %q", c.tool, db, got, c.want)
			}
		}
	}
	// Each database is its own: a table of one is not in another.
	if got, isErr := callDB(t, cs, "run_query", map[string]any{"database": "pg_two", "sql": "SELECT label FROM only_here"}); isErr || !strings.Contains(got, "second") {
		t.Errorf("only_here on pg_two: %s", got)
	}
	if got, isErr := callDB(t, cs, "run_query", map[string]any{"database": "pg", "sql": "SELECT label FROM only_here"}); !isErr || !strings.Contains(got, "does not exist") {
		t.Errorf("only_here on pg: %s, want it missing", got)
	}

	// Calls to different databases at once, each getting its own answer.
	var wg sync.WaitGroup
	errs := make(chan string, 30)
	for i := range 30 {
		db := []string{"shop", "pg", "pg_two"}[i%3]
		wg.Go(func() {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_tables", Arguments: map[string]any{"database": db, "names_only": true}})
			if err != nil || res.IsError {
				errs <- fmt.Sprintf("%s: %v %v", db, err, res)
				return
			}
			var out struct{ Names []string }
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
			if has := strings.Contains(strings.Join(out.Names, " "), "only_here"); has != (db == "pg_two") {
				errs <- fmt.Sprintf("%s listed %v", db, out.Names)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestDatabaseDownAtStart: a PostgreSQL database whose server is down
// when sqlmcp starts is listed as unavailable, its calls fail naming it
// and the cause while the others answer, and once the server is up it is
// served without a restart.
func TestDatabaseDownAtStart(t *testing.T) {
	c := dbtest.NewCluster(t)
	c.LoadFixture(t)
	c.Stop(t)
	cs := toolstest.ServeSet(t, "shop="+dbtest.SQLiteFile(t), "later="+c.DSN+"&connect_timeout=2")

	got, _ := callDB(t, cs, "list_tables", nil)
	if !strings.Contains(got, "- later (postgres, unavailable: cannot connect to PostgreSQL") || !strings.Contains(got, "- shop (sqlite, 7 tables)") {
		t.Errorf("list_tables with later down:\n%s", got)
	}
	got, isErr := callDB(t, cs, "run_query", map[string]any{"database": "later", "sql": "SELECT 1"})
	if !isErr || !strings.HasPrefix(got, "isError: true\ndatabase later is unavailable: cannot connect to PostgreSQL") {
		t.Errorf("run_query on later, down: %q", got)
	}
	if got, isErr := callDB(t, cs, "run_query", map[string]any{"database": "shop", "sql": "SELECT 1 AS one"}); isErr {
		t.Errorf("shop while later is down: %s", got)
	}

	c.Start(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, isErr := callDB(t, cs, "run_query", map[string]any{"database": "later", "sql": "SELECT count(*) AS n FROM customers"})
		if !isErr {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("later never came up: %s", got)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// TestToolListSameForManySources: the tool list does not grow with the
// number of databases. With one it is the one-database list, without the
// database argument; with several, each tool takes database, whatever
// their number.
func TestToolListSameForManySources(t *testing.T) {
	size := func(n int) int {
		var specs []string
		for i := range n {
			specs = append(specs, fmt.Sprintf("db%d=%s", i, dbtest.SQLiteFile(t)))
		}
		cs := toolstest.ServeSet(t, specs...)
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res)
		if has := strings.Contains(string(raw), `"database"`); has != (n > 1) {
			t.Errorf("%d databases: the database argument listed %v", n, has)
		}
		return len(raw)
	}
	one, two, ten := size(1), size(2), size(10)
	t.Logf("tools/list: %d bytes with 1 database, %d with 2, %d with 10", one, two, ten)
	if two != ten {
		t.Errorf("tools/list is %d bytes with 2 databases and %d with 10", two, ten)
	}
}

// TestUnreadableTables: on PostgreSQL, the tables the role may not read
// are marked where the model reads about them, and the value tools say so
// instead of failing on a permission error.
func TestUnreadableTables(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, `CREATE SCHEMA sales; CREATE TABLE sales.orders (id int, city text); CREATE TABLE secrets (id int, code text)`)
	_, roleDSN := dbtest.PostgresRole(t, dsn, `GRANT USAGE ON SCHEMA public TO {{role}}; GRANT SELECT ON customers TO {{role}}`)
	cs := serve(t, dbtest.Open(t, roleDSN, nil), zerolog.Nop())
	got, _ := callDB(t, cs, "list_tables", nil)
	for _, want := range []string{"- sales.orders (table, rows unknown, 2 columns) [cannot be read: the role has no USAGE on schema sales]",
		"- secrets (table, rows unknown, 2 columns) [cannot be read: the role has no SELECT on it]", `"broken": "the role has no SELECT on it"`} {
		if !strings.Contains(got, want) {
			t.Errorf("list_tables lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "customers (table, rows unknown") {
		t.Errorf("customers is readable, so counted:\n%s", got)
	}
	if got, _ := callDB(t, cs, "describe_table", map[string]any{"table": "secrets"}); !strings.Contains(got, "cannot be read: the role has no SELECT on it; a query on it fails") {
		t.Errorf("describe_table secrets:\n%s", got)
	}
	if got, isErr := callDB(t, cs, "sample_values", map[string]any{"table": "sales.orders", "column": "city"}); !isErr ||
		!strings.Contains(got, "table sales.orders cannot be read: the role has no USAGE on schema sales; ask for another table") {
		t.Errorf("sample_values sales.orders: %q", got)
	}
}
