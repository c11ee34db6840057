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
// accepted and the text it wrapped each in, keyed by the exact text, row
// limit and policy: a verdict is reused only for the very text it was
// computed for, under the very policy (its generation: SetPolicy starts a
// new one) and the very catalog (functions, types, server version, search
// path, allowances) it was computed with. The server settings that decide how
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

// verdictKey is a verdict's text, row limit and policy: gen is the
// generation of the policy it was judged under (0 for none), so a verdict
// is never reused under another policy.
type verdictKey struct {
	sql   string
	limit int
	gen   uint64
}

func (c *verdictCache) get(sql string, limit int, gen uint64) (pgStatement, bool) {
	if len(sql) > maxVerdictText {
		return pgStatement{}, false
	}
	c.mu.Lock()
	st, ok := c.m[verdictKey{sql, limit, gen}]
	c.mu.Unlock()
	return st, ok
}

func (c *verdictCache) put(sql string, limit int, gen uint64, st pgStatement) {
	if len(sql) > maxVerdictText {
		return
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxVerdicts || c.bytes+len(sql)+len(st.text) > maxVerdictBytes {
		c.m, c.bytes = make(map[verdictKey]pgStatement, 64), 0
	}
	c.m[verdictKey{sql, limit, gen}] = st
	c.bytes += len(sql) + len(st.text)
	c.mu.Unlock()
}
