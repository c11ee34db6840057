package schema_test

import "testing"

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
