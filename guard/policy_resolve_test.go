package guard_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
)

// fakePolicy is a PolicyCatalog from a map: unqualified names are in
// public; a relation not in the map may not be read.
type fakePolicy map[string]guard.PolicyRelation

func (f fakePolicy) Relation(schema, name string) (guard.PolicyRelation, bool) {
	if schema == "" {
		schema = "public"
	}
	r, ok := f[schema+"."+name]
	return r, ok
}

func rel(schema, name string, cols ...string) guard.PolicyRelation {
	r := guard.PolicyRelation{Schema: schema, Name: name}
	for _, c := range cols {
		acc := guard.Allowed
		switch {
		case strings.HasPrefix(c, "-"):
			acc, c = guard.Denied, c[1:]
		case strings.HasPrefix(c, "~"):
			acc, c = guard.Masked, c[1:]
		}
		r.Columns = append(r.Columns, guard.PolicyColumn{Name: c, Access: acc})
	}
	return r
}

// testPolicy denies api_tokens (absent here, as the policy hides it),
// customers.password_hash and employees.salary, and masks customers.email.
var testPolicy = fakePolicy{
	"public.customers": rel("public", "customers", "id", "name", "~email", "-password_hash", "city"),
	"public.orders":    rel("public", "orders", "id", "customer_id", "total", "note"),
	"public.employees": rel("public", "employees", "id", "name", "-salary", "dept"),
	"hr.staff":         rel("hr", "staff", "id", "name"),
	"public.plain":     rel("public", "plain", "a", "b"),
}

func email(pos int) guard.MaskedColumn {
	return guard.MaskedColumn{Position: pos, Schema: "public", Table: "customers", Column: "email"}
}

func TestPolicyAccepts(t *testing.T) {
	for _, tc := range []struct {
		name, sql string
		masked    []guard.MaskedColumn
	}{
		{"plain columns", "SELECT id, name FROM customers", nil},
		{"masked bare", "SELECT id, email FROM customers", []guard.MaskedColumn{email(1)}},
		{"masked aliased", "SELECT email AS e FROM customers", []guard.MaskedColumn{email(0)}},
		{"masked qualified", "SELECT c.email FROM customers c", []guard.MaskedColumn{email(0)}},
		{"masked schema qualified", "SELECT public.customers.email FROM customers", []guard.MaskedColumn{email(0)}},
		{"masked field of row", "SELECT (c).email FROM customers c", []guard.MaskedColumn{email(0)}},
		{"star without denied", "SELECT * FROM orders", nil},
		{"star over subquery", "SELECT * FROM (SELECT id, email FROM customers) s", []guard.MaskedColumn{email(1)}},
		{"t.star of subquery", "SELECT o.total, s.* FROM orders o JOIN (SELECT id, email FROM customers) s ON s.id = o.customer_id", []guard.MaskedColumn{email(2)}},
		{"through a CTE", "WITH c AS (SELECT id, email FROM customers) SELECT email, id FROM c", []guard.MaskedColumn{email(0)}},
		{"through a CTE renamed", "WITH c(i, e) AS (SELECT id, email FROM customers) SELECT e FROM c WHERE i > 3", []guard.MaskedColumn{email(0)}},
		{"through two subqueries", "SELECT x FROM (SELECT y AS x FROM (SELECT email AS y FROM customers) a) b", []guard.MaskedColumn{email(0)}},
		{"scalar subquery bare", "SELECT o.id, (SELECT c.email FROM customers c WHERE c.id = o.customer_id) FROM orders o", []guard.MaskedColumn{email(1)}},
		{"filter on allowed", "SELECT email FROM customers WHERE city = 'Oslo' ORDER BY id", []guard.MaskedColumn{email(0)}},
		{"join on allowed", "SELECT c.email, o.total FROM customers c JOIN orders o ON o.customer_id = c.id", []guard.MaskedColumn{email(0)}},
		{"using allowed", "SELECT id, email FROM customers JOIN (SELECT id, total FROM orders) o USING (id)", []guard.MaskedColumn{email(1)}},
		{"natural join of plain tables", "SELECT * FROM orders NATURAL JOIN plain", nil},
		{"group by allowed", "SELECT city, count(*) FROM customers GROUP BY city ORDER BY 2 DESC", nil},
		{"group by alias", "SELECT city AS c, count(*) FROM customers GROUP BY c", nil},
		{"order by output alias", "SELECT name AS email FROM customers ORDER BY email", nil},
		{"window on allowed", "SELECT email, row_number() OVER (PARTITION BY city ORDER BY id) FROM customers", []guard.MaskedColumn{email(0)}},
		{"exists", "SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)", nil},
		{"in subquery", "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders)", nil},
		{"lateral", "SELECT c.name, l.total FROM customers c, LATERAL (SELECT o.total FROM orders o WHERE o.customer_id = c.id LIMIT 1) l", nil},
		{"function with column list", "SELECT x.a FROM json_to_record('{}') AS x(a int, b text)", nil},
		{"known function", "SELECT n FROM generate_series(1, 3) AS g(n)", nil},
		{"known scalar function", "SELECT g FROM generate_series(1, 3) g", nil},
		{"json_each", "SELECT key, value FROM json_each('{}')", nil},
		{"rows from", "SELECT a, b FROM ROWS FROM (generate_series(1, 2), generate_series(3, 4)) AS r(a, b)", nil},
		{"ordinality", "SELECT x, ordinality FROM unnest(ARRAY[1]) WITH ORDINALITY AS u(x)", nil},
		{"opaque qualified", "SELECT f.anything FROM some_function() f", nil},
		{"values", "SELECT column1 FROM (VALUES (1), (2)) v", nil},
		{"union of allowed", "SELECT id FROM customers UNION SELECT id FROM orders ORDER BY 1", nil},
		{"recursive cte", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r", nil},
		{"cte shadows table", "WITH customers AS (SELECT 1 AS password_hash) SELECT password_hash FROM customers", nil},
		{"system column", "SELECT ctid, xmin, tableoid FROM customers", nil},
		{"whole row of unrestricted", "SELECT row_to_json(o) FROM orders o", nil},
		{"whole row of unrestricted star", "SELECT to_jsonb(o.*) FROM orders o", nil},
		{"schema qualified", "SELECT hr.staff.name FROM hr.staff", nil},
		{"catalog qualified", "SELECT db.hr.staff.name FROM hr.staff", nil},
		{"count star", "SELECT count(*) FROM customers", nil},
		{"join alias", "SELECT j.id FROM (orders o JOIN plain p ON p.a = o.id) AS j", nil},
		{"xmltable", "SELECT x.v FROM XMLTABLE('/a' PASSING '<a/>' COLUMNS v text PATH '.') x", nil},
		{"json_table", "SELECT j.v FROM JSON_TABLE('[1]', '$[*]' COLUMNS (v int PATH '$')) j", nil},
		{"tablesample", "SELECT email FROM customers TABLESAMPLE SYSTEM (10)", []guard.MaskedColumn{email(0)}},
		{"star of masked table", "SELECT * FROM (SELECT id, name, email FROM customers) c", []guard.MaskedColumn{email(2)}},
		{"is null on allowed", "SELECT email FROM customers WHERE name IS NOT NULL", []guard.MaskedColumn{email(0)}},
		{"left join anti", "SELECT c.name, o.total FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL", nil},
		{"correlated qualified", "SELECT c.name, (SELECT count(*) FROM orders o WHERE o.customer_id = c.id) FROM customers c", nil},
		{"full join using star", "SELECT * FROM orders FULL JOIN plain ON plain.a = orders.id", nil},
		{"using star order", "SELECT * FROM (SELECT id, email FROM customers) c JOIN orders USING (id)", []guard.MaskedColumn{email(1)}},
		{"using unqualified merged", "SELECT id, email FROM customers JOIN orders USING (id) WHERE id > 1", []guard.MaskedColumn{email(1)}},
		{"using alias", "SELECT u.id FROM orders JOIN (SELECT id FROM customers) c USING (id) AS u", nil},
		{"nested joins", "SELECT c.email, p.b FROM customers c JOIN orders o ON o.customer_id = c.id JOIN plain p ON p.a = o.id", []guard.MaskedColumn{email(0)}},
		{"join alias star", "SELECT * FROM (orders o JOIN plain p ON p.a = o.id) AS j(i)", nil},
		{"lateral function", "SELECT c.name, x FROM customers c, unnest(ARRAY[c.name]) AS u(x)", nil},
		{"exists with star", "SELECT name FROM customers c WHERE EXISTS (SELECT * FROM orders o WHERE o.customer_id = c.id)", nil},
		{"in list", "SELECT email FROM customers WHERE id IN (1, 2, 3)", []guard.MaskedColumn{email(0)}},
		{"case on allowed", "SELECT CASE WHEN city = 'Oslo' THEN 'N' ELSE 'S' END AS region, count(*) FROM customers GROUP BY 1", nil},
		{"group by pk with masked", "SELECT id, email FROM customers GROUP BY id", []guard.MaskedColumn{email(1)}},
		{"masked twice", "SELECT email, email AS again FROM customers", []guard.MaskedColumn{email(0), email(1)}},
		{"having count", "SELECT city FROM customers GROUP BY city HAVING count(*) > 1", nil},
		{"distinct without masked", "SELECT DISTINCT city FROM customers", nil},
		{"distinct over subquery not returning masked", "SELECT DISTINCT city FROM (SELECT email, city FROM customers) s", nil},
		{"count over masked subquery", "SELECT count(*) FROM (SELECT email FROM customers) s", nil},
		{"cte used twice", "WITH c AS (SELECT id, email FROM customers) SELECT a.email FROM c a JOIN c b ON b.id = a.id", []guard.MaskedColumn{email(0)}},
		{"fetch with ties", "SELECT email FROM customers ORDER BY id FETCH FIRST 1 ROWS WITH TIES", []guard.MaskedColumn{email(0)}},
		{"values join", "SELECT v.x, c.email FROM (VALUES (1)) v(x) JOIN customers c ON c.id = v.x", []guard.MaskedColumn{email(1)}},
		{"sqlvalue", "SELECT current_user, current_date", nil},
		{"json of allowed columns", "SELECT json_build_object('id', id, 'city', city) FROM customers", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := guard.CheckPolicySQL(tc.sql, testPolicy, sqlmcp.Postgres)
			if err != nil {
				t.Fatalf("CheckPolicySQL(%q): %v", tc.sql, err)
			}
			if diff := cmp.Diff(tc.masked, got); diff != "" {
				t.Errorf("masked columns (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPolicyRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, sql, want string // want: in the refusal
	}{
		// Denied tables.
		{"denied table", "SELECT * FROM api_tokens", "no table named api_tokens that you may read"},
		{"denied table qualified", "SELECT token FROM public.api_tokens", "no table named public.api_tokens that you may read"},
		{"denied table in subquery", "SELECT id FROM customers WHERE id IN (SELECT user_id FROM api_tokens)", "no table named api_tokens"},
		{"denied table in exists", "SELECT 1 WHERE EXISTS (SELECT 1 FROM api_tokens)", "no table named api_tokens"},
		{"denied table in cte", "WITH t AS (SELECT * FROM api_tokens) SELECT count(*) FROM t", "no table named api_tokens"},
		{"denied table in lateral", "SELECT 1 FROM customers c, LATERAL (SELECT 1 FROM api_tokens) x", "no table named api_tokens"},
		{"denied table in union", "SELECT id FROM orders UNION ALL SELECT id FROM api_tokens", "no table named api_tokens"},
		{"denied table joined", "SELECT o.id FROM orders o JOIN api_tokens t ON true", "no table named api_tokens"},
		{"catalog table", "SELECT * FROM pg_stats", "no table named pg_stats"},
		{"catalog table qualified", "SELECT relname FROM pg_catalog.pg_class", "no table named pg_catalog.pg_class"},
		{"information_schema", "SELECT column_name FROM information_schema.columns", "no table named information_schema.columns"},
		{"cte not recursive does not see itself", "WITH api_tokens AS (SELECT * FROM api_tokens) SELECT 1 FROM api_tokens", "no table named api_tokens"},
		// Denied columns.
		{"denied column", "SELECT salary FROM employees", "no column named salary that you may read"},
		{"denied column qualified", "SELECT e.salary FROM employees e", "no column named salary that you may read in e"},
		{"denied column schema qualified", "SELECT public.employees.salary FROM employees", "no column named salary that you may read in employees"},
		{"denied column in where", "SELECT name FROM employees WHERE salary > 100000", "no column named salary"},
		{"denied column in order", "SELECT name FROM employees ORDER BY salary", "no column named salary"},
		{"denied column in group", "SELECT count(*) FROM employees GROUP BY salary", "no column named salary"},
		{"denied column in having", "SELECT dept FROM employees GROUP BY dept HAVING max(salary) > 1", "no column named salary"},
		{"denied column in window", "SELECT name, rank() OVER (ORDER BY salary) FROM employees", "no column named salary"},
		{"denied column in join on", "SELECT e.name FROM employees e JOIN orders o ON o.total = e.salary", "no column named salary"},
		{"denied column in using", "SELECT 1 FROM employees JOIN (SELECT 1 AS salary) x USING (salary)", "no column named salary that you may read in employees"},
		{"denied column in subquery", "SELECT (SELECT max(salary) FROM employees)", "no column named salary"},
		{"denied column in cte", "WITH s AS (SELECT salary AS x FROM employees) SELECT x FROM s", "no column named salary"},
		{"denied column in function", "SELECT sum(salary) FROM employees", "no column named salary"},
		{"denied column in lateral", "SELECT 1 FROM employees e, LATERAL (SELECT e.salary) x", "no column named salary"},
		{"denied column via field", "SELECT (e).salary FROM employees e", "no column named salary that you may read in e"},
		{"denied column renamed", "SELECT s FROM employees AS e(i, n, s)", "a list of column names after employees would count columns of it that you may not read"},
		{"denied column in case", "SELECT CASE WHEN salary > 1 THEN 1 END FROM employees", "no column named salary"},
		{"denied column in filter", "SELECT count(*) FILTER (WHERE salary > 1) FROM employees", "no column named salary"},
		{"password qualified", "SELECT c.password_hash FROM customers c", "no column named password_hash"},
		// * and whole rows.
		{"star of denied column", "SELECT * FROM employees", "name the columns instead: id, name, dept"},
		{"t.star of denied column", "SELECT e.* FROM employees e", "name the columns instead: id, name, dept"},
		{"star in subquery", "SELECT id FROM (SELECT * FROM employees) s", "name the columns instead"},
		{"star in cte", "WITH s AS (SELECT * FROM employees) SELECT id FROM s", "name the columns instead"},
		{"star in exists", "SELECT 1 WHERE EXISTS (SELECT * FROM employees)", "name the columns instead"},
		{"whole row", "SELECT e FROM employees e", "whole row of e"},
		{"whole row in function", "SELECT row_to_json(e) FROM employees e", "whole row of e"},
		{"whole row to_jsonb", "SELECT to_jsonb(c) FROM customers c", "whole row of c"},
		{"whole row json_agg", "SELECT json_agg(e) FROM employees e", "whole row of e"},
		{"whole row cast", "SELECT e::text FROM employees e", "whole row of e"},
		{"whole row star in function", "SELECT row_to_json(e.*) FROM employees e", "whole row of e"},
		{"row of star", "SELECT ROW(e.*) FROM employees e", "whole row of e"},
		{"whole row unaliased", "SELECT employees FROM employees", "whole row of employees"},
		{"whole row compared", "SELECT 1 FROM customers c WHERE c = c", "whole row of c"},
		{"whole row of masked subquery", "SELECT s FROM (SELECT email FROM customers) s", "whole row of s"},
		{"whole row of join", "SELECT j FROM (customers JOIN orders ON true) j", "whole row of j"},
		{"count of row", "SELECT count(c.*) FROM customers c", "whole row of c"},
		{"natural join restricted", "SELECT 1 FROM customers NATURAL JOIN orders", "NATURAL JOIN"},
		{"natural join denied column", "SELECT id FROM employees NATURAL JOIN (SELECT 1 AS salary) x", "NATURAL JOIN"},
		// Masked columns computed on.
		{"masked in function", "SELECT lower(email) FROM customers", "the column email of customers is masked"},
		{"masked counted", "SELECT count(email) FROM customers", "is masked"},
		{"masked operator", "SELECT email || 'x' FROM customers", "is masked"},
		{"masked compared", "SELECT id FROM customers WHERE email = 'a@b.c'", "is masked"},
		{"masked like", "SELECT id FROM customers WHERE email LIKE 'a%'", "is masked"},
		{"masked is null", "SELECT id FROM customers WHERE email IS NULL", "is masked"},
		{"masked in case", "SELECT CASE WHEN email > 'm' THEN 1 END FROM customers", "is masked"},
		{"masked cast", "SELECT email::text FROM customers", "is masked"},
		{"masked collate", "SELECT email COLLATE \"C\" FROM customers", "is masked"},
		{"masked join on", "SELECT 1 FROM customers c JOIN orders o ON o.note = c.email", "is masked"},
		{"masked using", "SELECT 1 FROM customers JOIN (SELECT 'x' AS email) x USING (email)", "is masked"},
		{"masked group by", "SELECT email FROM customers GROUP BY email", "is masked"},
		{"masked group by position", "SELECT email, count(*) FROM customers GROUP BY 1", "is masked"},
		{"masked group by alias", "SELECT email AS e, count(*) FROM customers GROUP BY e", "is masked"},
		{"masked having", "SELECT city FROM customers GROUP BY city HAVING min(email) > 'a'", "is masked"},
		{"masked order by", "SELECT id FROM customers ORDER BY email", "is masked"},
		{"masked order by alias", "SELECT email AS e FROM customers ORDER BY e", "is masked"},
		{"masked order by position", "SELECT id, email FROM customers ORDER BY 2", "is masked"},
		{"masked distinct", "SELECT DISTINCT email FROM customers", "is masked"},
		{"masked distinct with others", "SELECT DISTINCT id, email FROM customers", "is masked"},
		{"masked distinct on", "SELECT DISTINCT ON (email) id FROM customers", "is masked"},
		{"masked window partition", "SELECT id, rank() OVER (PARTITION BY email) FROM customers", "is masked"},
		{"masked window order", "SELECT id, rank() OVER (ORDER BY email) FROM customers", "is masked"},
		{"masked union", "SELECT email FROM customers UNION SELECT note FROM orders", "is masked"},
		{"masked union all", "SELECT email FROM customers UNION ALL SELECT note FROM orders", "is masked"},
		{"masked intersect", "SELECT note FROM orders INTERSECT SELECT email FROM customers", "is masked"},
		{"masked except", "SELECT email FROM customers EXCEPT SELECT note FROM orders", "is masked"},
		{"masked through subquery then filtered", "SELECT x FROM (SELECT email AS x FROM customers) s WHERE x = 'a'", "is masked"},
		{"masked through cte then sorted", "WITH c AS (SELECT email FROM customers) SELECT email FROM c ORDER BY email", "is masked"},
		{"masked through cte distinct", "WITH c AS (SELECT email FROM customers) SELECT DISTINCT email FROM c", "is masked"},
		{"masked in in-subquery", "SELECT id FROM orders WHERE note IN (SELECT email FROM customers)", "is masked"},
		{"masked in array subquery", "SELECT ARRAY(SELECT email FROM customers)", "is masked"},
		{"masked in scalar subquery computed", "SELECT (SELECT email FROM customers LIMIT 1) || 'x'", "is masked"},
		{"masked in exists", "SELECT 1 WHERE EXISTS (SELECT 1 FROM customers WHERE email = 'x')", "is masked"},
		{"masked in lateral function", "SELECT 1 FROM customers c, LATERAL unnest(ARRAY[c.email]) u", "is masked"},
		{"masked recursive cte", "WITH RECURSIVE r AS (SELECT email FROM customers UNION SELECT email FROM r) SELECT email FROM r", "is masked"},
		{"masked values", "SELECT 1 FROM customers c, LATERAL (VALUES (c.email)) v", "is masked"},
		{"masked field", "SELECT (email).x FROM customers", "is masked"},
		{"masked subscript", "SELECT (email)[1] FROM customers", "is masked"},
		{"masked json", "SELECT email -> 'a' FROM customers", "is masked"},
		{"masked aggregate order", "SELECT string_agg(name, ',' ORDER BY email) FROM customers", "is masked"},
		{"masked cycle", "WITH RECURSIVE r AS (SELECT id, email FROM customers UNION ALL SELECT id, email FROM r) CYCLE email SET m USING p SELECT id FROM r", "is masked"},
		// Unqualified names the resolver cannot pin down.
		{"outer unqualified", "SELECT (SELECT email FROM orders LIMIT 1) FROM customers", "not a column of its own query's FROM"},
		{"outer unqualified denied shadow", "SELECT (SELECT salary FROM employees LIMIT 1) FROM (SELECT 1 AS salary) x", "not a column of its own query's FROM"},
		{"opaque function unqualified", "SELECT email FROM customers c, LATERAL some_function(c.id) f WHERE anything > 1", "whose columns are not known"},
		{"opaque function masked", "SELECT x FROM customers c, some_function() f", "whose columns are not known"},
		{"star over opaque then masked", "SELECT * FROM some_function() f, (SELECT email FROM customers) c", "comes after a function's columns"},
		{"unknown column", "SELECT nothing FROM customers", "no column named nothing that you may read"},
		{"unknown qualified column", "SELECT c.nothing FROM customers c", "no column named nothing that you may read in c"},
		{"unknown qualifier", "SELECT x.id FROM customers c", "no table or alias named x"},
		{"forward cte", "WITH RECURSIVE a AS (SELECT x FROM b), b AS (SELECT 1 AS x) SELECT x FROM a", "used before it is defined"},
		{"whole row shadowed by an outer denied column", "SELECT (SELECT salary FROM (SELECT 1) salary) FROM employees", "cannot be resolved for certain"},
		{"position after opaque star", "SELECT f.*, c.email FROM some_function() f, customers c ORDER BY 3", "is masked"},
		{"join on sees no merged columns", "SELECT 1 FROM orders o JOIN plain p ON p.a = o.id JOIN customers c ON email = 'x'", "is masked"},
		{"opaque inner, outer masked", "SELECT (SELECT email FROM some_function() f) FROM customers", "whose columns are not known"},
		{"masked in a join of a cte", "WITH c AS (SELECT id, email FROM customers) SELECT a.id FROM c a JOIN c b ON b.email = a.email", "is masked"},
		{"masked in lateral where", "SELECT c.id FROM customers c, LATERAL (SELECT 1 FROM orders o WHERE o.note = c.email) x", "is masked"},
		{"masked row comparison", "SELECT id FROM customers WHERE (id, email) = (1, 'x')", "is masked"},
		{"masked in values of in", "SELECT id FROM customers WHERE email IN ('a', 'b')", "is masked"},
		{"masked coalesce", "SELECT coalesce(email, '') FROM customers", "is masked"},
		{"masked array", "SELECT ARRAY[email] FROM customers", "is masked"},
		{"masked row", "SELECT ROW(email) FROM customers", "is masked"},
		{"masked json_build_object", "SELECT json_build_object('e', email) FROM customers", "is masked"},
		{"masked functional notation", "SELECT email(c) FROM customers c", "whole row of c"},
		{"masked filter", "SELECT count(*) FILTER (WHERE email > 'a') FROM customers", "is masked"},
		{"masked grouping sets", "SELECT count(*) FROM customers GROUP BY GROUPING SETS ((city), (email))", "is masked"},
		{"masked nullif", "SELECT NULLIF(email, 'x') FROM customers", "is masked"},
		// Catalog oracles.
		{"regclass cast", "SELECT 'employees'::regclass", "the type regclass looks up the database's catalog"},
		{"regclass typed literal", "SELECT regclass 'employees'", "the type regclass"},
		{"regtype cast", "SELECT CAST('int' AS regtype)", "the type regtype"},
		{"regnamespace cast", "SELECT 'hr'::pg_catalog.regnamespace", "regnamespace"},
		{"regclass array", "SELECT '{a}'::regclass[]", "regclass"},
		{"oid to regclass", "SELECT 1::oid::regclass", "regclass"},
		{"to_regclass", "SELECT to_regclass('api_tokens')", "to_regclass()"},
		{"to_regtype", "SELECT pg_catalog.to_regtype('x')", "to_regtype()"},
		{"pg_get_serial_sequence", "SELECT pg_get_serial_sequence('api_tokens', 'id')", "pg_get_serial_sequence()"},
		{"pg_input_is_valid", "SELECT pg_input_is_valid('api_tokens', 'regclass')", "pg_input_is_valid()"},
		// Statements.
		{"explain", "EXPLAIN SELECT id FROM orders", "EXPLAIN is not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := guard.CheckPolicySQL(tc.sql, testPolicy, sqlmcp.Postgres)
			var ge *guard.Error
			if !errors.As(err, &ge) {
				t.Fatalf("CheckPolicySQL(%q) = %v, %v; want a refusal", tc.sql, got, err)
			}
			if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.want)) {
				t.Errorf("CheckPolicySQL(%q) = %q; want it to say %q", tc.sql, err, tc.want)
			}
			for _, secret := range []string{"password_hash", "salary", "api_tokens"} {
				if strings.Contains(ge.Hint, secret) && !strings.Contains(tc.sql, secret) {
					t.Errorf("the hint %q names %s", ge.Hint, secret)
				}
			}
		})
	}
}

// TestPolicySameWords checks that a denied relation or column is refused
// in the same words as one that does not exist.
func TestPolicySameWords(t *testing.T) {
	for _, tc := range []struct{ denied, missing string }{
		{"SELECT * FROM api_tokens", "SELECT * FROM no_such_table"},
		{"SELECT token FROM public.api_tokens t", "SELECT token FROM public.no_such_table t"},
		{"SELECT salary FROM employees", "SELECT salari FROM employees"},
		{"SELECT e.salary FROM employees e", "SELECT e.salari FROM employees e"},
		{"SELECT name FROM employees WHERE salary > 1", "SELECT name FROM employees WHERE salari > 1"},
		{"SELECT (e).salary FROM employees e", "SELECT (e).salari FROM employees e"},
		{"SELECT 1 FROM employees JOIN orders USING (salary)", "SELECT 1 FROM employees JOIN orders USING (salari)"},
		{"SELECT (SELECT salary FROM employees LIMIT 1) FROM (SELECT 1 AS salary) x", "SELECT (SELECT salari FROM employees LIMIT 1) FROM (SELECT 1 AS salari) x"},
		{"SELECT (SELECT salary FROM employees LIMIT 1)", "SELECT (SELECT salari FROM employees LIMIT 1)"},
	} {
		_, derr := guard.CheckPolicySQL(tc.denied, testPolicy, sqlmcp.Postgres)
		_, merr := guard.CheckPolicySQL(tc.missing, testPolicy, sqlmcp.Postgres)
		if derr == nil || merr == nil {
			t.Errorf("%q: %v; %q: %v; want both refused", tc.denied, derr, tc.missing, merr)
			continue
		}
		norm := func(s string) string {
			s = strings.ReplaceAll(s, "salari", "salary")
			return strings.ReplaceAll(s, "no_such_table", "api_tokens")
		}
		if norm(derr.Error()) != norm(merr.Error()) {
			t.Errorf("denied %q: %q\nmissing %q: %q", tc.denied, derr, tc.missing, merr)
		}
	}
}

func TestPolicySQLite(t *testing.T) {
	pol := fakePolicy{"public.Customers": rel("", "Customers", "Id", "~Email", "-Secret")}
	lookup := sqliteFold(pol)
	got, err := guard.CheckPolicySQL(`SELECT id, EMAIL, rowid FROM customers`, lookup, sqlmcp.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	want := []guard.MaskedColumn{{Position: 1, Table: "Customers", Column: "Email"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("masked (-want +got):\n%s", diff)
	}
	if _, err := guard.CheckPolicySQL(`SELECT "SECRET" FROM customers`, lookup, sqlmcp.SQLite); err == nil {
		t.Errorf("a denied column spelled in another case was accepted")
	}
	if _, err := guard.CheckPolicySQL(`SELECT key FROM json_each('[1]')`, lookup, sqlmcp.SQLite); err != nil {
		t.Errorf("json_each's columns: %v", err)
	}
	got, err = guard.CheckPolicySQL(`SELECT j.*, c.email, j.json FROM json_each('[1]') j, customers c`, lookup, sqlmcp.SQLite)
	if err != nil || len(got) != 1 || got[0].Position != 8 {
		t.Errorf("json_each's * and its hidden columns: %v, %v; want the masked column at 8", got, err)
	}
	got, err = guard.CheckPolicySQL(`SELECT * FROM (SELECT j.json, c.email FROM json_each('[1]') j, customers c) s`, lookup, sqlmcp.SQLite)
	if err != nil || len(got) != 1 || got[0].Position != 1 {
		t.Errorf("a hidden column selected by name: %v, %v; want the masked column at 1", got, err)
	}
	// SQLite's * over USING keeps the left side's columns in place, where
	// PostgreSQL puts the merged ones first.
	for d, pos := range map[sqlmcp.Dialect]int{sqlmcp.SQLite: 0, sqlmcp.Postgres: 1} {
		var p guard.PolicyCatalog = sqliteFold{"Orders": rel("", "Orders", "Total", "Id"), "Customers": rel("", "Customers", "~Email", "Id")}
		if d == sqlmcp.Postgres {
			p = fakePolicy{"public.orders": rel("public", "orders", "total", "id"), "public.customers": rel("public", "customers", "~email", "id")}
		}
		got, err := guard.CheckPolicySQL(`SELECT * FROM customers JOIN orders USING (id)`, p, d)
		if err != nil || len(got) != 1 || got[0].Position != pos {
			t.Errorf("%s: * over USING: %v, %v; want the masked column at %d", d, got, err, pos)
		}
	}
}

// sqliteFold looks relations up case-insensitively, as SQLite names them.
type sqliteFold fakePolicy

func (f sqliteFold) Relation(schema, name string) (guard.PolicyRelation, bool) {
	for _, r := range f {
		if schema == "" && strings.EqualFold(r.Name, name) {
			return r, true
		}
	}
	return guard.PolicyRelation{}, false
}

// lookupCatalog is testCatalog with what the policy resolver reads of a
// real catalog: functions marked Lookup, and relations' row types.
type lookupCatalog struct{ guard.PostgresCatalog }

func (c lookupCatalog) Functions(schema, name string) []guard.PostgresFunction {
	fns := c.PostgresCatalog.Functions(schema, name)
	for i := range fns {
		fns[i].Lookup = fns[i].Name == "obj_description" || fns[i].Name == "format_type"
	}
	return fns
}

func (c lookupCatalog) Type(schema, name string) (guard.PostgresType, bool) {
	switch name {
	case "no_such_type":
		return guard.PostgresType{}, false
	case "api_tokens", "customers", "_api_tokens":
		return guard.PostgresType{Origin: guard.OriginUser, Relation: [2]string{"public", strings.TrimPrefix(name, "_")}}, true
	}
	return c.PostgresCatalog.Type(schema, name)
}

func TestPostgresPolicyLimit(t *testing.T) {
	// refresh_stats, a user's function, is allowed by the operator.
	allowed := testCatalog.with(nil, nil)
	allowed.named = map[string]bool{"public.refresh_stats": true}
	cat := lookupCatalog{allowed}
	q, err := guard.PostgresPolicyLimit("SELECT id, email FROM customers;", 11, cat, testPolicy)
	if err != nil {
		t.Fatal(err)
	}
	if want := []guard.MaskedColumn{email(1)}; !cmp.Equal(q.Masked, want) || !strings.HasSuffix(q.Text, "LIMIT 11") {
		t.Errorf("PostgresPolicyLimit = %+v, want the query limited with %v masked", q, want)
	}
	if q, err := guard.PostgresPolicyLimit("SELECT email FROM customers", 0, cat, testPolicy); err != nil || q.Text != "SELECT email FROM customers" || len(q.Masked) != 1 {
		t.Errorf("PostgresPolicyLimit without a limit = %+v, %v", q, err)
	}
	if _, err := guard.PostgresPolicyLimit("SELECT salary FROM employees", 11, cat, nil); err != nil {
		t.Errorf("without a policy: %v", err)
	}
	if m, err := guard.CheckPostgresPolicy("SELECT NULL, email FROM customers", cat, testPolicy); err != nil || len(m) != 1 || m[0].Position != 1 {
		t.Errorf("CheckPostgresPolicy = %v, %v", m, err)
	}
	// customers has a denied column, which a value of its row type would
	// name: the type is as missing as api_tokens'.
	if _, err := guard.CheckPostgresPolicy("SELECT NULL::customers, email FROM customers", cat, testPolicy); err == nil || !strings.Contains(err.Error(), "no type named customers") {
		t.Errorf("NULL::customers: %v", err)
	}
	for _, sql := range []string{
		"SELECT obj_description(1, 'pg_class')",
		"SELECT format_type(16390, NULL)",
		"SELECT NULL::api_tokens",
		"SELECT jsonb_build_object('a', NULL::api_tokens)",
		"SELECT '{}'::api_tokens[]",
		"EXPLAIN SELECT id FROM orders",
		"SELECT salary FROM employees",
		"SELECT refresh_stats()",
	} {
		if _, err := guard.CheckPostgresPolicy(sql, cat, testPolicy); err == nil {
			t.Errorf("CheckPostgresPolicy(%q) accepted it", sql)
		}
		if _, err := guard.CheckPostgresPolicy(sql, cat, nil); err != nil {
			t.Errorf("CheckPostgresPolicy(%q) without a policy: %v", sql, err)
		}
	}
	// A hidden relation's row type is refused as a type that does not
	// exist.
	_, hidden := guard.CheckPostgresPolicy("SELECT NULL::api_tokens", cat, testPolicy)
	_, none := guard.CheckPostgresPolicy("SELECT NULL::no_such_type", cat, testPolicy)
	if hidden == nil || none == nil || strings.ReplaceAll(hidden.Error(), "api_tokens", "no_such_type") != none.Error() {
		t.Errorf("hidden row type: %v; missing type: %v", hidden, none)
	}
}

// FuzzPolicy checks that the resolver never panics and answers the same
// twice, from the policy tests' queries.
func FuzzPolicy(f *testing.F) {
	for _, s := range []string{
		"SELECT id, email FROM customers",
		"SELECT * FROM (SELECT id, email FROM customers) s",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r",
		"SELECT c.name, l.total FROM customers c, LATERAL (SELECT o.total FROM orders o WHERE o.customer_id = c.id LIMIT 1) l",
		"SELECT a, b FROM ROWS FROM (generate_series(1, 2), json_to_record('{}') AS (x int)) AS r(a, b)",
		"SELECT j.v FROM JSON_TABLE('[1]', '$[*]' COLUMNS (v int PATH '$', NESTED PATH '$' COLUMNS (w int PATH '$'))) j",
		"SELECT x.v FROM XMLTABLE('/a' PASSING '<a/>' COLUMNS v text PATH '.', o FOR ORDINALITY) x",
		"SELECT * FROM orders o JOIN plain p USING (id) AS u, LATERAL unnest(ARRAY[u.id]) WITH ORDINALITY",
		"SELECT (c).email, (c).*, c.* FROM customers c GROUP BY GROUPING SETS ((id), ()) ORDER BY 1",
		"SELECT 'x'::regclass, NULL::customers, to_jsonb(c) FROM customers c WHERE c = c",
		"SELECT id FROM customers UNION SELECT id FROM orders ORDER BY 1 LIMIT 1",
	} {
		f.Add(s)
	}
	cat := lookupCatalog{testCatalog}
	f.Fuzz(func(t *testing.T, sql string) {
		m1, e1 := guard.CheckPostgresPolicy(sql, cat, testPolicy)
		m2, e2 := guard.CheckPostgresPolicy(sql, cat, testPolicy)
		if fmt.Sprint(m1, e1) != fmt.Sprint(m2, e2) {
			t.Fatalf("%q: %v %v, then %v %v", sql, m1, e1, m2, e2)
		}
		if _, err := guard.CheckPolicySQL(sql, testPolicy, sqlmcp.SQLite); err != nil {
			var ge *guard.Error
			var se *guard.SyntaxError
			if !errors.As(err, &ge) && !errors.As(err, &se) {
				t.Fatalf("%q: %v (%T), want an *Error or a *SyntaxError", sql, err, err)
			}
		}
	})
}

// TestPolicyResolverBounded: the resolver's work on a statement is
// bounded. A made query whose every column reference is compared with
// tens of thousands of FROM items is refused at once; wide real ones pass.
func TestPolicyResolverBounded(t *testing.T) {
	rep := strings.Repeat
	items := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "plain p%d", i)
		}
		return b.String()
	}
	for _, d := range []sqlmcp.Dialect{sqlmcp.Postgres, sqlmcp.SQLite} {
		for name, sql := range map[string]string{
			"20,000 references over 5,000 tables": "SELECT " + rep("a, ", 20_000) + "1 FROM " + items(5_000),
			"a comma list of 20,000 joins":        "SELECT 1 FROM " + strings.TrimSuffix(rep("(plain x JOIN plain y ON true), ", 20_000), ", "),
			"ORDER BY 20,000 result positions":    "SELECT " + rep("1, ", 20_000) + "1 ORDER BY " + rep("20000, ", 20_000) + "1",
		} {
			_, err := guard.CheckPolicySQL(sql, testPolicy, d)
			var ge *guard.Error
			if !errors.As(err, &ge) || !strings.Contains(ge.Reason, "too large to check") {
				t.Errorf("%s, %s: got %.200v, want the refusal of a query too large to check", d, name, err)
			}
		}
		wide := "SELECT c.id, c.name, o.total, p40.a FROM customers c JOIN orders o ON o.customer_id = c.id, " + items(41) +
			" WHERE " + rep("p1.a = p2.b AND ", 500) + "true ORDER BY 1, 2, 3"
		if _, err := guard.CheckPolicySQL(wide, testPolicy, d); err != nil {
			t.Errorf("%s: 43 tables and 1,000 references: %v", d, err)
		}
	}
}
