package guard_test

import (
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// sameWays fails t when PostgresPolicyLimit's one-parse way accepts sql
// where its other way does not, or answers otherwise; it reports whether
// the one-parse way answered.
func sameWays(t *testing.T, sql string, pol guard.PolicyCatalog) bool {
	t.Helper()
	var cat guard.PostgresCatalog = testCatalog
	fast, ok := guard.LimitedAtOnce(sql, 101, cat, pol)
	slow, err := guard.LimitedApart(sql, 101, cat, pol)
	switch {
	case ok && err != nil:
		t.Fatalf("the one-parse way accepted %.300q, which the other refuses: %v", sql, err)
	case ok && !guard.SameQuery(fast, slow):
		t.Fatalf("the two ways differ on %.300q:\n one parse: %#v\n  the other: %#v", sql, fast, slow)
	}
	return ok
}

// TestLimitedAtOnce: over the corpora, with and without a policy, the
// one-parse way never accepts what the other refuses and gives the same
// query when it answers, which it does for most plain queries.
func TestLimitedAtOnce(t *testing.T) {
	for _, pol := range []guard.PolicyCatalog{nil, testPolicy} {
		answered := 0
		for _, c := range dbtest.HostilePostgres {
			if sameWays(t, c.SQL, pol) && pol == nil {
				t.Errorf("the one-parse way accepted %s: %.200q", c.Name, c.SQL)
			}
		}
		for _, c := range dbtest.AllowedPostgres {
			if sameWays(t, c.SQL, pol) {
				answered++
			}
		}
		plain := len(dbtest.AllowedPostgres)
		for _, sql := range limitedEdges {
			sameWays(t, sql, pol)
		}
		// Every allowed statement with the starts and ends a model's text
		// may have.
		for _, c := range dbtest.AllowedPostgres {
			for _, end := range []string{";", " ;\n", ";;", "\n-- why\n", " -- why;", "--;\n;", " /* ; */", "/* x */;", "\t;\f"} {
				sameWays(t, c.SQL+end, pol)
			}
			for _, start := range []string{"\n  ", "-- why\n", "/* why */ ", ";"} {
				sameWays(t, start+c.SQL, pol)
			}
		}
		if pol == nil && answered < plain/2 {
			t.Errorf("the one-parse way answered %d of the corpora's statements, of %d allowed", answered, plain)
		}
		t.Logf("policy %v: the one-parse way answered %d, %d allowed", pol != nil, answered, plain)
	}
}

// limitedEdges are texts at the edges of the one-parse way: the wrapper's
// own words inside the query, semicolons and comments at the end, more
// than one statement.
var limitedEdges = []string{
	"SELECT 1", "SELECT 1;", "SELECT 1 ;\n", "SELECT 1\t;\v;", "SELECT 'a;' ;;", "(SELECT 1) UNION (SELECT 2)",
	"select 1 -- the end", "SELECT 1 /* a */", "SELECT 1 --;", "SELECT 1 -- x;\n", "SELECT '--';", "  SELECT 1",
	"-- why\nSELECT 1", "/* why */ SELECT 1;", "\n\tSELECT 1 -- and\n;", ";SELECT 1", "; ;SELECT 1;",
	"SELECT 1) AS sqlmcp_q, (SELECT 2", "SELECT 1) AS sqlmcp_q LIMIT 101 --", "SELECT 1) AS sqlmcp_q LIMIT 101 OFFSET (0",
	"SELECT * FROM t) AS sqlmcp_q CROSS JOIN (SELECT 2", "SELECT 1 FOR UPDATE", "EXPLAIN SELECT 1", "SELECT 1; SELECT 2",
	"WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
}

// FuzzLimitedAtOnce holds PostgresPolicyLimit's two ways to the same
// answer on any text.
func FuzzLimitedAtOnce(f *testing.F) {
	addPostgresSeeds(f)
	for _, sql := range limitedEdges {
		f.Add(sql)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		sameWays(t, sql, nil)
		sameWays(t, sql, testPolicy)
	})
}
