package duckdb

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlmcp/sqlmcp/source"
)

// Acquire takes the source's worker for one call, starting it when none
// runs.
func (b *backend) Acquire(ctx context.Context) (source.Conn, error) {
	w, err := b.workers.get(ctx)
	if err != nil {
		return nil, &source.ConnError{Reason: "DuckDB: " + err.Error(), Err: err}
	}
	return &conn{w: w, b: b}, nil
}

// conn is a call's share of the worker: DuckDB's connection is the
// worker's, one for each statement, closed after it.
type conn struct {
	w *worker
	b *backend
}

// SerializeSQL is DuckDB's json_serialize_sql, for the guard.
func (c *conn) SerializeSQL(ctx context.Context, sql string) (string, error) {
	r, err := c.w.do(ctx, request{Op: opParse, SQL: sql}, nil, nil)
	return r.Text, err
}

// Run judges st with the guard and has the worker check that DuckDB
// reads it as one query and run it, fetching at most st.Fetch rows: the
// query is wrapped in a LIMIT, since DuckDB's driver materializes a
// result whole. The model's statements are sent no more rows than their
// answer can hold, nor more of a value than it shows.
func (c *conn) Run(ctx context.Context, st source.Statement, sink source.Sink) error {
	text := st.SQL
	gctx, span := source.StartStep(ctx, source.Step{Name: source.StepGuard, Dialect: Engine{}.Dialect(), Own: st.Own})
	err := c.b.guard.Check(gctx, c, text)
	span.End(-1, err)
	if err != nil {
		return err
	}
	if st.Fetch > 0 && !explain(text) {
		text = limited(text, st.Fetch)
	}
	req := request{Op: opRun, SQL: text, Args: st.Args, Cut: st.Cut}
	if !st.Own {
		req.Budget = c.b.limits.MaxBytes + c.b.limits.MaxCellBytes
	}
	return c.run(ctx, req, sink)
}

// run has the worker run req and hands its columns and rows to sink.
func (c *conn) run(ctx context.Context, req request, sink source.Sink) error {
	var columns func([]wireColumn)
	if sink.Columns != nil {
		columns = func(wc []wireColumn) {
			cols := make([]source.Column, len(wc))
			for i, col := range wc {
				cols[i] = source.Column{Name: col.Name, Type: col.Type}
			}
			sink.Columns(cols)
		}
	}
	_, err := c.w.do(ctx, req, columns, func(rows [][]any) bool {
		for _, r := range rows {
			if !sink.Row(r) {
				return false
			}
		}
		return true
	})
	return err
}

// Cancel does nothing more than the call does itself: it asks the worker
// to stop the statement when the call's context ends, and stops the
// worker when that does not.
func (c *conn) Cancel() {}

// Release has nothing to reset: the worker closed the statement's
// connection.
func (c *conn) Release(err error) error { return err }

// explain reports whether text starts with EXPLAIN, after blanks and
// comments.
func explain(text string) bool {
	s := leading(text)
	return len(s) >= 7 && strings.EqualFold(s[:7], "EXPLAIN")
}

// leading drops the blanks and comments text starts with.
func leading(text string) string {
	for {
		text = strings.TrimLeft(text, " \t\r\n\f")
		switch {
		case strings.HasPrefix(text, "--"):
			_, text, _ = strings.Cut(text, "\n")
		case strings.HasPrefix(text, "/*"):
			_, text, _ = strings.Cut(text[2:], "*/")
		default:
			return text
		}
	}
}

// limited wraps a query in a LIMIT of n rows; the newline keeps a
// trailing line comment from swallowing the close, and trailing
// semicolons go.
func limited(sql string, n int) string {
	body := strings.TrimRight(sql, " \t\r\n;")
	return fmt.Sprintf("SELECT * FROM (\n%s\n) AS sqlmcp_q LIMIT %d", body, n)
}

// engineError is DuckDB's error about a statement, in its words, with
// the code callers tell errors apart by (see duckStates).
func engineError(err error) error {
	var de *duckdb.Error
	if !errors.As(err, &de) || de.Type == duckdb.ErrorTypeInterrupt || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	_, msg, ok := strings.Cut(de.Msg, ": ")
	if !ok {
		msg = de.Msg
	}
	// DuckDB quotes the line it choked on, of the text it ran: sqlmcp's
	// LIMIT around the query shifts its lines, so the quote would mislead.
	if i := strings.Index(msg, "\n\nLINE "); i >= 0 {
		msg = msg[:i]
	}
	e := &source.EngineError{Message: strings.TrimSpace(msg), Err: err}
	if de.Type == duckdb.ErrorTypeOutOfMemory || strings.Contains(msg, "Allocation failure") {
		// The first line: the rest suggests settings the model cannot
		// change.
		e.Message = "the query needs more memory than DuckDB may use here (" + firstLine(e.Message) + "): make it cheaper: filter with WHERE, aggregate, add LIMIT, or build smaller values"
		e.Code = source.OutOfMemory
	}
	if de.Type == duckdb.ErrorTypeParser {
		e.Code = source.SyntaxError
	}
	for _, st := range duckStates {
		if m := st.re.FindStringSubmatch(e.Message); m != nil && de.Type == st.typ {
			e.Code, e.Name = st.code, strings.Join(m[1:], ".")
		}
	}
	return e
}

// duckStates are DuckDB's fixed messages for a missing table, column or
// function (DuckDB's messages are not translated), given the SQLSTATE
// PostgreSQL uses for the same; the groups name what is missing.
var duckStates = []struct {
	typ  duckdb.ErrorType
	re   *regexp.Regexp
	code string
}{
	{duckdb.ErrorTypeCatalog, regexp.MustCompile(`^Table with name (.+?) does not exist`), source.UndefinedTable},
	{duckdb.ErrorTypeBinder, regexp.MustCompile(`^Referenced column "(.+?)" not found`), source.UndefinedColumn},
	{duckdb.ErrorTypeBinder, regexp.MustCompile(`^(?:Table|Values list) "(.+?)" does not have a column named "(.+?)"`), source.UndefinedColumn},
	{duckdb.ErrorTypeCatalog, regexp.MustCompile(`^(?:Scalar|Aggregate|Table) Function with name (.+?) does not exist`), source.UndefinedFunction},
}
