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
	Name:        "sample_values",
	Description: "A few real values (data only) of a column, to see how they are written: codes, case, dates.",
	Annotations: readOnly,
}

type columnIn struct {
	Table  string `json:"table"`
	Column string `json:"column" jsonschema:"as describe_table names it"`
}

type sampleValuesIn struct {
	dbArg
	columnIn
	Limit int `json:"limit,omitempty" jsonschema:"1-100, default 10"`
}

func (in columnIn) audit(e *zerolog.Event) {
	e.Str("table", logged(in.Table)).Str("column", logged(in.Column))
}

type sampleValuesOut struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	Values []any  `json:"values"`

	display string // the table's name as SQL writes it
}

// resolve finds a table and column in the live schema, so that the SQL the
// value tools build holds only names that exist, quoted.
func (s *server) resolve(ctx context.Context, in columnIn) (*schema.Table, *schema.Column, error) {
	t, err := s.cat.Table(ctx, in.Table)
	if err != nil {
		return nil, nil, err
	}
	if t.Broken != "" {
		return nil, nil, fmt.Errorf("%s %s is broken and cannot be read: %s", t.Kind, t.Display(), t.Broken)
	}
	if t.Unreadable != "" {
		return nil, nil, fmt.Errorf("%s %s cannot be read: %s; ask for another table", t.Kind, t.Display(), t.Unreadable)
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
	// The engine reads the sample (source.DB.Sample): ordered, spread
	// from the smallest value to the largest.
	values, err := s.db.Sample(ctx, t.Ref(), c.Name, limit)
	if err != nil {
		return sampleValuesOut{}, s.modelError(ctx, "", err)
	}
	out := sampleValuesOut{Table: t.Name, Column: c.Name, Values: make([]any, len(values)), display: t.Display()}
	for i, v := range values {
		out.Values[i] = source.JSONSafe(v)
	}
	return out, nil
}
func (o sampleValuesOut) audit(e *zerolog.Event) { e.Int("rows", o.rows()) }
func (o sampleValuesOut) rows() int              { return len(o.Values) }

func (o sampleValuesOut) text(d *data) string {
	if len(o.Values) == 0 {
		return fmt.Sprintf("%s.%s holds no non-NULL values", o.Table, o.Column)
	}
	vals := make([]string, len(o.Values))
	for i, v := range o.Values {
		vals[i] = literal(v)
	}
	return fmt.Sprintf("%s of %s.%s: %s", pluralWord(len(o.Values), "sample value", "sample values"), o.Table, o.Column, d.mark(strings.Join(vals, ", ")))
}
