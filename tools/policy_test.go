package tools_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
	"go.yaml.in/yaml/v3"

	"github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/policy"
	"github.com/sqlmcp/sqlmcp/sources"
	"github.com/sqlmcp/sqlmcp/tools"
)

// policyCase is one statement of testdata/policy/corpus.yaml.
type policyCase struct {
	SQL    string   `yaml:"sql"`
	On     []string `yaml:"on"`
	Rows   int      `yaml:"rows"`
	Masked []string `yaml:"masked"`
}

func (c *policyCase) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		c.SQL = n.Value
		return nil
	}
	type plain policyCase
	return n.Decode((*plain)(c))
}

func (c policyCase) runsOn(engine string) bool {
	return len(c.On) == 0 || strings.Contains(strings.Join(c.On, " "), engine)
}

type policyCorpus struct {
	Refused map[string][]policyCase `yaml:"refused"`
	Allowed []policyCase            `yaml:"allowed"`
}

func policyFile(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dbtest.Root(), "testdata", "policy", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// servePolicy serves dsn as the source staff under testdata/policy's
// policy, through the same path sqlmcp serve takes, logging to log.
func servePolicy(t *testing.T, dsn string, log *mcptest.Log) *mcp.ClientSession {
	t.Helper()
	spec, err := policy.Load(filepath.Join(dbtest.Root(), "testdata", "policy", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return serveUnder(t, "staff", dsn, spec, zerolog.New(log))
}

// serveUnder serves dsn as the source name under spec, through the same
// path sqlmcp serve takes; a source that cannot start fails the test.
func serveUnder(t *testing.T, name, dsn string, spec *policy.Spec, log zerolog.Logger) *mcp.ClientSession {
	t.Helper()
	f, err := config.FromURLs([]string{name + "=" + dsn}, config.Settings{MaxConcurrency: 4, Policy: spec})
	if err != nil {
		t.Fatal(err)
	}
	set := sources.New(f, nil)
	t.Cleanup(set.Close)
	for _, r := range set.Start(t.Context()) {
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return mcptest.Connect(t, tools.NewServerSet(set, &tools.Options{Logger: log, Version: "test", MaxConcurrency: 4}))
}

// policyEngines builds the staff database on SQLite and, when the server
// is configured, PostgreSQL, with statistics gathered, and returns each
// with a way to read a fingerprint of its data from outside sqlmcp.
func policyEngines(t *testing.T) map[string]string {
	t.Helper()
	schema := policyFile(t, "schema.sql")
	path := filepath.Join(t.TempDir(), "staff.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(schema + "; ANALYZE;"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	dsns := map[string]string{"sqlite": path}
	if os.Getenv(dbtest.PostgresEnv) != "" {
		pg := dbtest.PostgresDSN(t)
		dbtest.PostgresExec(t, pg, schema+"; ANALYZE;")
		dsns["postgres"] = pg
	}
	return dsns
}

// fingerprint reads every row of the staff tables from outside sqlmcp.
func fingerprint(t *testing.T, engine, dsn string) string {
	t.Helper()
	const q = `SELECT (SELECT count(*) FROM employees) || ':' || (SELECT sum(salary) FROM employees) || ':' ||
		(SELECT count(*) FROM api_tokens) || ':' || (SELECT count(*) FROM departments)`
	if engine == "sqlite" {
		return dbtest.Fingerprint(t, dsn)
	}
	var out string
	if err := dbtest.PostgresConn(t, dsn).QueryRow(t.Context(), q).Scan(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPolicyCorpus: under a policy that denies a table and a column and
// masks another column, every route of the corpus that would read what is
// denied, or compute on what is masked, is refused on both engines, with
// no denied value in any answer, error or log line; the allowed queries
// run, masked values come redacted, and the database is unchanged.
func TestPolicyCorpus(t *testing.T) {
	var corpus policyCorpus
	if err := yaml.Unmarshal([]byte(policyFile(t, "corpus.yaml")), &corpus); err != nil {
		t.Fatal(err)
	}
	secrets := strings.Fields(policyFile(t, "secrets.txt"))
	for engine, dsn := range policyEngines(t) {
		t.Run(engine, func(t *testing.T) {
			before := fingerprint(t, engine, dsn)
			log := &mcptest.Log{}
			cs := servePolicy(t, dsn, log)
			leaks := func(what, text string) {
				t.Helper()
				for _, s := range secrets {
					if strings.Contains(text, s) {
						t.Errorf("%s shows the hidden value %q:\n%s", what, s, text)
					}
				}
			}
			for route, cases := range corpus.Refused {
				for _, c := range cases {
					if !c.runsOn(engine) {
						continue
					}
					got, isErr := callDB(t, cs, "run_query", map[string]any{"sql": c.SQL})
					if !isErr {
						t.Errorf("%s: %s was not refused:\n%s", route, c.SQL, got)
					}
					leaks(c.SQL, got)
				}
			}
			for _, c := range corpus.Allowed {
				if !c.runsOn(engine) {
					continue
				}
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": c.SQL}})
				if err != nil {
					t.Fatal(err)
				}
				got := render(t, res)
				if res.IsError {
					t.Errorf("%s was refused:\n%s", c.SQL, got)
					continue
				}
				leaks(c.SQL, got)
				checkMasked(t, c, res)
			}
			// The model's own SQL is logged as it was sent, literals and all:
			// what must not show is anything the database holds.
			for _, ev := range log.Find(map[string]any{}) {
				delete(ev, "sql")
				line, _ := json.Marshal(ev)
				leaks("the log", string(line))
			}
			if after := fingerprint(t, engine, dsn); after != before {
				t.Errorf("the database changed: %s, then %s", before, after)
			}
		})
	}
}

// checkMasked checks that c's masked columns come typed "masked" and
// hashed, equal values alike, and that no other column does.
func checkMasked(t *testing.T, c policyCase, res *mcp.CallToolResult) {
	t.Helper()
	raw, _ := json.Marshal(res.StructuredContent)
	var out struct {
		Columns []struct{ Name, Type string }
		Rows    [][]any
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Rows) != c.Rows {
		t.Errorf("%s: %d rows, want %d", c.SQL, len(out.Rows), c.Rows)
	}
	hashed := regexp.MustCompile(`^masked:[0-9a-f]{16}$`)
	for i, col := range out.Columns {
		want := strings.Contains(" "+strings.Join(c.Masked, " ")+" ", " "+col.Name+" ")
		if (col.Type == "masked") != want {
			t.Errorf("%s: column %s has type %q; masked: %v", c.SQL, col.Name, col.Type, want)
		}
		if !want {
			continue
		}
		for _, r := range out.Rows {
			if s, ok := r[i].(string); r[i] != nil && (!ok || !hashed.MatchString(s)) {
				t.Errorf("%s: %s holds %v, not a masked value", c.SQL, col.Name, r[i])
			}
		}
	}
}

// TestPolicyIndexOrder: rows read for allowed columns never come in the
// order of an index on a denied column (employees_salary lists the ids in
// salary order: 4, 3, 2, 1), through run_query or sample_values.
func TestPolicyIndexOrder(t *testing.T) {
	for engine, dsn := range policyEngines(t) {
		t.Run(engine, func(t *testing.T) {
			cs := servePolicy(t, dsn, &mcptest.Log{})
			for _, q := range []string{
				"SELECT group_concat(id) AS ids FROM employees",
				"SELECT group_concat(x.id) AS ids FROM (SELECT id FROM employees) x",
				"SELECT group_concat(id) AS ids FROM (SELECT id FROM employees WHERE id > 0) y",
			} {
				if engine == "postgres" {
					q = strings.ReplaceAll(strings.ReplaceAll(q, "group_concat(", "string_agg("), "id) AS", "id::text, ',') AS")
				}
				got, isErr := callDB(t, cs, "run_query", map[string]any{"sql": q})
				if isErr || !strings.Contains(got, "1,2,3,4") {
					t.Errorf("%s:\n%s", q, got)
				}
			}
			got, _ := callDB(t, cs, "sample_values", map[string]any{"table": "employees", "column": "id"})
			if strings.Contains(got, "4, 3, 2, 1") || strings.Contains(got, "[4,3,2,1]") {
				t.Errorf("sample_values id comes in salary order:\n%s", got)
			}
		})
	}
}

// TestPolicyWording: a refusal never tells a denied table or column from
// one that does not exist.
func TestPolicyWording(t *testing.T) {
	for engine, dsn := range policyEngines(t) {
		t.Run(engine, func(t *testing.T) {
			cs := servePolicy(t, dsn, &mcptest.Log{})
			for _, pair := range [][2]string{
				{"SELECT * FROM api_tokens", "SELECT * FROM api_tokenz"},
				{"SELECT token FROM api_tokens", "SELECT token FROM api_tokenz"},
				{"SELECT salary FROM employees", "SELECT salarx FROM employees"},
				{"SELECT name FROM employees WHERE salary > 1", "SELECT name FROM employees WHERE salarx > 1"},
				// A denied column that SQLite resolves, and a missing one it
				// fails on, next to a masked column used.
				{"SELECT lower(email), salary FROM employees", "SELECT lower(email), salarx FROM employees"},
				{"SELECT name FROM employees ORDER BY email, salary", "SELECT name FROM employees ORDER BY email, salarx"},
				{"SELECT email, salary FROM employees", "SELECT email, salarx FROM employees"},
				{"SELECT e.salary FROM employees e JOIN departments d USING (id)", "SELECT e.salarx FROM employees e JOIN departments d USING (id)"},
				{"SELECT salary FROM employees JOIN departments USING (id)", "SELECT salarx FROM employees JOIN departments USING (id)"},
				// Ambiguous only when the denied column is found.
				{"SELECT salary FROM employees e, employees f", "SELECT salarx FROM employees e, employees f"},
				// Writes, refused before SQLite finds the column or table.
				{"UPDATE employees SET salary = 1", "UPDATE employees SET salarx = 1"},
				{"ALTER TABLE employees DROP COLUMN salary", "ALTER TABLE employees DROP COLUMN salarx"},
				{"WITH x AS (SELECT 1) UPDATE employees SET salary = 1", "WITH x AS (SELECT 1) UPDATE employees SET salarx = 1"},
				{"CREATE INDEX zz ON api_tokens(token)", "CREATE INDEX zz ON api_tokenz(token)"},
				{"REINDEX api_tokens", "REINDEX api_tokenz"},
				{"SELECT * FROM temp.api_tokens", "SELECT * FROM temp.api_tokenz"},
				// SQLite reads "x" that names no column as a string, unless
				// told not to.
				{`SELECT "salary" FROM employees`, `SELECT "salarx" FROM employees`},
				{`SELECT name FROM employees WHERE "salary" = 'x'`, `SELECT name FROM employees WHERE "salarx" = 'x'`},
				{`SELECT "api_tokens" FROM employees`, `SELECT "api_tokenz" FROM employees`},
				// A hidden table's row type is missing before anything else.
				{"SELECT pg_typeof(1), NULL::api_tokens", "SELECT pg_typeof(1), NULL::api_tokenz"},
				{"SELECT NULL::api_tokens, nofunc(1)", "SELECT NULL::api_tokenz, nofunc(1)"},
				// SQLite fails on a missing USING column; the resolver
				// refuses a denied one.
				{"SELECT id FROM employees e JOIN employees f USING (id, salary)", "SELECT id FROM employees e JOIN employees f USING (id, salarx)"},
				// A denied view next to a * over a denied column, compiled
				// or failing on the missing name first.
				{"SELECT * FROM emp_pay NATURAL JOIN employees", "SELECT * FROM emp_paz NATURAL JOIN employees"},
				{"SELECT 1 FROM employees WHERE name IN emp_pay", "SELECT 1 FROM employees WHERE name IN emp_paz"},
				{"SELECT * FROM employees e JOIN employees f USING (salary)", "SELECT * FROM employees e JOIN employees f USING (salarx)"},
				{"SELECT * FROM employees e, employees f WHERE salary > 0", "SELECT * FROM employees e, employees f WHERE salarx > 0"},
				// A row type with a denied column would tell which exist.
				{"SELECT (NULL::employees).salary", "SELECT (NULL::employees).salarx"},
			} {
				denied, _ := callDB(t, cs, "run_query", map[string]any{"sql": pair[0]})
				missing, _ := callDB(t, cs, "run_query", map[string]any{"sql": pair[1]})
				for _, w := range []string{"api_tokens", "api_tokenz", "salary", "salarx", "emp_pay", "emp_paz"} {
					denied, missing = strings.ReplaceAll(denied, w, "NAME"), strings.ReplaceAll(missing, w, "NAME")
				}
				if denied != missing {
					t.Errorf("%s and %s are told apart:\n%s\n---\n%s", pair[0], pair[1], denied, missing)
				}
			}
		})
	}
}

// TestPolicySchemaTools: the five schema tools under the same policy show
// nothing denied, redact masked values, and count rows right.
func TestPolicySchemaTools(t *testing.T) {
	secrets := strings.Fields(policyFile(t, "secrets.txt"))
	for engine, dsn := range policyEngines(t) {
		t.Run(engine, func(t *testing.T) {
			cs := servePolicy(t, dsn, &mcptest.Log{})
			call := func(tool string, args map[string]any) (string, bool) {
				got, isErr := callDB(t, cs, tool, args)
				hidden := secrets
				if !isErr { // an error may echo the name it was asked for
					hidden = append(hidden, "api_tokens", "salary", "emp_pay", "token_owners")
				}
				asked := fmt.Sprint(args) // what the answer may echo
				for _, s := range hidden {
					if strings.Contains(got, s) && !strings.Contains(asked, s) {
						t.Errorf("%s %v shows %q:\n%s", tool, args, s, got)
					}
				}
				return got, isErr
			}
			got, _ := call("list_tables", nil)
			for _, want := range []string{"employees", "departments", "emp_public"} {
				if !strings.Contains(got, want) {
					t.Errorf("list_tables lacks %s:\n%s", want, got)
				}
			}
			got, _ = call("describe_table", map[string]any{"table": "employees"})
			if !strings.Contains(got, "masked by policy") || !strings.Contains(got, `"rows": 4`) {
				t.Errorf("describe_table employees:\n%s", got)
			}
			if _, isErr := call("describe_table", map[string]any{"table": "api_tokens"}); !isErr {
				t.Error("describe_table api_tokens was answered")
			}
			for _, q := range []string{"salary", "token", "pay", "hidden", "ann", "api tokens"} {
				got, _ := call("search_schema", map[string]any{"query": q})
				// Past the echo of the query, no match may name what is denied.
				got = strings.ReplaceAll(got, `"query": "`+q+`"`, "")
				got = strings.ReplaceAll(got, `nothing matches "`+q+`"`, "")
				for _, hidden := range []string{"salary", "api_tokens", "token_owners", "emp_pay", "hidden@"} {
					if strings.Contains(got, hidden) {
						t.Errorf("search_schema %q shows %s:\n%s", q, hidden, got)
					}
				}
			}
			got, isErr := call("sample_values", map[string]any{"table": "employees", "column": "email"})
			if isErr || !strings.Contains(got, "masked:") {
				t.Errorf("sample_values email:\n%s", got)
			}
			if _, isErr := call("sample_values", map[string]any{"table": "employees", "column": "salary"}); !isErr {
				t.Error("sample_values salary was answered")
			}
			got, isErr = call("distinct_values", map[string]any{"table": "employees", "column": "email"})
			if isErr || !strings.Contains(got, "masked:") {
				t.Errorf("distinct_values email:\n%s", got)
			}
			// Equal counts come in the order of the redacted text, never
			// the real values' (bob's email sorts before NULL on
			// PostgreSQL and after it on SQLite), and a cut that splits
			// equal counts leaves them all out.
			if i, j := strings.Index(got, "- NULL: 1"), strings.LastIndex(got, "': 1"); i < 0 || j < i {
				t.Errorf("distinct_values email orders equal counts by the values:\n%s", got)
			}
			got, _ = call("distinct_values", map[string]any{"table": "employees", "column": "email", "limit": 2})
			if strings.Contains(got, ": 1") {
				t.Errorf("distinct_values email, limit 2, shows which of the equal counts sort first:\n%s", got)
			}
			// A refusal of the policy's, said as one, not as the engine's error.
			if got, isErr := call("distinct_values", map[string]any{"table": "employees", "column": "email", "filter": "ann"}); !isErr || !strings.Contains(got, "refused: the column email") {
				t.Errorf("distinct_values filtered a masked column, or did not say it refused:\n%s", got)
			}
			if _, isErr := call("distinct_values", map[string]any{"table": "api_tokens", "column": "token"}); !isErr {
				t.Error("distinct_values api_tokens was answered")
			}
		})
	}
}

// TestPolicyGenerated: a generated column computed from a denied one is
// denied with it, on both engines: SQLite's authorizer reports a read of
// the generated column only, and PostgreSQL's parse tree names it alone.
func TestPolicyGenerated(t *testing.T) {
	const schema = `CREATE TABLE pay (id INTEGER PRIMARY KEY, salary INTEGER NOT NULL,
		yearly INTEGER GENERATED ALWAYS AS (salary * 12) STORED);
		INSERT INTO pay (id, salary) VALUES (1, 913571)`
	path := filepath.Join(t.TempDir(), "pay.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	db.Close()
	dsns := map[string]string{"sqlite": path}
	if os.Getenv(dbtest.PostgresEnv) != "" {
		pg := dbtest.PostgresDSN(t)
		dbtest.PostgresExec(t, pg, schema)
		dsns["postgres"] = pg
	}
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte("policy:\n  deny_columns: [pay.salary]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec, err := policy.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	for engine, dsn := range dsns {
		t.Run(engine, func(t *testing.T) {
			cs := serveUnder(t, "pay", dsn, spec, zerolog.Nop())
			for _, q := range []string{"SELECT yearly FROM pay", "SELECT yearly / 12 FROM pay", "SELECT * FROM pay", "SELECT id FROM pay WHERE yearly > 0"} {
				got, isErr := callDB(t, cs, "run_query", map[string]any{"sql": q})
				if !isErr || strings.Contains(got, "913571") || strings.Contains(got, "10962852") {
					t.Errorf("%s was not refused:\n%s", q, got)
				}
			}
			if got, isErr := callDB(t, cs, "run_query", map[string]any{"sql": "SELECT id FROM pay"}); isErr {
				t.Errorf("SELECT id FROM pay was refused:\n%s", got)
			}
			if got, isErr := callDB(t, cs, "sample_values", map[string]any{"table": "pay", "column": "yearly"}); !isErr {
				t.Errorf("sample_values yearly was answered:\n%s", got)
			}
		})
	}
}
