package policy

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
)

// Policy is a Spec resolved against one reading of a catalog: for every
// relation, whether the model may read it, and the access of each of its
// columns. It implements guard.PolicyCatalog. It is safe for concurrent
// use.
type Policy struct {
	spec *Spec
	fold bool // names compare ignoring case (SQLite, MySQL)
	key  []byte
	rels map[[2]string]*relation // by schema and name, as the catalog spells them
	bare map[string][]*relation  // by name, for unqualified names: those a query can name bare
}

type relation struct {
	schema, name, kind string
	onPath             bool
	readable           bool
	why                string // why not readable, or what restricts it, for sqlmcp check
	vouched            bool
	columns            []guard.PolicyColumn
	modes              map[string]MaskMode // masked column -> how
	reads              []source.ColumnRead
	generated          []bool // by column: computed from the row's other columns
	known              bool   // reads are known (a table, or a view the engine resolved)
	judged, judging    bool   // views: readable has been decided / is being decided
}

// display names the relation as the schema tools do.
func (r *relation) display() string {
	if r.schema == "" {
		return r.name
	}
	return r.schema + "." + r.name
}

// Error is a policy that does not match the catalog: names it does not
// find, or contradictions. The source cannot be served until it is fixed.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Resolve matches s's names against defs, one reading of the catalog
// (source.Backend.ReadTables); fold says the engine compares names
// ignoring case. Every name s holds must match exactly one relation or
// column: an unknown or ambiguous one is an error (the policy fails
// closed), as is a contradiction (a table both allowed and denied). A
// view that reads a column the policy denies or masks (or a relation it
// denies, or one whose reads the engine cannot tell) may not be read
// unless s vouches for it by listing it under tables.
func (s *Spec) Resolve(defs []source.TableDef, fold bool) (*Policy, error) {
	p := &Policy{spec: s, fold: fold, key: s.maskKey(), rels: map[[2]string]*relation{}, bare: map[string][]*relation{}}
	for i := range defs {
		d := &defs[i]
		r := &relation{schema: d.Schema, name: d.Name, kind: d.Kind, onPath: d.OnPath || d.Schema == "",
			readable: !s.DenyByDefault, modes: map[string]MaskMode{}, reads: d.Reads,
			known: !isView(d.Kind) || d.Reads != nil}
		for _, c := range d.Columns {
			r.columns = append(r.columns, guard.PolicyColumn{Name: c.Name})
			r.generated = append(r.generated, c.Generated)
		}
		if !r.readable {
			r.why = "not under tables (default: deny)"
		}
		p.rels[[2]string{d.Schema, d.Name}] = r
		if r.onPath {
			k := p.foldName(d.Name)
			p.bare[k] = append(p.bare[k], r)
		}
	}
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	for _, name := range s.Tables {
		if r, err := p.find(name); err != nil {
			fail("tables: %v", err)
		} else {
			r.readable, r.vouched, r.why = true, true, ""
		}
	}
	for _, name := range s.DenyTables {
		switch r, err := p.find(name); {
		case err != nil:
			fail("deny_tables: %v", err)
		case r.vouched:
			fail("%s is under both tables and deny_tables", r.display())
		default:
			r.readable, r.why = false, "denied by deny_tables"
		}
	}
	restrict := func(list, col string, access guard.Access, mode MaskMode) {
		r, i, err := p.findColumn(col)
		switch {
		case err != nil:
			fail("%s: %v", list, err)
		case r.columns[i].Access != guard.Allowed:
			fail("%s.%s is both denied and masked", r.display(), r.columns[i].Name)
		default:
			r.columns[i].Access = access
			if mode != "" {
				r.modes[r.columns[i].Name] = mode
			}
		}
	}
	for _, col := range s.DenyColumns {
		restrict("deny_columns", col, guard.Denied, "")
	}
	masked := make([]string, 0, len(s.Mask))
	for col := range s.Mask {
		masked = append(masked, col)
	}
	sort.Strings(masked)
	for _, col := range masked {
		restrict("mask_columns", col, guard.Masked, s.Mask[col])
	}
	if len(errs) > 0 {
		where := s.File
		if s.Line > 0 {
			where = fmt.Sprintf("%s:%d", s.File, s.Line)
		}
		if where != "" {
			where += ": "
		}
		return nil, &Error{Msg: fmt.Sprintf("%spolicy: %s", where, strings.Join(errs, "; "))}
	}
	for _, r := range p.rels {
		denyGenerated(r)
	}
	for _, r := range p.rels {
		p.judge(r)
	}
	return p, nil
}

// denyGenerated denies the generated columns of a table with a column the
// policy denies or masks, unless the policy masks them itself: a generated
// column is computed from its row, maybe from that column (salary * 12),
// and which columns it reads the catalog does not say on every engine.
func denyGenerated(r *relation) {
	if allAllowed(r.columns) {
		return
	}
	for i := range r.columns {
		if i < len(r.generated) && r.generated[i] && r.columns[i].Access == guard.Allowed {
			r.columns[i].Access = guard.Denied
		}
	}
}

// allAllowed reports whether every column is Allowed.
func allAllowed(cols []guard.PolicyColumn) bool {
	for _, c := range cols {
		if c.Access != guard.Allowed {
			return false
		}
	}
	return true
}

func isView(kind string) bool { return kind == "view" || kind == "materialized view" }

// judge decides whether a view may be read: not when it reads what the
// policy restricts, unless it is vouched for.
func (p *Policy) judge(r *relation) {
	if r.judged || !isView(r.kind) || !r.readable {
		r.judged = true
		return
	}
	if r.judging { // a cycle: views cannot form one, but never trust it
		r.readable, r.why = false, "its reads could not be resolved"
		return
	}
	r.judging = true
	defer func() { r.judging, r.judged = false, true }()
	if r.vouched || !p.spec.Restricts() {
		return
	}
	if !r.known {
		r.readable, r.why = false, "the engine cannot tell what it reads; list it under tables to vouch for it"
		return
	}
	for _, rd := range r.reads {
		base := p.rels[[2]string{rd.Schema, rd.Table}]
		if base == nil {
			if p.spec.DenyByDefault {
				r.readable, r.why = false, "reads "+rd.Table+", which it may not read; list it under tables to vouch for it"
				return
			}
			continue
		}
		p.judge(base)
		bad := !base.readable
		for _, c := range base.columns {
			if c.Access != guard.Allowed && (rd.Column == "" || strings.EqualFold(c.Name, rd.Column)) {
				bad = true
			}
		}
		if bad {
			what := base.display()
			if rd.Column != "" {
				what += "." + rd.Column
			}
			r.readable, r.why = false, "reads "+what+", which the policy restricts; list it under tables to vouch for it"
			return
		}
	}
}

func (p *Policy) foldName(s string) string {
	if p.fold {
		return strings.ToLower(s)
	}
	return s
}

// find resolves a table name of the policy: schema.name, or a bare name
// that a query could write unqualified; exactly, else ignoring case.
func (p *Policy) find(name string) (*relation, error) {
	name = strings.TrimSpace(name)
	var exact, folded []*relation
	for _, r := range p.rels {
		names := []string{r.display()}
		if r.schema != "" && r.onPath {
			names = append(names, r.name) // a bare name reaches only relations on the search path
		}
		for _, n := range names {
			switch {
			case n == name:
				exact = append(exact, r)
			case strings.EqualFold(n, name):
				folded = append(folded, r)
			}
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) == 0 && len(folded) == 1:
		return folded[0], nil
	case len(exact)+len(folded) > 1:
		return nil, fmt.Errorf("%q names more than one relation; qualify it with its schema", name)
	}
	return nil, fmt.Errorf("the database has no table or view named %q that sqlmcp serves", name)
}

// findColumn resolves table.column.
func (p *Policy) findColumn(name string) (*relation, int, error) {
	name = strings.TrimSpace(name)
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || dot == len(name)-1 {
		return nil, 0, fmt.Errorf("%q names no column: write table.column", name)
	}
	r, err := p.find(name[:dot])
	if err != nil {
		return nil, 0, err
	}
	col := name[dot+1:]
	at := -1
	for i, c := range r.columns {
		if c.Name == col {
			at = i
			break
		}
		if strings.EqualFold(c.Name, col) {
			if at >= 0 {
				return nil, 0, fmt.Errorf("%s has more than one column named %q in some case; write it exactly", r.display(), col)
			}
			at = i
		}
	}
	if at < 0 {
		return nil, 0, fmt.Errorf("%s has no column named %q", r.display(), col)
	}
	return r, at, nil
}

// Relation implements guard.PolicyCatalog: the readable relation schema.name
// names, as a query names it (schema "" for an unqualified name).
func (p *Policy) Relation(schema, name string) (guard.PolicyRelation, bool) {
	var r *relation
	if schema == "" {
		rs := p.bare[p.foldName(name)]
		if !p.fold {
			rs = slices.DeleteFunc(slices.Clone(rs), func(r *relation) bool { return r.name != name })
		}
		if len(rs) != 1 {
			return guard.PolicyRelation{}, false
		}
		r = rs[0]
	} else if r = p.rels[[2]string{schema, name}]; r == nil && p.fold {
		for k, c := range p.rels {
			if strings.EqualFold(k[0], schema) && strings.EqualFold(k[1], name) {
				r = c
				break
			}
		}
	}
	if r == nil || !r.readable {
		return guard.PolicyRelation{}, false
	}
	return guard.PolicyRelation{Schema: r.schema, Name: r.name, Columns: r.columns}, true
}

// Equal reports whether p and q decide every relation and column alike
// (two resolutions of one Spec against readings of an unchanged catalog
// are), so that a reading that changed nothing need not replace p.
func (p *Policy) Equal(q *Policy) bool {
	if p == nil || q == nil || p.spec != q.spec || p.fold != q.fold || len(p.rels) != len(q.rels) {
		return p == q
	}
	for k, a := range p.rels {
		b := q.rels[k]
		if b == nil || a.readable != b.readable || !slices.Equal(a.columns, b.columns) || !maps.Equal(a.modes, b.modes) {
			return false
		}
	}
	return true
}

// Readable reports whether the relation schema.name (as the catalog spells
// it) may be read.
func (p *Policy) Readable(schema, name string) bool {
	r := p.rels[[2]string{schema, name}]
	return r != nil && r.readable
}

// Access reports what the policy lets a query do with a column of a
// relation (as the catalog spells them). A column of a relation that may
// not be read is Denied.
func (p *Policy) Access(schema, table, column string) guard.Access {
	a, _ := p.column(schema, table, column)
	return a
}

// Mode is how a masked column's values are shown; "" for a column that is
// not masked.
func (p *Policy) Mode(schema, table, column string) MaskMode {
	_, m := p.column(schema, table, column)
	return m
}

func (p *Policy) column(schema, table, column string) (guard.Access, MaskMode) {
	r := p.rels[[2]string{schema, table}]
	if r == nil || !r.readable {
		return guard.Denied, ""
	}
	for _, c := range r.columns {
		if c.Name == column {
			return c.Access, r.modes[column]
		}
	}
	return guard.Denied, ""
}

// Filter returns defs as the model may see them: without the relations
// it may not read, their denied columns, and the keys and indexes that
// name either. Masked columns stay (see Column).
func (p *Policy) Filter(defs []source.TableDef) []source.TableDef {
	out := make([]source.TableDef, 0, len(defs))
	for _, d := range defs {
		if !p.Readable(d.Schema, d.Name) {
			continue
		}
		denied := func(table, schema string, cols []string) bool {
			for _, c := range cols {
				if p.Access(schema, table, c) == guard.Denied {
					return true
				}
			}
			return false
		}
		d.Columns = slices.DeleteFunc(slices.Clone(d.Columns), func(c source.ColumnDef) bool {
			return denied(d.Name, d.Schema, []string{c.Name})
		})
		d.ForeignKeys = slices.DeleteFunc(slices.Clone(d.ForeignKeys), func(k source.KeyDef) bool {
			return denied(d.Name, d.Schema, k.Columns) || denied(k.RefName, k.RefSchema, k.RefColumns)
		})
		d.Indexes = slices.DeleteFunc(slices.Clone(d.Indexes), func(ix source.IndexDef) bool {
			return denied(d.Name, d.Schema, slices.DeleteFunc(slices.Clone(ix.Columns), func(c string) bool { return c == "<expression>" }))
		})
		d.Reads = nil
		out = append(out, d)
	}
	return out
}

// Redact is what the model sees of value v of the masked column m: a
// keyed hash (Hash) or a fixed marker (Redact). NULL stays NULL. The hash
// is of the column's name with the value, so equal values of one column
// hash alike, and a value that comes to be hashed as another column's (a
// result whose columns a query shifted) cannot be matched against that
// column's hashes: no query can hash guesses to compare with them.
func (p *Policy) Redact(m guard.MaskedColumn, v any) any {
	if v == nil {
		return nil
	}
	if p.Mode(m.Schema, m.Table, m.Column) != Hash {
		return RedactMarker
	}
	h := hmac.New(sha256.New, p.key)
	fmt.Fprintf(h, "%q.%q.%q\x00%T\x00", m.Schema, m.Table, m.Column, v)
	switch v := v.(type) {
	case string:
		h.Write([]byte(v))
	case []byte:
		h.Write(v)
	default:
		fmt.Fprint(h, v)
	}
	return "masked:" + hex.EncodeToString(h.Sum(nil)[:8])
}

// RedactMarker is what a column masked by redact shows for every value.
const RedactMarker = "[masked]"

var keyOnce sync.Once
var processKey []byte

// maskKey is the key masked values are hashed with: the Spec's, else one
// made at random once per process, so equal values stay equal across
// calls and catalog readings (and differ between servers).
func (s *Spec) maskKey() []byte {
	if len(s.Key) > 0 {
		return s.Key
	}
	keyOnce.Do(func() {
		processKey = make([]byte, 32)
		rand.Read(processKey)
	})
	return processKey
}

// Lines describe the effective policy, one line per relation it
// restricts or hides, sorted, for sqlmcp check.
func (p *Policy) Lines() []string {
	var out []string
	for _, r := range p.rels {
		var parts []string
		if !r.readable {
			parts = append(parts, "hidden: "+r.why)
		} else {
			var denied, masked []string
			for _, c := range r.columns {
				switch c.Access {
				case guard.Denied:
					denied = append(denied, c.Name)
				case guard.Masked:
					masked = append(masked, c.Name+" ("+string(r.modes[c.Name])+")")
				}
			}
			if len(denied) > 0 {
				parts = append(parts, "denied columns: "+strings.Join(denied, ", "))
			}
			if len(masked) > 0 {
				parts = append(parts, "masked columns: "+strings.Join(masked, ", "))
			}
			if r.vouched && isView(r.kind) {
				parts = append(parts, "vouched for under tables")
			}
		}
		if len(parts) > 0 {
			out = append(out, r.display()+": "+strings.Join(parts, "; "))
		}
	}
	sort.Strings(out)
	return out
}
