//go:build !nomysql

package guard

import (
	"fmt"
	"strings"
)

// maxMySQLNesting is how deep brackets may nest in MySQL text.
const maxMySQLNesting = 1000

// myToken is one token of MySQL text as the server's lexer splits it:
// only what the guard needs to find statements, brackets and the LIMIT
// clause.
type myToken struct {
	kind       byte // 'w' word or number, 's' string, 'q' `quoted` name, 'p' punctuation
	start, end int  // byte offsets in the text
	depth      int  // brackets open around the token
}

// myText is MySQL text read the way MariaDB and MySQL read it, with
// ANSI_QUOTES and NO_BACKSLASH_ESCAPES off (the session sets them so).
type myText struct {
	// blanked is the text with every comment turned into spaces (new
	// lines kept), so the parser, and the server, see no comment at all:
	// neither optimizer hints (MAX_EXECUTION_TIME, SET_VAR) nor another
	// parser's idea of a special comment.
	blanked string
	tokens  []myToken
	// end is where the statement ends: the first semicolon outside
	// strings and comments, or len(text).
	end int
}

// word returns the token's text upper-cased when it is a word, else "".
func (t *myText) word(i int) string {
	if i < 0 || i >= len(t.tokens) || t.tokens[i].kind != 'w' {
		return ""
	}
	return strings.ToUpper(t.blanked[t.tokens[i].start:t.tokens[i].end])
}

// punct reports whether token i is the punctuation c.
func (t *myText) punct(i int, c byte) bool {
	return i >= 0 && i < len(t.tokens) && t.tokens[i].kind == 'p' && t.blanked[t.tokens[i].start] == c
}

// lexMySQL reads sql as the server's lexer would and refuses what the
// guard will not judge: executable comments (/*! ... */ and MariaDB's
// /*M! ... */, whose text the server runs as SQL when its version is high
// enough), unterminated comments, strings and names, brackets nested past
// maxMySQLNesting, and more than one statement.
func lexMySQL(sql string) (*myText, error) {
	b := []byte(sql)
	t := &myText{end: len(sql)}
	depth := 0
	blankRange := func(from, to int) {
		for k := from; k < to; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	i := 0
	for i < len(b) {
		c := b[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' || c == '-' && i+1 < len(b) && b[i+1] == '-' && (i+2 == len(b) || isMySQLSpaceOrControl(b[i+2])):
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				end = len(b) - i
			}
			blankRange(i, i+end)
			i += end
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			if i+2 < len(b) && (b[i+2] == '!' || (b[i+2] == 'M' || b[i+2] == 'm') && i+3 < len(b) && b[i+3] == '!') {
				prefix := "/*!"
				if b[i+2] != '!' {
					prefix = "/*M!"
				}
				return nil, &Error{
					Reason: "executable comments (" + prefix + " ... */) are not allowed: the server runs their text as SQL",
					Hint:   "Write the SQL inside the comment as plain SQL, or leave the comment out",
				}
			}
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return nil, &SyntaxError{Message: "unterminated /* comment", Position: runePos(sql, i)}
			}
			blankRange(i, i+2+end+2)
			i += 2 + end + 2
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for {
				if j >= len(b) {
					what := "string"
					if c == '`' {
						what = "quoted name"
					}
					return nil, &SyntaxError{Message: fmt.Sprintf("unterminated %s starting with %c", what, c), Position: runePos(sql, i)}
				}
				if b[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if b[j] == c {
					if j+1 < len(b) && b[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			kind := byte('s')
			if c == '`' {
				kind = 'q'
			}
			t.tokens = append(t.tokens, myToken{kind: kind, start: i, end: j + 1, depth: depth})
			i = j + 1
		case isMySQLWord(c):
			j := i + 1
			for j < len(b) && isMySQLWord(b[j]) {
				j++
			}
			t.tokens = append(t.tokens, myToken{kind: 'w', start: i, end: j, depth: depth})
			i = j
		case c == ';':
			if t.end == len(sql) {
				t.end = i
			}
			i++
		default:
			switch c {
			case '(':
				depth++
				if depth > maxMySQLNesting {
					return nil, &Error{
						Reason: fmt.Sprintf("the SQL nests brackets more than %d levels deep", maxMySQLNesting),
						Hint:   "Nest less: a WITH clause can name a subquery instead of nesting it",
					}
				}
			case ')':
				depth = max(depth-1, 0)
			}
			d := depth
			if c == '(' {
				d--
			}
			t.tokens = append(t.tokens, myToken{kind: 'p', start: i, end: i + 1, depth: d})
			i++
		}
		if n := len(t.tokens); n > 0 && t.tokens[n-1].start > t.end {
			// Something other than blanks after the first semicolon.
			rest := sql[t.end+1:]
			return nil, &Error{
				Reason: fmt.Sprintf("found more than one statement; the second begins %q", snippet(rest[skipBlank(rest):], 60)),
				Hint:   "Send exactly one statement per call",
			}
		}
	}
	t.blanked = string(b)
	return t, nil
}

// isMySQLWord reports whether c can be part of an unquoted name, keyword
// or number: letters, digits, _ and $, and every byte of a multi-byte
// UTF-8 character.
func isMySQLWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// isMySQLSpaceOrControl is the server's test after "--": a comment when
// a space or a control character follows.
func isMySQLSpaceOrControl(c byte) bool {
	return c <= ' ' || c == 0x7f
}

// runePos is the 1-based character position of byte offset i in s.
func runePos(s string, i int) int {
	return len([]rune(s[:i])) + 1
}

// The parser's grammar does work some token shapes make superlinear, in
// Go, before any judgement (measured with the TiDB parser):
//   - adjacent string literals ('a' 'b' ...) are concatenated one by one,
//     each into a new string: a megabyte of them took 30 s and 200 GB of
//     allocations;
//   - a dotted name (SET CONFIG's a.b.c...) is built right to left, each
//     part a new string the parser's stack keeps: 64 KiB held 1.15 GB;
//   - and the whole tree costs memory in proportion to the tokens: a
//     megabyte of a, a, ... took 3-5 s and 775 MB.
const (
	// maxMySQLAdjacentStrings bounds a run of adjacent string literals.
	maxMySQLAdjacentStrings = 64
	// maxMySQLNameParts bounds the parts of a dotted name: MySQL's have
	// at most three (schema.table.column).
	maxMySQLNameParts = 8
	// maxMySQLTokens bounds the tokens of a statement: about 0.7 s and
	// 150 MB to parse and judge.
	maxMySQLTokens = 120_000
)

// costly refuses text whose tokens the parser would take too long or too
// much memory to read: see the bounds above.
func (t *myText) costly() *Error {
	if n := len(t.tokens); n > maxMySQLTokens {
		return &Error{
			Reason: fmt.Sprintf("the SQL has %d words, numbers, strings and symbols; the limit is %d", n, maxMySQLTokens),
			Hint:   "Send a shorter statement: fewer list items and columns",
		}
	}
	strs, parts := 0, 0
	for i, tok := range t.tokens {
		if tok.kind == 's' {
			strs++
		} else {
			strs = 0
		}
		switch {
		case tok.kind == 'w' || tok.kind == 'q':
			if !t.punct(i-1, '.') {
				parts = 0
			}
			parts++
		case !t.punct(i, '.'):
			parts = 0
		}
		if strs > maxMySQLAdjacentStrings {
			return &Error{
				Reason: fmt.Sprintf("the SQL has more than %d string literals in a row, which MySQL joins into one", maxMySQLAdjacentStrings),
				Hint:   "Write the text as one literal, or join the parts with CONCAT(...)",
			}
		}
		if parts > maxMySQLNameParts {
			return &Error{
				Reason: fmt.Sprintf("the SQL has a dotted name of more than %d parts", maxMySQLNameParts),
				Hint:   "Name a column as table.column or schema.table.column",
			}
		}
	}
	return nil
}

// maxMySQLChain bounds the operators and keywords a chain may hold before
// the parser sees it: the parser builds one level per operator and takes
// seconds and hundreds of megabytes on a megabyte of "1+1+...", and the
// walk refuses trees deeper than maxMySQLDepth anyway.
const maxMySQLChain = 4 * maxMySQLDepth

// chainOperators are the keywords that nest the parse tree one level, as
// operators do.
var chainOperators = map[string]bool{
	"AND": true, "OR": true, "XOR": true, "NOT": true, "DIV": true, "MOD": true, "LIKE": true, "REGEXP": true,
	"RLIKE": true, "IS": true, "IN": true, "BETWEEN": true, "CASE": true, "WHEN": true, "INTERVAL": true,
	"COLLATE": true, "BINARY": true, "ESCAPE": true, "SOUNDS": true,
}

// chain estimates, from the tokens alone, how deep the parse tree can
// be: over the brackets enclosing a token, the operators and operator
// keywords of the comma-separated item it sits in at each level, plus two
// for each bracket. Items of a list are siblings, so each counts alone.
func (t *myText) chain() int {
	type level struct{ seg, child, best int }
	stack := []level{{}}
	for i, tok := range t.tokens {
		l := &stack[len(stack)-1]
		switch {
		case t.punct(i, '('):
			stack = append(stack, level{})
		case t.punct(i, ')'):
			if len(stack) > 1 {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				p := &stack[len(stack)-1]
				p.child = max(p.child, max(top.best, top.seg+top.child)+2)
			}
		case t.punct(i, ','):
			l.best = max(l.best, l.seg+l.child)
			l.seg, l.child = 0, 0
		case tok.kind == 'p' && !t.punct(i, '.') && !t.punct(i, '@') && !t.punct(i, ';'):
			l.seg++
		case tok.kind == 'w' && chainOperators[t.word(i)]:
			l.seg++
		}
	}
	for len(stack) > 1 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		p := &stack[len(stack)-1]
		p.child = max(p.child, max(top.best, top.seg+top.child)+2)
	}
	return max(stack[0].best, stack[0].seg+stack[0].child)
}
