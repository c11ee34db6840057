package sqlite

import "github.com/mattn/go-sqlite3"

// stmtCache keeps a connection's statements the guard judged under no
// policy, by their text, to run again when the same text comes back: a
// text a model or sqlmcp sends again is neither compiled nor judged again.
// sqlite3_reset readies a statement for its next run, and SQLite compiles
// it again by itself, under the same authorizer, when the schema changed
// meanwhile. The key is the whole text, so a statement is only ever run
// for the very text it was judged for.
type stmtCache struct {
	entries []cachedStmt // the most recently used last
}

type cachedStmt struct {
	sql string
	st  *sqlite3.SQLiteStmt
}

// Bounds on what a connection keeps: the statements, the length of a text
// worth keeping (a long text is rarely sent twice), and the memory of a
// compiled program worth keeping, so that what a connection keeps takes
// at most 1 MiB of its share of SQLite's heap (sqliteConnHeap).
const (
	stmtCacheEntries = 16
	stmtCacheText    = 4 << 10
	stmtCacheMemory  = 64 << 10
)

// take removes and returns the statement kept for sql, or nil.
func (c *stmtCache) take(sql string) *sqlite3.SQLiteStmt {
	for i := len(c.entries) - 1; i >= 0; i-- {
		if e := c.entries[i]; e.sql == sql {
			c.entries = append(c.entries[:i], c.entries[i+1:]...)
			return e.st
		}
	}
	return nil
}

// put keeps st, compiled from sql, closing it when sql or its program is
// too big to keep, and closing the least recently used statement when
// full.
func (c *stmtCache) put(sql string, st *sqlite3.SQLiteStmt) {
	if m := stmtMemory(st); len(sql) > stmtCacheText || m < 0 || m > stmtCacheMemory {
		st.Close()
		return
	}
	if len(c.entries) == stmtCacheEntries {
		c.entries[0].st.Close()
		c.entries = append(c.entries[:0], c.entries[1:]...)
	}
	c.entries = append(c.entries, cachedStmt{sql: sql, st: st})
}

// clear closes every statement kept.
func (c *stmtCache) clear() {
	for _, e := range c.entries {
		e.st.Close()
	}
	c.entries = nil
}
