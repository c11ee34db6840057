package source_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// BenchmarkPostgresQuery1M reads capped queries over a 10,000-row and a
// 1,000,000-row table through the door. The LIMIT wrapper reads one row past
// the cap, so time, allocations, Go heap and the bytes the server sends
// ("wire-KB") stay flat as the table grows a hundredfold; ORDER BY and
// count(*) make the server read every row, but still send only the cap.
// The last case lifts the cap to show the metrics do see a result that
// grows.
func BenchmarkPostgresQuery1M(b *testing.B) {
	dsn := dbtest.PostgresDSN(b)
	dbtest.PostgresBigTable(b, dsn, 1_000_000)
	dbtest.PostgresExec(b, dsn, "CREATE TABLE big10k AS SELECT * FROM big WHERE id <= 10000; ANALYZE big10k")
	u, _ := url.Parse(dsn)
	proxy, sent := dbtest.CountingProxy(b, u.Host)
	u.Host = proxy
	tests := []struct {
		name    string
		sql     string
		maxRows int
		opts    *source.Options
		want    int
	}{
		{"10k rows max_rows=100", "SELECT * FROM big10k", 100, nil, 100},
		{"1M rows max_rows=100", "SELECT * FROM big", 100, nil, 100},
		{"1M rows order by unindexed max_rows=100", "SELECT * FROM big ORDER BY score DESC, id", 100, nil, 100},
		{"1M rows count", "SELECT count(*), sum(score) FROM big", 0, nil, 1},
		{"contrast: 1M rows max_rows=100000", "SELECT * FROM big", 100_000, uncapped(100_000), 100_000},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			db := dbtest.Open(b, u.String(), tt.opts)
			run := func() {
				if res := query(b, db, tt.sql, tt.maxRows); len(res.Rows) != tt.want {
					b.Fatalf("got %d rows, want %d", len(res.Rows), tt.want)
				}
			}
			run() // open the connection before measuring
			peak := peakHeap(3, run)
			before := sent.Load()
			b.ReportAllocs()
			for b.Loop() {
				run()
			}
			b.ReportMetric(peak, "peak-heap-MB")
			b.ReportMetric(float64(sent.Load()-before)/float64(b.N)/1024, "wire-KB/op")
		})
	}
}

// BenchmarkPostgresRoundTrip measures the door's fixed cost per call: the
// guard, BEGIN READ ONLY, the settings, DECLARE, FETCH and ROLLBACK.
func BenchmarkPostgresRoundTrip(b *testing.B) {
	db := dbtest.Postgres(b, nil)
	for _, sql := range []string{"SELECT 1", "SELECT * FROM customers WHERE id = 3"} {
		b.Run(fmt.Sprintf("%q", sql), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				query(b, db, sql, 0)
			}
		})
	}
}
