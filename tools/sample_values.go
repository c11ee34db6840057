package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
)

var sampleValuesTool = &mcp.Tool{
	Name: "sample_values",
	Description: "A few real values of a column, to see how they are written (codes, case, dates) " +
		"before filtering.",
	Annotations: readOnly,
}

type columnIn struct {
	Table  string `json:"table"`
	Column string `json:"column" jsonschema:"as describe_table names it"`
}

type sampleValuesIn struct {
	columnIn
	Limit int `json:"limit,omitempty" jsonschema:"1-100, default 10"`
}

func (in columnIn) audit(e *zerolog.Event) { e.Str("table", in.Table).Str("column", in.Column) }

type sampleValuesOut struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	Values []any  `json:"values"`
}

// sampleScan bounds how many rows sample_values reads, and sampleSpread
// how many of their distinct values it chooses from.
const (
	sampleScan   = 10000
	sampleSpread = 1000
)

// spreadRows picks n of sorted rows, evenly from the first to the last,
// so a sample shows a column's range rather than its smallest values.
func spreadRows(rows [][]any, n int) [][]any {
	if len(rows) <= n {
		return rows
	}
	if n == 1 {
		return rows[:1]
	}
	out := make([][]any, n)
	for i := range out {
		out[i] = rows[i*(len(rows)-1)/(n-1)]
	}
	return out
}

// resolve finds a table and column in the live schema, so that the SQL the
// value tools build holds only names that exist, quoted.
func (s *server) resolve(ctx context.Context, in columnIn) (*schema.Table, *schema.Column, error) {
	t, err := s.cat.Table(ctx, in.Table)
	if err != nil {
		return nil, nil, err
	}
	if t.Broken != "" {
		return nil, nil, fmt.Errorf("%s %s is broken and cannot be read: %s", t.Kind, displayName(t.Name), t.Broken)
	}
	c, err := t.Column(in.Column)
	if err != nil {
		return nil, nil, err
	}
	return t, c, nil
}

func (s *server) sampleValues(ctx context.Context, in sampleValuesIn) (sampleValuesOut, error) {
	limit, err := bounded("limit", in.Limit, 10, 100)
	if err != nil {
		return sampleValuesOut{}, err
	}
	t, c, err := s.resolve(ctx, in.columnIn)
	if err != nil {
		return sampleValuesOut{}, err
	}
	col := schema.Quote(c.Name)
	// Ordered, so the same table gives the same sample on every engine;
	// up to sampleSpread distinct values are read, and limit of them
	// chosen evenly from the smallest to the largest.
	spread := min(sampleSpread, s.db.Limits().MaxRowsLimit)
	sample := func(from string) (*source.Result, error) {
		sql := fmt.Sprintf("SELECT DISTINCT %s FROM (SELECT %s FROM %s WHERE %s IS NOT NULL LIMIT %d) AS sample ORDER BY 1",
			col, col, from, col, sampleScan)
		return s.db.Query(ctx, sql, spread)
	}
	var res *source.Result
	if est, big := t.Big(); big && t.Kind == "table" {
		// A big PostgreSQL table: read about sampleScan rows from pages
		// across the whole table, not only its first pages.
		res, err = sample(fmt.Sprintf("%s TABLESAMPLE SYSTEM (%.4f)", t.SQL(), min(100, 100*float64(sampleScan)/float64(est))))
	}
	if err == nil && (res == nil || len(res.Rows) == 0) {
		// The first rows, when the table is small or the pages sampled
		// held only NULLs.
		res, err = sample(t.SQL())
	}
	if err != nil {
		return sampleValuesOut{}, s.modelError(ctx, "", err)
	}
	rows := spreadRows(res.Rows, limit)
	out := sampleValuesOut{Table: t.Name, Column: c.Name, Values: make([]any, len(rows))}
	for i, r := range rows {
		out.Values[i] = r[0]
	}
	return out, nil
}

func (o sampleValuesOut) audit(e *zerolog.Event) { e.Int("rows", len(o.Values)) }

func (o sampleValuesOut) text() string {
	if len(o.Values) == 0 {
		return fmt.Sprintf("%s.%s holds no non-NULL values", o.Table, o.Column)
	}
	vals := make([]string, len(o.Values))
	for i, v := range o.Values {
		vals[i] = literal(v)
	}
	return fmt.Sprintf("%s of %s.%s: %s", pluralWord(len(o.Values), "sample value", "sample values"), o.Table, o.Column, strings.Join(vals, ", "))
}
