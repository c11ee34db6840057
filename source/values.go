package source

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sqlmcp/sqlmcp/guard"
)

// BigTable is the estimated row count above which a table is not counted
// or scanned whole: row counts are the engine's estimate, samples come from
// across the table, and distinct values fall back on the statistics.
const BigTable = 100_000

// sampleScan bounds how many rows Sample reads, and sampleSpread how many
// of their distinct values it chooses from.
const (
	sampleScan   = 10000
	sampleSpread = 1000
)

// Sample returns up to n distinct non-NULL values of column col of t, as
// cells (see Result.Rows), spread evenly from the smallest to the largest
// of up to 1000 distinct values read from at most 10,000 rows, so a
// sample shows the column's range and the same table gives the same sample
// on every engine. The engine chooses how to read them (Values.Sample):
// for a big table, pages from across the table first. Errors are Query's.
//
// Under a table and column policy, a denied column is an error and a
// masked one's values come redacted, in the order of their redacted text.
func (db *DB) Sample(ctx context.Context, t TableRef, col string, n int) ([]any, error) {
	pol, access := db.access(t, col)
	if access == guard.Denied {
		return nil, deniedColumn(t, col)
	}
	spread := min(sampleSpread, db.limits.MaxRowsLimit)
	var res *Result
	for _, sql := range db.b.Values().Sample(t, col, sampleScan) {
		var err error
		if res, err = db.query(ctx, Statement{SQL: sql, Builtin: true}, spread); err != nil {
			return nil, err
		}
		if len(res.Rows) > 0 {
			break
		}
	}
	var rows [][]any
	if res != nil {
		rows = res.Rows
	}
	if access == guard.Masked {
		// Redacted before they are spread, and spread in the order of
		// their redacted text: spreading the real values' order would
		// always pick the smallest and the largest.
		m := guard.MaskedColumn{Schema: t.Schema, Table: t.Name, Column: col}
		redacted := make([][]any, len(rows))
		for i, r := range rows {
			redacted[i] = []any{pol.Redact(m, r[0])}
		}
		slices.SortFunc(redacted, func(a, b []any) int { return strings.Compare(fmt.Sprint(a[0]), fmt.Sprint(b[0])) })
		rows = redacted
	}
	values := []any{}
	for _, r := range spreadRows(rows, n) {
		values = append(values, r[0])
	}
	return values, nil
}

// deniedColumn is the error for a column a policy denies, worded as for
// one that does not exist.
func deniedColumn(t TableRef, col string) error {
	return fmt.Errorf("table %q has no column named %q that you may read", t.Name, col)
}

// redactCounts redacts the values of a masked column's counts, and puts
// them in an order that owes nothing to the real values: the engine
// breaks ties between equal counts by the value itself, so values with
// the same count come in the order of their redacted text, and when the
// list is cut to limit values and the last count shown ties with the
// first left out, the values with that count are left out too, since
// which of them made the cut depended on that order. d holds up to
// limit+1 values.
func redactCounts(d *Distinct, pol Policy, t TableRef, col string, limit int) {
	m := guard.MaskedColumn{Schema: t.Schema, Table: t.Name, Column: col}
	for i := range d.Values {
		d.Values[i].Value = pol.Redact(m, d.Values[i].Value)
	}
	if len(d.Values) > limit {
		next := d.Values[limit].Count
		d.Values, d.Truncated = d.Values[:limit], true
		if limit > 0 && d.Values[limit-1].Count == next {
			d.Values = slices.DeleteFunc(d.Values, func(v ValueCount) bool { return v.Count == next })
		}
	}
	slices.SortStableFunc(d.Values, func(a, b ValueCount) int {
		if a.Count != b.Count {
			if a.Count > b.Count {
				return -1
			}
			return 1
		}
		return strings.Compare(fmt.Sprint(a.Value), fmt.Sprint(b.Value))
	})
}

// spreadRows picks n of sorted rows, evenly from the first to the last.
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

// Distinct is a column's distinct values with their counts.
type Distinct struct {
	Values []ValueCount // most frequent first
	// Count is how many distinct values there are (matching the filter),
	// at most distinctScan; More is true when there are more than that.
	Count int64
	More  bool
	// Truncated is true when Values does not hold them all.
	Truncated bool
	// Estimated is true when the table was too big to count in time and
	// the answer comes from the engine's statistics: values are text and
	// counts estimates.
	Estimated bool
}

// ValueCount is one distinct value, as a cell, and how many rows hold it.
type ValueCount struct {
	Value any
	Count int64
}

// distinctScan bounds the count of distinct values.
const distinctScan = 100000

// BigCountTime is how long Distinct counts a big table exactly before the
// engine's statistics answer.
const BigCountTime = 3 * time.Second

// ErrNoStats is Distinct's error when a big table took too long to count
// and the engine has no statistics of the column to estimate from.
var ErrNoStats = fmt.Errorf("counting took longer than %s and the table has no statistics to estimate from", BigCountTime)

// ErrNoStatsForRole is Distinct's error when a big table took too long to
// count for a call that runs as a role of its own (WithRole): the
// engine's statistics, read as the connecting role, are not shown to it.
var ErrNoStatsForRole = fmt.Errorf("counting took longer than %s, and the engine's statistics cover rows this caller's role may not read", BigCountTime)

// Distinct counts the rows of each distinct value of col in t, most
// frequent first, up to limit values; a non-empty filter keeps the values
// whose text contains it, in any case. A big table (see BigTable) is
// counted for a few seconds, then answered from the engine's statistics
// (Estimated), or, when it has none, ErrNoStats. Other errors are Query's.
//
// Under a table and column policy, a denied column is an error, and a
// masked one's values come redacted; a masked column cannot be filtered,
// since a filter would test the values themselves.
func (db *DB) Distinct(ctx context.Context, t TableRef, col, filter string, limit int) (*Distinct, error) {
	pol, access := db.access(t, col)
	switch {
	case access == guard.Denied:
		return nil, deniedColumn(t, col)
	case access == guard.Masked && filter != "":
		return nil, fmt.Errorf("the column %q of %q is masked: its values can be listed only as they are shown, not filtered; call distinct_values without a filter", col, t.Name)
	}
	if access == guard.Masked {
		// One value more, to tell whether the last count shown ties
		// with one left out.
		d, err := db.distinct(ctx, t, col, filter, limit+1)
		if err == nil {
			redactCounts(d, pol, t, col, limit)
		}
		return d, err
	}
	return db.distinct(ctx, t, col, filter, limit)
}

func (db *DB) distinct(ctx context.Context, t TableRef, col, filter string, limit int) (*Distinct, error) {
	v := db.b.Values()
	var args []any
	if filter != "" {
		args = append(args, likeEscaper.Replace(filter))
	}
	qctx, cancel := ctx, context.CancelFunc(func() {})
	big := t.Estimate >= BigTable
	if big {
		// A big table may take long to count: give the exact answer a
		// while, then fall back on the engine's statistics.
		qctx, cancel = context.WithTimeout(ctx, min(db.limits.Timeout, BigCountTime))
	}
	res, err := db.query(qctx, Statement{SQL: v.Distinct(t, col, filter != "", limit+1), Args: args, Builtin: true}, limit)
	cancel()
	if err != nil && big && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		if RoleFrom(ctx) != "" {
			// The statistics are the connecting role's reading of every
			// row, not the role's: they may hold values of rows it
			// cannot read.
			return nil, ErrNoStatsForRole
		}
		return db.distinctFromStats(ctx, t, col, filter, limit)
	}
	if err != nil {
		return nil, err
	}
	out := &Distinct{Values: make([]ValueCount, len(res.Rows)), Truncated: res.Truncated}
	for i, r := range res.Rows {
		n, _ := r[1].(int64)
		out.Values[i] = ValueCount{Value: r[0], Count: n}
	}
	out.Count = int64(len(out.Values))
	if out.Truncated {
		res, err := db.query(ctx, Statement{SQL: v.CountDistinct(t, col, filter != "", distinctScan), Args: args, Builtin: true}, 1)
		if err != nil {
			return nil, err
		}
		out.Count, _ = res.Rows[0][0].(int64)
		if out.Count > distinctScan {
			out.Count, out.More = distinctScan, true
		}
	}
	return out, nil
}

// distinctFromStats answers from the engine's statistics: the most common
// values with their estimated counts, and the estimated number of distinct
// values. The values are text.
func (db *DB) distinctFromStats(ctx context.Context, t TableRef, col, filter string, limit int) (*Distinct, error) {
	st, ok, err := db.b.Values().Stats(ctx, db, t, col)
	if err != nil {
		return nil, err
	}
	if !ok || len(st.Common) == 0 {
		return nil, ErrNoStats
	}
	out := &Distinct{Values: []ValueCount{}, Estimated: true}
	for _, c := range st.Common {
		if filter != "" && !strings.Contains(strings.ToLower(c.Value), strings.ToLower(filter)) {
			continue
		}
		if len(out.Values) == limit {
			out.Truncated = true
			break
		}
		out.Values = append(out.Values, ValueCount{Value: c.Value, Count: int64(c.Fraction*float64(t.Estimate) + 0.5)})
	}
	if len(out.Values) > 0 {
		out.Count = st.Distinct
	}
	if out.Count > int64(len(out.Values)) {
		out.Truncated = true
	}
	return out, nil
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// SharedValues is ValueSQL in the SQL SQLite and PostgreSQL read alike
// (SampleSQL, DistinctSQL, CountDistinctSQL), with no statistics: an
// engine uses it as it is, or embeds it and replaces what it does better.
// Table writes a table's name as a query names it; Quote quotes a column.
type SharedValues struct {
	Table func(TableRef) string
	Quote func(string) string
}

// Sample reads the first scan rows.
func (v SharedValues) Sample(t TableRef, col string, scan int) []string {
	return []string{SampleSQL(v.Table(t), v.Quote(col), scan)}
}

// Distinct is DistinctSQL.
func (v SharedValues) Distinct(t TableRef, col string, filter bool, limit int) string {
	return DistinctSQL(v.Table(t), v.Quote(col), filter, limit)
}

// CountDistinct is CountDistinctSQL.
func (v SharedValues) CountDistinct(t TableRef, col string, filter bool, scan int) string {
	return CountDistinctSQL(v.Table(t), v.Quote(col), filter, scan)
}

// Stats reports none.
func (SharedValues) Stats(context.Context, Reader, TableRef, string) (ColumnStats, bool, error) {
	return ColumnStats{}, false, nil
}

// SampleSQL is the statement that reads the distinct non-NULL values of
// col among the first scan rows of from, ordered; from and col come
// quoted. SQLite and PostgreSQL read it alike.
func SampleSQL(from, col string, scan int) string {
	return fmt.Sprintf("SELECT DISTINCT %s FROM (SELECT %s FROM %s WHERE %s IS NOT NULL LIMIT %d) AS sample ORDER BY 1",
		col, col, from, col, scan)
}

// DistinctSQL counts the rows of each distinct value of col in table (both
// quoted), most frequent first, at most limit rows; with filter, $1 is a
// LIKE pattern the value's lower-cased text must contain. SQLite and
// PostgreSQL read it alike.
func DistinctSQL(table, col string, filter bool, limit int) string {
	return fmt.Sprintf("SELECT %s, count(*) AS n FROM %s%s GROUP BY %s ORDER BY n DESC, CAST(%s AS TEXT) LIMIT %d",
		col, table, containsFilter(col, filter), col, col, limit)
}

// CountDistinctSQL counts the distinct values of col in table (matching
// the filter as DistinctSQL does), stopping at scan+1.
func CountDistinctSQL(table, col string, filter bool, scan int) string {
	return fmt.Sprintf("SELECT count(*) FROM (SELECT DISTINCT %s FROM %s%s LIMIT %d) AS d", col, table, containsFilter(col, filter), scan+1)
}

func containsFilter(col string, filter bool) string {
	if !filter {
		return ""
	}
	return fmt.Sprintf(` WHERE lower(CAST(%s AS TEXT)) LIKE '%%' || lower($1) || '%%' ESCAPE '\'`, col)
}
