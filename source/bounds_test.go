package source_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// allocated runs f and returns the bytes the process allocated meanwhile:
// a value allocated whole even once shows here, collected or not.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestPostgresHostileShapesStayBounded: each shape from issue 11 comes
// back cut, with the truncation said, and sqlmcp allocates less than
// 4 MiB for it, whatever it was sent (tens of MB, or an array that would
// grow 30 times when converted): no cell, row or message is held whole.
func TestPostgresHostileShapesStayBounded(t *testing.T) {
	db := dbtest.Postgres(t, nil)
	wide := make([]string, 40) // 40 MB in one row
	for i := range wide {
		wide[i] = fmt.Sprintf("repeat('w', 1000000) AS c%d", i)
	}
	tests := []struct {
		name, sql string
		check     func(t *testing.T, res *source.Result)
	}{
		{"giant cells", "SELECT repeat('x', 8000000) FROM generate_series(1, 5)", func(t *testing.T, res *source.Result) {
			if len(res.Rows) != 5 || !strings.HasSuffix(res.Rows[4][0].(string), "…[cut: 8000000 bytes in all]") {
				t.Errorf("rows %d, last %.60q…", len(res.Rows), res.Rows[len(res.Rows)-1][0])
			}
		}},
		{"one row of forty wide columns", "SELECT " + strings.Join(wide, ", "), func(t *testing.T, res *source.Result) {
			if len(res.Rows) != 1 || !strings.HasSuffix(res.Rows[0][39].(string), "…[cut: 1000000 bytes in all]") {
				t.Errorf("rows %v", len(res.Rows))
			}
		}},
		{"a row over max-bytes", "SELECT " + strings.Repeat("repeat('y', 100000), ", 499) + "repeat('y', 100000)", func(t *testing.T, res *source.Result) {
			if len(res.Rows) != 0 || res.TruncatedBy != "bytes" {
				t.Errorf("rows %d, truncated by %q; want none, by bytes", len(res.Rows), res.TruncatedBy)
			}
		}},
		{"unknown row type", "SELECT a, b.big FROM pg_am a, (SELECT repeat('x', 4000000) AS big OFFSET 0) b, generate_series(1, 20) g", func(t *testing.T, res *source.Result) {
			if res.Columns[0].Type != "pg_am" || len(res.Rows) == 0 || !strings.HasSuffix(res.Rows[0][1].(string), "…[cut: 4000000 bytes in all]") {
				t.Errorf("columns %v, %d rows", res.Columns, len(res.Rows))
			}
		}},
		{"an array of two million elements", "SELECT array_agg(1) FROM generate_series(1, 2000000)", func(t *testing.T, res *source.Result) {
			a, _ := res.Rows[0][0].([]any)
			if len(a) == 0 || a[len(a)-1] != fmt.Sprintf("…[cut: %d elements shown, 4000001 bytes in all]", len(a)-1) {
				t.Errorf("got %.200v", res.Rows[0][0])
			}
		}},
		{"an array under the message bound", "SELECT array_agg(1) FROM generate_series(1, 150000)", func(t *testing.T, res *source.Result) {
			a, _ := res.Rows[0][0].([]any)
			if len(a) == 0 || a[len(a)-1] != fmt.Sprintf("…[cut: %d of 150000 elements shown]", len(a)-1) {
				t.Errorf("got %.200v", res.Rows[0][0])
			}
		}},
		{"bytea", "SELECT decode(repeat('ab', 3000000), 'hex')", func(t *testing.T, res *source.Result) {
			if got := res.Rows[0][0]; got != "<blob 3000000 bytes: x'abababababababababababababababab'…>" {
				t.Errorf("got %.200v", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Once first, so the guard's verdict is kept: what is measured
			// is the rows.
			if _, err := db.Query(t.Context(), tt.sql, 0); err != nil {
				t.Fatal(err)
			}
			var res *source.Result
			var err error
			n := allocated(func() { res, err = db.Query(t.Context(), tt.sql, 0) })
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, res)
			if n > 4<<20 {
				t.Errorf("allocated %d bytes: a value, row or message was held whole", n)
			}
		})
	}
}

// TestPostgresUnknownTypeNoSpareConnection: with no second connection to
// look an unknown type up on, its values come as text, unbuffered, and
// the column is still named.
func TestPostgresUnknownTypeNoSpareConnection(t *testing.T) {
	db := dbtest.Postgres(t, &source.Options{MaxConns: 1})
	var res *source.Result
	var err error
	n := allocated(func() {
		res, err = db.Query(t.Context(), "SELECT a, b.big FROM pg_am a, (SELECT repeat('x', 4000000) AS big OFFSET 0) b, generate_series(1, 20) g", 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Columns[0].Type != "pg_am" || len(res.Rows) == 0 {
		t.Fatalf("columns %v, %d rows", res.Columns, len(res.Rows))
	}
	if s, ok := res.Rows[0][0].(string); !ok || !strings.HasPrefix(s, "(") {
		t.Errorf("row value %v, want its text", res.Rows[0][0])
	}
	// 20 rows of 4 MB buffered would be 80 MB. A call that streams them
	// allocated 3.6-4.4 MB here, most of it the first call's own work
	// (the guard's catalog), before and after the stdio spin: a bound at
	// 4 MiB failed one run in three without a row buffered.
	if n > 12<<20 {
		t.Errorf("allocated %d bytes: the rows were buffered", n)
	}
}

// TestLongCellsCutWithSize: on both engines, a text value over
// --max-cell-bytes comes back cut with its real size, and a row over
// --max-bytes is cut by bytes.
func TestLongCellsCutWithSize(t *testing.T) {
	for _, e := range dbtest.All(t, &source.Options{Limits: sqlmcp.Limits{MaxCellBytes: 100, MaxBytes: 4000}}) {
		long := "repeat('x', 100000)"
		if e.Name == "sqlite" {
			long = "replace(hex(zeroblob(50000)), '0', 'x')"
		}
		t.Run(e.Name, func(t *testing.T) {
			res, err := e.DB.Query(t.Context(), "SELECT "+long, 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.Repeat("x", 100) + "…[cut: 100000 bytes in all]"; res.Rows[0][0] != want {
				t.Errorf("got %.200v", res.Rows[0][0])
			}
			res, err = e.DB.Query(t.Context(), "SELECT "+strings.Repeat(long+", ", 60)+long, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != 0 || res.TruncatedBy != "bytes" {
				t.Errorf("rows %d, truncated by %q; want none, by bytes", len(res.Rows), res.TruncatedBy)
			}
		})
	}
}
