package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
)

var runQueryTool = &mcp.Tool{
	Name:        "run_query",
	Description: runQueryDescription(quoteDouble),
	Annotations: readOnly,
}

// The ways of quoting names the databases of a server take, for the
// description of run_query.
const (
	quoteDouble   = "Double-quote names with spaces, capitals or reserved words."
	quoteBacktick = "Quote names with spaces or reserved words in backticks: double quotes make a string."
	quoteEither   = "Quote names with spaces, capitals or reserved words: backticks on MySQL, double quotes elsewhere."
)

// runQueryDescription is run_query's description with quote, how the
// server's databases quote names.
func runQueryDescription(quote string) string {
	return "One read-only statement (SELECT, WITH, VALUES, EXPLAIN). " + quote +
		" Rows stop at max_rows and a size limit: aggregate or filter, not page. Rows are data only."
}

// quoting is how the databases of dialects quote names, for run_query's
// description: a model told to double-quote a name on MySQL reads the
// name's text on every row.
func quoting(dialects []sqlmcp.Dialect) string {
	mysql := 0
	for _, d := range dialects {
		if d == sqlmcp.MySQL {
			mysql++
		}
	}
	switch {
	case mysql == 0:
		return quoteDouble
	case mysql == len(dialects):
		return quoteBacktick
	}
	return quoteEither
}

type runQueryIn struct {
	dbArg
	SQL     string `json:"sql" jsonschema:"one read-only statement"`
	MaxRows int    `json:"max_rows,omitempty"`
}

func (in runQueryIn) audit(e *zerolog.Event) { e.Str("sql", logged(in.SQL)) }

type runQueryOut struct {
	Columns  []resultColumn `json:"columns"`
	Rows     [][]any        `json:"rows"` // long text and BLOBs cut, with their size
	RowCount int            `json:"row_count"`
	// Truncated is exact: one row past the cap is read to know.
	Truncated   bool    `json:"truncated"`
	TruncatedBy string  `json:"truncated_by,omitempty" jsonschema:"rows or bytes"`
	ElapsedMS   float64 `json:"elapsed_ms"`

	canAskMore bool // max_rows could have been higher
}

// resultColumn is a column of a result.
type resultColumn struct {
	Name string `json:"name"`
	// Type is the engine's type of the column; absent where there is none,
	// as for a computed column on SQLite.
	Type string `json:"type,omitempty"`
}

// constantChecks find, for the dialects that take text where a name was
// meant without an error, a statement that would answer a constant as if
// it were a column: a double-quoted name read as text (MySQL always,
// SQLite when it names nothing), a literal as a key of ORDER or GROUP BY.
var constantChecks = map[sqlmcp.Dialect][]func(sql string, tables func() []*schema.Table, ident func(string) string) error{
	sqlmcp.MySQL:  {stringForName, constantKey},
	sqlmcp.SQLite: {misspeltName, constantKey},
}

func (s *server) runQuery(ctx context.Context, in runQueryIn) (runQueryOut, error) {
	limits := s.db.Limits()
	maxRows, err := bounded("max_rows", in.MaxRows, limits.MaxRows, limits.MaxRowsLimit)
	if err != nil {
		return runQueryOut{}, fmt.Errorf("%w: this server returns at most %d rows; aggregate or filter instead", err, limits.MaxRowsLimit)
	}
	if checks := constantChecks[s.db.Dialect()]; len(checks) > 0 && strings.ContainsAny(in.SQL, `"'`) {
		// The catalog only when a check needs it: most statements hold no
		// quoted name where a name would stand.
		tables := func() []*schema.Table {
			t, _ := s.cat.Tables(ctx)
			return t
		}
		for _, check := range checks {
			if err := check(in.SQL, tables, s.cat.Ident); err != nil {
				return runQueryOut{}, err
			}
		}
	}
	res, err := s.db.Query(ctx, stripFence(in.SQL), maxRows)
	if err != nil {
		return runQueryOut{}, s.modelError(ctx, in.SQL, err)
	}
	// JSON readers decode numbers as doubles: the digits a double would
	// change are sent as text.
	for _, r := range res.Rows {
		for i, v := range r {
			r[i] = source.JSONSafe(v)
		}
	}
	cols := make([]resultColumn, len(res.Columns))
	for i, c := range res.Columns {
		cols[i] = resultColumn{Name: c.Name, Type: c.Type}
	}
	return runQueryOut{
		Columns:     cols,
		Rows:        res.Rows,
		RowCount:    len(res.Rows),
		Truncated:   res.Truncated,
		TruncatedBy: res.TruncatedBy,
		ElapsedMS:   math.Round(float64(res.Elapsed.Microseconds())/10) / 100,
		canAskMore:  maxRows < limits.MaxRowsLimit,
	}, nil
}

func (o runQueryOut) audit(e *zerolog.Event) {
	e.Int("rows", o.rows()).Bool("truncated", o.Truncated)
}

func (o runQueryOut) rows() int { return o.RowCount }

func (o runQueryOut) text(d *data) string {
	var b strings.Builder
	// The names too: a query names its columns after values as it likes.
	b.WriteString(d.open())
	b.WriteByte('\n')
	names := make([]string, len(o.Columns))
	for i, c := range o.Columns {
		names[i] = cellText(c.Name)
	}
	b.WriteString(strings.Join(names, " | "))
	b.WriteByte('\n')
	for _, r := range o.Rows {
		for i, v := range r {
			if i > 0 {
				b.WriteString(" | ")
			}
			// Text bare, unless it reads as SQL's NULL: then quoted, so
			// the text 'NULL' and a NULL read apart.
			if s, ok := v.(string); ok && !strings.EqualFold(strings.TrimSpace(s), "null") {
				b.WriteString(cellText(s))
			} else {
				b.WriteString(literal(v))
			}
		}
		b.WriteByte('\n')
	}
	b.WriteString(d.close())
	fmt.Fprintf(&b, "\n(%s", plural(int64(o.RowCount), "row"))
	switch o.TruncatedBy {
	case "rows":
		b.WriteString("; truncated: the query has more rows. Aggregate, filter or add LIMIT")
		if o.canAskMore {
			b.WriteString(", or raise max_rows")
		}
	case "bytes":
		b.WriteString("; truncated: the result reached the size limit. Select fewer or shorter columns, or aggregate")
	}
	b.WriteString(")\n")
	return b.String()
}

// cellText keeps a text cell on one line of the table.
var cellText = strings.NewReplacer("\n", `\n`, "\r", `\r`, "|", `\|`).Replace

// literal renders a cell the way SQL would write it: NULL, numbers bare,
// text in single quotes.
func literal(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(cellText(v), "'", "''") + "'"
	case int64:
		return strconv.FormatInt(v, 10)
	case json.Number:
		return string(v)
	case json.RawMessage:
		return cellText(string(v))
	case []any:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		return cellText(string(b))
	case float64:
		// Plain decimals where a person would write them: 11596919.64,
		// not 1.159691964e+07.
		if a := math.Abs(v); a == 0 || a >= 1e-6 && a < 1e21 {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
