package schema

import (
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// On PostgreSQL, which has no schema version to compare, the schema is read
// again once a reading has aged. A reading that shows the same schema
// keeps the tables, and with them the search and value indexes built on
// them, and brings the row estimates up to date; a change to the schema
// makes new ones.
func TestUnversionedRereadKeepsTables(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, "CREATE TABLE fresh (id int, note text); ANALYZE fresh")
	cat, err := New(dbtest.Open(t, dsn, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func(ttl, stale time.Duration) { unversionedTTL, unversionedStale = ttl, stale }(unversionedTTL, unversionedStale)
	unversionedTTL, unversionedStale = 0, 0 // every call reads the schema again, before it is answered
	ctx := t.Context()
	first, err := cat.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.IndexValues(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.Search(ctx, "note", 5); err != nil {
		t.Fatal(err)
	}
	values, search := cat.values, cat.search
	if values == nil || search == nil {
		t.Fatal("no value or search index was built")
	}
	fresh := func(tables []*Table) *Table {
		for _, tb := range tables {
			if tb.Name == "fresh" {
				return tb
			}
		}
		t.Fatal("no table fresh")
		return nil
	}
	if e, _ := fresh(first).Big(); e != 0 {
		t.Fatalf("an empty table is estimated at %d rows", e)
	}

	if n, exact, ok := cat.RowCount(ctx, fresh(first)); n != 0 || !exact || !ok {
		t.Fatalf("the empty table's count: %d (exact %v, ok %v)", n, exact, ok)
	}
	dbtest.PostgresExec(t, dsn, "INSERT INTO fresh SELECT g, 'n' || g FROM generate_series(1, 500) g; ANALYZE fresh")
	again, err := cat.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if &again[0] != &first[0] || fresh(again) != fresh(first) {
		t.Error("the same schema, read again, gave new tables")
	}
	if e, _ := fresh(again).Big(); e != 500 {
		t.Errorf("the estimate read again is %d, want 500", e)
	}
	// The count is taken again once the schema has been read again: it
	// lasts no longer than it did when every reading made new tables.
	if n, exact, ok := cat.RowCount(ctx, fresh(again)); n != 500 || !exact || !ok {
		t.Errorf("the count after the insert: %d (exact %v, ok %v), want 500", n, exact, ok)
	}
	if _, err := cat.Search(ctx, "note", 5); err != nil {
		t.Fatal(err)
	}
	if cat.values != values || cat.search != search {
		t.Error("the same schema, read again, rebuilt the search or value index")
	}

	dbtest.PostgresExec(t, dsn, "ALTER TABLE fresh ADD COLUMN tag text")
	changed, err := cat.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if &changed[0] == &first[0] || len(fresh(changed).Columns) != 3 {
		t.Error("a changed schema, read again, kept the old tables")
	}
}

// Past unversionedTTL and within unversionedStale, a call is answered from
// the reading in hand at once, and the schema is read again in the
// background: a later call sees the change.
func TestUnversionedRereadInBackground(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	cat, err := New(dbtest.Open(t, dsn, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func(ttl, stale time.Duration) { unversionedTTL, unversionedStale = ttl, stale }(unversionedTTL, unversionedStale)
	unversionedTTL, unversionedStale = 0, time.Hour
	ctx := t.Context()
	first, err := cat.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	has := func(tables []*Table) bool {
		for _, tb := range tables {
			if tb.Name == "later" {
				return true
			}
		}
		return false
	}
	dbtest.PostgresExec(t, dsn, "CREATE TABLE later (id int)")
	now, err := cat.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if has(now) || &now[0] != &first[0] {
		t.Fatal("the call waited for the schema to be read again")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !has(now) {
		if time.Now().After(deadline) {
			t.Fatal("the table made meanwhile never showed")
		}
		time.Sleep(20 * time.Millisecond)
		if now, err = cat.Tables(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
