package eval

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

const forever = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

// foreverMySQL runs for hours: MySQL and MariaDB stop a recursion at
// 1000 rows.
const foreverMySQL = "SELECT count(*) FROM information_schema.COLLATIONS a, information_schema.COLLATIONS b, information_schema.COLLATIONS c, information_schema.COLLATIONS d"

// each is one side's SQL on each engine; "" leaves the case out there.
// mysql "" means the SQLite SQL, which MySQL reads alike.
type each struct{ sqlite, postgres, mysql string }

// both is SQL every dialect reads alike.
func both(sql string) each { return each{sql, sql, sql} }

func (e each) on(engine string) string {
	switch engine {
	case "postgres":
		return e.postgres
	case "mysql":
		if e.mysql == "" && e.sqlite != "" && e.postgres != "" {
			return e.sqlite
		}
		return e.mysql
	}
	return e.sqlite
}

// TestScore: on every engine, the BIRD rule case by case, with each
// dialect's own SQL only where it must differ (PostgreSQL's 1.0 is numeric,
// its floats need a cast, it has no WHERE 0; MySQL's 0.1 is DECIMAL, its
// floats are written 0.1e0, its division by zero is NULL).
func TestScore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		gold, pred each
		want       bool
		side, kind string // the failing side and error kind, "" for none
	}{
		{"same rows", both("SELECT city FROM customers"), both("SELECT city FROM customers"), true, "", ""},
		{"row order ignored", both("SELECT 1 UNION ALL SELECT 2"), both("SELECT 2 UNION ALL SELECT 1"), true, "", ""},
		{"ORDER BY ignored", both("SELECT city FROM customers ORDER BY city"), both("SELECT city FROM customers ORDER BY city DESC"), true, "", ""},
		{"duplicates ignored", both("SELECT DISTINCT city FROM customers"), both("SELECT city FROM customers"), true, "", ""},
		{"column names ignored", both("SELECT 1 AS a"), both("SELECT 1 AS b"), true, "", ""},
		{"column order matters", both("SELECT 1, 'a'"), both("SELECT 'a', 1"), false, "", ""},
		{"an extra column is wrong", both("SELECT 1"), both("SELECT 1, 2"), false, "", ""},
		{"a missing column is wrong", both("SELECT 1, 2"), both("SELECT 1"), false, "", ""},
		{"a missing row is wrong", both("SELECT 1 UNION ALL SELECT 2"), both("SELECT 1"), false, "", ""},
		{"an extra row is wrong", both("SELECT 1"), both("SELECT 1 UNION ALL SELECT 2"), false, "", ""},

		{"int equals float", both("SELECT 1"), each{"SELECT 1.0", "SELECT 1.0::float8", "SELECT 1e0"}, true, "", ""},
		{"int equals float in aggregates", both("SELECT count(*) FROM customers"),
			each{"SELECT sum(1.0) FROM customers", "SELECT sum(1.0::float8) FROM customers", "SELECT sum(1e0) FROM customers"}, true, "", ""},
		{"floats compare exactly", each{"SELECT 0.1 + 0.2", "SELECT 0.1::float8 + 0.2::float8", "SELECT 0.1e0 + 0.2e0"}, each{"SELECT 0.3", "SELECT 0.3::float8", "SELECT 0.3e0"}, false, "", ""},
		{"a half is not rounded", both("SELECT 2"), both("SELECT 2.5"), false, "", ""},
		{"numeric equals integer", each{postgres: "SELECT 1"}, each{postgres: "SELECT 1.00"}, true, "", ""},
		{"a decimal column equals an integer", both("SELECT price FROM products WHERE id = 4"), both("SELECT 12"), true, "", ""},
		{"numeric adds exactly", each{postgres: "SELECT 0.1 + 0.2"}, each{postgres: "SELECT 0.3"}, true, "", ""},
		{"numeric is not the float nearest it", each{postgres: "SELECT 0.1"}, each{postgres: "SELECT 0.1::float8"}, false, "", ""},
		{"numeric equals a float of its value", each{postgres: "SELECT 0.5"}, each{postgres: "SELECT 0.5::float8"}, true, "", ""},
		{"long numeric equals itself at another scale", each{postgres: "SELECT num_long FROM types"},
			each{postgres: "SELECT 123456789012345678901234567890.1234567890"}, true, "", ""},
		{"long numeric differs in its last digit", each{postgres: "SELECT num_long FROM types"},
			each{postgres: "SELECT 123456789012345678901234567890.123456788"}, false, "", ""},
		{"long numeric is not its text", each{postgres: "SELECT num_long FROM types"},
			each{postgres: "SELECT '123456789012345678901234567890.123456789'"}, false, "", ""},
		{"16-digit numeric equals bigint", each{postgres: "SELECT 1234567890123456::numeric"}, each{postgres: "SELECT 1234567890123456"}, true, "", ""},

		{"big integer equals itself", both("SELECT 9007199254740993"), both("SELECT 9007199254740993"), true, "", ""},
		{"big integer column equals the literal", each{postgres: "SELECT i8_big FROM types"}, each{postgres: "SELECT 9007199254740993"}, true, "", ""},
		{"big integer equals a float of its value", both("SELECT 9007199254740994"),
			each{"SELECT CAST(9007199254740994 AS REAL)", "SELECT 9007199254740994::float8", "SELECT 9007199254740994e0"}, true, "", ""},
		{"big integer is not the float nearest it", both("SELECT 9007199254740993"),
			each{"SELECT CAST(9007199254740993 AS REAL)", "SELECT 9007199254740993::float8", "SELECT 9007199254740993e0"}, false, "", ""},
		{"big integer equals numeric of its value", each{postgres: "SELECT 9007199254740993"},
			each{postgres: "SELECT sum(x) FROM (VALUES (9007199254740993)) AS v(x)"}, true, "", ""},
		{"big integer differs from its neighbour", both("SELECT 9007199254740993"), both("SELECT 9007199254740995"), false, "", ""},
		{"big integer is not its text", both("SELECT 9007199254740993"), both("SELECT '9007199254740993'"), false, "", ""},

		{"true equals 1", both("SELECT true"), both("SELECT 1"), true, "", ""},
		{"false equals 0", both("SELECT false"), both("SELECT 0"), true, "", ""},
		{"a boolean column equals 1", each{postgres: "SELECT bool_t, bool_f FROM types"}, each{postgres: "SELECT 1, 0"}, true, "", ""},
		{"true is not its text", both("SELECT true"), both("SELECT 'true'"), false, "", ""},

		{"a date equals its text", both("SELECT joined FROM customers WHERE id = 1"), both("SELECT '2021-03-04'"), true, "", ""},
		{"a timestamp with zone equals itself in another zone", each{postgres: "SELECT TIMESTAMPTZ '2023-01-05 10:00:00+00'"},
			each{postgres: "SELECT TIMESTAMPTZ '2023-01-05 12:00:00+02'"}, true, "", ""},
		{"a timestamp is not one with a zone", each{postgres: "SELECT TIMESTAMP '2023-01-05 10:00:00'"},
			each{postgres: "SELECT TIMESTAMPTZ '2023-01-05 10:00:00+00'"}, false, "", ""},
		{"timestamps from the same column", each{postgres: `SELECT placed_at FROM "order"`},
			each{postgres: `SELECT placed_at FROM "order" ORDER BY id DESC`}, true, "", ""},

		{"text is not a number", both("SELECT 1"), both("SELECT '1'"), false, "", ""},
		{"text is compared exactly", both("SELECT 'London'"), both("SELECT 'london'"), false, "", ""},
		{"NULL equals NULL in a row", both("SELECT NULL, 1"), both("SELECT NULL, 1.0"), true, "", ""},
		{"NULL is not zero", both("SELECT NULL"), both("SELECT 0"), false, "", ""},
		{"NULL is not empty text", both("SELECT NULL"), both("SELECT ''"), false, "", ""},
		{"empty equals empty", each{"SELECT 1 WHERE 0", "SELECT 1 WHERE false", "SELECT 1 FROM DUAL WHERE 0"}, each{"SELECT 2, 3 WHERE 0", "SELECT 2, 3 WHERE false", "SELECT 2, 3 FROM DUAL WHERE 0"}, true, "", ""},
		{"empty prediction is wrong", both("SELECT 1"), each{"SELECT 1 WHERE 0", "SELECT 1 WHERE false", "SELECT 1 FROM DUAL WHERE 0"}, false, "", ""},
		{"rows against empty gold are wrong", each{"SELECT 1 WHERE 0", "SELECT 1 WHERE false", "SELECT 1 FROM DUAL WHERE 0"}, both("SELECT 1"), false, "", ""},

		{"predicted timeout", both("SELECT 1"), each{forever, forever, foreverMySQL}, false, "predicted", "timeout"},
		{"gold timeout", each{forever, forever, foreverMySQL}, both("SELECT 1"), false, "gold", "gold"},
		{"predicted error", both("SELECT 1"), both("SELECT nope FROM nowhere"), false, "predicted", "sql error"},
		{"gold error", both("SELECT nope FROM nowhere"), both("SELECT 1"), false, "gold", "gold"},
		{"predicted error at run time", both("SELECT 1"), each{"SELECT abs(-9223372036854775808)", "SELECT 1 / 0", "SELECT ~0 + 1"}, false, "predicted", "sql error"},
		{"a write is refused", both("SELECT 1"), both("DELETE FROM customers"), false, "predicted", "refused"},
		{"two statements are refused", both("SELECT 1"), both("SELECT 1; SELECT 2"), false, "predicted", "refused"},
		{"sleeping is refused", both("SELECT 1"), each{postgres: "SELECT pg_sleep(10)", mysql: "SELECT SLEEP(10)"}, false, "predicted", "refused"},

		// MySQL's values: DECIMAL by value, a comparison is an integer.
		{"decimal equals integer", each{mysql: "SELECT 1"}, each{mysql: "SELECT 1.00"}, true, "", ""},
		{"decimal adds exactly", each{mysql: "SELECT 0.1 + 0.2"}, each{mysql: "SELECT 0.3"}, true, "", ""},
		{"decimal is not the double nearest it", each{mysql: "SELECT 0.1"}, each{mysql: "SELECT 0.1e0"}, false, "", ""},
		{"division is four places of decimal", each{mysql: "SELECT 1 / 3"}, each{mysql: "SELECT 0.3333"}, true, "", ""},
		{"a comparison equals 1", each{mysql: "SELECT 1 = 1"}, each{mysql: "SELECT 1"}, true, "", ""},
		{"big unsigned equals its literal", each{mysql: "SELECT ~0"}, each{mysql: "SELECT 18446744073709551615"}, true, "", ""},
	}
	l := scoreLimits // as OpenDB sets them, with a short timeout
	l.Timeout = 500 * time.Millisecond
	engines := dbtest.All(t, &source.Options{Limits: l})
	if os.Getenv(dbtest.MySQLEnv) != "" {
		engines = append(engines, dbtest.Engine{Name: "mysql", DB: dbtest.MySQL(t, &source.Options{Limits: l})})
	}
	for _, e := range engines {
		t.Run(e.Name, func(t *testing.T) {
			for _, tt := range tests {
				gold, pred := tt.gold.on(e.Name), tt.pred.on(e.Name)
				if gold == "" || pred == "" {
					continue
				}
				t.Run(tt.name, func(t *testing.T) {
					got, err := Score(t.Context(), e.DB, gold, pred)
					if got != tt.want {
						t.Errorf("got %v, want %v (error %v)", got, tt.want, err)
					}
					var se *SideError
					switch {
					case tt.side == "" && err != nil:
						t.Errorf("got error %v, want none", err)
					case tt.side != "" && !errors.As(err, &se):
						t.Errorf("got error %v, want one on the %s side", err, tt.side)
					case tt.side != "" && (se.Side != tt.side || errorKind(err) != tt.kind):
						t.Errorf("got %s side, kind %q (%v); want %s, %q", se.Side, errorKind(err), err, tt.side, tt.kind)
					}
				})
			}
			if path := e.DB.Path(); path != "" && dbtest.Fingerprint(t, path) != dbtest.Fingerprint(t, dbtest.SQLiteFile(t)) {
				t.Error("scoring changed the database")
			}
		})
	}
}

func TestScoreTooLarge(t *testing.T) {
	t.Parallel()
	// A cut result is never scored: the rows past the cut could differ.
	db := dbtest.Open(t, dbtest.SQLiteFile(t), &source.Options{Limits: sqlmcp.Limits{MaxRows: 2, MaxRowsLimit: 2}})
	sql := "SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3"
	ok, err := Score(t.Context(), db, "SELECT 1", sql)
	if ok || errorKind(err) != "too large" {
		t.Errorf("got %v, %v; want wrong, too large", ok, err)
	}
}

func TestCellKey(t *testing.T) {
	// PostgreSQL's values: numeric as json.Number, booleans, JSON.
	same := [][]any{
		{int64(1), 1.0, json.Number("1.00"), true},
		{0.5, json.Number("0.50")},
		{int64(-3), json.Number("-3"), -3.0},
		{int64(1<<53 + 2), json.Number("9007199254740994"), float64(1<<53 + 2)},
	}
	for _, vs := range same {
		for _, v := range vs[1:] {
			if cellKey(v) != cellKey(vs[0]) {
				t.Errorf("%#v and %#v differ: %q, %q", vs[0], v, cellKey(vs[0]), cellKey(v))
			}
		}
	}
	differ := [][2]any{
		{int64(1), "1"}, {nil, ""}, {nil, "null"}, {json.Number("0.1"), 0.1}, {int64(1 << 53), float64(1<<53) + 2},
		{json.RawMessage(`"a"`), "a"},
	}
	for _, p := range differ {
		if cellKey(p[0]) == cellKey(p[1]) {
			t.Errorf("%#v and %#v share the key %q", p[0], p[1], cellKey(p[0]))
		}
	}
	if rowKey([]any{"a:1", "b"}) == rowKey([]any{"a", "1:b"}) {
		t.Error("rows with cells split differently share a key")
	}
}
