package schema

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The value index's bounds: which columns are read, how much of each, and
// how much it may hold in all.
const (
	valueColumns   = 2000    // columns read, at most
	valueRows      = 10000   // rows of a table looked at per column
	valuesPerCol   = 50      // a column with more distinct values is not indexed
	valueMaxLen    = 60      // longer values are left out
	valueMaxBytes  = 4 << 20 // the index's values, in all
	valueQueryTime = 2 * time.Second
)

// valueIndex holds, for the low-cardinality text columns of one reading of
// the schema, their distinct values (from the first valueRows rows), so a
// question's words can be matched against what a column holds: "Salford"
// finds the column whose values include it. It is built once per tables
// slice and read-only after.
type valueIndex struct {
	tables []*Table                    // the reading it was built for
	values map[*Column][]string        // distinct values, as the engine gave them
	words  map[*Column]map[string]bool // the values' words
	bytes  int
}

// valueWords returns the words of col's indexed values, or nil.
func (ix *valueIndex) valueWords(col *Column) map[string]bool {
	if ix == nil {
		return nil
	}
	return ix.words[col]
}

// matchingValue returns a value of col that holds the most of words, or "".
func (ix *valueIndex) matchingValue(col *Column, words []string) string {
	best, bestN := "", 0
	for _, v := range ix.values[col] {
		vw := map[string]bool{}
		for _, w := range Words(v) {
			vw[w] = true
		}
		n := 0
		for _, w := range words {
			if vw[w] {
				n++
			}
		}
		if n > bestN {
			best, bestN = v, n
		}
	}
	return best
}

// textLike reports whether a column's declared type holds text.
func textLike(typ string) bool {
	t := strings.ToLower(typ)
	if t == "" {
		return true // SQLite: untyped
	}
	for _, s := range []string{"char", "text", "clob", "string", "name", "citext"} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// IndexValues builds the value index for the current reading of the
// schema, if it has not been, and waits for it. Search starts it in the
// background and never waits; tests and benchmarks call IndexValues to
// know it is there.
func (c *Catalog) IndexValues(ctx context.Context) error {
	tables, err := c.Tables(ctx)
	if err != nil {
		return err
	}
	c.valuesMu.Lock()
	defer c.valuesMu.Unlock()
	if c.values != nil && sameTables(c.values.tables, tables) {
		return nil
	}
	ix, err := c.buildValues(ctx, tables)
	if err != nil {
		return err
	}
	c.values = ix
	return nil
}

// valueIndexFor returns the value index of tables when it is built, and
// otherwise starts building it in the background and returns nil.
func (c *Catalog) valueIndexFor(tables []*Table) *valueIndex {
	if !c.valuesMu.TryLock() {
		return nil // being built
	}
	ix := c.values
	c.valuesMu.Unlock()
	if ix != nil && sameTables(ix.tables, tables) {
		return ix
	}
	go c.IndexValues(context.Background())
	return nil
}

func sameTables(a, b []*Table) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// buildValues reads the distinct values of the text columns of tables,
// within the index's bounds, each through the guarded door.
func (c *Catalog) buildValues(ctx context.Context, tables []*Table) (*valueIndex, error) {
	ix := &valueIndex{tables: tables, values: map[*Column][]string{}, words: map[*Column]map[string]bool{}}
	read := 0
	for _, t := range tables {
		if t.Kind == "virtual" {
			continue
		}
		for i := range t.Columns {
			col := &t.Columns[i]
			if !textLike(col.Type) || read >= valueColumns || ix.bytes >= valueMaxBytes {
				continue
			}
			read++
			// Short values only, and through the door's caps on rows and
			// bytes, so a column of long texts costs nothing here.
			q := fmt.Sprintf("SELECT DISTINCT v FROM (SELECT %s AS v FROM %s LIMIT %d) AS s WHERE length(v) <= %d",
				t.QuoteName(col.Name), t.SQL(), valueRows, valueMaxLen)
			qctx, cancel := context.WithTimeout(ctx, valueQueryTime)
			res, err := c.db.Query(qctx, q, valuesPerCol+1)
			cancel()
			var rows [][]any
			if err == nil {
				rows = res.Rows
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err != nil || len(rows) > valuesPerCol || len(rows) == 0 {
				continue
			}
			var vals []string
			words := map[string]bool{}
			for _, r := range rows {
				v, ok := r[0].(string)
				if b, isBytes := r[0].([]byte); isBytes {
					v, ok = string(b), true
				}
				if !ok || len(v) > valueMaxLen || v == "" {
					continue
				}
				vals = append(vals, v)
				ix.bytes += len(v)
				for _, w := range Words(v) {
					words[w] = true
				}
			}
			if len(vals) > 0 {
				ix.values[col], ix.words[col] = vals, words
			}
		}
	}
	return ix, nil
}
