package guard

import (
	"strconv"
	"sync"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// parseTree parses sql into the tree pg.Parse returns, by way of the
// parser's JSON, which libpg_query writes in a third of the time it takes
// to pack the same tree as protobuf (its protobuf-c computes each
// message's size again at every level above it). pgWire turns the JSON
// back into the protobuf encoding, knowing the tree's messages from their
// descriptors alone, and protobuf decodes it as pg.Parse decodes what the
// parser packs. When pgWire meets anything it does not read exactly (a key
// no field has, a field given twice, an escape the parser does not write,
// a number out of range, a float), the text is parsed again by pg.Parse:
// the answer is pg.Parse's either way (TestParseTreeAsParse and
// FuzzParseTree hold the two to the same tree).
func parseTree(sql string) (*pg.ParseResult, error) {
	tree, _, err := parseTreeJSON(sql)
	return tree, err
}

// parseTreeJSON is parseTree, saying whether the tree was read from the
// JSON.
func parseTreeJSON(sql string) (*pg.ParseResult, bool, error) {
	js, err := pg.ParseToJSON(sql)
	if err != nil {
		return nil, false, err
	}
	if tree, ok := treeFromJSON(js); ok {
		return tree, true, nil
	}
	tree, err := pg.Parse(sql)
	return tree, false, err
}

// treeFromJSON decodes the parser's JSON of a tree, or reports false.
func treeFromJSON(js string) (*pg.ParseResult, bool) {
	w := pgWire{s: js, out: make([]byte, 0, len(js))}
	if !w.message(pgMessages(), 0) || !w.end() {
		return nil, false
	}
	var tree pg.ParseResult
	if proto.Unmarshal(w.out, &tree) != nil {
		return nil, false
	}
	return &tree, true
}

// pgTreeDepth is the deepest nesting pgWire follows: protobuf's own
// limit for the tree pg.Parse decodes, past which pg.Parse fails as it
// would.
const pgTreeDepth = protowire.DefaultRecursionLimit

// pgMessage is what pgWire needs of one message of the tree: its fields by
// the names the parser's JSON gives them.
type pgMessage struct {
	fields map[string]*pgField
}

type pgField struct {
	num   protowire.Number
	kind  protoreflect.Kind
	list  bool
	index int // among the message's fields, to see one given twice
	oneof int // the oneof it belongs to, + 1; 0: none
	msg   *pgMessage
	enum  protoreflect.EnumValueDescriptors
}

// pgMessages is the tree's root message, ParseResult, and through its
// fields every message under it.
var pgMessages = sync.OnceValue(func() *pgMessage {
	all := map[protoreflect.FullName]*pgMessage{}
	var of func(md protoreflect.MessageDescriptor) *pgMessage
	of = func(md protoreflect.MessageDescriptor) *pgMessage {
		if m, ok := all[md.FullName()]; ok {
			return m
		}
		fields := md.Fields()
		m := &pgMessage{fields: make(map[string]*pgField, fields.Len())}
		all[md.FullName()] = m
		for i := range fields.Len() {
			fd := fields.Get(i)
			f := &pgField{num: fd.Number(), kind: fd.Kind(), list: fd.IsList(), index: i}
			if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() {
				f.oneof = o.Index() + 1
			}
			switch {
			case fd.IsMap():
				continue // none in the tree; a key for one is not read
			case fd.Kind() == protoreflect.MessageKind:
				f.msg = of(fd.Message())
			case fd.Kind() == protoreflect.EnumKind:
				f.enum = fd.Enum().Values()
			}
			m.fields[fd.JSONName()] = f
		}
		return m
	}
	return of((&pg.ParseResult{}).ProtoReflect().Descriptor())
})

// pgWire writes the protobuf encoding of the parser's JSON of a tree.
type pgWire struct {
	s   string
	i   int
	out []byte
}

func (w *pgWire) space() {
	for w.i < len(w.s) && (w.s[w.i] == ' ' || w.s[w.i] == '\n' || w.s[w.i] == '\t' || w.s[w.i] == '\r') {
		w.i++
	}
}

// next reports whether the next byte past spaces is c, and takes it.
func (w *pgWire) next(c byte) bool {
	w.space()
	if w.i < len(w.s) && w.s[w.i] == c {
		w.i++
		return true
	}
	return false
}

func (w *pgWire) end() bool {
	w.space()
	return w.i == len(w.s)
}

// message writes the fields of one JSON object of message m: every key
// must name one of m's fields, once, and at most one of a oneof's.
func (w *pgWire) message(m *pgMessage, depth int) bool {
	if depth > pgTreeDepth || !w.next('{') {
		return false
	}
	if w.next('}') {
		return true
	}
	var seen, oneofs []int
	for {
		key, ok := w.key()
		if !ok {
			return false
		}
		f := m.fields[key]
		if f == nil || !w.next(':') {
			return false
		}
		for _, s := range seen {
			if s == f.index {
				return false
			}
		}
		seen = append(seen, f.index)
		if f.oneof > 0 {
			for _, o := range oneofs {
				if o == f.oneof {
					return false
				}
			}
			oneofs = append(oneofs, f.oneof)
		}
		if !w.field(f, depth) {
			return false
		}
		if done, ok := w.more('}'); done {
			return ok
		}
	}
}

// more reads what follows an element of an object or a list: done when it
// is the closing bracket (ok) or anything but a comma (not ok).
func (w *pgWire) more(closing byte) (done, ok bool) {
	if w.next(closing) {
		return true, true
	}
	return !w.next(','), false
}

// key reads an object's key, which the parser writes without escapes.
func (w *pgWire) key() (string, bool) {
	w.space()
	if w.i >= len(w.s) || w.s[w.i] != '"' {
		return "", false
	}
	start := w.i + 1
	for j := start; j < len(w.s); j++ {
		switch w.s[j] {
		case '"':
			w.i = j + 1
			return w.s[start:j], true
		case '\\':
			return "", false
		}
	}
	return "", false
}

// field writes the value of f, each element of a list as a field of its
// own (which protobuf reads as it reads a packed list).
func (w *pgWire) field(f *pgField, depth int) bool {
	if !f.list {
		return w.value(f, depth)
	}
	if !w.next('[') {
		return false
	}
	if w.next(']') {
		return true
	}
	for {
		if !w.value(f, depth) {
			return false
		}
		if done, ok := w.more(']'); done {
			return ok
		}
	}
}

// lenSize is the room left for a message's length before its fields are
// written: a varint padded to 5 bytes, which protobuf reads as it reads a
// short one, holds up to 32 GiB, so no field is moved once written.
const lenSize = 5

// value writes one value of f: a message, a string, a bool, an integer or
// an enum's name.
func (w *pgWire) value(f *pgField, depth int) bool {
	switch f.kind {
	case protoreflect.MessageKind:
		w.out = protowire.AppendTag(w.out, f.num, protowire.BytesType)
		at := len(w.out)
		w.out = append(w.out, 0, 0, 0, 0, 0)
		if !w.message(f.msg, depth+1) {
			return false
		}
		n := uint64(len(w.out) - at - lenSize)
		for k := range lenSize - 1 {
			w.out[at+k] = byte(n>>(7*k)) | 0x80
		}
		w.out[at+lenSize-1] = byte(n >> (7 * (lenSize - 1)))
		return n>>(7*lenSize) == 0
	case protoreflect.StringKind:
		s, ok := w.str()
		if !ok {
			return false
		}
		w.out = protowire.AppendTag(w.out, f.num, protowire.BytesType)
		w.out = protowire.AppendString(w.out, s)
		return true
	case protoreflect.BoolKind:
		var v uint64
		switch {
		case w.word("true"):
			v = 1
		case w.word("false"):
		default:
			return false
		}
		w.varint(f.num, v)
		return true
	case protoreflect.EnumKind:
		name, ok := w.str()
		if !ok {
			return false
		}
		v := f.enum.ByName(protoreflect.Name(name))
		if v == nil {
			return false
		}
		w.varint(f.num, uint64(int64(v.Number())))
		return true
	case protoreflect.Int32Kind:
		n, err := strconv.ParseInt(w.number(), 10, 32)
		w.varint(f.num, uint64(n))
		return err == nil
	case protoreflect.Int64Kind:
		n, err := strconv.ParseInt(w.number(), 10, 64)
		w.varint(f.num, uint64(n))
		return err == nil
	case protoreflect.Uint32Kind:
		n, err := strconv.ParseUint(w.number(), 10, 32)
		w.varint(f.num, n)
		return err == nil
	case protoreflect.Uint64Kind:
		n, err := strconv.ParseUint(w.number(), 10, 64)
		w.varint(f.num, n)
		return err == nil
	}
	// Floats, which the parser writes with six decimals whatever they
	// hold (none is in a parse tree), and kinds the tree does not have.
	return false
}

func (w *pgWire) varint(num protowire.Number, v uint64) {
	w.out = protowire.AppendTag(w.out, num, protowire.VarintType)
	w.out = protowire.AppendVarint(w.out, v)
}

// word takes s when it comes next.
func (w *pgWire) word(s string) bool {
	w.space()
	if len(w.s)-w.i >= len(s) && w.s[w.i:w.i+len(s)] == s {
		w.i += len(s)
		return true
	}
	return false
}

// number takes the integer that comes next: an optional minus and digits.
func (w *pgWire) number() string {
	w.space()
	start := w.i
	if w.i < len(w.s) && w.s[w.i] == '-' {
		w.i++
	}
	for w.i < len(w.s) && w.s[w.i] >= '0' && w.s[w.i] <= '9' {
		w.i++
	}
	return w.s[start:w.i]
}

// str reads a JSON string with the escapes the parser writes: \b \f \n
// \r \t \" \\ and \u00XX for the other control characters, < and >.
// Protobuf checks that what it holds is UTF-8.
func (w *pgWire) str() (string, bool) {
	w.space()
	if w.i >= len(w.s) || w.s[w.i] != '"' {
		return "", false
	}
	start := w.i + 1
	j := start
	for j < len(w.s) && w.s[j] != '"' && w.s[j] != '\\' {
		j++
	}
	if j < len(w.s) && w.s[j] == '"' {
		w.i = j + 1
		return w.s[start:j], true
	}
	buf := []byte(w.s[start:j])
	for j < len(w.s) {
		c := w.s[j]
		switch {
		case c == '"':
			w.i = j + 1
			return string(buf), true
		case c != '\\':
			buf = append(buf, c)
			j++
			continue
		case j+1 >= len(w.s):
			return "", false
		}
		switch w.s[j+1] {
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case '"', '\\':
			buf = append(buf, w.s[j+1])
		case 'u':
			if j+6 > len(w.s) {
				return "", false
			}
			n, err := strconv.ParseUint(w.s[j+2:j+6], 16, 16)
			if err != nil || n >= utf8.RuneSelf {
				return "", false
			}
			buf = append(buf, byte(n))
			j += 6
			continue
		default:
			return "", false
		}
		j += 2
	}
	return "", false
}
