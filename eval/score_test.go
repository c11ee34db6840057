package eval

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

const forever = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

func TestScore(t *testing.T) {
	t.Parallel()
	path := dbtest.SQLiteFile(t)
	db, err := OpenDB(t.Context(), path, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tests := []struct {
		name, gold, pred string
		want             bool
		side, kind       string // the failing side and error kind, "" for none
	}{
		{"same rows", "SELECT city FROM customers", "SELECT city FROM customers", true, "", ""},
		{"row order ignored", "SELECT 1 UNION ALL SELECT 2", "SELECT 2 UNION ALL SELECT 1", true, "", ""},
		{"ORDER BY ignored", "SELECT city FROM customers ORDER BY city", "SELECT city FROM customers ORDER BY city DESC", true, "", ""},
		{"duplicates ignored", "SELECT DISTINCT city FROM customers", "SELECT city FROM customers", true, "", ""},
		{"column names ignored", "SELECT 1 AS a", "SELECT 1 AS b", true, "", ""},
		{"column order matters", "SELECT 1, 'a'", "SELECT 'a', 1", false, "", ""},
		{"an extra column is wrong", "SELECT 1", "SELECT 1, 2", false, "", ""},
		{"a missing column is wrong", "SELECT 1, 2", "SELECT 1", false, "", ""},
		{"a missing row is wrong", "SELECT 1 UNION ALL SELECT 2", "SELECT 1", false, "", ""},
		{"an extra row is wrong", "SELECT 1", "SELECT 1 UNION ALL SELECT 2", false, "", ""},
		{"int equals float", "SELECT 1", "SELECT 1.0", true, "", ""},
		{"int equals float in aggregates", "SELECT count(*) FROM customers", "SELECT sum(1.0) FROM customers", true, "", ""},
		{"floats compare exactly", "SELECT 0.1 + 0.2", "SELECT 0.3", false, "", ""},
		{"a half is not rounded", "SELECT 2", "SELECT 2.5", false, "", ""},
		{"text is not a number", "SELECT 1", "SELECT '1'", false, "", ""},
		{"text is compared exactly", "SELECT 'London'", "SELECT 'london'", false, "", ""},
		{"NULL equals NULL in a row", "SELECT NULL, 1", "SELECT NULL, 1.0", true, "", ""},
		{"NULL is not zero", "SELECT NULL", "SELECT 0", false, "", ""},
		{"NULL is not empty text", "SELECT NULL", "SELECT ''", false, "", ""},
		{"empty equals empty", "SELECT 1 WHERE 0", "SELECT 2, 3 WHERE 0", true, "", ""},
		{"empty prediction is wrong", "SELECT 1", "SELECT 1 WHERE 0", false, "", ""},
		{"rows against empty gold are wrong", "SELECT 1 WHERE 0", "SELECT 1", false, "", ""},
		{"predicted timeout", "SELECT 1", forever, false, "predicted", "timeout"},
		{"gold timeout", forever, "SELECT 1", false, "gold", "gold"},
		{"predicted error", "SELECT 1", "SELECT nope FROM nowhere", false, "predicted", "sql error"},
		{"gold error", "SELECT nope FROM nowhere", "SELECT 1", false, "gold", "gold"},
		{"a write is refused", "SELECT 1", "DELETE FROM customers", false, "predicted", "refused"},
		{"two statements are refused", "SELECT 1", "SELECT 1; SELECT 2", false, "predicted", "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Score(t.Context(), db, tt.gold, tt.pred)
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
	if dbtest.Fingerprint(t, path) != dbtest.Fingerprint(t, dbtest.SQLiteFile(t)) {
		t.Error("scoring changed the database")
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
