package postgres

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/text"
	"github.com/sqlmcp/sqlmcp/source"
)

// valueKind says how a PostgreSQL value's text becomes a JSON-safe value.
type valueKind uint8

const (
	kindText        valueKind = iota // the text as it stands
	kindInt                          // int64
	kindFloat                        // float64; NaN and infinities as text
	kindNumeric                      // json.Number of the exact text; NaN and infinities as text
	kindBool                         // bool
	kindJSON                         // json.RawMessage
	kindBytea                        // []byte, decoded from \x hex
	kindTimestamp                    // "2024-01-05T10:00:00"
	kindTimestamptz                  // RFC 3339 with the zone: "2024-01-05T10:00:00Z"
	kindArray                        // []any of the element's values
)

// pgType is what sqlmcp knows of one PostgreSQL type.
type pgType struct {
	name string    // as format_type writes it: "integer", "text[]"
	kind valueKind //
	elem *pgType   // an array's element type

	// From pg_type, to resolve kind and elem.
	typtype, category, delim byte
	elemOID, baseOID         uint32
	resolved                 bool
}

// textType stands for a type sqlmcp could not look up.
var textType = &pgType{kind: kindText, resolved: true}

// pgBuiltins are the types whose values are not plain text, and the few
// sqlmcp's own catalog reads return, known before the catalog is read.
var pgBuiltins = map[uint32]struct {
	name string
	kind valueKind
}{
	16:   {"boolean", kindBool},
	17:   {"bytea", kindBytea},
	18:   {`"char"`, kindText},
	19:   {"name", kindText},
	20:   {"bigint", kindInt},
	21:   {"smallint", kindInt},
	23:   {"integer", kindInt},
	25:   {"text", kindText},
	26:   {"oid", kindInt},
	114:  {"json", kindJSON},
	700:  {"real", kindFloat},
	701:  {"double precision", kindFloat},
	1043: {"character varying", kindText},
	1114: {"timestamp without time zone", kindTimestamp},
	1184: {"timestamp with time zone", kindTimestamptz},
	1700: {"numeric", kindNumeric},
	3802: {"jsonb", kindJSON},
}

// pgTypes caches pg_type by OID. It is safe for concurrent use.
type pgTypes struct {
	mu sync.RWMutex
	m  map[uint32]*pgType
}

// seed fills the cache with pgBuiltins, before the catalog is read.
func (ts *pgTypes) seed() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.m = map[uint32]*pgType{}
	for oid, b := range pgBuiltins {
		ts.m[oid] = &pgType{name: b.name, kind: b.kind, delim: ',', resolved: true}
	}
}

// get returns the types of fields, and whether every one was known;
// unknown ones are textType.
func (ts *pgTypes) get(fields []pgconn.FieldDescription) ([]*pgType, bool) {
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	types := make([]*pgType, len(fields))
	known := true
	for i, f := range fields {
		t := ts.m[f.DataTypeOID]
		if t == nil {
			t, known = textType, false
		}
		types[i] = t
	}
	return types, known
}

// pgTypesSQL reads what the cache holds of each type.
const pgTypesSQL = `SELECT t.oid, pg_catalog.format_type(t.oid, NULL), t.typtype, t.typcategory, t.typelem, t.typbasetype, t.typdelim
FROM pg_catalog.pg_type t`

// loadTypesOn fills the cache with every type but tables' row types and
// their arrays (those are looked up when a result holds one), reading
// them on c, which stays the caller's.
func (p *backend) loadTypesOn(ctx context.Context, c *pgxpool.Conn) error {
	rows, err := p.ownRowsKeep(ctx, c, pgTypesSQL+`
WHERE t.typrelid = 0 AND NOT EXISTS (
	SELECT FROM pg_catalog.pg_type e WHERE e.oid = t.typelem AND e.typrelid <> 0)`, ownCatalog)
	if err != nil {
		return fmt.Errorf("reading the types: %w", err)
	}
	p.types.add(rows)
	return nil
}

// lookupElsewhere reads the types of fields the cache lacks on a pooled
// connection of its own, through the door like any of sqlmcp's reads. It
// waits at most a second for a connection, so calls that each hold one
// cannot wait on one another.
func (p *backend) lookupElsewhere(ctx context.Context, fields []pgconn.FieldDescription) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	rows, err := p.ownRows(ctx, pgLookupSQL(fields), ownCatalog)
	if err != nil {
		return err
	}
	p.types.add(rows)
	return nil
}

// pgLookupSQL reads the types of fields with their element and base types.
func pgLookupSQL(fields []pgconn.FieldDescription) string {
	var list []string
	for _, f := range fields {
		list = append(list, strconv.FormatUint(uint64(f.DataTypeOID), 10))
	}
	in := strings.Join(list, ", ")
	return pgTypesSQL + `
WHERE t.oid IN (` + in + `)
	OR t.oid IN (SELECT e.typelem FROM pg_catalog.pg_type e WHERE e.oid IN (` + in + `))
	OR t.oid IN (SELECT b.typbasetype FROM pg_catalog.pg_type b WHERE b.oid IN (` + in + `))`
}

// lookupTypes reads the types of fields the cache lacks, with their
// element and base types, inside tx, through the guard.
func (p *backend) lookupTypes(ctx context.Context, conn *pgxpool.Conn, fields []pgconn.FieldDescription) error {
	sql := pgLookupSQL(fields)
	if err := guard.CheckPostgres(sql, ownCatalog); err != nil {
		return fmt.Errorf("the guard refused sqlmcp's own type lookup: %w", err)
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	rows, err := tx.Query(ctx, sql, pgx.QueryExecModeExec)
	if err != nil {
		return err
	}
	defer rows.Close()
	types, _ := p.types.get(rows.FieldDescriptions())
	var got [][]any
	for rows.Next() {
		got = append(got, pgRow(rows.RawValues(), types, 0))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	p.types.add(got)
	return nil
}

// add puts rows of pgTypesSQL into the cache and resolves their kinds.
func (ts *pgTypes) add(rows [][]any) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.m == nil {
		ts.m = map[uint32]*pgType{}
	}
	var added []*pgType
	for _, r := range rows {
		oid, ok := r[0].(int64)
		name, _ := r[1].(string)
		if !ok {
			continue
		}
		t := &pgType{name: name, typtype: firstByte(r[2]), category: firstByte(r[3]), delim: firstByte(r[6])}
		if v, ok := r[4].(int64); ok {
			t.elemOID = uint32(v)
		}
		if v, ok := r[5].(int64); ok {
			t.baseOID = uint32(v)
		}
		if b, ok := pgBuiltins[uint32(oid)]; ok {
			t.kind, t.resolved = b.kind, true
		}
		ts.m[uint32(oid)] = t
		added = append(added, t)
	}
	for _, t := range added {
		ts.resolve(t, 0)
	}
}

// resolve sets t's kind from its base type (a domain), or its element
// type (an array whose elements are separated by commas; box[] uses ';'
// and stays text).
func (ts *pgTypes) resolve(t *pgType, depth int) {
	if t.resolved {
		return
	}
	t.resolved = true
	if depth > 8 {
		return
	}
	switch {
	case t.typtype == 'd':
		if base := ts.m[t.baseOID]; base != nil {
			ts.resolve(base, depth+1)
			t.kind, t.elem = base.kind, base.elem
		}
	case t.category == 'A' && t.elemOID != 0:
		if e := ts.m[t.elemOID]; e != nil && e.delim == ',' {
			ts.resolve(e, depth+1)
			t.kind, t.elem = kindArray, e
		}
	}
}

func firstByte(v any) byte {
	if s, ok := v.(string); ok && s != "" {
		return s[0]
	}
	return 0
}

// pgRow converts one row of text-format values. With maxCell > 0 (a
// query's rows, cut to the limits) a value longer than maxCell bytes, or
// one the rowCutter cut as it was read, becomes a cutCell from its first
// bytes only, and an array stays text until Cell converts it; with
// maxCell = 0 (sqlmcp's own reads) values are whole, and one the rowCutter
// cut is text with a marker.
func pgRow(raw [][]byte, types []*pgType, maxCell int) []any {
	row := make([]any, len(raw))
	for i, v := range raw {
		if v == nil {
			continue
		}
		prefix, total, short := splitCut(v)
		array := types[i].kind == kindArray
		if !short && maxCell > 0 && len(v) > maxCell && !array {
			prefix, total, short = v[:maxCell], len(v), true
		}
		switch {
		case short && maxCell == 0:
			row[i] = text.Head(string(prefix), len(prefix), total)
		case short:
			row[i] = cutCell{pgCutValue(prefix, total, types[i], maxCell)}
		case maxCell > 0 && array:
			row[i] = pgArrayText{s: string(v), elem: types[i].elem}
		default:
			row[i] = pgValue(string(v), types[i])
		}
	}
	return row
}

// splitCut reads a value the rowCutter may have cut: its first bytes, its
// real length, and whether it was cut (a NUL byte follows the prefix).
func splitCut(v []byte) ([]byte, int, bool) {
	i := bytes.IndexByte(v, 0)
	if i < 0 {
		return v, len(v), false
	}
	n, err := strconv.Atoi(string(v[i+1:]))
	if err != nil {
		n = i
	}
	return v[:i], n, true
}

// pgCutValue shows a value of type t of total bytes, of which prefix is
// the start, in at most about maxCell bytes: a bytea as a preview with its
// size, an array as the elements the prefix holds whole, anything else as
// cut text; each says the value's real size.
func pgCutValue(prefix []byte, total int, t *pgType, maxCell int) any {
	switch t.kind {
	case kindBytea:
		if h, ok := bytes.CutPrefix(prefix, []byte(`\x`)); ok {
			h = h[:min(len(h), 32)&^1]
			if b, err := hex.DecodeString(string(h)); err == nil {
				return source.Cell(source.Partial{Head: b, Size: (total - 2) / 2, Blob: true}, maxCell)
			}
		}
	case kindArray:
		p := arrayParser{s: string(prefix), elem: t.elem, partial: true}
		if a, _ := p.array(); a != nil {
			out := source.FitArray(a, maxCell)
			return append(out, fmt.Sprintf("…[cut: %d elements shown, %d bytes in all]", len(out), total))
		}
	}
	return text.Head(string(prefix), maxCell, total)
}

// cutCell is a value already cut to the limits as it was read: Cell keeps
// it as it is.
type cutCell struct{ v any }

func (c cutCell) Cell(int) any { return c.v }

// pgArrayText is an array's text, converted when Cell reaches it.
type pgArrayText struct {
	s    string
	elem *pgType
}

// cell converts the elements that fit in maxText. A longer text is read
// only as far as maxText bytes (an element's JSON is no shorter than its
// text) and its elements are counted, not converted.
func (a pgArrayText) Cell(maxText int) any {
	if len(a.s) <= maxText {
		if v, ok := parseArray(a.s, a.elem); ok {
			return source.CutArray(v, maxText)
		}
		return a.s
	}
	n, ok := countElements(a.s)
	p := arrayParser{s: a.s[:maxText], elem: a.elem, partial: true}
	v, _ := p.array()
	if !ok || v == nil {
		return text.Inline(a.s, maxText)
	}
	out := source.FitArray(v, maxText)
	return append(out, fmt.Sprintf("…[cut: %d of %d elements shown]", len(out), n))
}

// countElements counts the outermost elements of an array's text, and
// reports false for what parseArray would not read as an array.
func countElements(s string) (int, bool) {
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return 0, false
	}
	if s == "{}" {
		return 0, true
	}
	n, depth, quoted := 1, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '{':
			depth++
		case c == '}':
			depth--
		case c == ',' && depth == 1:
			n++
		}
	}
	return n, depth == 0 && !quoted
}

// pgValue converts the text form of a value of type t into a JSON-safe
// value; what it cannot read stays text.
func pgValue(s string, t *pgType) any {
	switch t.kind {
	case kindInt:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case kindFloat:
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	case kindNumeric:
		if s != "NaN" && s != "Infinity" && s != "-Infinity" {
			return json.Number(s)
		}
	case kindBool:
		return s == "t"
	case kindJSON:
		if json.Valid([]byte(s)) {
			return json.RawMessage(s)
		}
	case kindBytea:
		if hexText, ok := strings.CutPrefix(s, `\x`); ok {
			if b, err := hex.DecodeString(hexText); err == nil {
				return b
			}
		}
	case kindTimestamp:
		if ts, err := time.Parse("2006-01-02 15:04:05.999999999", s); err == nil {
			return ts.Format("2006-01-02T15:04:05.999999999")
		}
	case kindTimestamptz:
		for _, layout := range []string{"-07", "-07:00", "-07:00:00"} {
			if ts, err := time.Parse("2006-01-02 15:04:05.999999999"+layout, s); err == nil {
				return ts.Format(time.RFC3339Nano)
			}
		}
	case kindArray:
		if a, ok := parseArray(s, t.elem); ok {
			return a
		}
	}
	return s
}

// parseArray reads PostgreSQL's array text, {1,2,NULL,"a b"} and nested
// {{1,2},{3,4}}, converting each element as elem. It reports false for
// what it does not read, such as bounds ([0:1]={1,2}).
func parseArray(s string, elem *pgType) ([]any, bool) {
	p := arrayParser{s: s, elem: elem}
	a, ok := p.array()
	if !ok || p.i != len(s) {
		return nil, false
	}
	return a, true
}

type arrayParser struct {
	s    string
	i    int
	elem *pgType
	// partial means s is the start of an array's text: where it ends,
	// the arrays open are closed and an element cut short is dropped.
	partial bool
}

func (p *arrayParser) array() ([]any, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, false
	}
	p.i++
	out := []any{}
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return out, true
	}
	for p.i < len(p.s) {
		var v any
		switch p.s[p.i] {
		case '{':
			a, ok := p.array()
			if !ok {
				return nil, false
			}
			v = a
		case '"':
			s, ok := p.quoted()
			if !ok {
				return p.end(out)
			}
			v = pgValue(s, p.elem)
		default:
			start := p.i
			for p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != '}' {
				if p.s[p.i] == '"' || p.s[p.i] == '{' || p.s[p.i] == '\\' {
					return nil, false
				}
				p.i++
			}
			if p.i >= len(p.s) {
				return p.end(out) // the word may be cut short
			}
			word := p.s[start:p.i]
			if word == "" {
				return nil, false
			}
			if strings.EqualFold(word, "NULL") {
				v = nil
			} else {
				v = pgValue(word, p.elem)
			}
		}
		out = append(out, v)
		if p.i >= len(p.s) {
			return p.end(out)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return out, true
		default:
			return nil, false
		}
	}
	return p.end(out)
}

// end answers for an array whose text stops before its closing brace:
// what was read, when s is only the start of the text.
func (p *arrayParser) end(out []any) ([]any, bool) {
	if p.partial {
		return out, true
	}
	return nil, false
}

// quoted reads a double-quoted element, undoing backslash escapes.
func (p *arrayParser) quoted() (string, bool) {
	var b strings.Builder
	for p.i++; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; c {
		case '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", false
			}
			b.WriteByte(p.s[p.i])
		case '"':
			p.i++
			return b.String(), true
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}
