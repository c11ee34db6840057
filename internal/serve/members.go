package serve

import (
	"bytes"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A JSON-RPC request in its usual form (lowercase keys, each once, no
// escapes in a key or the method) is read here in one pass that
// validates the JSON as encoding/json does and keeps each value's bytes.
// Anything else is left to encoding/json, which folds the case of keys,
// unescapes them and keeps the last of two: the fast path gives the
// same message or gives up (FuzzFastMessage compares the two). Decoding
// the envelope, then the params, with encoding/json scanned every byte of
// a call four times and allocated a decoder each time.

// maxFastDepth is the nesting the fast path follows; deeper JSON is
// judged by encoding/json, whose own limit is 10,000.
const maxFastDepth = 512

// eachMember calls member for each key and raw value of the JSON object
// b, in order, and reports whether b is one object (whitespace around it
// allowed), every member's key is free of escapes, and member accepted
// each. The key and value alias b.
func eachMember(b []byte, member func(key, value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end, escaped, ok := skipString(b, i)
		if !ok || escaped {
			return false
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vend, ok := skipValue(b, i, 1)
		if !ok || !member(key, b[i:vend]) {
			return false
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i], and
// whether it is one.
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok := skipString(b, i)
		return end, ok
	case c == '{' || c == '[':
		if depth > maxFastDepth {
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
	i = skipSpace(b, i+1)
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
			i = skipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return i, false
			}
			i = skipSpace(b, i+1)
		}
		end, ok := skipValue(b, i, depth+1)
		if !ok {
			return i, false
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
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

// plainString returns the contents of the JSON string v when it needs no
// unescaping and is valid UTF-8, so that it reads as encoding/json would
// decode it.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// fastRequest decodes raw when it is a JSON-RPC request in the usual form
// (see eachMember), reporting false for anything else: a response, a
// member other than jsonrpc, id, method and params, one of them twice or
// null, or a version or id that is wrong (decodeMessage words the error).
// The params are copied: raw may be a buffer that is read into again.
func fastRequest(raw []byte) (*jsonrpc.Request, bool) {
	var version, id, method, params []byte
	ok := eachMember(raw, func(key, value []byte) bool {
		var slot *[]byte
		switch string(key) {
		case "jsonrpc":
			slot = &version
		case "id":
			slot = &id
		case "method":
			slot = &method
		case "params":
			slot = &params
		default:
			return false
		}
		if *slot != nil || string(value) == "null" {
			return false
		}
		*slot = value
		return true
	})
	if !ok || string(version) != `"2.0"` || method == nil {
		return nil, false
	}
	m, ok := plainString(method)
	if !ok {
		return nil, false
	}
	reqID, err := decodeID(id)
	if err != nil {
		return nil, false
	}
	req := &jsonrpc.Request{ID: reqID, Method: m}
	if params != nil {
		req.Params = bytes.Clone(params)
	}
	return req, true
}
