// Package guard decides whether SQL text is a single statement that cannot
// change the database, and says why not in words a model can act on.
//
// The accept rule: exactly one statement (a trailing semicolon and comments
// are fine), which the engine's own compiler reads as a query that only
// reads: SELECT, VALUES, WITH ... SELECT, set operations and EXPLAIN of one.
// Anything that writes, changes settings, opens or ends transactions,
// attaches files or loads code is refused. No keyword lists: for SQLite the
// decision is SQLite's own, from compiling the statement (never running it)
// under a deny-by-default authorizer on a read-only connection; for
// PostgreSQL, PostgreSQL's grammar (CheckPostgres); for MySQL and MariaDB,
// a MySQL grammar (TiDB's parser) after the guard's own lexer has read the
// comments as the server reads them (CheckMySQL).
//
// The guard is the first of two walls. The second is the engine: sqlmcp
// opens every database read-only, so a guard bug still cannot write.
package guard

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sqlmcp/sqlmcp/internal/text"
)

// MaxSQLBytes is the longest SQL text the guard reads.
const MaxSQLBytes = 1 << 20

// Error is a refusal: what was found and what to send instead.
type Error struct {
	Reason string // what was found: "UPDATE of table \"users\" is not allowed"
	Hint   string // what to send instead
	// MissingFunction and MissingType name, as the statement wrote them
	// ("lower", "public.mytype"), a function or type the database lacks,
	// when that is the refusal: not a rule broken but a name to correct.
	MissingFunction, MissingType string
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return e.Reason
	}
	return e.Reason + ". " + e.Hint
}

const readOnlyHint = "This server only reads: send one SELECT statement (WITH ... SELECT, UNION and EXPLAIN are fine)"

// checkText refuses text no parser should see: too long, not UTF-8,
// holding NUL bytes (C parsers stop at the first, so the text they judge
// would not be the text sent), or holding no statement at all.
func checkText(sql string) error {
	switch {
	case len(sql) > MaxSQLBytes:
		return &Error{
			Reason: fmt.Sprintf("the SQL is %d bytes long; the limit is %d", len(sql), MaxSQLBytes),
			Hint:   "Send a shorter statement",
		}
	case !utf8.ValidString(sql):
		return &Error{Reason: "the SQL is not valid UTF-8", Hint: "Send the statement as UTF-8 text"}
	case strings.IndexByte(sql, 0) >= 0:
		return &Error{Reason: "the SQL contains a NUL byte", Hint: "Remove the NUL (\\x00) character"}
	case blank(sql):
		return &Error{Reason: "no SQL statement found", Hint: "Send one SELECT statement"}
	}
	return nil
}

// blank reports whether s holds nothing but whitespace, comments and
// semicolons, as SQL lexers read them.
func blank(s string) bool { return skipBlank(s) == len(s) }

// skipBlank returns the offset of the first byte of s that is not
// whitespace, a semicolon or inside a comment; len(s) when there is none.
func skipBlank(s string) int {
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == ';':
			i++
		case strings.HasPrefix(s[i:], "--"):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				return len(s)
			}
			i += end + 1
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return len(s)
			}
			i += 2 + end + 2
		default:
			return i
		}
	}
	return len(s)
}

// firstWord returns the statement's first keyword, upper-cased, for
// messages only: decisions never rest on it.
func firstWord(s string) string {
	s = strings.TrimLeft(s[skipBlank(s):], "(")
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	if end >= 0 {
		s = s[:end]
	}
	return strings.ToUpper(s)
}

// snippet shortens s for a message, on one line.
func snippet(s string, n int) string {
	return text.Inline(strings.Join(strings.Fields(s), " "), n)
}
