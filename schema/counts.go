package schema

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"github.com/sqlmcp/sqlmcp"
)

// rowCounts caches the row counts of one reading of the schema, for as long
// as the data they were counted from stays the same.
type rowCounts struct {
	mu     sync.Mutex
	tables []*Table // the reading the counts belong to
	stamp  fileStamp
	n      map[*Table]int64
}

// fileStamp is what a SQLite file and its write-ahead log look like from
// outside: a commit by any writer changes at least one field (the header's
// change counter in rollback mode; the log's size or, when the log starts
// over, its salt in WAL mode), whatever the clock's resolution.
type fileStamp struct {
	size, walSize   int64
	mtime, walMtime time.Time
	header          [4]byte // the file change counter, bytes 24-27
	salt            [8]byte // the log's salts, bytes 16-23 of its header
}

// stampOf reads path's stamp. A missing file or log reads as zero fields,
// so its coming into being is a change too.
func stampOf(path string) fileStamp {
	var s fileStamp
	if path == "" {
		return s
	}
	if fi, err := os.Stat(path); err == nil {
		s.size, s.mtime = fi.Size(), fi.ModTime()
		readAt(path, s.header[:], 24)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil {
		s.walSize, s.walMtime = fi.Size(), fi.ModTime()
		readAt(path+"-wal", s.salt[:], 16)
	}
	return s
}

// readAt fills b from path at off, leaving it zero where it cannot.
func readAt(path string, b []byte, off int64) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		clear(b)
	}
}

// counts returns the count cache valid for tables and the data as it is
// now, emptied when either changed, locked: the caller unlocks it.
func (c *Catalog) counts(tables []*Table) *rowCounts {
	var stamp fileStamp
	if c.db.Dialect() == sqlmcp.SQLite {
		stamp = stampOf(c.db.Path())
	}
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
// kept for as long as t's reading of the schema (see Tables) and, on
// SQLite, until the database file or its log changes, so calling it again
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
	before := rc.stamp
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
	if rc.stamp == before && sameTables(rc.tables, tables) {
		rc.n[t] = n
	}
	rc.mu.Unlock()
	return n, true, true
}
