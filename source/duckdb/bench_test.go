package duckdb_test

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
)

// bigRows is the generated file's size: CI's one run reads a million
// rows; the README's figures come from -duckdb.rows=10000000.
var bigRows = flag.Int("duckdb.rows", 1_000_000, "rows of the generated Parquet file BenchmarkBigParquet reads")

// benchMemory is the memory_limit of the benchmark's source.
const benchMemory = 256 << 20

// BenchmarkBigParquet runs queries that would hold the whole file in
// memory without DuckDB's limit (a high-cardinality GROUP BY, a full sort,
// a window over every row, a distinct count) on a generated Parquet file
// of -duckdb.rows rows, and reports the process's peak RSS while they run.
// It fails when the peak grows past the source's memory_limit plus what
// the Go side and DuckDB's code take.
func BenchmarkBigParquet(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "big.parquet")
	w, err := sql.Open("duckdb", "?memory_limit=256MB&threads=2")
	must(b, err)
	_, err = w.Exec(fmt.Sprintf(`COPY (SELECT range AS id, range %% 1000 AS k, 'customer ' || (range * 7919 %% 2000000) AS name,
		(range * 31 %% 100000) / 100.0 AS amount FROM range(%d)) TO '%s' (FORMAT parquet)`, *bigRows, path))
	must(b, err)
	must(b, w.Close())
	src := open(b, path, duckdb.Engine{MemoryLimit: "256MB", Threads: 2})
	queries := []string{
		"SELECT name, sum(amount) FROM big GROUP BY name ORDER BY 2 DESC",
		"SELECT * FROM big ORDER BY name, id",
		"SELECT id, sum(amount) OVER (PARTITION BY k ORDER BY id) FROM big",
		"SELECT count(DISTINCT name), count(*) FROM big",
		"SELECT list(name) FROM big",
	}
	// DuckDB runs in the source's worker process: its peak is measured,
	// sampled while the queries run, since a worker whose statement ran
	// out of memory is replaced when it ends.
	pid := duckdb.WorkerPID(src)
	resetPeak(b, pid)
	base := procPeak(b, pid)
	var high atomic.Int64
	high.Store(base)
	sampled := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if n, ok := peakOf(duckdb.WorkerPID(src)); ok && n > high.Load() {
				high.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	b.ResetTimer()
	for range b.N {
		for _, q := range queries {
			start := time.Now()
			_, rows, err := run(b.Context(), src, source.Statement{SQL: q, Fetch: 101, Cut: 2048})
			var ee *source.EngineError
			switch {
			case err == nil && len(rows) == 0:
				b.Errorf("%s: no rows", q)
			case errors.As(err, &ee) && ee.Code == source.OutOfMemory:
				// Refused within the limit: the answer the model gets.
			case err != nil:
				b.Errorf("%s: %v", q, err)
			}
			b.Logf("%s: %s, %v", q, time.Since(start).Round(time.Millisecond), err)
		}
	}
	b.StopTimer()
	close(stop)
	<-sampled
	peak := high.Load()
	b.ReportMetric(float64(peak>>20), "peak-MiB")
	b.ReportMetric(float64((peak-base)>>20), "growth-MiB")
	// DuckDB's limit covers its buffer pool; its code, the Parquet
	// reader's per-thread buffers and the Go heap come on top.
	if bound := int64(benchMemory + 192<<20); peak-base > bound {
		b.Errorf("peak RSS grew %d MiB over %d MiB; the source's memory_limit is %d MiB", (peak-base)>>20, base>>20, benchMemory>>20)
	}
}

// resetPeak resets process pid's peak RSS (VmHWM), as Linux allows.
func resetPeak(b *testing.B, pid int) {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak RSS here: %v", err)
	}
}

// peakOf reads process pid's VmHWM, in bytes; false when it is gone.
func peakOf(pid int) (int64, bool) {
	if pid == 0 {
		return 0, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// peakRSS reads this process's VmHWM, in bytes.
func peakRSS(b testing.TB) int64 { return procPeak(b, os.Getpid()) }

// procPeak reads process pid's VmHWM, in bytes.
func procPeak(b testing.TB, pid int) int64 {
	n, ok := peakOf(pid)
	if !ok {
		b.Fatalf("no VmHWM of process %d", pid)
	}
	return n
}
