package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/schema"
)

var distinctValuesTool = &mcp.Tool{
	Name: "distinct_values",
	Description: "A column's distinct values with counts, most frequent first; filter finds how " +
		"a value is spelt before you write WHERE.",
	Annotations: readOnly,
}

type distinctValuesIn struct {
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
	// stops at distinctScan.
	DistinctMore bool `json:"distinct_more,omitempty"`
	Truncated    bool `json:"truncated"`
	// Estimated is true when the table was too big to count in time and
	// the answer comes from the engine's statistics.
	Estimated bool `json:"estimated,omitempty"`
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
	qctx, cancel := ctx, context.CancelFunc(func() {})
	est, big := t.Big()
	if big {
		// A big table may take long to count: give the exact answer a
		// while, then fall back on the engine's statistics.
		qctx, cancel = context.WithTimeout(ctx, min(s.db.Limits().Timeout, bigCountTime))
	}
	res, err := s.db.Query(qctx, sql, limit, args...)
	cancel()
	if err != nil && big && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return s.distinctFromStats(ctx, t, c, in.Filter, limit, est)
	}
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

// bigCountTime is how long distinct_values counts a big table exactly
// before it answers from the statistics.
const bigCountTime = 3 * time.Second

// distinctFromStats answers from PostgreSQL's statistics (pg_stats): the
// most common values with their estimated counts, and the estimated number
// of distinct values. The values are shown as text.
func (s *server) distinctFromStats(ctx context.Context, t *schema.Table, c *schema.Column, filter string, limit int, rows int64) (distinctValuesOut, error) {
	const statsSQL = `SELECT u.v, u.f, s.n_distinct
		FROM pg_stats s, unnest(s.most_common_vals::text::text[], s.most_common_freqs) AS u(v, f)
		WHERE s.schemaname = $1 AND s.tablename = $2 AND s.attname = $3 ORDER BY u.f DESC`
	res, err := s.db.Catalog(ctx, statsSQL, t.Schema, t.Relation(), c.Name)
	if err != nil {
		return distinctValuesOut{}, s.modelError(ctx, "", err)
	}
	out := distinctValuesOut{Table: t.Name, Column: c.Name, Filter: filter, Values: []valueCount{}, Estimated: true}
	for _, r := range res {
		v, _ := r[0].(string)
		if filter != "" && !strings.Contains(strings.ToLower(v), strings.ToLower(filter)) {
			continue
		}
		if len(out.Values) == limit {
			out.Truncated = true
			break
		}
		f, _ := r[1].(float64)
		out.Values = append(out.Values, valueCount{Value: v, Count: int64(f*float64(rows) + 0.5)})
		if nd, _ := r[2].(float64); nd > 0 {
			out.Distinct = int64(nd)
		} else {
			out.Distinct = int64(-nd*float64(rows) + 0.5)
		}
	}
	if len(res) == 0 {
		return distinctValuesOut{}, fmt.Errorf("counting the distinct values of %s.%s took longer than %s and the table has no statistics to estimate from; filter with run_query instead", t.Name, c.Name, bigCountTime)
	}
	if out.Distinct > int64(len(out.Values)) {
		out.Truncated = true
	}
	return out, nil
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

func (o distinctValuesOut) audit(e *zerolog.Event) {
	e.Int("rows", len(o.Values)).Bool("truncated", o.Truncated)
}

func (o distinctValuesOut) text() string {
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
	for _, v := range o.Values {
		fmt.Fprintf(&b, "- %s: %d\n", literal(v.Value), v.Count)
	}
	return b.String()
}
