package schema

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/sqlmcp/sqlmcp"
)

// TextKind says that a text column's values read as another kind, so
// that sorting and comparing them as text goes wrong ("998" after
// "1045"): Kind is "integer", "number" or "date", Except the few values
// that do not (such as "K" among grade numbers), Cast how this engine
// turns the column into that kind.
type TextKind struct {
	Kind   string
	Except []string
	Cast   string
}

// kindRows is how many rows of a table TextKinds looks at; kindTime
// bounds the look.
const (
	kindRows = 200
	kindTime = time.Second
)

var (
	integerText = regexp.MustCompile(`^[+-]?\d+$`)
	numberText  = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)
	dateText    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$`)
)

// TextKinds returns, for t's text columns whose first rows' values read
// as numbers or dates, what they read as, keyed by column name. It reads
// at most kindRows rows once per reading of the schema, through the
// guarded door; a table it cannot read has no kinds.
func (c *Catalog) TextKinds(ctx context.Context, t *Table) map[string]TextKind {
	c.kindsMu.Lock()
	if kinds, ok := c.kinds[t]; ok {
		c.kindsMu.Unlock()
		return kinds
	}
	c.kindsMu.Unlock()
	kinds := c.readKinds(ctx, t)
	c.kindsMu.Lock()
	defer c.kindsMu.Unlock()
	if c.kinds == nil || len(c.kinds) > 4096 { // a reading of the schema long gone
		c.kinds = map[*Table]map[string]TextKind{}
	}
	c.kinds[t] = kinds
	return kinds
}

func (c *Catalog) readKinds(ctx context.Context, t *Table) map[string]TextKind {
	var cols []*Column
	var exprs []string
	for i := range t.Columns {
		if col := &t.Columns[i]; textLike(col.Type) && col.Masked == "" {
			cols = append(cols, col)
			exprs = append(exprs, t.QuoteName(col.Name))
		}
	}
	kinds := map[string]TextKind{}
	if len(cols) == 0 || t.Broken != "" || t.Kind == "virtual" {
		return kinds
	}
	qctx, cancel := context.WithTimeout(ctx, kindTime)
	defer cancel()
	res, err := c.db.Query(qctx, fmt.Sprintf("SELECT %s FROM %s LIMIT %d", strings.Join(exprs, ", "), t.SQL(), kindRows), kindRows)
	if err != nil {
		return kinds
	}
	for i, col := range cols {
		var vals []string
		for _, r := range res.Rows {
			switch v := r[i].(type) {
			case string:
				vals = append(vals, strings.TrimSpace(v))
			case []byte:
				vals = append(vals, strings.TrimSpace(string(v)))
			}
		}
		if k, ok := textKind(vals); ok {
			k.Cast = castTo(c.db.Dialect(), t.Ident(col.Name), k.Kind)
			kinds[col.Name] = k
		}
	}
	return kinds
}

// textKind judges values: a kind when at least five values are there and
// all of them, or all but at most two distinct ones making up a fifth or
// less, read as it. Numbers all written to one width (ZIP codes, fixed
// codes) sort as text does, so they are no trouble and no kind.
func textKind(vals []string) (TextKind, bool) {
	vals = slices.DeleteFunc(vals, func(v string) bool { return v == "" })
	if len(vals) < 5 {
		return TextKind{}, false
	}
	for _, kind := range []struct {
		name string
		re   *regexp.Regexp
	}{{"integer", integerText}, {"number", numberText}, {"date", dateText}} {
		var except []string
		off := 0
		for _, v := range vals {
			if !kind.re.MatchString(v) {
				off++
				if !slices.Contains(except, v) {
					except = append(except, v)
				}
			}
		}
		if kind.name != "date" && oneWidth(vals, kind.re) {
			continue
		}
		if len(except) <= 2 && off*5 <= len(vals) && off < len(vals) {
			slices.Sort(except)
			return TextKind{Kind: kind.name, Except: except}, true
		}
	}
	return TextKind{}, false
}

// oneWidth reports whether the values re matches are all of one length.
func oneWidth(vals []string, re *regexp.Regexp) bool {
	width := -1
	for _, v := range vals {
		if re.MatchString(v) {
			if width >= 0 && len(v) != width {
				return false
			}
			width = len(v)
		}
	}
	return true
}

// castTo is how engine d reads column col, as a query writes it, as kind:
// a type every version of the engine takes in CAST, wide enough for the
// values (PostgreSQL's integer and DuckDB's REAL are four bytes; MySQL
// takes neither INTEGER nor REAL in CAST).
func castTo(d sqlmcp.Dialect, col, kind string) string {
	if kind == "date" {
		if d == sqlmcp.Postgres || d == sqlmcp.DuckDB {
			return "CAST(" + col + " AS date)"
		}
		return "date(" + col + ")"
	}
	types, ok := map[sqlmcp.Dialect][2]string{
		sqlmcp.Postgres: {"bigint", "numeric"},
		sqlmcp.DuckDB:   {"BIGINT", "DOUBLE"},
		sqlmcp.MySQL:    {"SIGNED", "DOUBLE"},
	}[d]
	if !ok {
		types = [2]string{"INTEGER", "REAL"} // SQLite's
	}
	if kind == "integer" {
		return "CAST(" + col + " AS " + types[0] + ")"
	}
	return "CAST(" + col + " AS " + types[1] + ")"
}
