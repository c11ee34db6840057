package source

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sqlmcp/sqlmcp/guard"
)

const (
	// pgBackstop is how long after Limits.Timeout the caller's context
	// gives up. statement_timeout stops the work inside PostgreSQL first;
	// the context is for a server that does not answer, and when it fires
	// pgx sends a cancel request before it drops the connection.
	pgBackstop = time.Second
	// pgCancelGrace is how long pgx waits for the server to answer a
	// cancel request before it closes the connection.
	pgCancelGrace = 2 * time.Second
	// pgMaxMessageBytes bounds one protocol message, so one row of the
	// result: SELECT repeat('x', 1e9) fails instead of taking a gigabyte.
	pgMaxMessageBytes = 64 << 20
)

// pgDB is the PostgreSQL side of a DB: the pool, and the catalogs the guard
// and the value conversion read.
type pgDB struct {
	pool *pgxpool.Pool
	// cat is the function and operator volatility the guard judges by;
	// reloadMu lets one caller at a time replace it.
	cat      atomic.Pointer[pgCatalog]
	reloadMu sync.Mutex
	types    pgTypes
	budget   pgBudget
}

// openPostgres opens a pool on the postgres:// or postgresql:// URL dsn,
// checks the server answers and loads the catalogs. Missing parts of the
// URL come from the PG* environment variables, as libpq does.
func openPostgres(ctx context.Context, dsn string, maxConns int, budget pgBudget, d *DB) error {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("reading the PostgreSQL URL: %s", redact(err.Error(), dsn))
	}
	cc := cfg.ConnConfig
	d.name, d.database = pgName(cc.Config), cc.Database
	cfg.MaxConns = int32(maxConns)
	if cc.RuntimeParams == nil {
		cc.RuntimeParams = map[string]string{}
	}
	cc.RuntimeParams["application_name"] = "sqlmcp"
	// Timestamps with time zone come back in UTC, the same on every
	// server whatever its configuration.
	cc.RuntimeParams["TimeZone"] = "UTC"
	budget.startup(cc.RuntimeParams)
	// The extended protocol runs one statement per message: never the
	// simple protocol, which runs every statement in the text. Exec also
	// keeps no server-side prepared statements for ad-hoc SQL.
	cc.DefaultQueryExecMode = pgx.QueryExecModeExec
	cc.StatementCacheCapacity = 0
	cc.DescriptionCacheCapacity = 0
	cc.MaxProtocolMessageBodyLen = pgMaxMessageBytes
	// On a cancelled context, ask the server to stop the statement (the
	// default only closes the socket, and the backend runs on).
	cc.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: pgCancelGrace}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("opening %s: %w", d.name, err)
	}
	d.pg = &pgDB{pool: pool, budget: budget}
	d.pg.cat.Store(bootstrapCatalog)
	d.pg.types.seed()
	ctx, cancel := context.WithTimeout(ctx, d.limits.Timeout+pgBackstop)
	defer cancel()
	// Before any call, which sets temp_file_limit only when it may.
	if err := d.pg.budget.probe(ctx, d.pg); err != nil {
		pool.Close()
		return pgConnectError(d.name, dsn, err)
	}
	if err := d.pg.loadCatalog(ctx, d); err != nil {
		pool.Close()
		return pgConnectError(d.name, dsn, err)
	}
	if err := d.pg.loadTypes(ctx, d); err != nil {
		pool.Close()
		return pgConnectError(d.name, dsn, err)
	}
	return nil
}

// pgName names the database for logs: host, port, database and user,
// never the password.
func pgName(c pgconn.Config) string {
	if strings.HasPrefix(c.Host, "/") {
		return fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d", url.PathEscape(c.User), url.PathEscape(c.Database), c.Host, c.Port)
	}
	host := net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port)))
	return fmt.Sprintf("postgres://%s@%s/%s", url.PathEscape(c.User), host, url.PathEscape(c.Database))
}

// pgConnectError says on one line which server could not be reached and
// why, without the password.
func pgConnectError(name, dsn string, err error) error {
	var ce *pgconn.ConnectError
	msg := err.Error()
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		msg = pe.Message
	case errors.As(err, &ce) && ce.Unwrap() != nil:
		msg = ce.Unwrap().Error()
	}
	// pgx joins one error per address and TLS attempt, often the same.
	var lines []string
	for _, l := range strings.Split(redact(msg, dsn), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" && !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return fmt.Errorf("cannot connect to PostgreSQL %s: %s", name, strings.Join(lines, "; "))
}

// redact removes the password dsn holds, if any, from msg.
func redact(msg, dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	return msg
}

// pgStatement is what runs after the guard: the text the guard judged, and
// how to map the server's error positions back to the caller's SQL.
type pgStatement struct {
	text     string
	position func(int) int
}

// runPostgres is the door for PostgreSQL: the guard judges sql (wrapped in
// a LIMIT of fetch rows when fetch > 0 and sql is not an EXPLAIN), then it
// runs in a read-only transaction. fetch is the most rows to fetch; zero
// means all, for sqlmcp's own catalog reads.
func (db *DB) runPostgres(ctx context.Context, sql string, args []any, fetch int, columns func([]Column), emit func([]any) bool) error {
	st, err := db.pg.check(ctx, db, sql, fetch)
	if err != nil {
		return err
	}
	return db.execPostgres(ctx, st, args, columns, emit)
}

// check runs sql through the guard. When the guard met a function or
// operator the catalog does not know, the catalog is reloaded once and sql
// checked again, so functions created after Open can be judged.
func (p *pgDB) check(ctx context.Context, db *DB, sql string, limit int) (pgStatement, error) {
	for retried := false; ; retried = true {
		cat := p.cat.Load()
		rec := &recordMisses{PostgresCatalog: cat}
		st, err := guardPostgres(sql, limit, rec)
		if err == nil || !rec.missed || retried {
			return st, err
		}
		p.reloadMu.Lock()
		if p.cat.Load() == cat { // nobody reloaded it meanwhile
			if lerr := p.loadCatalog(ctx, db); lerr != nil {
				p.reloadMu.Unlock()
				return st, err // the guard's refusal stands
			}
		}
		p.reloadMu.Unlock()
	}
}

// guardPostgres asks the guard about sql, limited to limit rows when
// limit > 0, or as it stands.
func guardPostgres(sql string, limit int, cat guard.PostgresCatalog) (pgStatement, error) {
	same := func(pos int) int { return pos }
	if limit <= 0 {
		return pgStatement{text: sql, position: same}, guard.CheckPostgres(sql, cat)
	}
	q, err := guard.PostgresLimit(sql, limit, cat)
	if err != nil {
		return pgStatement{}, err
	}
	return pgStatement{text: q.Text, position: q.Position}, nil
}

// recordMisses notes whether the guard asked about a name the catalog
// does not hold.
type recordMisses struct {
	guard.PostgresCatalog
	missed bool
}

func (r *recordMisses) Function(schema, name string) (byte, bool) {
	v, ok := r.PostgresCatalog.Function(schema, name)
	r.missed = r.missed || !ok
	return v, ok
}

func (r *recordMisses) Operator(schema, name string) (byte, bool) {
	v, ok := r.PostgresCatalog.Operator(schema, name)
	r.missed = r.missed || !ok
	return v, ok
}

// pgSetup bounds the transaction, as SET LOCAL would, in one round trip:
// the statement timeout ($1), an idle-in-transaction timeout in case
// sqlmcp itself stalls ($2), and the output formats the value conversion
// reads. The engine's own budgets that may change per server come with
// them (those that never do are startup parameters, pgStartup): at most
// two parallel workers, each of which has work_mem again (fewer if the
// server says so), and temp_file_limit ($3) when the role may set it (""
// skips it).
const pgSetup = `SELECT set_config('statement_timeout', $1, true),
	set_config('idle_in_transaction_session_timeout', $2, true),
	set_config('DateStyle', 'ISO', true),
	set_config('IntervalStyle', 'postgres', true),
	set_config('bytea_output', 'hex', true),
	set_config('extra_float_digits', '1', true),
	set_config('max_parallel_workers_per_gather',
		least(current_setting('max_parallel_workers_per_gather')::int, 2)::text, true),
	CASE WHEN $3::text <> '' THEN set_config('temp_file_limit', $3, true) END`

// execPostgres is the engine wall: st runs in a READ ONLY transaction with
// the timeouts set, on the extended protocol (one statement per message,
// whatever the text holds), and the transaction is rolled back, never
// committed. BEGIN, the settings, the statement and ROLLBACK go out as one
// pipeline, one round trip; a connection left in a transaction (the
// statement failed, so the server skipped the ROLLBACK) is rolled back,
// and one whose rollback fails is closed, so the pool drops it.
func (db *DB) execPostgres(ctx context.Context, st pgStatement, args []any, columns func([]Column), emit func([]any) bool) error {
	conn, err := db.pg.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	defer func() {
		pc := conn.Conn().PgConn()
		if pc.IsClosed() || pc.TxStatus() == 'I' {
			return
		}
		// The caller's context may be done: roll back on one that is not.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pgCancelGrace)
		defer cancel()
		if _, err := pc.Exec(rctx, "ROLLBACK").ReadAll(); err != nil || pc.TxStatus() != 'I' {
			conn.Conn().Close(rctx)
		}
	}()
	// Zero would turn the timeout off: a timeout under 1ms is 1ms.
	ms := strconv.FormatInt(max(db.limits.Timeout.Milliseconds(), 1), 10)
	idle := strconv.FormatInt((db.limits.Timeout + pgBackstop).Milliseconds(), 10)
	b := &pgx.Batch{}
	b.Queue("BEGIN READ ONLY")
	b.Queue(pgSetup, ms, idle, db.pg.budget.tempFileLimit)
	b.Queue(st.text, args...)
	b.Queue("ROLLBACK")
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return err
	}
	if err := pgDiscard(br.Query()); err != nil {
		return err
	}
	rows, err := br.Query()
	if err != nil {
		return pgError(err, st)
	}
	fields := rows.FieldDescriptions()
	types, known := db.pg.types.get(fields)
	if !known {
		// A type sqlmcp has not met (a table's row type, an enum made
		// after Open): read the rows, look the types up once the
		// transaction is over, then convert. pgx reuses the field
		// descriptions for the next statement: copy them.
		fields = append([]pgconn.FieldDescription(nil), fields...)
		var raws [][][]byte
		for rows.Next() {
			raws = append(raws, copyRaw(rows.RawValues()))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return pgError(err, st)
		}
		if err := br.Close(); err != nil {
			return err
		}
		if err := db.pg.lookupTypes(ctx, conn, fields); err != nil {
			return err
		}
		types, _ = db.pg.types.get(fields)
		pgColumns(columns, fields, types)
		for _, raw := range raws {
			if !emit(pgRow(raw, types)) {
				break
			}
		}
		return nil
	}
	pgColumns(columns, fields, types)
	for rows.Next() {
		if !emit(pgRow(rows.RawValues(), types)) {
			break
		}
	}
	rows.Close() // reads the rest of what the LIMIT let through
	if err := rows.Err(); err != nil {
		return pgError(err, st)
	}
	return br.Close()
}

// pgDiscard reads and closes rows, returning their error.
func pgDiscard(rows pgx.Rows, err error) error {
	if err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}

// pgColumns hands the result's columns to columns, when wanted.
func pgColumns(columns func([]Column), fields []pgconn.FieldDescription, types []*pgType) {
	if columns == nil {
		return
	}
	cols := make([]Column, len(fields))
	for i, f := range fields {
		cols[i] = Column{Name: f.Name, Type: types[i].name}
	}
	columns(cols)
}

// pgError turns what PostgreSQL and pgx report into errors a caller can
// act on: a statement timeout becomes a *TimeoutError (by run), a row too
// big to read says so.
func pgError(err error, st pgStatement) error {
	var big *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &big) {
		return fmt.Errorf("a row of the result is %d bytes, more than the %d this server reads; "+
			"select fewer or shorter columns (left(col, 100), length(col))", big.ActualBodyLen, big.MaxExpectedBodyLen)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if berr := pgBudgetError(pe); berr != nil {
			return berr
		}
	}
	if errors.As(err, &pe) && pe.Code != "57014" {
		return &EngineError{Message: pe.Message, Code: pe.Code, Position: st.position(int(pe.Position)),
			Detail: pe.Detail, Hint: pe.Hint, err: err}
	}
	return err
}

// EngineError is an error the database engine reported about a statement,
// in the engine's own words.
type EngineError struct {
	Message  string // "column \"mail\" does not exist"
	Code     string // the SQLSTATE
	Position int    // 1-based character position in the statement; 0 when unknown
	Detail   string
	Hint     string // the engine's own hint
	err      error
}

func (e *EngineError) Error() string { return e.Message + " (SQLSTATE " + e.Code + ")" }

// Unwrap returns the driver's error.
func (e *EngineError) Unwrap() error { return e.err }

// isStatementTimeout reports whether err is PostgreSQL cancelling a
// statement (57014) that sqlmcp did not cancel itself: the statement
// timeout. (Messages are translated, so the code decides, not the text.)
func isStatementTimeout(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "57014"
}

// pgCatalog holds the volatility of every function and operator, the
// strictest of a name's overloads ('i' < 's' < 'v'), for the guard. It is
// read-only once built, so safe for concurrent use.
type pgCatalog struct {
	funcs, ops map[[2]string]byte // schema and name
	// anyFuncs and anyOps answer for a name without a schema: the
	// strictest in any schema, since search_path decides which one runs.
	anyFuncs, anyOps map[string]byte
}

// bootstrapCatalog knows only the operator the catalog reads themselves
// use, so the guard can judge them before the catalog is loaded.
var bootstrapCatalog = newPGCatalog([][]any{{"o", "pg_catalog", "=", "i"}})

func newPGCatalog(rows [][]any) *pgCatalog {
	c := &pgCatalog{funcs: map[[2]string]byte{}, ops: map[[2]string]byte{}, anyFuncs: map[string]byte{}, anyOps: map[string]byte{}}
	for _, r := range rows {
		kind, _ := r[0].(string)
		schema, _ := r[1].(string)
		name, _ := r[2].(string)
		v := firstByte(r[3])
		m, byName := c.funcs, c.anyFuncs
		if kind == "o" {
			m, byName = c.ops, c.anyOps
		}
		key := [2]string{schema, name}
		m[key] = max(m[key], v)
		byName[name] = max(byName[name], v)
	}
	return c
}

// Function reports the strictest volatility of schema.name's overloads;
// schema "" means any schema.
func (c *pgCatalog) Function(schema, name string) (byte, bool) {
	if schema == "" {
		v, ok := c.anyFuncs[name]
		return v, ok
	}
	v, ok := c.funcs[[2]string{schema, name}]
	return v, ok
}

// Operator reports the strictest volatility of the functions behind
// operator schema.name; schema "" means any schema.
func (c *pgCatalog) Operator(schema, name string) (byte, bool) {
	if schema == "" {
		v, ok := c.anyOps[name]
		return v, ok
	}
	v, ok := c.ops[[2]string{schema, name}]
	return v, ok
}

// pgCatalogSQL reads the volatility of every function and of the function
// behind every operator. Overloads are folded in Go, so the statement uses
// no function the guard would need the catalog to judge.
const pgCatalogSQL = `SELECT 'f', n.nspname, p.proname, p.provolatile
FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
UNION ALL
SELECT 'o', n.nspname, o.oprname, p.provolatile
FROM pg_catalog.pg_operator o JOIN pg_catalog.pg_proc p ON p.oid = o.oprcode
	JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace`

// loadCatalog reads the volatility catalog afresh, judged by the bootstrap
// catalog, and puts it in place.
func (p *pgDB) loadCatalog(ctx context.Context, db *DB) error {
	rows, err := db.pgOwnRows(ctx, pgCatalogSQL, bootstrapCatalog)
	if err != nil {
		return fmt.Errorf("reading the function catalog: %w", err)
	}
	p.cat.Store(newPGCatalog(rows))
	return nil
}

// pgOwnRows runs one of sqlmcp's own reads through the guard, judged by
// cat, and returns every row.
func (db *DB) pgOwnRows(ctx context.Context, sql string, cat guard.PostgresCatalog) ([][]any, error) {
	if err := guard.CheckPostgres(sql, cat); err != nil {
		return nil, fmt.Errorf("the guard refused sqlmcp's own query: %w", err)
	}
	var rows [][]any
	err := db.execPostgres(ctx, pgStatement{text: sql, position: func(p int) int { return p }}, nil, nil, func(r []any) bool {
		rows = append(rows, r)
		return true
	})
	return rows, err
}
