package schema

import (
	"context"
	"sync"
)

// rowCounts caches the row counts of one reading of the schema, for as long
// as the data they were counted from stays the same.
type rowCounts struct {
	mu     sync.Mutex
	tables []*Table // the reading the counts belong to
	stamp  any      // the engine's data stamp when counted (source.DB.DataStamp)
	gen    uint64   // moved by forget
	n      map[*Table]int64
}

// forget empties the cache, and keeps a count under way from landing in
// it: for an engine without a data stamp, counts last as long as a reading
// of the schema would (see Catalog.Tables).
func (rc *rowCounts) forget() {
	rc.mu.Lock()
	rc.n = nil
	rc.gen++
	rc.mu.Unlock()
}

// counts returns the count cache valid for tables and the data as it is
// now, emptied when either changed, locked: the caller unlocks it.
func (c *Catalog) counts(tables []*Table) *rowCounts {
	stamp := c.db.DataStamp()
	rc := &c.rowCounts
	rc.mu.Lock()
	if rc.n == nil || !sameTables(rc.tables, tables) || rc.stamp != stamp {
		rc.tables, rc.stamp, rc.n = tables, stamp, map[*Table]int64{}
	}
	return rc
}

// RowCount counts t's rows: exactly, unless the table is big and the
// engine keeps an estimate (PostgreSQL's statistics), then estimated; ok
// is false when neither could be had in the time ctx allows. A count is
// kept for as long as t's reading of the schema (see Tables) and until
// the engine's data stamp changes (a SQLite file or its log), so calling it again
// costs no query. It is safe for concurrent use.
func (c *Catalog) RowCount(ctx context.Context, t *Table) (n int64, exact, ok bool) {
	if est, big := t.Big(); big {
		return est, false, true
	}
	if t.Unreadable != "" {
		return 0, false, false // counting would only fail
	}
	c.mu.Lock()
	tables := c.tables
	c.mu.Unlock()
	rc := c.counts(tables)
	n, ok = rc.n[t]
	before, gen := rc.stamp, rc.gen
	rc.mu.Unlock()
	if ok {
		return n, true, true
	}
	rows, err := c.db.Catalog(ctx, "SELECT count(*) FROM "+t.SQL())
	if err != nil || len(rows) != 1 {
		return 0, false, false
	}
	if n, ok = rows[0][0].(int64); !ok {
		return 0, false, false
	}
	// Kept only when nothing changed while counting: a write in between
	// may or may not be in the count.
	rc = c.counts(tables)
	if rc.stamp == before && rc.gen == gen && sameTables(rc.tables, tables) {
		rc.n[t] = n
	}
	rc.mu.Unlock()
	return n, true, true
}
