package source_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // the writable driver that builds the tables

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// bigFile builds a SQLite file in b.TempDir holding the table big with n
// rows, in one INSERT from a recursive CTE, and returns its path.
func bigFile(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "big.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	_, err = db.Exec(fmt.Sprintf(`PRAGMA journal_mode = OFF;
		PRAGMA synchronous = OFF;
		CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL NOT NULL);
		INSERT INTO big (id, name, score)
			WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < %d)
			SELECT x, 'customer ' || x, (x * 7919) %% 100003 / 100.0 FROM n;`, n))
	if err != nil {
		b.Fatal(err)
	}
	var got int
	if err := db.QueryRow("SELECT count(*) FROM big").Scan(&got); err != nil || got != n {
		b.Fatalf("big has %d rows (%v), want %d", got, err, n)
	}
	b.Logf("built %d rows in %v", n, time.Since(start))
	return path
}

// query runs sql through db, asking for maxRows rows, and fails b on error.
func query(b *testing.B, db *source.DB, sql string, maxRows int) *source.Result {
	b.Helper()
	res, err := db.Query(b.Context(), sql, maxRows)
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// uncapped lets a query return up to n rows, to show what a result that
// grows with the table costs.
func uncapped(n int) *source.Options {
	return &source.Options{Limits: sqlmcp.Limits{MaxRowsLimit: n, MaxBytes: 1 << 30}}
}

// BenchmarkQuery10k reads a 10,000-row table through the door. With the row
// cap, a query stops after the rows it returns, so "max_rows=100" costs the
// same however big the table; "max_rows=10000" shows the cost of the whole.
func BenchmarkQuery10k(b *testing.B) {
	path := bigFile(b, 10_000)
	for _, maxRows := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("max_rows=%d", maxRows), func(b *testing.B) {
			db := dbtest.Open(b, path, uncapped(10_000))
			run := func() {
				if res := query(b, db, "SELECT * FROM big", maxRows); len(res.Rows) != maxRows {
					b.Fatalf("got %d rows, want %d", len(res.Rows), maxRows)
				}
			}
			run() // open the connection before measuring
			peak := peakHeap(3, run)
			b.ReportAllocs()
			for b.Loop() {
				run()
			}
			b.ReportMetric(peak, "peak-heap-MB")
		})
	}
}

// BenchmarkQuery1MPeakMemory shows that memory does not grow with the size
// of the table or of the work: over a million rows, a capped SELECT *, a
// count(*), and an ORDER BY and a GROUP BY that must read every row all
// keep the Go heap flat, at what a 10,000-row table costs. The last case lifts the cap to 100,000 rows, to show the metric
// does see a result that grows.
func BenchmarkQuery1MPeakMemory(b *testing.B) {
	const rows = 1_000_000
	path := bigFile(b, rows)
	tests := []struct {
		name    string
		sql     string
		maxRows int
		opts    *source.Options
		want    int // rows returned
	}{
		{"select all default max_rows", "SELECT * FROM big", 0, nil, 100},
		{"count", "SELECT count(*), sum(score) FROM big", 0, nil, 1},
		{"order by unindexed max_rows=100", "SELECT * FROM big ORDER BY score DESC, id", 100, nil, 100},
		{"group by", "SELECT CAST(score AS INTEGER) % 10 AS bucket, count(*) FROM big GROUP BY bucket", 0, nil, 10},
		{"contrast: select all max_rows=100000", "SELECT * FROM big", 100_000, uncapped(100_000), 100_000},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			db := dbtest.Open(b, path, tt.opts)
			run := func() {
				if res := query(b, db, tt.sql, tt.maxRows); len(res.Rows) != tt.want {
					b.Fatalf("got %d rows, want %d", len(res.Rows), tt.want)
				}
			}
			run() // open the connection before measuring
			peak := peakHeap(3, run)
			b.ReportAllocs()
			for b.Loop() {
				run()
			}
			b.ReportMetric(peak, "peak-heap-MB")
		})
	}
}

// peakHeap runs f n times, each after a forced collection, and returns the
// most the Go heap rose during one run, in MB. It reads the heap before and
// after each run with ReadMemStats, and samples it in between every
// millisecond (runtime/metrics reads without stopping the world). The heap
// counts garbage not yet collected, so the figure is an upper bound on what
// one query keeps live; what matters is that it does not grow with the rows.
func peakHeap(n int, f func()) float64 {
	var high uint64
	for range n {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		stop, done := make(chan struct{}), make(chan uint64)
		go func() {
			sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			var top uint64
			for {
				metrics.Read(sample)
				top = max(top, sample[0].Value.Uint64())
				select {
				case <-stop:
					done <- top
					return
				case <-tick.C:
				}
			}
		}()
		f()
		close(stop)
		top := <-done
		runtime.ReadMemStats(&after)
		top = max(top, after.HeapAlloc)
		if top > before.HeapAlloc {
			high = max(high, top-before.HeapAlloc)
		}
	}
	return float64(high) / (1 << 20)
}
