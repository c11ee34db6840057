package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
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
	// pgMessageSlack is what a message may hold besides the values the
	// limits let through: the lengths and cut markers of up to 1664
	// columns (PostgreSQL's most), a row description, an error.
	pgMessageSlack = 64 << 10
	// pgConnectTimeout is how long a new connection may take when the URL
	// sets no connect_timeout.
	pgConnectTimeout = 5 * time.Second
)

// pgMessageBound is the largest protocol message sqlmcp reads whole:
// MaxBytes + MaxCellBytes + 64 KiB. A data row longer than that is cut as
// it streams in (see rowCutter) to at most MaxCellBytes of each value and
// MaxBytes + MaxCellBytes of all, so it fits; any other message longer
// than that is an error, and the connection is closed.
func pgMessageBound(l sqlmcp.Limits) int {
	return l.MaxBytes + l.MaxCellBytes + pgMessageSlack
}

// Engine opens PostgreSQL databases by postgres:// and postgresql:// URL.
// Its zero value uses the defaults. It is safe for concurrent use.
type Engine struct {
	// WorkMem is work_mem for every call, written as PostgreSQL writes it
	// ("32MB"). Default DefaultWorkMem.
	WorkMem string
	// TempFileLimit is temp_file_limit for every call ("1GB"), set when
	// the role may (see Warnings); "-1" sets none. Default
	// DefaultTempFileLimit.
	TempFileLimit string
}

// Dialect is sqlmcp.Postgres.
func (*Engine) Dialect() sqlmcp.Dialect { return sqlmcp.Postgres }

// Claims takes postgres:// and postgresql:// URLs.
func (*Engine) Claims(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Forms are the forms of --db a PostgreSQL database takes.
func (*Engine) Forms() []string {
	return []string{"postgres://USER[:PASSWORD]@HOST[:5432]/DATABASE[?sslmode=...] (PostgreSQL; missing parts from PG* variables)"}
}

// Open opens a pool on the URL dsn, checks the server answers as
// PostgreSQL and reads text as the guard does, and loads the catalogs.
// Missing parts of the URL come from the PG* environment variables, as
// libpq does.
func (e *Engine) Open(ctx context.Context, dsn string, cfg source.Config) (source.Backend, error) {
	budget, err := newPGBudget(e.WorkMem, e.TempFileLimit)
	if err != nil {
		return nil, err
	}
	allow := pgAllow{extensions: cfg.AllowExtensions, functions: cfg.AllowFunctions}
	b, err := openPostgres(ctx, dsn, cfg, allow, budget)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// backend is one open PostgreSQL database: the pool, and the catalogs the
// guard and the value conversion read.
type backend struct {
	pool *pgxpool.Pool
	// cat is the function and operator volatility the guard judges by;
	// reloadMu lets one caller at a time replace it.
	cat      atomic.Pointer[pgCatalog]
	reloadMu sync.Mutex
	// stampedAt is when, in Unix nanoseconds, freshen last asked whether
	// the server's catalog changed, or cat was read.
	stampedAt atomic.Int64
	// loaded closes once the function catalog is in cat, or its read
	// failed with loadErr (see catalogFor). The read starts when a
	// statement first needs it (startLoad), on loadConn, taken at Open.
	loaded    chan struct{}
	loadErr   error
	loadOnce  sync.Once
	loadBegun atomic.Bool
	loadConn  *pgxpool.Conn
	loadCtx   context.Context
	allow     pgAllow // what the operator allows beyond the vetted
	types     pgTypes
	// left tracks backends that may still run a statement sqlmcp gave
	// up on.
	left   *source.Left
	budget pgBudget
	sess   atomic.Pointer[pgSession]
	limits sqlmcp.Limits
	info   source.Info
	// dsn is kept to take its password out of errors (pgReason).
	dsn string
	// policy is the table and column policy every statement but sqlmcp's
	// own is judged under (SetPolicy); nil for none.
	policy    atomic.Pointer[pgPolicy]
	policyGen atomic.Uint64
	// origins name the columns of the last reading of the catalog
	// (ReadTables), which policies are resolved against, by the oid and
	// number a result's field descriptions give (checkMasks).
	origins atomic.Pointer[pgOrigins]
}

// pgPolicy is a policy as SetPolicy stored it: gen tells verdicts judged
// under it from those judged under another.
type pgPolicy struct {
	pol guard.PolicyCatalog
	gen uint64
}

// SetPolicy judges every statement that is not sqlmcp's own under pol
// from now on; nil removes the policy. It is safe for concurrent use: a
// statement is judged wholly under the policy before or after the call.
func (p *backend) SetPolicy(pol guard.PolicyCatalog) {
	if pol == nil {
		p.policy.Store(nil)
		return
	}
	p.policy.Store(&pgPolicy{pol: pol, gen: p.policyGen.Add(1)})
}

// openPostgres opens a pool on the postgres:// or postgresql:// URL dsn,
// checks the server answers and loads the catalogs.
func openPostgres(ctx context.Context, dsn string, c source.Config, allow pgAllow, budget pgBudget) (*backend, error) {
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("reading the PostgreSQL URL: %s", redact(err.Error(), dsn))
	}
	cc := pcfg.ConnConfig
	limits := c.Limits
	p := &backend{allow: allow, budget: budget, dsn: dsn, limits: limits}
	p.left = source.NewLeft(pgLeftPoll, p.stillRunning)
	p.sess.Store(&pgSession{})
	p.info = source.Info{Dialect: sqlmcp.Postgres, Name: pgName(cc.Config), Database: cc.Database,
		Backstop: pgBackstop, Retries: pgRetries + c.MaxConns,
		Guard: []string{"postgresql parser (pg_query): one SELECT, safe functions only", "engine: READ ONLY transaction, extended protocol, rolled back"}}
	name := p.info.Name
	pcfg.MaxConns = int32(c.MaxConns)
	// A server that does not answer fails the call, and the next call
	// tries again, rather than hanging it for the whole timeout.
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = pgConnectTimeout
	}
	if cc.RuntimeParams == nil {
		cc.RuntimeParams = map[string]string{}
	}
	cc.RuntimeParams["application_name"] = "sqlmcp"
	// Timestamps with time zone come back in UTC, the same on every
	// server whatever its configuration.
	cc.RuntimeParams["TimeZone"] = "UTC"
	// The server lexes the text as the guard did (session.go), and every
	// setting a call runs under is a startup parameter (pgStartup).
	pgStartupParams(cc)
	pgStartup(cc.RuntimeParams, limits)
	budget.startup(cc.RuntimeParams)
	// What Open learns of the server and the role joins them, for every
	// connection made after it (see decideSession).
	pcfg.BeforeConnect = func(_ context.Context, cc *pgx.ConnConfig) error {
		p.session().apply(cc.RuntimeParams)
		return nil
	}
	// The extended protocol runs one statement per message: never the
	// simple protocol, which runs every statement in the text. Exec also
	// keeps no server-side prepared statements for ad-hoc SQL.
	cc.DefaultQueryExecMode = pgx.QueryExecModeExec
	cc.StatementCacheCapacity = 0
	cc.DescriptionCacheCapacity = 0
	bound := pgMessageBound(limits)
	cc.MaxProtocolMessageBodyLen = bound
	cc.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		return pgproto3.NewFrontend(newRowCutter(r, bound, limits.MaxCellBytes, limits.MaxBytes+limits.MaxCellBytes), w)
	}
	// A peer that is not PostgreSQL is told apart at its first bytes.
	sniffPeer(cc)
	// On a cancelled context, ask the server to stop the statement (the
	// default only closes the socket, and the backend runs on).
	cc.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: pgCancelGrace}
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	p.pool = pool
	p.cat.Store(bootstrapCatalog)
	p.types.seed()
	ctx, cancel := context.WithTimeout(ctx, limits.Timeout+pgBackstop)
	defer cancel()
	if err := pgCheckLexing(ctx, pool); err != nil {
		pool.Close()
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) {
			return nil, pgConnectError(name, dsn, err)
		}
		return nil, fmt.Errorf("PostgreSQL %s: %w", name, err)
	}
	// Before any call: whether the role may set temp_file_limit, and the
	// server's parallel workers, become every connection's own settings.
	// The decision and the types run on the connection the lexing check
	// made, so the start opens no connection the decision then throws
	// away.
	if err := p.decideSession(ctx); err != nil {
		pool.Close()
		return nil, pgConnectError(name, dsn, err)
	}
	// The function catalog, the slowest read of the start, is read once
	// a statement needs it (startLoad): the reads of the start are judged
	// by ownCatalog and do not, so they have the server to themselves,
	// and the read begins when the source settles, after them. The read
	// has its connection before Open returns: a call that holds the
	// pool's last one while it waits for the catalog cannot starve it.
	// It is the one made before the decision, which reads only
	// sqlmcp's own statements and is closed when given back: the pool is
	// reset while it is out, so no call runs without the settings.
	lc, err := p.acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, pgConnectError(name, dsn, err)
	}
	pool.Reset()
	// The connections the schema's reads will run on are made, with the
	// settings, while the types are read.
	connected := p.connectAhead(ctx, min(catalogReadsAtOnce, int(pcfg.MaxConns)-1))
	err = p.loadTypesOn(ctx, lc)
	connected()
	if err == nil && lc.Conn().IsClosed() {
		// The read's reset failed and closed it: the catalog's read takes
		// another.
		lc.Release()
		lc, err = p.acquire(ctx)
	} else if err != nil {
		lc.Release()
	}
	if err != nil {
		pool.Close()
		return nil, pgConnectError(name, dsn, err)
	}
	p.loaded, p.loadConn, p.loadCtx = make(chan struct{}), lc, context.WithoutCancel(ctx)
	if len(allow.extensions)+len(allow.functions) > 0 || pcfg.MaxConns <= 1 {
		// What the operator allowed is checked against the catalog
		// before Open returns, as it always was; and with one
		// connection, the kept one is what the next read needs.
		if err := p.Settle(ctx); err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// startLoad starts reading the function catalog, unless that began
// already or the backend closed.
func (p *backend) startLoad() {
	p.loadOnce.Do(func() {
		p.loadBegun.Store(true)
		lc := p.loadConn
		p.loadConn = nil
		go func() {
			defer close(p.loaded)
			ctx, cancel := context.WithTimeout(p.loadCtx, p.limits.Timeout+pgBackstop)
			defer cancel()
			if err := p.loadCatalogOn(ctx, lc); err != nil {
				p.loadErr = pgConnectError(p.info.Name, p.dsn, err)
				return
			}
			p.loadErr = p.cat.Load().checkAllow(&p.allow)
		}()
	})
}

// Settle reads the function catalog, if no statement started that yet,
// and returns why it could not be read or what it refuses (checkAllow).
func (p *backend) Settle(ctx context.Context) error {
	_, err := p.catalogFor(ctx, false)
	return err
}

// catalogFor is the catalog a statement is judged by: the function
// catalog once read; until then, ownCatalog for one of the reads of the
// start it was made for (startRead: pgStartReads), and for every other
// statement a wait for the read, which it starts if none has.
func (p *backend) catalogFor(ctx context.Context, startRead bool) (*pgCatalog, error) {
	if p.loaded == nil {
		return p.cat.Load(), nil
	}
	if startRead {
		select {
		case <-p.loaded:
		default:
			return ownCatalog, nil
		}
	}
	p.startLoad()
	select {
	case <-p.loaded:
		return p.cat.Load(), p.loadErr
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *backend) Info() source.Info { return p.info }

// PoolStats is pgxpool's count of the pool's connections.
func (p *backend) PoolStats() source.PoolStats {
	s := p.pool.Stat()
	return source.PoolStats{Open: int(s.TotalConns()), InUse: int(s.AcquiredConns()), Max: int(s.MaxConns())}
}

// Close stops polling for statements left running and closes the pool,
// once the function catalog's read, if one started, has ended.
func (p *backend) Close() error {
	p.left.Stop()
	if p.loaded != nil {
		p.loadOnce.Do(func() {
			p.loadConn.Release()
			p.loadConn, p.loadErr = nil, errors.New("the database was closed before its function catalog was read")
			close(p.loaded)
		})
		<-p.loaded
	}
	p.pool.Close()
	return nil
}

// Quote double-quotes an identifier.
func (p *backend) Quote(name string) string { return quoteIdent(name) }

// Ready runs SELECT 1 through the door.
func (p *backend) Ready(ctx context.Context) error {
	_, err := source.Door(p, p.limits).Catalog(ctx, "SELECT 1")
	return err
}

// LeftRunning counts the backends whose connection sqlmcp closed while
// they may still run a statement.
func (p *backend) LeftRunning() (int, <-chan struct{}) { return p.left.Count() }

// Warnings says when temp_file_limit cannot be set per call and the
// server's own does not bound the disk.
func (p *backend) Warnings() []source.Warning {
	if p.budget.warning == "" {
		return nil
	}
	return []source.Warning{{Event: "budget", Message: p.budget.warning}}
}

// SchemaVersion: PostgreSQL has no cheap schema version.
func (p *backend) SchemaVersion(context.Context, source.Reader) (int64, bool, error) {
	return 0, false, nil
}

// DataStamp: PostgreSQL has no cheap data version; counts are kept for
// the schema's reading.
func (p *backend) DataStamp() any { return nil }

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
	return fmt.Errorf("cannot connect to PostgreSQL %s: %s", name, pgReason(dsn, err))
}

// pgReason says on one line why a connection failed, as the server or the
// network said it, without the password dsn holds.
func pgReason(dsn string, err error) string {
	var ce *pgconn.ConnectError
	msg := err.Error()
	var pe *pgconn.PgError
	var np *errNotPostgres
	switch {
	case errors.As(err, &np):
		return np.msg // the same for every address and TLS attempt
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
	return strings.Join(lines, "; ")
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
	sql      string // the caller's text, which positions point into
	position func(int) int
	// cut is the cell limit values are converted under (see pgRow); zero
	// for sqlmcp's own reads, whose values are whole.
	cut int
	// own marks sqlmcp's own read of the catalogs, whose cost is known: it
	// runs with 16MB of work_mem and without the per-call temp_file_limit,
	// so a small --pg-work-mem and a small disk limit cannot stop sqlmcp
	// from starting.
	own bool
	// masked are the result columns that carry masked values, under a
	// policy; shared by every use of a remembered verdict, so read-only.
	masked []guard.MaskedColumn
	// width is the number of result columns the guard counted, under a
	// policy (checkMasks).
	width int
	// role is the role the statement runs as (source.Statement.Role); ""
	// for the connecting one.
	role string
	// policed marks the model's statement under a policy: it runs
	// without index scans and index-only scans, whose rows would come in
	// the order of an index that may hold a hidden column (CREATE INDEX ON
	// t (salary, name) answers SELECT name FROM t in salary order, and ON
	// t (dept, salary) answers SELECT id FROM t WHERE dept >= 1 ORDER BY
	// dept LIMIT 10 in salary order within each dept). Bitmap scans, which
	// return rows in the table's order, remain for lookups.
	policed bool
}

// Acquire takes a pooled connection and checks it still lexes as the
// guard does.
func (p *backend) Acquire(ctx context.Context) (source.Conn, error) {
	c, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{p: p, c: c}, nil
}

func (p *backend) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	if p.loaded != nil && !p.loadBegun.Load() {
		// The connection kept for the function catalog is the pool's
		// last: read the catalog now, which gives it back, rather than
		// wait for a statement that needs the catalog to start the read.
		if s := p.pool.Stat(); s.IdleConns() == 0 && s.TotalConns() >= s.MaxConns() {
			p.startLoad()
		}
	}
	c, err := p.pool.Acquire(ctx)
	if err != nil {
		return nil, p.classify(err)
	}
	if err := pgLexesAsGuard(c.Conn().PgConn()); err != nil {
		c.Conn().Close(ctx)
		c.Release()
		return nil, fmt.Errorf("refusing the call: %w", err)
	}
	return c, nil
}

// conn is one pooled connection, held for one call.
type conn struct {
	p  *backend
	c  *pgxpool.Conn
	br pgx.BatchResults // what Run sent, for Release
}

// Run judges st with the guard (the text wrapped in a LIMIT of st.Fetch
// rows when st.Fetch > 0 and it is not an EXPLAIN), then runs it in a
// read-only transaction (see exec).
func (c *conn) Run(ctx context.Context, st source.Statement, sink source.Sink) error {
	gctx, span := source.StartStep(ctx, source.Step{Name: source.StepGuard, Dialect: sqlmcp.Postgres, Own: st.Own})
	c.p.freshen(gctx, c.c)
	ps, err := c.p.check(gctx, c.c, st.SQL, st.Fetch, st.Own || st.Builtin, st.Own && pgStartReads[st.SQL])
	span.End(-1, err)
	if err != nil {
		return err
	}
	ps.cut, ps.own, ps.role = st.Cut, st.Own, st.Role
	ps.policed = !st.Own && !st.Builtin && c.p.policy.Load() != nil
	c.br, err = c.p.exec(ctx, c.c, ps, st.Args, sink.Columns, sink.Row)
	return err
}

// Cancel does nothing more than pgx does: when the call's context ends,
// pgx sends the server a cancel request, and closes the connection if the
// server does not stop within pgCancelGrace.
func (c *conn) Cancel() {}

// Release resets the connection (see pgEndCall) and hands it back, with
// the call's error classified.
func (c *conn) Release(err error) error {
	err = c.p.pgEndCall(c.c, c.br, err)
	c.c.Release()
	return c.p.classify(err)
}

// classify turns a statement timeout into a *source.TimeoutError and an
// error of the connection or the server into a *source.ConnError.
func (p *backend) classify(err error) error {
	switch {
	case err == nil:
		return nil
	case isStatementTimeout(err):
		return &source.TimeoutError{Timeout: p.limits.Timeout}
	case pgRetryable(err):
		return &source.ConnError{Unreachable: pgUnreachable(err), Reason: pgReason(p.dsn, err), Err: err}
	}
	return err
}

// check runs sql through the guard, under the policy unless it is
// sqlmcp's own. When the guard met a function or operator the catalog does
// not know, the catalog is reloaded once and sql checked again, so
// functions created after Open can be judged.
//
// c, when not nil, is the call's connection, which a reload reads on: the
// pool may have no other to give (--max-conns 1).
func (p *backend) check(ctx context.Context, c *pgxpool.Conn, sql string, limit int, own, startRead bool) (pgStatement, error) {
	var pol guard.PolicyCatalog
	var gen uint64 // 0: judged under no policy
	if pp := p.policy.Load(); pp != nil && !own {
		pol, gen = pp.pol, pp.gen
	}
	for retried := false; ; retried = true {
		cat, err := p.catalogFor(ctx, startRead)
		if err != nil {
			return pgStatement{}, err
		}
		if cat.unseen != nil && !own {
			return pgStatement{}, cat.unseen
		}
		if st, ok := cat.verdicts.get(sql, limit, gen); ok {
			return st, nil
		}
		rec := &recordMisses{PostgresCatalog: cat}
		st, err := guardPostgres(sql, limit, rec, pol)
		if err == nil {
			cat.verdicts.put(sql, limit, gen, st)
		}
		if err == nil || !rec.missed || retried {
			return st, err
		}
		if cat == ownCatalog {
			// A name ownCatalog lacks: judge again by the function
			// catalog, once read.
			if _, err := p.catalogFor(ctx, false); err != nil {
				return pgStatement{}, err
			}
			continue
		}
		p.reloadMu.Lock()
		if p.cat.Load() == cat { // nobody reloaded it meanwhile
			var lerr error
			if c != nil {
				lerr = p.loadCatalogKeep(ctx, c)
			} else {
				lerr = p.loadCatalog(ctx)
			}
			if lerr != nil {
				p.reloadMu.Unlock()
				return st, err // the guard's refusal stands
			}
		}
		p.reloadMu.Unlock()
	}
}

// guardPostgres asks the guard about sql under pol (nil: no policy),
// limited to limit rows when limit > 0, or as it stands.
func guardPostgres(sql string, limit int, cat guard.PostgresCatalog, pol guard.PolicyCatalog) (pgStatement, error) {
	q, err := guard.PostgresPolicyLimit(sql, limit, cat, pol)
	if err != nil {
		return pgStatement{}, err
	}
	return pgStatement{text: q.Text, sql: sql, position: q.Position, masked: q.Masked, width: q.Width}, nil
}

// pgOwnSetup gives sqlmcp's own catalog reads, whose cost is known,
// enough work_mem to keep them in memory, and lifts temp_file_limit when
// sqlmcp set it (the role may, then): a small --pg-work-mem and a small
// disk limit cannot stop sqlmcp from starting.
const (
	pgSnapshot      = `SELECT`
	pgRole          = `SELECT set_config('role', $1, true)`
	pgPoliced       = `, set_config('enable_indexonlyscan', 'off', true), set_config('enable_indexscan', 'off', true)`
	pgOwnSetup      = `SELECT set_config('work_mem', '16MB', true)`
	pgOwnSetupNoTmp = `SELECT set_config('work_mem', '16MB', true), set_config('temp_file_limit', '-1', true)`
)

// exec is the engine wall: st runs in a READ ONLY transaction, on the
// extended protocol (one statement per message, whatever the text holds),
// and the transaction is rolled back, never committed. The timeouts, the
// output formats and the budgets are the connection's startup parameters
// (pgStartup), set once per connection, so a call sends no settings of its
// own: BEGIN, the statement, ROLLBACK and DISCARD ALL go out as one
// pipeline, one round trip, and the server runs no statement but the
// call's beside them; a connection left in a transaction (the
// statement failed, so the server skipped the ROLLBACK) is rolled back,
// and one whose rollback fails is closed, so the pool drops it. DISCARD ALL
// follows the ROLLBACK in the pipeline, so nothing the statement did to the
// session outlives the call (pgEndCall redoes both when the statement
// failed). A connection whose server no longer reads text as the guard
// does is refused and closed.
func (p *backend) exec(ctx context.Context, conn *pgxpool.Conn, st pgStatement, args []any, columns func([]source.Column), emit func([]any) bool) (br pgx.BatchResults, err error) {
	b := &pgx.Batch{}
	b.Queue("BEGIN READ ONLY")
	// A first query takes the transaction's snapshot: from then on it can
	// no longer be made read-write (SET TRANSACTION READ WRITE fails with
	// 25001), whatever the statement holds. A SELECT takes its own.
	setup := true
	switch {
	case st.role != "" && st.policed:
		b.Queue(pgRole+pgPoliced, st.role)
	case st.role != "":
		// SET LOCAL ROLE, as a function so the name needs no quoting: the
		// server checks that the connecting role may become it, and the
		// ROLLBACK and DISCARD ALL below undo it.
		b.Queue(pgRole, st.role)
	case st.policed:
		b.Queue(pgSnapshot + pgPoliced[1:])
	case !st.own && pgSelects(st.text):
		setup = false
	case !st.own:
		b.Queue(pgSnapshot)
	case p.session().tempFileLimit:
		b.Queue(pgOwnSetupNoTmp)
	default:
		b.Queue(pgOwnSetup)
	}
	b.Queue(st.text, args...)
	b.Queue("ROLLBACK")
	b.Queue("DISCARD ALL")
	br = conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		return br, err
	}
	if setup {
		if err := pgDiscard(br.Query()); err != nil {
			return br, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return br, pgError(err, st)
	}
	fields := rows.FieldDescriptions()
	if st.policed {
		if err := p.checkMasks(fields, st.masked, st.width); err != nil {
			return br, err
		}
	}
	types, known := p.types.get(fields)
	if !known {
		// A type sqlmcp has not met (a table's row type, an enum made
		// after Open): look it up before any row is read, on another
		// connection, since this one is busy with the rows. pgx reuses
		// the field descriptions for the next statement: copy them.
		fields = append([]pgconn.FieldDescription(nil), fields...)
		if p.lookupElsewhere(ctx, fields) == nil {
			types, known = p.types.get(fields)
		}
	}
	if known {
		pgColumns(columns, fields, types, st.masked)
	}
	// Rows come converted one at a time and handed on; none is kept here,
	// and with st.cut set no value is converted past its cut.
	for rows.Next() {
		if !emit(pgRow(rows.RawValues(), types, st.cut)) {
			break
		}
	}
	rows.Close() // reads the rest of what the LIMIT let through
	if err := rows.Err(); err != nil {
		return br, pgError(err, st)
	}
	if err := br.Close(); err != nil {
		// Every row was read: what failed is the pipeline's ROLLBACK or
		// DISCARD ALL, the reset, which pgEndCall redoes or gives up by
		// closing the connection. The result stands.
		return br, nil
	}
	if !known {
		// No connection to spare: the unknown types were read as text.
		// Look them up now, to name the columns and for the next time.
		if err := p.lookupTypes(ctx, conn, fields); err != nil {
			return br, err
		}
		types, _ = p.types.get(fields)
		pgColumns(columns, fields, types, st.masked)
	}
	return br, nil
}

// pgSelects says whether the server takes the transaction's snapshot for
// text before it runs any of it: text is one SELECT, since the extended
// protocol refuses two commands in one message and no other command
// begins with the keyword, and PostgreSQL parses, plans and runs a SELECT
// under a snapshot (SELECT ... INTO, which would create a table, fails
// in the READ ONLY transaction). Nothing in it can then make the
// transaction read-write (25001), and it needs no query of exec's before
// it to take the snapshot. A limited query's text, in its wrapper, is
// one.
func pgSelects(text string) bool { return strings.HasPrefix(text, "SELECT ") }

// pgDiscard reads and closes rows, returning their error.
func pgDiscard(rows pgx.Rows, err error) error {
	if err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}

// pgColumns hands the result's columns to columns, when wanted, with the
// masked ones marked.
func pgColumns(columns func([]source.Column), fields []pgconn.FieldDescription, types []*pgType, masked []guard.MaskedColumn) {
	if columns == nil {
		return
	}
	cols := make([]source.Column, len(fields))
	for i, f := range fields {
		cols[i] = source.Column{Name: f.Name, Type: types[i].name}
	}
	for _, m := range masked {
		if m.Position >= 0 && m.Position < len(cols) {
			m := m
			cols[m.Position].Mask = &m
		}
	}
	columns(cols)
}

// pgError turns what PostgreSQL and pgx report into errors a caller can
// act on: a statement timeout becomes a *TimeoutError (by run), a row too
// big to read says so.
func pgError(err error, st pgStatement) error {
	var big *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &big) {
		return fmt.Errorf("the server sent a message of %d bytes, more than the %d sqlmcp reads (set by --max-bytes "+
			"and --max-cell-bytes); select fewer or shorter values (left(col, 100), length(col))", big.ActualBodyLen, big.MaxExpectedBodyLen)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if berr := pgBudgetError(pe); berr != nil {
			return berr
		}
	}
	if errors.As(err, &pe) && pe.Code != "57014" {
		e := &source.EngineError{Message: pe.Message, Code: pe.Code, Position: st.position(int(pe.Position)),
			Detail: pe.Detail, Hint: pe.Hint, Err: err,
			// The error arose in a context of its own: a function's body
			// (a RAISE's message is whatever it was given) or the like.
			Raised: pe.Where != ""}
		switch e.Code {
		case source.UndefinedTable, source.UndefinedColumn, source.UndefinedFunction:
			// The server points at the name; its message, which may be
			// translated, is not read.
			e.Name = identAt(st.sql, e.Position)
		}
		return e
	}
	return err
}

// isStatementTimeout reports whether err is PostgreSQL cancelling a
// statement (57014) that sqlmcp did not cancel itself: the statement
// timeout. (Messages are translated, so the code decides, not the text.)
func isStatementTimeout(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "57014"
}

// ownRows runs one of sqlmcp's own reads through the guard, judged by
// cat, on a connection of its own, and returns every row.
func (p *backend) ownRows(ctx context.Context, sql string, cat guard.PostgresCatalog) ([][]any, error) {
	c, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	return p.ownRowsOn(ctx, c, sql, cat)
}

// ownRowsOn is ownRows on the connection c, which it releases.
func (p *backend) ownRowsOn(ctx context.Context, c *pgxpool.Conn, sql string, cat guard.PostgresCatalog) ([][]any, error) {
	rows, err := p.ownRowsKeep(ctx, c, sql, cat)
	c.Release()
	return rows, err
}

// ownRowsKeep is ownRowsOn without the release: c stays the caller's.
func (p *backend) ownRowsKeep(ctx context.Context, c *pgxpool.Conn, sql string, cat guard.PostgresCatalog) ([][]any, error) {
	if err := guard.CheckPostgres(sql, cat); err != nil {
		return nil, fmt.Errorf("the guard refused sqlmcp's own query: %w", err)
	}
	var rows [][]any
	br, err := p.exec(ctx, c, pgStatement{text: sql, sql: sql, position: func(p int) int { return p }, own: true}, nil, nil, func(r []any) bool {
		rows = append(rows, r)
		return true
	})
	return rows, p.pgEndCall(c, br, err)
}

// connectAhead makes up to n new connections at once and gives them to
// the pool, idle; the returned func waits for them. One that fails is not
// an error here: the call that needs a connection makes its own, and
// reports why it could not.
func (p *backend) connectAhead(ctx context.Context, n int) (wait func()) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if c, err := p.pool.Acquire(ctx); err == nil {
				c.Release()
			}
		})
	}
	return wg.Wait
}

// identAt reads the name, possibly qualified (a.b, "A"."b c"), that starts
// at the 1-based character position pos of sql, as PostgreSQL reads it:
// bare parts folded to lower case, quoted ones as written. It returns ""
// when no name starts there.
func identAt(sql string, pos int) string {
	i := 0
	for n := 1; n < pos && i < len(sql); n++ {
		_, size := utf8.DecodeRuneInString(sql[i:])
		i += size
	}
	if pos <= 0 || i >= len(sql) {
		return ""
	}
	var parts []string
	for {
		part, next, ok := identPart(sql, i)
		if !ok {
			break
		}
		parts = append(parts, part)
		if next >= len(sql) || sql[next] != '.' {
			break
		}
		i = next + 1
	}
	return strings.Join(parts, ".")
}

// identPart reads one bare or double-quoted identifier at sql[i:].
func identPart(sql string, i int) (name string, next int, ok bool) {
	if i < len(sql) && sql[i] == '"' {
		var b strings.Builder
		for j := i + 1; j < len(sql); j++ {
			switch {
			case sql[j] != '"':
				b.WriteByte(sql[j])
			case j+1 < len(sql) && sql[j+1] == '"':
				b.WriteByte('"')
				j++
			default:
				return b.String(), j + 1, true
			}
		}
		return "", i, false
	}
	j := i
	for j < len(sql) {
		c := sql[j]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || j > i && (c >= '0' && c <= '9' || c == '$') {
			j++
			continue
		}
		break
	}
	if j == i {
		return "", i, false
	}
	// PostgreSQL folds ASCII letters only.
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, sql[i:j]), j, true
}
