// Package sqlscan splits SQL text into tokens, enough to tell names from
// string literals and comments without parsing: for what sqlmcp reads in
// SQL beside the guard (names to rank notes by, another dialect's habits
// to hint at). Decisions about what may run never rest on it: those are
// the guard's, with each engine's own parser. It imports only the
// standard library.
package sqlscan

import "strings"

// Kind is what a token is.
type Kind int

// The kinds of token.
const (
	Other        Kind = iota // one byte of punctuation
	Space                    // a run of white space
	LineComment              // "--" to the end of the line
	BlockComment             // "/* */"
	String                   // a '...' literal
	Quoted                   // a "..." or `...` name
	Word                     // a bare word or number
)

// Token is one token and its text.
type Token struct {
	Kind Kind
	Text string
}

// Tokens splits sql into tokens, enough to tell names from literals and
// comments; it never fails, taking an unclosed quote or comment to the end.
// The tokens' texts put together are sql.
func Tokens(sql string) []Token {
	var toks []Token
	for i := 0; i < len(sql); {
		c, j, k := sql[i], i+1, Other
		switch {
		case isSpace(c):
			for j < len(sql) && isSpace(sql[j]) {
				j++
			}
			k = Space
		case strings.HasPrefix(sql[i:], "--"):
			j = len(sql)
			if e := strings.IndexByte(sql[i:], '\n'); e >= 0 {
				j = i + e
			}
			k = LineComment
		case strings.HasPrefix(sql[i:], "/*"):
			j = len(sql)
			if e := strings.Index(sql[i+2:], "*/"); e >= 0 {
				j = i + 2 + e + 2
			}
			k = BlockComment
		case c == '\'' || c == '"' || c == '`':
			// A doubled quote is the quote itself, inside.
			for j = i + 1; j < len(sql); j++ {
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c {
						j++
						continue
					}
					j++
					break
				}
			}
			k = Quoted
			if c == '\'' {
				k = String
			}
		case isWordByte(c):
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			k = Word
		}
		toks = append(toks, Token{k, sql[i:j]})
		i = j
	}
	return toks
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// isWordByte reports whether c can be part of a bare SQL word; bytes of
// multi-byte UTF-8 runes count, so names in any script stay whole.
func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// Code returns sql with its string literals and comments blanked (each
// byte a space, so positions stay), keeping names, quoted or not, and
// everything else as it is.
func Code(sql string) string {
	var b strings.Builder
	b.Grow(len(sql))
	for _, t := range Tokens(sql) {
		switch t.Kind {
		case String, LineComment, BlockComment:
			b.WriteString(strings.Repeat(" ", len(t.Text)))
		default:
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
