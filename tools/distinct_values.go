package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/schema"
)

var distinctValuesTool = &mcp.Tool{
	Name: "distinct_values",
	Description: "List a column's distinct values with how many rows hold each, most frequent first " +
		"(NULL included). With filter, only values containing that text, ignoring case: use it to find " +
		"how a value is spelt before you write WHERE. Says how many distinct values there are in all " +
		"and whether the list was cut.",
	Annotations: annotations("Distinct values of a column"),
}

type distinctValuesIn struct {
	columnIn
	Filter string `json:"filter,omitempty" jsonschema:"keep values containing this text, ignoring case"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most values to return: 1 to 1000, default 20"`
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
	Distinct int64 `json:"distinct" jsonschema:"how many distinct values there are in all"`
	// DistinctMore is true when there are more than Distinct: counting
	// stops at distinctScan.
	DistinctMore bool `json:"distinct_more,omitempty" jsonschema:"true when there are more distinct values than distinct says"`
	Truncated    bool `json:"truncated" jsonschema:"true when values lists only the most frequent"`
}

// distinctScan bounds the count of distinct values.
const distinctScan = 100000

func (s *server) distinctValues(ctx context.Context, in distinctValuesIn) (distinctValuesOut, error) {
	limit, err := bounded("limit", in.Limit, 20, s.db.Limits().MaxRowsLimit)
	if err != nil {
		return distinctValuesOut{}, err
	}
	t, c, err := s.resolve(ctx, in.columnIn)
	if err != nil {
		return distinctValuesOut{}, err
	}
	col, table := schema.Quote(c.Name), t.SQL()
	where, args := "", []any{}
	if in.Filter != "" {
		where = fmt.Sprintf(` WHERE lower(CAST(%s AS TEXT)) LIKE '%%' || lower($1) || '%%' ESCAPE '\'`, col)
		args = append(args, likeEscaper.Replace(in.Filter))
	}
	sql := fmt.Sprintf("SELECT %s, count(*) AS n FROM %s%s GROUP BY %s ORDER BY n DESC, CAST(%s AS TEXT) LIMIT %d",
		col, table, where, col, col, limit+1)
	res, err := s.db.Query(ctx, sql, limit, args...)
	if err != nil {
		return distinctValuesOut{}, s.modelError(ctx, "", err)
	}
	out := distinctValuesOut{Table: t.Name, Column: c.Name, Filter: in.Filter, Values: make([]valueCount, len(res.Rows)), Truncated: res.Truncated}
	for i, r := range res.Rows {
		n, _ := r[1].(int64)
		out.Values[i] = valueCount{Value: r[0], Count: n}
	}
	out.Distinct = int64(len(out.Values))
	if out.Truncated {
		sql := fmt.Sprintf("SELECT count(*) FROM (SELECT DISTINCT %s FROM %s%s LIMIT %d) AS d", col, table, where, distinctScan+1)
		res, err := s.db.Query(ctx, sql, 1, args...)
		if err != nil {
			return distinctValuesOut{}, s.modelError(ctx, "", err)
		}
		out.Distinct, _ = res.Rows[0][0].(int64)
		if out.Distinct > distinctScan {
			out.Distinct, out.DistinctMore = distinctScan, true
		}
	}
	return out, nil
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

func (o distinctValuesOut) audit(e *zerolog.Event) {
	e.Int("rows", len(o.Values)).Bool("truncated", o.Truncated)
}

func (o distinctValuesOut) text() string {
	var b strings.Builder
	total := fmt.Sprint(o.Distinct)
	if o.DistinctMore {
		total = "more than " + total
	}
	fmt.Fprintf(&b, "%s.%s has %s distinct values", o.Table, o.Column, total)
	if o.Filter != "" {
		fmt.Fprintf(&b, " containing %q", o.Filter)
	}
	if o.Truncated {
		fmt.Fprintf(&b, "; the %d most frequent", len(o.Values))
	}
	b.WriteString(":\n")
	for _, v := range o.Values {
		fmt.Fprintf(&b, "- %s: %d\n", literal(v.Value), v.Count)
	}
	return b.String()
}
