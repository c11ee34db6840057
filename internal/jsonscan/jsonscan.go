// Package jsonscan reads JSON objects in their usual form (keys without
// escapes) in one pass that validates the JSON as encoding/json does and
// keeps each value's bytes. A caller gives anything else to encoding/json,
// which folds the case of keys, unescapes them and keeps the last of two:
// a fast path built on it gives the same result or gives up. Decoding a
// request's envelope, then its params, then its arguments with
// encoding/json scanned each byte of a call up to six times and allocated
// a decoder each time.
package jsonscan

import (
	"bytes"
	"unicode/utf8"
)

// Compact is JSON that json.Marshal wrote: valid, compact, and with <, >,
// &, U+2028 and U+2029 escaped, as encoding/json leaves JSON it compacts,
// so it can be written as it stands. It marshals as itself, as
// json.RawMessage does.
type Compact []byte

// MarshalJSON returns c.
func (c Compact) MarshalJSON() ([]byte, error) { return c, nil }

// MaxDepth is the nesting SkipValue follows; deeper JSON is
// judged by encoding/json, whose own limit is 10,000.
const MaxDepth = 512

// EachMember calls member for each key and raw value of the JSON object
// b, in order, and reports whether b is one object (whitespace around it
// allowed), every member's key is valid UTF-8 free of escapes (a key
// encoding/json reads as it stands), and member accepted
// each. The key and value alias b.
func EachMember(b []byte, member func(key, value []byte) bool) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return SkipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end, escaped, ok := skipString(b, i)
		if !ok || escaped || !utf8.Valid(b[i+1:end-1]) {
			return false
		}
		key := b[i+1 : end-1]
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = SkipSpace(b, i+1)
		vend, ok := SkipValue(b, i, 1)
		if !ok || !member(key, b[i:vend]) {
			return false
		}
		i = SkipSpace(b, vend)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case '}':
			return SkipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// Fields reads the object b into values, the value of names[i] into
// values[i] (nil for a name b lacks), reporting whether b is one object
// in the usual form (see EachMember) whose every key is one of names,
// each once.
func Fields(b []byte, names []string, values [][]byte) bool {
	clear(values)
	return EachMember(b, func(key, value []byte) bool {
		for i, n := range names {
			if string(key) == n {
				if values[i] != nil {
					return false
				}
				values[i] = value
				return true
			}
		}
		return false
	})
}

// SkipSpace returns the index of the first byte from b[i] on that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipValue returns the end of the JSON value starting at b[i], and
// whether it is one.
func SkipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok := skipString(b, i)
		return end, ok
	case c == '{' || c == '[':
		if depth > MaxDepth {
			return i, false
		}
		return skipComposite(b, i, depth)
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(b, i)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	}
	return i, false
}

// skipComposite skips the object or array at b[i].
func skipComposite(b []byte, i, depth int) (int, bool) {
	closer, object := byte(']'), b[i] == '{'
	if object {
		closer = '}'
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == closer {
		return i + 1, true
	}
	for {
		if object {
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			end, _, ok := skipString(b, i)
			if !ok {
				return i, false
			}
			i = SkipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return i, false
			}
			i = SkipSpace(b, i+1)
		}
		end, ok := SkipValue(b, i, depth+1)
		if !ok {
			return i, false
		}
		i = SkipSpace(b, end)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case closer:
			return i + 1, true
		default:
			return i, false
		}
	}
}

// skipString returns the end of the string starting at b[i] (past its
// closing quote), whether it holds an escape, and whether it is a valid
// JSON string: no control character, only JSON's escapes. Invalid UTF-8
// is valid JSON to encoding/json, which replaces it when it unescapes.
func skipString(b []byte, i int) (end int, escaped, ok bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c < 0x20:
			return i, escaped, false
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return i, escaped, false
			}
			i++
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return i, escaped, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return i, escaped, false
					}
				}
				i += 4
			default:
				return i, escaped, false
			}
		}
	}
	return i, escaped, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skipNumber skips a number as JSON writes one: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
func skipNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}

// PlainString returns the contents of the JSON string v when it needs no
// unescaping and is valid UTF-8, so that it reads as encoding/json would
// decode it.
func PlainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}
