package source_test

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
// guard (a cached verdict), BEGIN READ ONLY, the statement, ROLLBACK and
// DISCARD ALL in one pipeline. Beside the time, which a loaded machine
// blurs, it reports the CPU one call costs sqlmcp's process
// ("client-cpu-us/op") and the server's backends ("server-cpu-us/op"),
// read from /proc: what the call itself makes each side do.
func BenchmarkPostgresRoundTrip(b *testing.B) {
	dsn := dbtest.PostgresDSN(b)
	db := dbtest.Open(b, dsn, &source.Options{MaxConns: 1})
	admin := dbtest.PostgresConn(b, dsn)
	u, _ := url.Parse(dsn)
	for _, sql := range []string{"SELECT 1", "SELECT * FROM customers WHERE id = 3"} {
		b.Run(fmt.Sprintf("%q", sql), func(b *testing.B) {
			query(b, db, sql, 0) // connect, and cache the verdict
			var pids []int
			rows, err := admin.Query(b.Context(), "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'sqlmcp'",
				strings.TrimPrefix(u.Path, "/"))
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
				var pid int
				rows.Scan(&pid)
				pids = append(pids, pid)
			}
			rows.Close()
			server, client := backendCPU(pids), processCPU()
			b.ReportAllocs()
			for b.Loop() {
				query(b, db, sql, 0)
			}
			b.ReportMetric(float64(backendCPU(pids)-server)/float64(b.N)/1e3, "server-cpu-us/op")
			b.ReportMetric(float64(processCPU()-client)/float64(b.N)/1e3, "client-cpu-us/op")
		})
	}
}

// backendCPU sums the user and system CPU of the processes pids, from
// /proc (Linux), in nanoseconds; 0 where it cannot read them.
func backendCPU(pids []int) int64 {
	var ticks int64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// Fields after the command name, which is in parentheses: utime
		// and stime are the 12th and 13th.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			ticks += u + s
		}
	}
	return ticks * int64(time.Second/100) // USER_HZ is 100 on Linux
}

// processCPU is this process's user and system CPU, in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
