package guard_test

import (
	"fmt"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
)

// BenchmarkPostgresLimit judges a point lookup whose text changes per
// call, both of PostgresPolicyLimit's ways.
func BenchmarkPostgresLimit(b *testing.B) {
	for _, way := range []struct {
		name string
		f    func(string) error
	}{
		{"once", func(sql string) error {
			if _, ok := guard.LimitedAtOnce(sql, 101, limitMemo, nil); !ok {
				return fmt.Errorf("not answered")
			}
			return nil
		}},
		{"apart", func(sql string) error { _, err := guard.LimitedApart(sql, 101, limitMemo, nil); return err }},
	} {
		b.Run(way.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				if err := way.f(fmt.Sprintf("SELECT * FROM customers WHERE id = 1 + %d * 7919 AND name <> 'x'", i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// limitMemo is testCatalog with the operator memo the server's catalog
// keeps.
var limitMemo = newMemoCatalog(testCatalog)
