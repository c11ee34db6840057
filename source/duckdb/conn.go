package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlmcp/sqlmcp/source"
)

// Acquire takes a connection of the instance for one call.
func (b *backend) Acquire(ctx context.Context) (source.Conn, error) {
	c, err := b.sb.db.Conn(ctx)
	if err != nil {
		return nil, &source.ConnError{Reason: "DuckDB: " + err.Error(), Err: err}
	}
	return &conn{c: c, b: b}, nil
}

// conn is one DuckDB connection, held for a call.
type conn struct {
	c *sql.Conn
	b *backend
	// gaveUp marks a call whose statement DuckDB did not stop when asked:
	// its connection is closed when the statement ends, not at Release.
	gaveUp bool
}

// SerializeSQL is DuckDB's json_serialize_sql, for the guard.
func (c *conn) SerializeSQL(ctx context.Context, sql string) (string, error) {
	var out string
	err := c.c.QueryRowContext(ctx, "SELECT CAST(json_serialize_sql(CAST(? AS VARCHAR)) AS VARCHAR)", sql).Scan(&out)
	if err != nil {
		return "", fmt.Errorf("parsing with DuckDB: %w", err)
	}
	return out, nil
}

// Run judges st with the guard, prepares it, checks that DuckDB reads it
// as a query, and runs it, fetching at most st.Fetch rows: the query is
// wrapped in a LIMIT, since DuckDB's driver materializes a result whole.
// The driver interrupts DuckDB when ctx ends.
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
	return c.runOrGiveUp(ctx, text, st.Args, sink)
}

// run checks, with DuckDB's parser and binder and none of the guard's
// judgement, that text is one query, and hands its rows to sink. The
// check comes first because the driver runs every statement of a text
// but the last while preparing it.
func (c *conn) run(ctx context.Context, text string, args []any, sink source.Sink) error {
	if err := c.oneQuery(ctx, text); err != nil {
		return err
	}
	return c.c.Raw(func(dc any) error {
		dconn, ok := dc.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("not a DuckDB connection: %T", dc)
		}
		ps, err := dconn.PrepareContext(ctx, text)
		if err != nil {
			return engineError(err)
		}
		defer ps.Close()
		stmt := ps.(*duckdb.Stmt)
		typ, err := stmt.StatementType()
		if err != nil {
			return err
		}
		if typ != duckdb.STATEMENT_TYPE_SELECT && typ != duckdb.STATEMENT_TYPE_EXPLAIN {
			return errNotQuery
		}
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := stmt.QueryContext(ctx, named)
		if err != nil {
			return engineError(err)
		}
		defer rows.Close()
		names := rows.Columns()
		cols := make([]source.Column, len(names))
		typed, _ := rows.(driver.RowsColumnTypeDatabaseTypeName)
		for i, n := range names {
			cols[i].Name = n
			if typed != nil {
				cols[i].Type = typed.ColumnTypeDatabaseTypeName(i)
			}
		}
		if sink.Columns != nil {
			sink.Columns(cols)
		}
		dest := make([]driver.Value, len(names))
		for {
			if err := rows.Next(dest); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return engineError(err)
			}
			// A row of its own each time: the door may keep it.
			row := make([]any, len(names))
			for i, v := range dest {
				row[i] = columnCell(cols[i].Type, v)
			}
			if !sink.Row(row) {
				return nil
			}
		}
	})
}

// oneQuery reports whether DuckDB's parser reads text as exactly one
// SELECT, or EXPLAIN of one: json_serialize_sql serializes SELECT
// statements only, and fails on any other.
func (c *conn) oneQuery(ctx context.Context, text string) error {
	if explain(text) {
		text = leading(text)[len("EXPLAIN"):]
	}
	out, err := c.SerializeSQL(ctx, text)
	if err != nil {
		return err
	}
	var res struct {
		Error      bool              `json:"error"`
		Statements []json.RawMessage `json:"statements"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return fmt.Errorf("reading DuckDB's parse tree: %w", err)
	}
	if res.Error || len(res.Statements) != 1 {
		return errNotQuery
	}
	return nil
}

// Cancel does nothing more than the driver does: it interrupts DuckDB
// when the call's context ends.
func (c *conn) Cancel() {}

// Release closes the connection, so nothing of the call (a temporary
// object, a variable) outlives it: a DuckDB connection costs microseconds
// to make.
func (c *conn) Release(err error) error {
	if !c.gaveUp { // else closed when the statement ends (runOrGiveUp)
		c.close()
	}
	return err
}

// close closes c's connection for good.
func (c *conn) close() {
	c.c.Raw(func(any) error { return driver.ErrBadConn })
	c.c.Close()
}

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
