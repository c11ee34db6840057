package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
)

var distinctValuesTool = &mcp.Tool{
	Name: "distinct_values",
	Description: "A column's distinct values (data only) with counts, most frequent first; filter " +
		"finds how a value is spelt.",
	Annotations: readOnly,
}

type distinctValuesIn struct {
	dbArg
	columnIn
	Filter string `json:"filter,omitempty" jsonschema:"value contains it, any case"`
	Limit  int    `json:"limit,omitempty" jsonschema:"1-1000, default 20"`
}

type valueCount struct {
	Value any   `json:"value"`
	Count int64 `json:"count"`
}

type distinctValuesOut struct {
	Table  string       `json:"table"`
	Column string       `json:"column"`
	Filter string       `json:"filter,omitempty"`
	Values []valueCount `json:"values"`
	// Distinct counts the distinct values in all (matching the filter).
	Distinct int64 `json:"distinct"`
	// DistinctMore is true when there are more than Distinct: counting
	// stops at 100,000.
	DistinctMore bool `json:"distinct_more,omitempty"`
	Truncated    bool `json:"truncated"`
	// Estimated is true when the table was too big to count in time and
	// the answer comes from the engine's statistics.
	Estimated bool `json:"estimated,omitempty"`
}

func (s *server) distinctValues(ctx context.Context, in distinctValuesIn) (distinctValuesOut, error) {
	limit, err := bounded("limit", in.Limit, 20, s.db.Limits().MaxRowsLimit)
	if err != nil {
		return distinctValuesOut{}, err
	}
	t, c, err := s.resolve(ctx, in.columnIn)
	if err != nil {
		return distinctValuesOut{}, err
	}
	if c.Masked != "" && in.Filter != "" {
		// The policy's refusal, not the engine's error (source.DB.Distinct
		// refuses it too).
		return distinctValuesOut{}, s.modelError(ctx, "", &guard.Error{
			Reason: fmt.Sprintf("the column %s of %s is masked by policy: its values can be listed only as they are shown, not filtered", c.Name, t.Name),
			Hint:   "Call distinct_values without a filter"})
	}
	d, err := s.db.Distinct(ctx, t.Ref(), c.Name, in.Filter, limit)
	if errors.Is(err, source.ErrNoStats) {
		return distinctValuesOut{}, fmt.Errorf("counting the distinct values of %s.%s took longer than %s and the table has no statistics to estimate from; "+
			"filter with run_query instead", t.Name, c.Name, source.BigCountTime)
	}
	if errors.Is(err, source.ErrNoStatsForRole) {
		return distinctValuesOut{}, fmt.Errorf("counting the distinct values of %s.%s took longer than %s, and the table's statistics are not shown to a caller "+
			"with a role of its own (they cover rows the role may not read); filter with run_query instead", t.Name, c.Name, source.BigCountTime)
	}
	if err != nil {
		return distinctValuesOut{}, s.modelError(ctx, "", err)
	}
	out := distinctValuesOut{Table: t.Name, Column: c.Name, Filter: in.Filter, Values: make([]valueCount, len(d.Values)),
		Distinct: d.Count, DistinctMore: d.More, Truncated: d.Truncated, Estimated: d.Estimated}
	for i, v := range d.Values {
		out.Values[i] = valueCount{Value: source.JSONSafe(v.Value), Count: v.Count}
	}
	return out, nil
}

func (o distinctValuesOut) audit(e *zerolog.Event) {
	e.Int("rows", o.rows()).Bool("truncated", o.Truncated)
}

func (o distinctValuesOut) rows() int { return len(o.Values) }

func (o distinctValuesOut) text(d *data) string {
	var b strings.Builder
	total := pluralWord(int(o.Distinct), "distinct value", "distinct values")
	if o.DistinctMore {
		total = "more than " + total
	}
	fmt.Fprintf(&b, "%s.%s has %s", o.Table, o.Column, total)
	if o.Filter != "" {
		fmt.Fprintf(&b, " containing %q", o.Filter)
	}
	if o.Truncated {
		fmt.Fprintf(&b, "; the %d most frequent", len(o.Values))
	}
	if o.Estimated {
		b.WriteString(" (estimated from the table's statistics: it is too big to count in time; values shown as text)")
	}
	b.WriteString(":\n")
	if len(o.Values) == 0 {
		return b.String()
	}
	b.WriteString(d.open())
	b.WriteByte('\n')
	for _, v := range o.Values {
		fmt.Fprintf(&b, "- %s: %d\n", literal(v.Value), v.Count)
	}
	b.WriteString(d.close())
	b.WriteByte('\n')
	return b.String()
}
