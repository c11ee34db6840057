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
