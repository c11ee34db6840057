package guard_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// ChainCTE is a WITH chain of n levels over base, each defining x by expr
// (of x) from the level before: with x + x, every level doubles what the
// planner builds once it inlines the chain.
func chainCTE(n int, base, expr, mat string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "WITH a0 AS (%s)", base)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, ", a%d AS %s(SELECT %s AS x FROM a%d AS t)", i, mat, expr, i-1)
	}
	fmt.Fprintf(&b, " SELECT x FROM a%d", n)
	return b.String()
}

// chainDerived is the same chain through subqueries in FROM.
func chainDerived(n int, expr string) string {
	q := "SELECT g AS x FROM generate_series(1, 1) g"
	for i := 1; i <= n; i++ {
		q = fmt.Sprintf("SELECT %s AS x FROM (%s) s%d", expr, q, i)
	}
	return q
}

// chainLateral is the same chain through LATERAL subqueries.
func chainLateral(n int) string {
	var b strings.Builder
	b.WriteString("SELECT l" + fmt.Sprint(n) + ".x FROM (SELECT 1 AS x) l0")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, ", LATERAL (SELECT l%d.x + l%d.x AS x) l%d", i-1, i-1, i)
	}
	return b.String()
}

// chainNotMaterialized copies the relations to plan at every level.
func chainNotMaterialized(n int) string {
	var b strings.Builder
	b.WriteString("WITH a0 AS (SELECT 1 AS x)")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, ", a%d AS NOT MATERIALIZED (SELECT p.x FROM a%d p, a%d q)", i, i-1, i-1)
	}
	fmt.Fprintf(&b, " SELECT x FROM a%d", n)
	return b.String()
}

// nest wraps x in n levels of f, which holds %[1]s where x goes.
func nest(n int, x, f string) string {
	for range n {
		x = fmt.Sprintf(f, x)
	}
	return x
}

// PlanBombs are statements whose planning grows exponentially with their
// length, in code statement_timeout cannot interrupt; the guard refuses
// each, naming what to simplify.
var planBombs = []struct{ name, sql, hint string }{
	{"WITH chain of x + x, 24 levels", chainCTE(24, "SELECT 1 AS x", "x + x", ""), "MATERIALIZED"},
	{"WITH chain of x + x, 16 levels", chainCTE(16, "SELECT 1 AS x", "x + x", ""), "MATERIALIZED"},
	{"WITH chain over a table column", chainCTE(20, "SELECT id AS x FROM customers", "x * x", ""), "MATERIALIZED"},
	{"WITH chain marked NOT MATERIALIZED", chainCTE(20, "SELECT 1 AS x", "x + x", "NOT MATERIALIZED "), "MATERIALIZED"},
	{"WITH chain of a function of x twice", chainCTE(18, "SELECT 1 AS x", "greatest(x, x)", ""), "MATERIALIZED"},
	{"WITH chain of scalar subqueries", chainCTE(16, "SELECT 1 AS x", "(SELECT x) + (SELECT x)", ""), "MATERIALIZED"},
	{"WITH chain of whole rows", chainCTE(18, "SELECT 1 AS x", "ROW(t, t)", ""), "MATERIALIZED"},
	{"WITH chain of a 100 KB string", chainCTE(8, "SELECT '"+strings.Repeat("x", 100_000)+"' AS x", "x || x", ""), "MATERIALIZED"},
	{"derived tables, 24 levels", chainDerived(24, "x + x"), "MATERIALIZED"},
	{"derived tables of nested CASE", chainDerived(16, "CASE WHEN x > 0 THEN x ELSE x END"), "MATERIALIZED"},
	{"derived tables of CASE with many uses", chainDerived(8, "CASE x WHEN 1 THEN x WHEN 2 THEN x WHEN 3 THEN x ELSE x END"), "MATERIALIZED"},
	{"LATERAL chain", chainLateral(20), "MATERIALIZED"},
	{"NOT MATERIALIZED self-joins", chainNotMaterialized(12), "NOT MATERIALIZED"},
	{"the bomb inside a scalar subquery", "SELECT 1 WHERE 1 = (" + chainCTE(20, "SELECT 1 AS x", "x + x", "") + ")", "MATERIALIZED"},
	{"the bomb inside EXISTS", "SELECT 1 FROM customers WHERE EXISTS (" + chainDerived(20, "x + x") + ")", "MATERIALIZED"},
	{"the bomb explained", "EXPLAIN " + chainCTE(24, "SELECT 1 AS x", "x + x", ""), "MATERIALIZED"},
	{"the bomb in a UNION arm", "SELECT 1 UNION ALL " + chainDerived(20, "x + x"), "MATERIALIZED"},
	{"nested BETWEEN SYMMETRIC", "SELECT " + nest(12, "true", "(%[1]s BETWEEN SYMMETRIC false AND true)"), "BETWEEN"},
	{"nested NOT BETWEEN SYMMETRIC", "SELECT " + nest(12, "1", "(%[1]s NOT BETWEEN SYMMETRIC 0 AND 2)::int"), "BETWEEN"},
	{"nested BETWEEN", "SELECT " + nest(20, "true", "(%[1]s BETWEEN false AND true)"), "BETWEEN"},
	{"BETWEEN bounds nested", "SELECT " + nest(20, "1", "(1 BETWEEN SYMMETRIC 0 AND %[1]s)::int"), "BETWEEN"},
	{"nested IN of columns", "SELECT " + nest(10, "a", "(%[1]s IN (a, b, c, d))") + " FROM (VALUES (true, false, true, false)) v(a, b, c, d)", "IN ("},
	{"nested NOT IN of columns", "SELECT " + nest(10, "a", "(%[1]s NOT IN (a, b, c OR d, 'true'::boolean))") + " FROM (VALUES (true, false, true, false)) v(a, b, c, d)", "IN ("},
	{"(ROW(...)).* copies", chainCTE(12, "SELECT 1 AS f1, 1 AS f2, 1 AS f3", "1, (ROW(f1 + f2 + f3, 0, 0)).*", ""), "MATERIALIZED"},
	{"the bomb in a WITH query read by a WITH query", "WITH b AS (" + chainCTE(20, "SELECT 1 AS x", "x + x", "") + ") SELECT x FROM b", "MATERIALIZED"},
}

func TestCheckPostgresPlanBombs(t *testing.T) {
	cat := &fakeCatalog{everythingImmutable: true}
	for _, c := range planBombs {
		t.Run(c.name, func(t *testing.T) {
			err := guard.CheckPostgres(c.sql, cat)
			var ge *guard.Error
			if !errors.As(err, &ge) {
				t.Fatalf("CheckPostgres = %v, want a refusal (estimate %.0f)", err, guard.PostgresPlanUnits(c.sql))
			}
			if !strings.Contains(ge.Reason, "too costly to plan") || !strings.Contains(ge.Hint, c.hint) {
				t.Errorf("refusal = %q, want one saying the plan is too costly and naming %s", err, c.hint)
			}
		})
	}
}

// TestCheckPostgresEstimateBounded: the estimate's own work is bounded.
// Every * copies the columns it expands to, so SELECT *, * nested doubles
// them at each level, and k stars over k FROM items walk k² items; those
// are refused at once, and wide ordinary queries, a thousand columns
// through several levels, still pass.
func TestCheckPostgresEstimateBounded(t *testing.T) {
	cat := &fakeCatalog{everythingImmutable: true}
	rep := strings.Repeat
	for name, sql := range map[string]string{
		"SELECT *, * nested 40 levels (800 bytes)": rep("SELECT *, * FROM (", 40) + "SELECT 1 AS a" + rep(") s", 40),
		"WITH queries of SELECT *, *, *, *":        starCTEs(14),
		"3,000 stars over 3,000 FROM items":        "WITH c AS (SELECT 1 AS a) SELECT " + rep("*, ", 3000) + "1 FROM " + rep("c, ", 3000) + "c",
		"3,000 c.* over 3,000 items named c":       "WITH c AS (SELECT 1 AS a) SELECT " + rep("c.*, ", 3000) + "1 FROM " + rep("c, ", 3000) + "c",
	} {
		err := guard.CheckPostgres(sql, cat)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Reason, "too many columns to check") {
			t.Errorf("%s: got %v, want the refusal of too many columns", name, err)
		}
	}
	cols := make([]string, 1000)
	for i := range cols {
		cols[i] = fmt.Sprintf("%d AS c%d", i, i)
	}
	wide := "SELECT * FROM (SELECT " + strings.Join(cols, ", ") + ") w"
	for name, sql := range map[string]string{
		"1,000 columns through 5 levels of *": rep("SELECT * FROM (", 5) + wide + rep(") s", 5),
		"1,000 columns joined to themselves":  "SELECT a.*, b.c1 FROM (" + wide + ") a JOIN (" + wide + ") b USING (c0)",
		"20,000 tables joined, each named": "SELECT " + rep("p.id, ", 20_000) + "1 FROM " +
			strings.TrimSuffix(rep("customers p, ", 20_000), ", "), // the server refuses the repeated name; the guard must be quick
	} {
		err := guard.CheckPostgres(sql, cat)
		if err != nil && strings.Contains(err.Error(), "too many columns") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// starCTEs is n WITH queries, each selecting *, *, *, * from the last.
func starCTEs(n int) string {
	var b strings.Builder
	b.WriteString("WITH c0 AS MATERIALIZED (SELECT 1 AS a)")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, ", c%d AS MATERIALIZED (SELECT *, *, *, * FROM c%d)", i, i-1)
	}
	fmt.Fprintf(&b, " SELECT 1 FROM c%d", n)
	return b.String()
}

// ordinarySQL is analytic SQL that is long or deep without reuse
// multiplying it: the planning bound must let it all through.
func ordinarySQL() map[string]string {
	m := map[string]string{
		"30-level WITH chain, each level reading the last once": chainCTE(30, "SELECT id AS x FROM customers", "x + 1", ""),
		"30-level WITH chain using x twice, materialized":       chainCTE(30, "SELECT 1 AS x", "x + x", "MATERIALIZED "),
		"12-level derived tables using x twice":                 chainDerived(12, "x + x"),
		"window functions": `SELECT customer_id, placed_at, row_number() OVER w, rank() OVER w,
			sum(o.id) OVER (PARTITION BY customer_id ORDER BY placed_at ROWS BETWEEN 3 PRECEDING AND CURRENT ROW),
			lag(placed_at) OVER w, lead(placed_at, 2) OVER w, percent_rank() OVER w, ntile(4) OVER w
			FROM "order" o WINDOW w AS (PARTITION BY customer_id ORDER BY placed_at)`,
		"BIRD-style nested subqueries": `SELECT T1.name FROM customers AS T1 WHERE T1.id IN (
			SELECT T2.customer_id FROM "order" AS T2 WHERE T2.id IN (
				SELECT T3.order_id FROM "Order Items" AS T3 WHERE T3.product_id = (
					SELECT T4.id FROM products AS T4 WHERE T4.price = (SELECT MAX(price) FROM products)))
			GROUP BY T2.customer_id HAVING COUNT(*) > (SELECT AVG(c) FROM (SELECT COUNT(*) AS c FROM "order" GROUP BY customer_id) s))
			ORDER BY T1.name LIMIT 10`,
		"percentiles and ratios over a derived table": `SELECT city, total, total * 100.0 / sum(total) OVER () AS pct,
			percentile_cont(0.5) WITHIN GROUP (ORDER BY total) OVER () FROM (
				SELECT c.city, count(*) AS total FROM customers c JOIN "order" o ON o.customer_id = c.id GROUP BY c.city) t`,
	}
	m["BETWEEN, IN and (row).* in ordinary filters"] = `SELECT (ROW(c.id, c.name)).*, c.city FROM customers c JOIN "order" o ON o.customer_id = c.id
		WHERE o.placed_at BETWEEN '2024-01-01' AND '2024-12-31' AND c.id NOT BETWEEN SYMMETRIC 10 AND 1
			AND c.city IN (SELECT city FROM customers GROUP BY city) AND o.status IN ('paid', 'sent', c.city, o.status)
			AND (c.id + 1) IN (1, 2, 3, -4, $1::int)`
	var joins []string
	for i := range 20 {
		joins = append(joins, fmt.Sprintf("(SELECT id, name, city FROM customers) s%d", i))
	}
	m["20 FULL JOINs of subqueries USING (id)"] = "SELECT id, s0.name FROM " + joins[0]
	for _, j := range joins[1:] {
		m["20 FULL JOINs of subqueries USING (id)"] += " FULL JOIN " + j + " USING (id)"
	}
	m["20 NATURAL JOINs of subqueries"] = "SELECT * FROM " + strings.Join(joins, " NATURAL JOIN ")
	var unions []string
	for i := range 50 {
		unions = append(unions, fmt.Sprintf("SELECT %d AS k, c.name, count(*) FROM customers c JOIN \"order\" o ON o.customer_id = c.id JOIN \"Order Items\" i ON i.order_id = o.id WHERE c.id > %d GROUP BY c.name", i, i))
	}
	m["50-way UNION of three-table joins"] = strings.Join(unions, "\nUNION ALL\n")
	var whens []string
	for i := range 200 {
		whens = append(whens, fmt.Sprintf("WHEN name = 'n%d' THEN %d", i, i))
	}
	m["CASE of 200 WHENs"] = "SELECT CASE " + strings.Join(whens, " ") + " ELSE -1 END AS k FROM customers"
	m["CASE of 200 WHENs over a derived table"] = "SELECT CASE " + strings.Join(whens, " ") + " ELSE -1 END AS k FROM (SELECT upper(name) AS name FROM customers) s"
	return m
}

func TestCheckPostgresPlanOrdinary(t *testing.T) {
	cat := &fakeCatalog{everythingImmutable: true}
	for name, sql := range ordinarySQL() {
		t.Run(name, func(t *testing.T) {
			if err := guard.CheckPostgres(sql, cat); err != nil {
				t.Fatalf("CheckPostgres = %v, want nil", err)
			}
			// Ordinary SQL stays far below the bound.
			if u := guard.PostgresPlanUnits(sql); u > guard.MaxPostgresPlanUnits/4 {
				t.Errorf("estimate %.0f, want at most a quarter of the %d allowed", u, guard.MaxPostgresPlanUnits)
			}
		})
	}
}

// TestPostgresPlanCorpus: every allowed statement of the corpus (some
// built to be huge, such as an IN list of 50,000) stays below the bound,
// and every gold SQL of the demo questions far below it.
func TestPostgresPlanCorpus(t *testing.T) {
	sqls := map[string]string{}
	for _, c := range dbtest.AllowedPostgres {
		sqls["corpus: "+c.Name] = c.SQL
	}
	data, err := os.ReadFile("../demo/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	var qs []struct {
		ID  int    `json:"question_id"`
		SQL string `json:"SQL"`
	}
	if err := json.Unmarshal(data, &qs); err != nil {
		t.Fatal(err)
	}
	if len(qs) == 0 {
		t.Fatal("no demo questions")
	}
	for _, q := range qs {
		sqls[fmt.Sprintf("demo question %d", q.ID)] = q.SQL
	}
	worst, measured := 0.0, 0
	for name, sql := range sqls {
		u := guard.PostgresPlanUnits(sql)
		if u < 0 {
			continue // not PostgreSQL
		}
		measured++
		worst = max(worst, u)
		limit := float64(guard.MaxPostgresPlanUnits)
		if strings.HasPrefix(name, "demo") {
			limit /= 4
		}
		if u > limit {
			t.Errorf("%s: estimate %.0f, want at most %.0f", name, u, limit)
		}
	}
	if measured < len(qs) {
		t.Errorf("measured %d statements, want at least the %d demo questions", measured, len(qs))
	}
	t.Logf("%d statements, largest estimate %.0f", measured, worst)
}

// BenchmarkPostgresPlanUnits measures the estimate on a typical join,
// parsing included: compare with BenchmarkCheckPostgres.
func BenchmarkPostgresPlanUnits(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if guard.PostgresPlanUnits(dbtest.JoinQuery) < 0 {
			b.Fatal("JoinQuery does not parse")
		}
	}
}
