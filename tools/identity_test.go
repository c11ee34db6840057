package tools_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/identity"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/toolstest"
	"github.com/sqlmcp/sqlmcp/sources"
	"github.com/sqlmcp/sqlmcp/tools"
)

// serveAs serves set under rules to a client whose every call carries id,
// as the HTTP transport would after checking its credentials.
func serveAs(t *testing.T, set *sources.Set, rules identity.Rules, id *identity.Identity) *mcp.ClientSession {
	t.Helper()
	srv := tools.NewServerSet(set, &tools.Options{Logger: zerolog.Nop(), Version: "test", Rules: rules})
	if id != nil {
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				return next(identity.With(ctx, *id), method, req)
			}
		})
	}
	return mcptest.Connect(t, srv)
}

// TestIdentityRules: each identity sees only the databases its rule gives
// it, in list_tables, in errors and in the instructions; one no rule
// matches reaches none; a call without an identity (stdio) reaches all.
func TestIdentityRules(t *testing.T) {
	set := toolstest.Set(t, "shop="+dbtest.SQLiteFile(t), "hr="+dbtest.SQLiteFile(t), "ops="+dbtest.SQLiteFile(t))
	rules := identity.Rules{
		{Name: "alice", Match: identity.Match{Subjects: []string{"alice"}}, Sources: []string{"shop"}},
		{Name: "analysts", Match: identity.Match{Groups: []string{"analysts"}}, Sources: []string{"shop", "ops"}},
		{Name: "staff", Match: identity.Match{EmailDomains: []string{"example.com"}}, Sources: []string{"*"}},
	}
	for _, c := range []struct {
		name    string
		id      *identity.Identity
		sees    []string
		hidden  []string
		noGrant bool
	}{
		{"subject", &identity.Identity{Subject: "alice"}, []string{"shop"}, []string{"hr", "ops"}, false},
		{"group", &identity.Identity{Subject: "bob", Groups: []string{"x", "analysts"}}, []string{"shop", "ops"}, []string{"hr"}, false},
		{"email domain", &identity.Identity{Subject: "dan", Email: "dan@Example.com"}, []string{"shop", "hr", "ops"}, nil, false},
		{"no rule", &identity.Identity{Subject: "carol", Groups: []string{"guests"}}, nil, []string{"shop", "hr", "ops"}, true},
		{"no identity", nil, []string{"shop", "hr", "ops"}, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := serveAs(t, set, rules, c.id)
			if c.id != nil {
				for _, h := range []string{"shop", "hr", "ops"} {
					if strings.Contains(cs.InitializeResult().Instructions, "- "+h+" ") {
						t.Errorf("the instructions name %s:\n%s", h, cs.InitializeResult().Instructions)
					}
				}
			}
			got, isErr := callDB(t, cs, "list_tables", nil)
			if c.noGrant != isErr {
				t.Errorf("list_tables: error %v:\n%s", isErr, got)
			}
			for _, name := range c.sees {
				// With one database visible, list_tables lists its tables.
				if len(c.sees) > 1 && !strings.Contains(got, name) {
					t.Errorf("list_tables lacks %s:\n%s", name, got)
				}
				args := map[string]any{"sql": "SELECT count(*) FROM customers", "database": name}
				if got, isErr := callDB(t, cs, "run_query", args); isErr {
					t.Errorf("run_query on %s: %s", name, got)
				}
			}
			for _, name := range c.hidden {
				if strings.Contains(got, name) {
					t.Errorf("list_tables shows %s:\n%s", name, got)
				}
				got, isErr := callDB(t, cs, "describe_table", map[string]any{"table": "customers", "database": name})
				if !isErr {
					t.Errorf("describe_table on %s was answered", name)
				}
				for _, other := range c.hidden {
					if other != name && strings.Contains(got, other) {
						t.Errorf("the error names %s:\n%s", other, got)
					}
				}
			}
		})
	}
	// One database left visible: database may be left out.
	cs := serveAs(t, set, rules, &identity.Identity{Subject: "alice"})
	if got, isErr := callDB(t, cs, "run_query", map[string]any{"sql": "SELECT count(*) FROM customers"}); isErr {
		t.Errorf("run_query without database for an identity with one: %s", got)
	}
}

// TestIdentityRoles: on PostgreSQL each identity's calls run as the role
// its rule maps it to, so the table's row-level security policy returns
// each only its own rows, in run_query and in the value tools alike.
func TestIdentityRoles(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	name := dsn[strings.LastIndex(dsn, "/")+1:]
	suffix := strings.TrimPrefix(name[:strings.IndexByte(name+"?", '?')], "sqlmcp_test_")
	east, west := "sqlmcp_east_"+suffix, "sqlmcp_west_"+suffix
	dbtest.PostgresExec(t, dsn, `CREATE ROLE `+east+` NOLOGIN; CREATE ROLE `+west+` NOLOGIN;
		CREATE TABLE sales (region text NOT NULL, amount int NOT NULL);
		INSERT INTO sales VALUES ('`+east+`', 10), ('`+east+`', 20), ('`+west+`', 300);
		ALTER TABLE sales ENABLE ROW LEVEL SECURITY;
		CREATE POLICY mine ON sales USING (region = current_user);
		GRANT SELECT ON sales TO `+east+`, `+west+`;`)
	t.Cleanup(func() {
		dbtest.PostgresExec(t, dsn, `DROP TABLE sales; DROP ROLE `+east+`; DROP ROLE `+west)
	})
	set := toolstest.Set(t, "pg="+dsn)
	rules := identity.Rules{
		{Name: "east", Match: identity.Match{Groups: []string{"east"}}, Sources: []string{"pg"}, Roles: map[string]string{"pg": east}},
		{Name: "west", Match: identity.Match{Groups: []string{"west"}}, Sources: []string{"pg"}, Roles: map[string]string{"pg": west}},
	}
	for group, want := range map[string]string{"east": "30", "west": "300"} {
		cs := serveAs(t, set, rules, &identity.Identity{Subject: group + "-user", Groups: []string{group}})
		got, isErr := callDB(t, cs, "run_query", map[string]any{"sql": "SELECT sum(amount) AS total, current_user AS who FROM sales"})
		if isErr || !strings.Contains(got, want+" | sqlmcp_"+group) {
			t.Errorf("%s: run_query:\n%s", group, got)
		}
		got, isErr = callDB(t, cs, "distinct_values", map[string]any{"table": "sales", "column": "region"})
		other := map[string]string{"east": west, "west": east}[group]
		if isErr || strings.Contains(got, other) {
			t.Errorf("%s: distinct_values shows the other region's rows:\n%s", group, got)
		}
	}
	// The role is the call's alone: a caller without one is the connecting role again.
	cs := serveAs(t, set, nil, nil)
	if got, _ := callDB(t, cs, "run_query", map[string]any{"sql": "SELECT current_user AS who"}); strings.Contains(got, "sqlmcp_") {
		t.Errorf("a later call kept the role:\n%s", got)
	}
}

// TestIdentityRoleSeesNoOwnData: what sqlmcp reads as its connecting role
// of the rows themselves reaches no caller whose calls run as a role of
// their own, since the role may not read those rows: search_schema does
// not match, show or weigh the values it indexed, and distinct_values on
// a table too big to count in time does not answer from the statistics.
// A caller without a role still gets both.
func TestIdentityRoleSeesNoOwnData(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	name := dsn[strings.LastIndex(dsn, "/")+1:]
	suffix := strings.TrimPrefix(name[:strings.IndexByte(name+"?", '?')], "sqlmcp_test_")
	east := "sqlmcp_east_" + suffix
	// 120,000 rows (a big table), the first 10,000 of them of the other
	// region; the policy takes 0.2 ms a row, so counting as the role
	// outlasts source.BigCountTime.
	dbtest.PostgresExec(t, dsn, `CREATE ROLE `+east+` NOLOGIN;
		CREATE TABLE sales (region text NOT NULL, city text NOT NULL);
		INSERT INTO sales SELECT 'west', 'Quito' FROM generate_series(1, 10000);
		INSERT INTO sales SELECT 'east', 'Boston' FROM generate_series(1, 110000);
		ALTER TABLE sales ENABLE ROW LEVEL SECURITY;
		CREATE POLICY mine ON sales USING (CASE WHEN pg_sleep(0.0002) IS NULL THEN false ELSE region = 'east' END);
		GRANT SELECT ON sales TO `+east+`;
		ANALYZE sales;
		CREATE TABLE visits (region text NOT NULL, n text NOT NULL);
		INSERT INTO visits SELECT 'east', i::text FROM generate_series(1, 10) AS i;
		INSERT INTO visits VALUES ('west', 'Zebra'), ('west', 'Zebra');
		ALTER TABLE visits ENABLE ROW LEVEL SECURITY;
		CREATE POLICY mine ON visits USING (region = 'east');
		GRANT SELECT ON visits TO `+east+`;`)
	t.Cleanup(func() { dbtest.PostgresExec(t, dsn, `DROP TABLE sales; DROP TABLE visits; DROP ROLE `+east) })
	set := toolstest.Set(t, "pg="+dsn)
	_, cat, err := set.Get(t.Context(), "pg")
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.IndexValues(t.Context()); err != nil {
		t.Fatal(err)
	}
	rules := identity.Rules{{Name: "east", Match: identity.Match{Groups: []string{"east"}}, Sources: []string{"pg"}, Roles: map[string]string{"pg": east}}}

	own := serveAs(t, set, nil, nil) // the connecting role's own calls
	// The value shown, or a match by it.
	holds := func(got string) bool {
		return strings.Contains(got, `"value": "Quito"`) || strings.Contains(got, "value: quito")
	}
	if got, _ := callDB(t, own, "search_schema", map[string]any{"query": "Quito"}); !holds(got) {
		t.Fatalf("without a role, search_schema does not find the indexed value:\n%s", got)
	}
	cs := serveAs(t, set, rules, &identity.Identity{Subject: "e", Groups: []string{"east"}})
	if got, _ := callDB(t, cs, "search_schema", map[string]any{"query": "Quito"}); holds(got) {
		t.Errorf("as the role, search_schema matches a value of rows the role cannot read:\n%s", got)
	}
	twelve := regexp.MustCompile(`"rows": 12\b`)
	// describe_table and list_tables as the connecting role first: the
	// text kinds (integers, and Zebra) and the count (12) are kept.
	if got, _ := callDB(t, own, "describe_table", map[string]any{"table": "visits"}); !strings.Contains(got, "Zebra") || !twelve.MatchString(got) {
		t.Fatalf("without a role, describe_table does not show the text kind and the count:\n%s", got)
	}
	callDB(t, own, "list_tables", nil)
	for tool, args := range map[string]map[string]any{"describe_table": {"table": "visits"}, "list_tables": nil} {
		got, _ := callDB(t, cs, tool, args)
		if strings.Contains(got, "Zebra") || twelve.MatchString(got) {
			t.Errorf("as the role, %s shows what the connecting role read of visits:\n%s", tool, got)
		}
	}
	got, isErr := callDB(t, cs, "distinct_values", map[string]any{"table": "sales", "column": "city"})
	if strings.Contains(got, "Quito") || !isErr || !strings.Contains(got, "not shown to a caller with a role") {
		t.Errorf("as the role, distinct_values: %s", got)
	}
}
