package guard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// fuzzMySQLSeeds are hostile inputs beyond the corpora, small enough for
// the fuzzer to mutate: comments and quotes the server and a parser could
// read apart.
var fuzzMySQLSeeds = []string{
	"SELECT 1 --/*! , SLEEP(1) */",
	"SELECT 1 -- /*! , SLEEP(1) */\n, 2",
	"SELECT 1 --\x01, SLEEP(1)",
	"SELECT '\\'' , SLEEP(1) -- '",
	"SELECT `a``b` , SLEEP(1) #`",
	"SELECT X'\\' , SLEEP(1) -- '",
	"SELECT 1 /*T![x] , SLEEP(1) */",
	"SELECT 1 /*+ SET_VAR(max_statement_time=0) */",
	"SELECT 1 /* '*/ , SLEEP(1) -- ' */",
	"SELECT a FROM t LIMIT 1 UNION SELECT SLEEP(1)",
	"(SELECT a FROM t LIMIT 1) LIMIT 18446744073709551615",
	"SELECT a FROM t LIMIT 1, 99999999999999999999",
	"SELECT count (a) FROM t",
	"SELECT `count`(a) FROM t",
	"SELECT NEXT VALUE FOR s",
	"WITH x AS (SELECT a FROM t FOR UPDATE) SELECT * FROM x",
}

// FuzzCheckMySQL checks the MySQL guard never panics, answers the same
// twice, and that whatever it accepts it can also limit, into text it
// accepts again.
func FuzzCheckMySQL(f *testing.F) {
	for _, s := range fuzzMySQLSeeds {
		f.Add(s)
	}
	for _, c := range dbtest.HostileMySQL {
		if len(c.SQL) < 2000 {
			f.Add(c.Expand("/tmp/x"))
		}
	}
	for _, c := range dbtest.ReadsMySQL {
		f.Add(c.SQL)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		err := guard.CheckMySQL(sql, mariaDB)
		again := guard.CheckMySQL(sql, mariaDB)
		if (err == nil) != (again == nil) || err != nil && err.Error() != again.Error() {
			t.Fatalf("two answers for %q: %v, then %v", sql, err, again)
		}
		if err != nil {
			var ge *guard.Error
			var se *guard.SyntaxError
			if !errors.As(err, &ge) && !errors.As(err, &se) {
				t.Fatalf("CheckMySQL(%q) = %T %v, want a refusal", sql, err, err)
			}
			return
		}
		q, err := guard.MySQLLimit(sql, 11, mariaDB)
		if err != nil {
			// The cap must not be what makes an accepted query fail,
			// except a LIMIT the guard cannot read as a number.
			if !strings.Contains(err.Error(), "LIMIT") {
				t.Fatalf("accepted %q, but limiting it failed: %v", sql, err)
			}
			return
		}
		if err := guard.CheckMySQL(q.Text, mariaDB); err != nil {
			t.Fatalf("the limited text of %q is refused: %v\n%s", sql, err, q.Text)
		}
	})
}

// BenchmarkCheckMySQL measures the MySQL guard on a typical model query.
func BenchmarkCheckMySQL(b *testing.B) {
	query := "SELECT `c`.`name`, p.category, COUNT(DISTINCT o.id) AS orders, SUM(i.quantity * p.price) AS spent " +
		"FROM customers c JOIN `order` o ON o.customer_id = c.id JOIN `Order Items` i ON i.order_id = o.id " +
		"JOIN products p ON p.id = i.product_id WHERE o.status <> 'cancelled' GROUP BY c.name, p.category ORDER BY spent DESC"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := guard.MySQLLimit(query, 101, mariaDB); err != nil {
			b.Fatal(err)
		}
	}
}
