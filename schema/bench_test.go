package schema_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSearch measures search_schema's work on the demo database: the
// schema-version check that guards the cache, then scoring every table and
// column.
func BenchmarkSearch(b *testing.B) {
	cat := demoCatalog(b)
	if _, err := cat.Search(b.Context(), "free meal", 10); err != nil { // fill the cache
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		matches, err := cat.Search(b.Context(), "free meal", 10)
		if err != nil {
			b.Fatal(err)
		}
		if len(matches) == 0 {
			b.Fatal("no matches")
		}
	}
}

// BenchmarkSearchLarge measures search_schema on the demo merged into
// the 2,000-table decoy catalog, with the value index built: a question
// of the linking benchmark per call, and a query of the words the most
// tables and columns hold, whose posting lists are the longest. The word
// statistics are built once per reading of the schema, so a call costs
// the posting lists its words touch (each capped), not the schema's size.
// It reports the value index's size.
func BenchmarkSearchLarge(b *testing.B) {
	_, _, _, cat := linkingCatalogs(b)
	if err := cat.IndexValues(b.Context()); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := cat.Search(b.Context(), "school", 20); err != nil { // build the statistics
		b.Fatal(err)
	}
	build := time.Since(start)
	var runtimeStats runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&runtimeStats)
	for _, bc := range []struct{ name, query string }{
		{"question", "How many active English learners are there in each type of school? English learner refers to is_english_learner = 1; active refers to status = 'active'"},
		{"common words", "the id, name, status, type and date of each record created at or updated at, its code, amount and id again"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			before := cpuTime()
			n := 0
			for b.Loop() {
				matches, err := cat.Search(b.Context(), bc.query, 20)
				if err != nil {
					b.Fatal(err)
				}
				if len(matches) != 20 {
					b.Fatalf("%d matches", len(matches))
				}
				n++
			}
			// The processor time a call takes, which a busy machine does
			// not inflate as it does the wall time.
			b.ReportMetric(float64(cpuTime()-before)/float64(n), "cpu-ns/op")
			st := cat.ValueStats()
			b.ReportMetric(float64(build.Milliseconds()), "first-call-ms")
			b.ReportMetric(float64(st.Bytes), "index-bytes")
			b.ReportMetric(float64(st.Columns), "indexed-columns")
			b.ReportMetric(float64(runtimeStats.HeapAlloc)/(1<<20), "heap-MiB")
		})
	}
}

// cpuTime is the processor time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDescribe measures what describe_table asks of the catalog, warm,
// on the demo database's biggest table: the schema-version check, the name
// lookup and the row count.
func BenchmarkDescribe(b *testing.B) {
	cat := demoCatalog(b)
	tables, err := cat.Tables(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	biggest, most := "", int64(-1)
	for _, t := range tables {
		if n, _, ok := cat.RowCount(b.Context(), t); ok && n > most {
			biggest, most = t.Name, n
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		t, err := cat.Table(b.Context(), biggest)
		if err != nil {
			b.Fatal(err)
		}
		if n, _, ok := cat.RowCount(b.Context(), t); !ok || n != most {
			b.Fatalf("RowCount: %d, %v; want %d", n, ok, most)
		}
	}
	b.ReportMetric(float64(most), "rows")
}
