package schema

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The value index's bounds: which columns are read, how much of each, and
// how much it may hold in all.
const (
	valueColumns   = 20000   // columns read, at most
	valueRows      = 10000   // rows of a table looked at per column
	valuesPerCol   = 50      // a column with more distinct values is not indexed
	valueMaxLen    = 60      // longer values are left out
	valueMaxBytes  = 4 << 20 // the index's values, in all
	valueQueryTime = 2 * time.Second
	// valueOverhead is what a value costs beyond its bytes: its string
	// header and its share of the slice.
	valueOverhead = 16
)

// valueIndex holds, for the low-cardinality text columns of one reading of
// the schema, their distinct values (from the first valueRows rows), so a
// question's words can be matched against what a column holds: "Salford"
// finds the column whose values include it. It is built once per tables
// slice and read-only after.
type valueIndex struct {
	tables []*Table             // the reading it was built for
	values map[*Column][]string // distinct values, as the engine gave them
	bytes  int                  // what the values take: their bytes and string headers
	read   int                  // columns read
}

// columnValues returns col's indexed values, or nil.
func (ix *valueIndex) columnValues(col *Column) []string {
	if ix == nil {
		return nil
	}
	return ix.values[col]
}

// holds reports whether col's indexed values include v, ignoring case.
func (ix *valueIndex) holds(col *Column, v string) bool {
	for _, x := range ix.columnValues(col) {
		if strings.EqualFold(x, v) {
			return true
		}
	}
	return false
}

// matchingValue returns a value of col that holds the most of the words
// (stems, as Search matches them), or "".
func (ix *valueIndex) matchingValue(col *Column, words []string) string {
	best, bestN := "", 0
	for _, v := range ix.columnValues(col) {
		n := 0
		for _, w := range indexWords(v, false, nil) {
			if slices.Contains(words, w) {
				n++
			}
		}
		if n > bestN {
			best, bestN = v, n
		}
	}
	return best
}

// ValueStats says what the value index holds: the columns read and
// indexed, the values, and the bytes they take (bounded by a fixed cap of
// 4 MiB). Built is false until the index has been built.
type ValueStats struct {
	Built                   bool
	ColumnsRead, Columns    int
	Values, Bytes, MaxBytes int
}

// ValueStats reports the value index of the last reading of the schema.
func (c *Catalog) ValueStats() ValueStats {
	c.valuesMu.Lock()
	defer c.valuesMu.Unlock()
	st := ValueStats{MaxBytes: valueMaxBytes}
	if ix := c.values; ix != nil {
		st.Built, st.ColumnsRead, st.Columns, st.Bytes = true, ix.read, len(ix.values), ix.bytes
		for _, vs := range ix.values {
			st.Values += len(vs)
		}
	}
	return st
}

// labelLike reports whether a value can name what a question asks about:
// not an address on the web or in mail, whose words (a domain, a user)
// say nothing of the column.
func labelLike(v string) bool {
	return !strings.Contains(v, "@") && !strings.Contains(v, "://")
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
	ix := &valueIndex{tables: tables, values: map[*Column][]string{}}
	for _, t := range tables {
		if t.Kind == "virtual" || t.Unreadable != "" {
			continue // each query would fail
		}
		for i := range t.Columns {
			col := &t.Columns[i]
			if !textLike(col.Type) || col.Masked != "" || ix.read >= valueColumns || ix.bytes >= valueMaxBytes {
				continue
			}
			ix.read++
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
			for _, r := range rows {
				v, ok := r[0].(string)
				if b, isBytes := r[0].([]byte); isBytes {
					v, ok = string(b), true
				}
				if !ok || len(v) > valueMaxLen || v == "" || !labelLike(v) {
					continue
				}
				if ix.bytes+len(v)+valueOverhead > valueMaxBytes {
					break
				}
				vals = append(vals, v)
				ix.bytes += len(v) + valueOverhead
			}
			if len(vals) > 0 {
				ix.values[col] = vals
			}
		}
	}
	return ix, nil
}
