package postgres

import "sync"

const (
	// maxVerdicts and maxVerdictBytes bound how many accepted statements,
	// and how many bytes of their text, one catalog remembers; when full,
	// it forgets them all and starts again.
	maxVerdicts     = 1024
	maxVerdictBytes = 4 << 20
	// maxVerdictText is the longest text remembered: longer statements are
	// rare, and checked every time.
	maxVerdictText = 64 << 10
)

// verdictCache remembers, for one catalog, the statements the guard
// accepted and the text it wrapped each in, keyed by the exact text and row
// limit: a verdict is reused only for the very text it was computed for,
// under the very catalog (functions, types, server version, search path,
// allowances) it was computed with. The server settings that decide how
// the text is read (standard_conforming_strings, the encodings) are the
// same for every call, since a connection that reports others is refused
// before its statement is judged (pgLexesAsGuard), so they need no place
// in the key; a reloaded catalog starts a new cache. Refusals are not
// kept. The zero value is ready; it is safe for concurrent use.
type verdictCache struct {
	mu    sync.Mutex
	m     map[verdictKey]pgStatement
	bytes int // of the texts held, the statements' and the wrapped
}

type verdictKey struct {
	sql   string
	limit int
}

func (c *verdictCache) get(sql string, limit int) (pgStatement, bool) {
	if len(sql) > maxVerdictText {
		return pgStatement{}, false
	}
	c.mu.Lock()
	st, ok := c.m[verdictKey{sql, limit}]
	c.mu.Unlock()
	return st, ok
}

func (c *verdictCache) put(sql string, limit int, st pgStatement) {
	if len(sql) > maxVerdictText {
		return
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxVerdicts || c.bytes+len(sql)+len(st.text) > maxVerdictBytes {
		c.m, c.bytes = make(map[verdictKey]pgStatement, 64), 0
	}
	c.m[verdictKey{sql, limit}] = st
	c.bytes += len(sql) + len(st.text)
	c.mu.Unlock()
}
