package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sqlmcp/sqlmcp/source"
)

// pgLexing is what a connection must say of itself for the server to read
// SQL text as the guard does: pg_query lexes with standard_conforming_strings
// on (a backslash in '...' is a backslash), in UTF-8. Each is a startup
// parameter, which outranks role, database and URL options settings, and is
// reported by the server (ParameterStatus) whenever it changes.
//
// server_encoding is not sent but checked: the server converts the text to
// its own encoding before lexing, and in another encoding it folds and cuts
// names by other bytes than pg_query. backslash_quote is sent but not
// reported: with standard_conforming_strings on it only decides whether the
// server refuses \' inside E'...', never how it reads the text, and
// safe_encoding is the reading pg_query has.
var pgLexing = []struct{ name, value string }{
	{"standard_conforming_strings", "on"},
	{"client_encoding", "UTF8"},
	{"server_encoding", "UTF8"},
}

// pgStartupParams sets the startup parameters that make the server lex as
// the guard does.
func pgStartupParams(cc *pgx.ConnConfig) {
	cc.RuntimeParams["standard_conforming_strings"] = "on"
	cc.RuntimeParams["client_encoding"] = "UTF8"
	cc.RuntimeParams["backslash_quote"] = "safe_encoding"
}

// pgLexesAsGuard reports whether the server, by its own account, reads the
// connection's text as the guard does, or why not. It is a few map
// lookups, cheap enough for every call.
func pgLexesAsGuard(pc *pgconn.PgConn) error {
	for _, p := range pgLexing {
		if got := pc.ParameterStatus(p.name); got != p.value {
			if got == "" {
				got = "not reported"
			}
			return fmt.Errorf("the server reports %s = %s, and sqlmcp's guard reads SQL as PostgreSQL does with %s = %s, "+
				"so the server could run text the guard never saw; %s", p.name, got, p.name, p.value, pgLexingFix(p.name))
		}
	}
	return nil
}

// pgLexingFix says what an operator can do about a setting that is wrong.
func pgLexingFix(name string) string {
	if name == "server_encoding" {
		return "serve a database created with ENCODING 'UTF8'"
	}
	return "sqlmcp asks for it at connection start, so something between sqlmcp and the server " +
		"(a connection pooler that drops startup parameters?) or the server itself overrides it"
}

// pgCheckLexing takes one connection from pool and checks it lexes as the
// guard does, so Open refuses a server that would not.
func pgCheckLexing(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if err := pgLexesAsGuard(conn.Conn().PgConn()); err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	return nil
}

// pgEndCall is execPostgres's last step, whatever happened: it leaves the
// connection as a fresh one or closes it. The pipeline's own ROLLBACK and
// DISCARD ALL are the reset on the happy path (br closes without error);
// otherwise ROLLBACK and DISCARD ALL go out again on a context of their
// own, and a connection they cannot reset is closed. A connection closed
// after its statement was sent may have a backend still running it: its
// pid is tracked until the server shows it gone, and err becomes a
// *pgLeftRunning, unless the server itself ended the session.
func (p *backend) pgEndCall(conn *pgxpool.Conn, br pgx.BatchResults, err error) error {
	pc := conn.Conn().PgConn()
	if br == nil { // nothing was sent: the connection is as it was
		return err
	}
	cerr := br.Close()
	if cerr == nil && pc.TxStatus() == 'I' {
		return err
	}
	// With err nil every row was read, and only the reset is at stake.
	whole := err == nil
	if !pc.IsClosed() {
		rctx, cancel := context.WithTimeout(context.Background(), pgCancelGrace)
		defer cancel()
		if rerr := pgReset(rctx, pc); rerr != nil {
			conn.Conn().Close(rctx)
		}
	}
	if whole {
		if pc.IsClosed() && !pgServerEnded(cerr) {
			p.trackLeft(pc.PID())
		}
		return nil
	}
	if pc.IsClosed() && pgServerEnded(err) {
		return err // the backend is gone: nothing is left running
	}
	if pc.IsClosed() {
		p.trackLeft(pc.PID())
		return &pgLeftRunning{err: err}
	}
	return err
}

// pgReset ends any transaction and discards everything a session can hold
// (advisory locks, LISTEN, prepared statements, cursors, temporary objects,
// session settings, SET ROLE): DISCARD ALL cannot run in a transaction, so
// it follows the ROLLBACK in the same pipeline.
func pgReset(ctx context.Context, pc *pgconn.PgConn) error {
	b := &pgconn.Batch{}
	b.ExecParams("ROLLBACK", nil, nil, nil, nil)
	b.ExecParams("DISCARD ALL", nil, nil, nil, nil)
	if _, err := pc.ExecBatch(ctx, b).ReadAll(); err != nil {
		return err
	}
	if pc.TxStatus() != 'I' {
		return errors.New("the connection is still in a transaction after ROLLBACK")
	}
	return nil
}

// pgLeftRunning marks the error of a call whose connection was closed
// after its statement was sent: the server may still be running it. It
// reads as the error it wraps; run words a timeout or a cancel with it.
type pgLeftRunning struct{ err error }

func (e *pgLeftRunning) Error() string { return e.err.Error() }

func (e *pgLeftRunning) Unwrap() error { return e.err }

// Is makes errors.Is(err, source.ErrLeftRunning) hold.
func (e *pgLeftRunning) Is(target error) bool { return target == source.ErrLeftRunning }

// trackLeft follows the backend pid, whose statement may still run.
func (p *backend) trackLeft(pid uint32) {
	if pid != 0 {
		p.left.Add(uint64(pid))
	}
}

// pgLeftPoll is how often the server is asked whether the backends sqlmcp
// gave up on have ended.
const pgLeftPoll = 250 * time.Millisecond

// pgLeftSQL finds which of the given backends are still at work. One
// waiting for its client's next message is not one of them: a backend
// sqlmcp gave up on runs until it ends, then exits, so a waiting backend
// with that pid is a new one. It reads the statistics functions rather
// than pg_stat_activity, which the guard refuses (it shows every
// session's statement) for sqlmcp's own reads as for the model's.
const pgLeftSQL = `SELECT pg_catalog.pg_stat_get_backend_pid(b) FROM pg_catalog.pg_stat_get_backend_idset() AS b
	WHERE pg_catalog.pg_stat_get_backend_pid(b) = ANY($1)
	AND pg_catalog.pg_stat_get_backend_wait_event(b) IS DISTINCT FROM 'ClientRead'`

// stillRunning reports which of the backends pids the server shows at
// work (source.Left's question).
func (p *backend) stillRunning(pids []uint64) (map[uint64]bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), p.limits.Timeout+pgBackstop)
	defer cancel()
	args := make([]int64, len(pids))
	for i, pid := range pids {
		args[i] = int64(pid)
	}
	rows, err := source.Door(p, p.limits).Catalog(ctx, pgLeftSQL, args)
	if err != nil {
		return nil, err
	}
	running := map[uint64]bool{}
	for _, r := range rows {
		if pid, ok := r[0].(int64); ok {
			running[uint64(pid)] = true
		}
	}
	return running, nil
}
