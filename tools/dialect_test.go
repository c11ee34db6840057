package tools_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestErrorsTeachTheDialect: a function or syntax from another dialect, a
// question in words and a Markdown fence each get a hint in this engine's
// terms, on both engines; an unknown column's suggestions start with the
// tables the statement names.
func TestErrorsTeachTheDialect(t *testing.T) {
	for _, e := range dbtest.All(t, nil) {
		t.Run(e.Name, func(t *testing.T) {
			cs := serve(t, e.DB, zerolog.Nop())
			call := sqlCaller(t, cs)
			cases := []struct{ sql, want string }{
				{"SELECT TOP 3 name FROM customers", "LIMIT n at the end"},
				{"How many customers are there?", "does not read as SQL"},
				{"SELECT nme FROM customers", `customers.name`},
				// The table the statement names comes first: customer_name is
				// customers.name, not another table's column.
				{"SELECT customer_name FROM customers", `customers.name`},
				{"```sql\nSELECT nme FROM customers\n```", `customers.name`},
			}
			if e.Name == "postgres" {
				cases = append(cases,
					struct{ sql, want string }{"SELECT strftime('%Y', joined) FROM customers", "to_char"},
					struct{ sql, want string }{"SELECT group_concat(name) FROM customers", "string_agg"},
					struct{ sql, want string }{"SELECT `name` FROM customers", "double quotes, not backticks"},
					struct{ sql, want string }{"SELECT name FROM customers LIMIT 1, 2", "LIMIT n OFFSET m"},
				)
			} else {
				cases = append(cases,
					struct{ sql, want string }{"SELECT to_char(joined, 'YYYY') FROM customers", "strftime"},
					struct{ sql, want string }{"SELECT array_agg(name) FROM customers", "json_group_array"},
					struct{ sql, want string }{"SELECT joined::date FROM customers", "CAST(x AS"},
					struct{ sql, want string }{"SELECT name FROM customers WHERE name ILIKE 'a%'", "no ILIKE"},
				)
			}
			for _, c := range cases {
				text, isErr := call(c.sql)
				if !isErr || !strings.Contains(text, c.want) {
					t.Errorf("%q: got %q (error %v), want a hint holding %q", c.sql, text, isErr, c.want)
				}
			}
			if text, isErr := call("```sql\nSELECT count(*) AS n FROM customers\n```"); isErr {
				t.Errorf("a fenced statement: %s", text)
			}
			if text, _ := call("SELECT strftime('%Y', joined) FROM customers"); e.Name == "postgres" && strings.HasPrefix(text, "refused") {
				t.Errorf("a missing function reads as a refusal: %s", text)
			}
			// Another dialect's habits inside a string or a comment are no
			// habit: the hint reads the statement outside them.
			for _, sql := range []string{
				"SELECT nme FROM customers WHERE name = 'a::b ILIKE `x` LIMIT 1, 2' -- x::int",
				"SELECT nme /* SELECT TOP 3 */ FROM customers",
			} {
				text, _ := call(sql)
				for _, wrong := range []string{"::", "ILIKE", "backticks", "OFFSET", "TOP"} {
					if strings.Contains(text, "Write LIMIT n") || strings.Contains(text, "has no "+wrong) || strings.Contains(text, wrong+" casts") || strings.Contains(text, "not "+wrong) || strings.Contains(text, "LIMIT n "+wrong) {
						t.Errorf("%q: got %q, a hint about %s the statement does not hold", sql, text, wrong)
					}
				}
			}
		})
	}
}

// TestErrorsTeachMySQL: on MySQL and MariaDB, functions and syntax of the
// other dialects get hints in MySQL's terms.
func TestErrorsTeachMySQL(t *testing.T) {
	cs := serve(t, dbtest.MySQL(t, nil), zerolog.Nop())
	for _, c := range []struct{ sql, want string }{
		{"SELECT strftime('%Y', joined) FROM customers", "DATE_FORMAT"},
		{"SELECT string_agg(name, ',') FROM customers", "GROUP_CONCAT"},
		{"SELECT joined::date FROM customers", "CAST(x AS"},
		{"SELECT name FROM customers WHERE name ILIKE 'a%'", "no ILIKE"},
		{"SELECT c.name FROM customers c FULL OUTER JOIN products p ON p.id = c.id", "no FULL JOIN"},
		{"SELECT name FROM customers FETCH FIRST 2 ROWS ONLY", "LIMIT n"},
		{"SELECT TOP 3 name FROM customers", "LIMIT n at the end"},
		{"How many customers are there?", "does not read as SQL"},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": c.sql}})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, c.want) {
			t.Errorf("%q: got %q (error %v), want a hint holding %q", c.sql, text, res.IsError, c.want)
		}
	}
}

// TestSyntaxHintQuotesForTheDialect: a syntax error's advice on quoting
// names is the dialect's own. On MySQL and MariaDB it names backticks and
// warns off double quotes, which make a string there: a model that wrote
// "name" as told would read the literal on every row.
func TestSyntaxHintQuotesForTheDialect(t *testing.T) {
	dbs := dbtest.All(t, nil)
	if os.Getenv(dbtest.MySQLEnv) != "" {
		dbs = append(dbs, dbtest.Engine{Name: "mysql", DB: dbtest.MySQL(t, nil)})
	}
	for _, e := range dbs {
		t.Run(e.Name, func(t *testing.T) {
			cs := serve(t, e.DB, zerolog.Nop())
			for _, sql := range []string{"SELEC name FROM customers", `SELECT o.id FROM "order" o`} {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": sql}})
				if err != nil {
					t.Fatal(err)
				}
				text := res.Content[0].(*mcp.TextContent).Text
				if !res.IsError {
					continue // a dialect that reads it
				}
				backticks := strings.Contains(text, "in backticks (`order`), never double quotes")
				double := strings.Contains(text, "in double quotes")
				if e.Name == "mysql" && (!backticks || double) || e.Name != "mysql" && (backticks || !double) {
					t.Errorf("%q: got %q, want the advice to quote names as %s does", sql, text, e.Name)
				}
			}
		})
	}
}

// TestMySQLNamesInBackticks: on MySQL and MariaDB every tool writes a name
// that needs quoting in backticks, never in double quotes, which make a
// string there; and run_query refuses a double-quoted string standing
// where a name would (selected, compared, grouped, sorted, summed) that
// spells a column's or a table's name, since it would answer with that
// text on every row. Double-quoted aliases and values stay allowed.
func TestMySQLNamesInBackticks(t *testing.T) {
	dsn := dbtest.MySQLDSN(t,
		"CREATE TABLE `Order Items` (id INT PRIMARY KEY, `Unit Price` DECIMAL(10,2), `key` VARCHAR(10), `Placed On` VARCHAR(20))",
		"INSERT INTO `Order Items` VALUES (1, 9.5, 'a', '2024-01-02'), (2, 3.25, 'b', '2024-02-03')")
	cs := serve(t, dbtest.Open(t, dsn, &source.Options{}), zerolog.Nop())
	call := toolCaller(t, cs)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "run_query" && (!strings.Contains(tl.Description, "in backticks") || strings.Contains(tl.Description, "Double-quote")) {
			t.Errorf("run_query's description on MySQL: %q, want it to name backticks, not double quotes", tl.Description)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"list_tables", nil, []string{"- `Order Items` (table"}},
		{"describe_table", map[string]any{"table": "Order Items"}, []string{"table `Order Items`", "- `Unit Price` decimal(10,2)", "- `key` varchar(10)"}},
		{"search_schema", map[string]any{"query": "unit price"}, []string{"`Order Items`.`Unit Price`"}},
	} {
		text, _ := call(c.tool, c.args)
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q lacks %q", c.tool, text, w)
			}
		}
		if strings.Contains(text, `"Order Items"`) || strings.Contains(text, `"Unit Price"`) {
			t.Errorf("%s: %q quotes a name in double quotes", c.tool, text)
		}
	}
	for _, sql := range []string{
		"SELECT \"Unit Price\" FROM `Order Items`",
		"SELECT id FROM `Order Items` WHERE \"Unit Price\" > 5",
		"SELECT id, \"key\" FROM `Order Items`",
		"SELECT SUM(\"unit price\") FROM `Order Items`",
		"SELECT `key`, count(*) FROM `Order Items` GROUP BY \"key\"",
		"SELECT id FROM `Order Items` ORDER BY \"Placed On\" DESC",
	} {
		text, isErr := call("run_query", map[string]any{"sql": sql})
		if !isErr || !strings.Contains(text, "is a string in MySQL") || !strings.Contains(text, "`") {
			t.Errorf("%q: got %q (error %v), want it refused, naming the backticks", sql, text, isErr)
		}
	}
	for _, sql := range []string{
		"SELECT `Unit Price` AS \"Unit Price\" FROM `Order Items` WHERE id = 1",
		"SELECT `Unit Price` \"key\" FROM `Order Items` WHERE id = 1",
		"SELECT id FROM `Order Items` WHERE `key` = \"a\"",
		"SELECT 'Unit Price' AS label FROM `Order Items` WHERE id = 1",
	} {
		if text, isErr := call("run_query", map[string]any{"sql": sql}); isErr || !strings.Contains(text, "(1 row)") {
			t.Errorf("%q: got %q (error %v), want one row", sql, text, isErr)
		}
	}
}

// TestSQLiteMisspeltQuotedName: SQLite reads a double-quoted name it
// cannot find as text. run_query refuses one that nearly spells a column
// (a typo, other spacing) where a name would stand, naming the column; a
// double-quoted value, an alias of the statement and a strftime format
// stay allowed.
func TestSQLiteMisspeltQuotedName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quoted.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`CREATE TABLE items ("Unit Price" REAL, name TEXT, placed TEXT);
INSERT INTO items VALUES (1.5, 'a', '2024-01-05'), (2.5, 'b', '2024-02-01');`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	cs := serve(t, dbtest.Open(t, path, nil), zerolog.Nop())
	call := sqlCaller(t, cs)
	for _, q := range []string{
		`SELECT "Unit Prce" FROM items`,
		`SELECT name, "UnitPrice" FROM items`,
		`SELECT name FROM items ORDER BY "unit_price" DESC`,
		`SELECT sum("Unit  Price") FROM items`,
	} {
		if text, isErr := call(q); !isErr || !strings.Contains(text, `Did you mean "Unit Price"?`) {
			t.Errorf("%s: got %q (error %v), want it refused, naming the column", q, text, isErr)
		}
	}
	for _, q := range []string{
		`SELECT name FROM items WHERE name = "a"`,
		`SELECT "Unit Price" AS "Price" FROM items ORDER BY "Price" LIMIT 1`,
		`SELECT strftime("%Y", placed) AS y FROM items WHERE name = "a"`,
		`SELECT items."Unit Price" FROM items WHERE name = "a"`,
	} {
		if text, isErr := call(q); isErr || !strings.Contains(text, "(1 row)") {
			t.Errorf("%s: got %q (error %v), want one row", q, text, isErr)
		}
	}
}

// toolCaller calls a tool through cs and returns its text and whether it
// is an error, failing the test on a protocol error.
func toolCaller(t *testing.T, cs *mcp.ClientSession) func(tool string, args map[string]any) (string, bool) {
	return func(tool string, args map[string]any) (string, bool) {
		t.Helper()
		text, isErr, err := mcptest.Text(t, cs, tool, args)
		if err != nil {
			t.Fatal(err)
		}
		return text, isErr
	}
}

// sqlCaller runs SQL with run_query through cs (see toolCaller).
func sqlCaller(t *testing.T, cs *mcp.ClientSession) func(sql string) (string, bool) {
	call := toolCaller(t, cs)
	return func(sql string) (string, bool) {
		t.Helper()
		return call("run_query", map[string]any{"sql": sql})
	}
}

// TestConstantKeyRefused: SQLite and MySQL take a string literal as a key
// of ORDER BY, GROUP BY or PARTITION BY without an error, the same on
// every row: the order stays as it was and every row falls in one group.
// run_query refuses it and says to write the column's name; a literal in
// an expression of a key, in the select list or in a filter stays allowed.
func TestConstantKeyRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`CREATE TABLE items ("Unit Price" REAL, name TEXT);
INSERT INTO items VALUES (1.5, 'a'), (2.5, 'b');`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	dbs := []*source.DB{dbtest.Open(t, path, nil)}
	if os.Getenv(dbtest.MySQLEnv) != "" {
		dbs = append(dbs, dbtest.Open(t, dbtest.MySQLDSN(t, "CREATE TABLE items (`Unit Price` DOUBLE, name TEXT)",
			"INSERT INTO items VALUES (1.5, 'a'), (2.5, 'b')"), nil))
	}
	for _, db := range dbs {
		call := sqlCaller(t, serve(t, db, zerolog.Nop()))
		for q, want := range map[string]string{
			`SELECT name FROM items ORDER BY 'Unit Price' DESC`:                          "leaves the order as it was",
			`SELECT name, count(*) FROM items GROUP BY 'name'`:                           "puts every row in one group",
			`SELECT name, count(*) FROM items GROUP BY name, 'x' ORDER BY name`:          "puts every row in one group",
			`SELECT name FROM items GROUP BY 'name' ORDER BY name`:                       "puts every row in one group",
			`SELECT name, row_number() OVER (PARTITION BY 'a' ORDER BY name) FROM items`: "puts every row in one partition",
		} {
			if text, isErr := call(q); !isErr || !strings.Contains(text, want) {
				t.Errorf("%s on %s: got %q (error %v), want it refused: %s", q, db.Dialect(), text, isErr, want)
			}
		}
		for _, q := range []string{
			`SELECT name, count(*) FROM items GROUP BY name ORDER BY 2 DESC, name`,
			`SELECT name FROM items ORDER BY name || 'x'`,
			`SELECT name, 'x' AS k FROM items WHERE name IN ('a', 'b') ORDER BY name`,
			`SELECT name FROM items ORDER BY CASE WHEN name = 'a' THEN 1 ELSE 2 END`,
		} {
			if text, isErr := call(q); isErr || !strings.Contains(text, "(2 rows)") {
				t.Errorf("%s on %s: got %q (error %v), want two rows", q, db.Dialect(), text, isErr)
			}
		}
	}
}
