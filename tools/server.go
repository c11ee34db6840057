// Package tools is sqlmcp's MCP face: the six tools a model uses to explore
// and query a database, each with typed input and output, a compact text
// rendering, and errors written for the model to act on. NewServer returns
// the *mcp.Server; internal/serve carries it over stdio or HTTP.
//
// tools sits on top: it imports source, schema and guard, and nothing
// imports it but cmd/sqlmcp.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/identity"
	"github.com/sqlmcp/sqlmcp/internal/jsonscan"
	"github.com/sqlmcp/sqlmcp/internal/logline"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/sources"
)

// Options configure NewServer. The zero value, and nil, mean the defaults.
type Options struct {
	// Logger receives one audit event per tool call. Default: no logs.
	Logger zerolog.Logger
	// Version is reported to clients. Default "dev".
	Version string
	// MaxConcurrency is how many tool calls may reach the database at
	// once, counting statements the database did not stop when their
	// timeout came (they hold a turn until they end); the rest wait up to
	// the query timeout, then get a "busy" error. Zero means no limit
	// beyond the connection pool. NewServerSet takes each source's own.
	MaxConcurrency int
	// Audit receives one JSON object per tool call, each in one Write:
	// the tool_call log event's fields, and every field about the caller
	// (package identity) and the database even when empty; never row data
	// or tokens. *audit.File is one. Default: none.
	Audit io.Writer
	// Name is NewServer's database's name, which a call may give as its
	// database argument. Default: none, and a call names no database.
	Name string
	// Rules map a caller's identity (identity.From the call's context, as
	// the HTTP transport proves it) to the databases of NewServerSet it
	// may use and the role it runs as on each: the others are invisible
	// to it, in every answer and error, and a caller no rule matches may
	// use none. None means every caller reaches every database, as does a
	// call without an identity (stdio: the operator's own).
	Rules identity.Rules
	// Observer, when set, is told of every tool call as it starts and
	// ends: the metrics and the call's span. Nil costs nothing.
	Observer Observer
	// Calls, when set, is given the handler of every tool registered, for
	// a transport that answers tools/call without the SDK's dispatch (see
	// Calls).
	Calls *Calls
}

// Calls holds the handlers of a server's tools by name, as registered with
// the SDK, so a transport can call one itself: the handler is the whole
// call (arguments, turn, guard, audit, result) and needs nothing of the
// SDK's session. Filled while the server is made, read-only after.
type Calls struct{ handlers map[string]mcp.ToolHandler }

// Handler returns the handler of the tool named name, or nil.
func (c *Calls) Handler(name string) mcp.ToolHandler {
	if c == nil {
		return nil
	}
	return c.handlers[name]
}

// set records h as the handler of name.
func (c *Calls) set(name string, h mcp.ToolHandler) {
	if c.handlers == nil {
		c.handlers = map[string]mcp.ToolHandler{}
	}
	c.handlers[name] = h
}

// Observer is told of every tool call, as it starts and as it ends, on
// the call's goroutine and with its context (which holds the call's span
// when traces are on). Its methods must be safe for concurrent use, and
// quick: they run on every call.
type Observer interface {
	// CallStarted is called as a call of the named tool starts.
	CallStarted(ctx context.Context, tool string)
	// CallEnded is called as the call ends, with what became of it.
	CallEnded(ctx context.Context, c Call)
}

// Call is what became of one tool call, as an Observer hears it. Its
// strings come from fixed sets (tool names, the configured database names,
// Verdicts), never from what the caller sent, so they can label metrics.
type Call struct {
	Tool string // the tool's name: run_query, list_tables...
	// Database is the configured name of the database the call reached;
	// "" when it reached none (no such database, list_tables listing the
	// databases) or the one database has no name.
	Database string
	Verdict  string // one of Verdicts
	Rows     int    // rows (or tables, columns, values) the result holds
	Bytes    int    // bytes of the result the model receives: its text and structured content
	Duration time.Duration
}

// Verdicts are the verdicts a call may end with, as the audit log and
// Call say them.
var Verdicts = []string{"ok", "refused", "timeout", "not_stopped", "cancelled", "busy", "unavailable", "error"}

// server holds what every tool handler needs: one database's state.
type server struct {
	name  string // the database's configured name; "" for NewServer's without one
	db    *source.DB
	cat   *schema.Catalog
	log   zerolog.Logger
	turns *turns // nil for no limit
}

// NewServer returns an MCP server offering the six tools over db, whose
// schema and column notes cat reads. It is safe for concurrent use: calls
// run at the same time on separate connections.
func NewServer(db *source.DB, cat *schema.Catalog, opts *Options) *mcp.Server {
	if opts == nil {
		opts = &Options{}
	}
	one := newServer(db, cat, opts.Logger, opts.MaxConcurrency)
	one.name = opts.Name
	return newMCP(&router{one: one, name: opts.Name, opts: opts}, opts)
}

// newMCP makes the MCP server whose calls r routes.
func newMCP(r *router, opts *Options) *mcp.Server {
	if opts.Audit != nil {
		r.audit = zerolog.New(opts.Audit)
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	// The SDK's own messages (sessions opening and closing) are noise at
	// info; keep its warnings and errors.
	sdkLog := opts.Logger
	if sdkLog.GetLevel() < zerolog.WarnLevel {
		sdkLog = sdkLog.Level(zerolog.WarnLevel)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "sqlmcp", Title: "sqlmcp: read-only SQL", Version: version},
		&mcp.ServerOptions{
			Instructions: r.instructions(),
			// What a client needs to write SQL, as data: the dialect under
			// experimental.sqlmcp. Logging is the SDK's default, kept.
			//lint:ignore SA1019 the capability the SDK advertises by default, kept as it was
			Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{},
				Experimental: map[string]any{"sqlmcp": r.capability()}},
			// The six tools never change while a server runs: a client
			// may keep the list for a while (2026-07-28's cache hints).
			SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
				if _, ok := req.(*mcp.ListToolsRequest); ok {
					c.TTLMs = int(toolListTTL / time.Millisecond)
				}
			},
			Logger: slog.New(zerolog.NewSlogHandler(sdkLog)),
		})
	add(r, srv, listTablesTool, func(s *server, ctx context.Context, in listTablesIn) (listTablesOut, error) {
		if s == nil {
			return r.listDatabases(ctx)
		}
		return s.listTables(ctx, in)
	})
	add(r, srv, describeTableTool, (*server).describeTable)
	add(r, srv, searchSchemaTool, (*server).searchSchema)
	add(r, srv, sampleValuesTool, (*server).sampleValues)
	add(r, srv, distinctValuesTool, (*server).distinctValues)
	rq := *runQueryTool
	rq.Description = runQueryDescription(quoting(r.dialects()))
	add(r, srv, &rq, (*server).runQuery)
	return srv
}

// instructions are one database's: what it holds (overview, from the
// annotations; "" when they say nothing), its dialect and its limits.
func instructions(dialect sqlmcp.Dialect, l sqlmcp.Limits, overview string) string {
	about := ""
	if overview != "" {
		about = "About this database: " + overview + "\n"
	}
	return about + fmt.Sprintf(`This server gives read-only access to one %s database.
Explore before you query: list_tables, then describe_table for the tables that matter
(columns, keys and what the columns mean), or search_schema to find columns by meaning.
Check real values with sample_values and distinct_values before filtering on them.
Then run_query runs one SELECT. Nothing can change the database: writes are refused.
Every query stops after %s; results are cut at %d rows (ask for up to %d with max_rows)
and %d KiB, and the result says when it was cut.
%s`,
		dialect, l.Timeout, l.MaxRows, l.MaxRowsLimit, l.MaxBytes>>10, dataNote)
}

// toolListTTL is how long a client may keep the tool list.
const toolListTTL = 10 * time.Minute

// readOnly marks every tool as a read-only, repeatable lookup in a closed
// world. The destructive hint means something only for a tool that is not
// read-only (the MCP specification), so it is left out; so are titles,
// which only a client's menus show, to keep the tool list short.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}

// named is a tool's input, which names its database.
type named interface{ database() string }

// audited is what a tool's output tells the audit log.
type audited interface {
	audit(e *zerolog.Event)
	text(d *data) string // what the model reads, database text marked by d
	rows() int           // what the metrics' rows say
}

// add registers a tool whose handler returns its output or an error for the
// model, logging one audit event per call and rendering the output as text.
//
// It uses the SDK's raw registration: the arguments are decoded once, by
// the tool's argSpec, and the output, built from typed structs, is
// marshalled once and not validated against the output schema on every
// call (tests check every golden result against it). The generic
// mcp.AddTool would decode the arguments twice, validate them, and decode
// and validate the output again: most of a trivial call's CPU. r finds the
// database the call names, whose state h is handed (nil for list_tables
// listing the databases).
func add[In named, Out audited](r *router, srv *mcp.Server, t *mcp.Tool, h func(*server, context.Context, In) (Out, error)) {
	tool := *t
	inSchema, spec := inputSchema[In]()
	outSchema := outputSchema[Out]()
	if !r.multi() {
		// One database: the tool list is what it always was.
		delete(inSchema.Properties, "database")
		delete(outSchema.Properties, "databases")
		spec = spec.without("database")
	}
	tool.InputSchema, tool.OutputSchema = inSchema, outSchema
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		growStack()
		start := time.Now()
		obs := r.opts.Observer
		if obs != nil {
			obs.CallStarted(ctx, t.Name)
		}
		ctx, retries := source.CountRetries(ctx)
		var in In
		err := spec.decode(req.Params.Arguments, &in)
		var out Out
		var s *server
		if err == nil {
			s, ctx, err = r.pick(ctx, in.database(), t.Name)
		}
		switch {
		case err == errListDatabases:
			out, err = h(nil, ctx, in)
		case err == nil:
			var release func()
			release, err = s.acquire(ctx, callerOf(ctx, sessionOf(req)))
			if err == nil {
				// The signal that the call has its turn and is running:
				// tests wait on it instead of sleeping.
				s.log.Debug().Str("event", "tool_start").Str("tool", t.Name).Send()
				out, err = h(s, ctx, in)
				release()
			}
		}
		c := call{tool: t.Name, database: in.database(), retries: retries(), in: in, err: err, took: time.Since(start)}
		c.id, _ = identity.From(ctx)
		c.role = source.RoleFrom(ctx)
		if c.database == "" {
			c.database = r.name
		}
		if err != nil {
			r.record(ctx, &c)
			if obs != nil {
				obs.CallEnded(ctx, Call{Tool: t.Name, Database: s.dbName(), Verdict: verdict(err), Bytes: len(err.Error()), Duration: c.took})
			}
			res := &mcp.CallToolResult{}
			if w := (*worded)(nil); errors.As(err, &w) && w.marked != nil {
				res.Content = []mcp.Content{&mcp.TextContent{Text: render(w.marked)}}
			}
			res.SetError(err)
			return res, nil
		}
		structured, err := json.Marshal(out)
		if err != nil {
			if obs != nil {
				obs.CallEnded(ctx, Call{Tool: t.Name, Database: s.dbName(), Verdict: "error", Duration: time.Since(start)})
			}
			return nil, fmt.Errorf("marshaling the output of %s: %w", t.Name, err)
		}
		c.out, c.bytes, c.took = out, len(structured), time.Since(start)
		r.record(ctx, &c)
		text := render(out.text)
		if obs != nil {
			obs.CallEnded(ctx, Call{Tool: t.Name, Database: s.dbName(), Verdict: "ok", Rows: out.rows(), Bytes: len(text) + len(structured), Duration: c.took})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: jsonscan.Compact(structured)}, nil
	}
	srv.AddTool(&tool, handler)
	if r.opts.Calls != nil {
		r.opts.Calls.set(t.Name, handler)
	}
}

// dbName is the configured name of the database s serves, "" for none
// (s nil: the call reached no database).
func (s *server) dbName() string {
	if s == nil {
		return ""
	}
	return s.name
}

// call is what the log and the audit file say of one tool call.
type call struct {
	tool     string
	id       identity.Identity // the zero Identity for an anonymous caller
	database string
	// role is the database role the call ran as (an identity rule's);
	// "" for the connecting role.
	role    string
	retries int
	in      any     // the input, whose audit method adds its fields
	out     audited // nil when the call failed
	err     error
	bytes   int // the structured result's size
	took    time.Duration
}

// record logs c as one tool_call event, and writes it to the audit file
// when there is one. The two carry the same fields; the file has every
// field about the caller and the database even when empty, so that each
// line has one shape. The event goes where the transport gathers the
// request's lines, if it does (package logline).
func (r *router) record(ctx context.Context, c *call) {
	log := logline.Logger(ctx, r.opts.Logger)
	e := log.Info()
	if c.err != nil {
		e = log.Warn()
	}
	c.fields(e.Str("event", "tool_call"), false)
	if r.opts.Audit != nil {
		if c.database == "" && r.set != nil && !r.multi() {
			// The file names the database even where calls need not.
			c.database = r.set.Sources()[0].Config.Name
		}
		c.fields(r.audit.Log().Str("time", time.Now().UTC().Format(time.RFC3339Nano)).Str("event", "tool_call"), true)
	}
}

// fields adds c's fields to e and sends it: all of them with full, else
// the caller's and the database's only when set.
func (c *call) fields(e *zerolog.Event, full bool) {
	if e == nil {
		return
	}
	if full || c.id.Subject != "" {
		e.Str("subject", c.id.Subject)
	}
	if full || c.id.Issuer != "" {
		e.Str("issuer", c.id.Issuer)
	}
	if full || c.id.Fingerprint != "" {
		e.Str("token_fingerprint", c.id.Fingerprint)
	}
	if full || c.database != "" {
		e.Str("database", c.database)
	}
	if full || c.role != "" {
		e.Str("role", c.role)
	}
	e.Str("tool", c.tool)
	if c.retries > 0 {
		e.Int("retries", c.retries)
	}
	if a, ok := c.in.(interface{ audit(*zerolog.Event) }); ok {
		a.audit(e)
	}
	if c.err != nil {
		var ee *source.EngineError
		if errors.As(c.err, &ee) {
			e.Str("sqlstate", ee.Code)
		}
		e.Str("verdict", verdict(c.err)).Str("error", auditError(c.err)).Float64("duration_ms", ms(c.took)).Send()
		return
	}
	c.out.audit(e)
	e.Str("verdict", "ok").Int("bytes", c.bytes).Float64("duration_ms", ms(c.took)).Send()
}

// ms is a duration in milliseconds, for log fields named *_ms.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// verdict classifies an error for the audit log.
func verdict(err error) string {
	var ge *guard.Error
	var te *source.TimeoutError
	switch {
	case errors.As(err, &ge):
		return "refused"
	case errors.As(err, &te) && te.Running:
		return "not_stopped"
	case errors.As(err, &te):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.As(err, new(*BusyError)):
		return "busy"
	case errors.As(err, new(*source.UnavailableError)), errors.As(err, new(*sources.UnavailableError)):
		return "unavailable"
	}
	return "error"
}

// modelError words an error from the door for the model: a refusal says
// what was refused and what to send; an engine error keeps the engine's
// words and adds the closest names when a table or column was not found.
func (s *server) modelError(ctx context.Context, sql string, err error) error {
	var ge *guard.Error
	var te *source.TimeoutError
	var se *guard.SyntaxError
	var ee *source.EngineError
	switch {
	case errors.As(err, &ge) && (ge.MissingFunction != "" || ge.MissingType != ""):
		// Not a refusal the model can argue with: the name is not there.
		return &worded{text: fmt.Sprintf("%s error: %s%s", s.db.Dialect(), ge, dialectHint(s.db.Dialect(), sql, err)), err: err}
	case errors.As(err, &ge):
		return fmt.Errorf("refused: %w", ge)
	case errors.As(err, &te), errors.Is(err, context.Canceled), errors.As(err, new(*source.UnavailableError)):
		return err
	case errors.As(err, &se):
		return &worded{text: fmt.Sprintf("%s error: %s%s. Check the SQL there; %s%s",
			s.db.Dialect(), se.Message, near(sql, se.Position), quoteAdvice(s.db.Dialect()), dialectHint(s.db.Dialect(), sql, err)), err: err}
	case errors.As(err, &ee):
		hints := s.engineHint(ctx, sql, ee) + dialectHint(s.db.Dialect(), sql, err)
		words := func(d *data) string {
			msg, detail := ee.Message, strings.TrimRight(ee.Detail, ".")
			// A data exception (SQLSTATE class 22) quotes the value it
			// choked on, and its detail the text around it: the rows'.
			if d != nil {
				msg = d.mark(msg)
				if detail != "" {
					detail = d.mark(detail)
				}
			}
			msg += near(sql, ee.Position)
			if detail != "" {
				msg += ". " + detail
			}
			if ee.Hint != "" {
				msg += ". Hint: " + strings.TrimRight(ee.Hint, ".")
			}
			return fmt.Sprintf("%s error: %s%s", s.db.Dialect(), msg, hints)
		}
		w := &worded{text: words(nil), err: err}
		if strings.HasPrefix(ee.Code, "22") {
			w.marked = words
		}
		return w
	}
	return &worded{text: fmt.Sprintf("%s error: %s%s", s.db.Dialect(), err.Error(), dialectHint(s.db.Dialect(), sql, err)), err: err}
}

// worded is an error as the model reads it, wrapping the error it words,
// so the audit log can tell what it was. marked, when not nil, words it
// with the database's text in it marked (see data).
type worded struct {
	text   string
	err    error
	marked func(*data) string
}

func (e *worded) Error() string { return e.text }
func (e *worded) Unwrap() error { return e.err }

// auditError is what the audit log says of err: sqlmcp's own words (a
// refusal, which quotes only the SQL the log holds anyway, a timeout, a
// busy server, a cancel) as they are; anything from the engine with its
// values cut, since engines quote the data they choke on.
func auditError(err error) string {
	var w *worded
	if errors.As(err, &w) {
		err = w.err
	}
	var ee *source.EngineError
	switch {
	case errors.As(err, &ee):
		return ee.Redacted()
	case errors.As(err, new(*guard.Error)), errors.As(err, new(*guard.SyntaxError)),
		errors.As(err, new(*source.TimeoutError)), errors.As(err, new(*BusyError)), errors.Is(err, context.Canceled):
		return err.Error()
	}
	return source.RedactValues(err.Error())
}

// near says where in sql a 1-based character position falls.
func near(sql string, pos int) string {
	rs := []rune(sql)
	if pos <= 0 || pos > len(rs)+1 {
		return ""
	}
	end := min(pos-1+20, len(rs))
	return fmt.Sprintf(" (at character %d: %q)", pos, string(rs[pos-1:end]))
}

// engineHint suggests the closest names when the engine says a table or
// column does not exist, judged by the error's code, never its text.
func (s *server) engineHint(ctx context.Context, sql string, ee *source.EngineError) string {
	tables, err := s.cat.Tables(ctx)
	if err != nil {
		return ""
	}
	switch ee.Code {
	case source.UndefinedTable:
		name := ee.Name
		names := make([]string, len(tables))
		for i, t := range tables {
			names[i] = t.Name
		}
		if c := schema.Closest(strings.TrimPrefix(name, "main."), names, 3); len(c) > 0 {
			return ". Tables with similar names: " + strings.Join(c, ", ") + ". Call list_tables to see all"
		}
		return ". Call list_tables to see every table"
	case source.UndefinedColumn:
		name := ee.Name
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		// The columns of the tables the statement names come first.
		named := map[string]bool{}
		for _, w := range schema.Words(sql) {
			named[w] = true
		}
		var mine, others []string
		for _, t := range tables {
			here := named[strings.Join(schema.Words(t.Name), " ")] || strings.Contains(strings.ToLower(sql), strings.ToLower(t.Name))
			for _, c := range t.Columns {
				if len(schema.Closest(name, []string{c.Name}, 1)) == 0 && !(here && strings.Contains(strings.ToLower(name), strings.ToLower(c.Name))) {
					continue
				}
				col := t.Display() + "." + s.ident(c.Name)
				if here {
					mine = append(mine, col)
				} else {
					others = append(others, col)
				}
			}
		}
		close := append(mine, others...)
		if len(close) > 5 {
			close = close[:5]
		}
		if len(close) > 0 {
			if s.db.Dialect() == sqlmcp.MySQL {
				return ". Columns with similar names: " + strings.Join(close, ", ") + ". Quote names with spaces in backticks"
			}
			return ". Columns with similar names: " + strings.Join(close, ", ") + ". Quote names with spaces or capitals in double quotes"
		}
		return ". Call describe_table to see a table's columns"
	case source.SyntaxError:
		if s.db.Dialect() == sqlmcp.MySQL {
			return ". Check the SQL near that point; " + quoteAdvice(sqlmcp.MySQL)
		}
		return ". Check the SQL near that point; quote identifiers that hold spaces, punctuation or reserved words in double quotes"
	}
	return ""
}

// quoteAdvice tells the model how this dialect quotes a name. MySQL and
// MariaDB quote with backticks: the session runs without ANSI_QUOTES, so
// "name" is a string there, and a query that follows advice to use double
// quotes answers the literal on every row instead of failing.
func quoteAdvice(d sqlmcp.Dialect) string {
	if d == sqlmcp.MySQL {
		return "quote identifiers that hold spaces, punctuation or reserved words in backticks (`order`), never double quotes, which make a string"
	}
	return "quote identifiers that hold spaces, punctuation, capitals or reserved words in double quotes"
}

// ident writes a column's name as a query of this dialect may: bare when
// it can be, else quoted as the engine quotes (backticks on MySQL).
func (s *server) ident(name string) string { return s.cat.Ident(name) }

// sessionOf is the call's MCP session, or nil.
func sessionOf(req *mcp.CallToolRequest) interface{ ID() string } {
	if req == nil || req.Session == nil {
		return nil
	}
	return req.Session
}
