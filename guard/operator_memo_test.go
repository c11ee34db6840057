package guard_test

import (
	"maps"
	"sync"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
)

// memoCatalog is a fakeCatalog with the guard's operator memo, counting
// the lookups of each operator.
type memoCatalog struct {
	*fakeCatalog
	mu      sync.Mutex
	allowed map[[2]string]bool
	lookups map[string]int
}

func newMemoCatalog(c *fakeCatalog) *memoCatalog {
	return &memoCatalog{fakeCatalog: c, allowed: map[[2]string]bool{}, lookups: map[string]int{}}
}

func (c *memoCatalog) Operators(schema, name string) []guard.PostgresFunction {
	c.mu.Lock()
	c.lookups[name]++
	c.mu.Unlock()
	return c.fakeCatalog.Operators(schema, name)
}

func (c *memoCatalog) OperatorAllowed(schema, name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.allowed[[2]string{schema, name}]
}

func (c *memoCatalog) AllowOperator(schema, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.allowed[[2]string{schema, name}] = true
}

// TestOperatorMemo: an allowed operator is judged once per catalog, under
// a policy too; a refused one is judged, and refused, every time, and
// noting one operator allows no other.
func TestOperatorMemo(t *testing.T) {
	fake := testCatalog.with(nil, nil)
	fake.ops = maps.Clone(fake.ops)
	fake.ops["pg_catalog.#!"] = 'v' // an operator behind a volatile function
	cat := newMemoCatalog(fake)
	for _, sql := range []string{"SELECT 1 + 2", "SELECT 3 + 4"} {
		if err := guard.CheckPostgres(sql, cat); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if n := cat.lookups["+"]; n != 1 {
		t.Errorf("+ was looked up %d times, want once: the memo was not used", n)
	}
	// Under a policy, whose resolution looks the operator up once itself,
	// the walk still reads the memo.
	pol := sqliteFold{"customers": rel("", "customers", "id", "name")}
	if _, err := guard.PostgresPolicyLimit("SELECT id + 1 FROM customers", 10, cat, pol); err != nil {
		t.Fatal(err)
	}
	if n := cat.lookups["+"]; n != 2 {
		t.Errorf("+ was looked up %d times after a query under a policy, want twice", n)
	}
	for range 2 {
		if err := guard.CheckPostgres("SELECT 1 #! 2", cat); err == nil {
			t.Fatal("an operator behind a volatile function was allowed")
		}
	}
	if n := cat.lookups["#!"]; n != 2 {
		t.Errorf("#! was looked up %d times, want twice: a refusal must not be noted", n)
	}
	if cat.allowed[[2]string{"", "#!"}] {
		t.Error("a refused operator was noted as allowed")
	}
	if err := guard.CheckPostgres("SELECT 1 - 2", cat); err != nil || cat.lookups["-"] != 1 {
		t.Errorf("- after + was noted: %v, looked up %d times, want once", err, cat.lookups["-"])
	}
}
