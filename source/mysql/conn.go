//go:build !nomysql

package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
)

// Acquire takes a pooled connection and asks the server which one it is,
// setting up its session the first time the server's id is met: read-only,
// lexing as the guard does, UTC, and the time limit. (The server's id, not
// the driver's connection value, names a session: a value the pool let go
// may be reused for another connection.)
func (b *backend) Acquire(ctx context.Context) (source.Conn, error) {
	c, err := b.db.Conn(ctx)
	if err != nil {
		return nil, b.classify(err)
	}
	var id uint64
	if err := c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		discard(c)
		return nil, b.classify(err)
	}
	b.mu.Lock()
	s := b.sessions[id]
	b.mu.Unlock()
	if s == nil {
		if s, err = b.setup(ctx, c, id); err != nil {
			discard(c)
			return nil, b.classify(err)
		}
		b.mu.Lock()
		b.sessions[id] = s
		b.mu.Unlock()
	}
	return &conn{b: b, c: c, s: s}, nil
}

// setup makes a new connection's session what every call runs in: READ
// ONLY transactions by default, ANSI_QUOTES and NO_BACKSLASH_ESCAPES off
// (and the modes that imply them) and the text read as UTF-8, so the
// server splits text into the tokens the guard read, time stamps in UTC,
// and the server's own time limit on every statement.
//
// The character set the client asked for in the handshake is not enough:
// a server started with skip-character-set-client-handshake uses its own
// (character_set_server), and init_connect, which the server runs for
// every account without SUPER, can SET NAMES. In GBK, SJIS, Big5 and
// their kin a backslash can be the second byte of a character: the UTF-8
// text '中\' ends a string there that the guard reads as going on
// ('中' is E4 B8 AD, and AD 5C is one GBK character), so whatever the
// guard took for the rest of a string would run as SQL.
func (b *backend) setup(ctx context.Context, c *sql.Conn, id uint64) (*session, error) {
	var mode string
	if err := c.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode").Scan(&mode); err != nil {
		return nil, err
	}
	var keep []string
	for _, m := range strings.Split(mode, ",") {
		switch m {
		case "", "ANSI_QUOTES", "NO_BACKSLASH_ESCAPES", "ANSI", "ORACLE", "MSSQL", "DB2", "POSTGRESQL", "MAXDB":
		default:
			if strings.Trim(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != "" {
				return nil, fmt.Errorf("the server's sql_mode holds %q, which sqlmcp does not know", m)
			}
			keep = append(keep, m)
		}
	}
	limit := fmt.Sprintf("SESSION max_execution_time = %d", b.limits.Timeout.Milliseconds())
	if b.mariaDB {
		limit = fmt.Sprintf("SESSION max_statement_time = %.3f, SESSION tmp_disk_table_size = %d", b.limits.Timeout.Seconds(), b.tempTable)
	}
	for _, q := range []string{
		"SET SESSION TRANSACTION READ ONLY",
		"SET NAMES utf8mb4 COLLATE utf8mb4_general_ci, SESSION sql_mode = '" + strings.Join(keep, ",") +
			"', SESSION time_zone = '+00:00', " + limit,
	} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			return nil, err
		}
	}
	var client, conn string
	if err := c.QueryRowContext(ctx, "SELECT @@character_set_client, @@character_set_connection").Scan(&client, &conn); err != nil {
		return nil, err
	}
	if client != "utf8mb4" || conn != "utf8mb4" {
		return nil, fmt.Errorf("the session reads text as %s, not UTF-8, after SET NAMES utf8mb4", client)
	}
	return &session{id: id}, nil
}

// discard closes a connection instead of handing it back.
func discard(c *sql.Conn) {
	_ = c.Raw(func(any) error { return driver.ErrBadConn })
	c.Close()
}

// conn is one connection, held for one call.
type conn struct {
	b         *backend
	c         *sql.Conn
	s         *session
	inTx      bool
	cancelled atomic.Bool
	ctxEnded  bool       // Run ended with its context
	killed    chan error // the KILL QUERY's outcome, once Cancel sent one
}

// Run judges st with the guard (the outermost LIMIT at most st.Fetch),
// then runs it inside START TRANSACTION READ ONLY.
func (c *conn) Run(ctx context.Context, st source.Statement, sink source.Sink) (err error) {
	defer func() {
		// The caller's stop can lose the race with the driver's own
		// (context.AfterFunc's stop may run first): Release kills then.
		c.ctxEnded = err != nil && ctx.Err() != nil
	}()
	_, span := source.StartStep(ctx, source.Step{Name: source.StepGuard, Dialect: Engine{}.Dialect(), Own: st.Own})
	q, err := guard.MySQLLimit(st.SQL, st.Fetch, c.b.catalogFor(ctx, st.Own))
	span.End(-1, err)
	if err != nil {
		return err
	}
	if _, err := c.c.ExecContext(ctx, "START TRANSACTION READ ONLY"); err != nil {
		return c.b.classify(err)
	}
	c.inTx = true
	rows, err := c.c.QueryContext(ctx, q.Text, st.Args...)
	if err != nil {
		return c.fail(err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return c.b.classify(err)
	}
	kinds := make([]kind, len(types))
	cols := make([]source.Column, len(types))
	for i, t := range types {
		kinds[i] = kindOf(t.DatabaseTypeName())
		cols[i] = source.Column{Name: t.Name(), Type: typeName(t.DatabaseTypeName())}
	}
	if sink.Columns != nil {
		sink.Columns(cols)
	}
	raw := make([]sql.RawBytes, len(types))
	dest := make([]any, len(types))
	for i := range raw {
		dest[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return c.fail(err)
		}
		row := make([]any, len(raw))
		for i, v := range raw {
			row[i] = cell(v, kinds[i], st.Cut)
		}
		if !sink.Row(row) {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return c.fail(err)
	}
	return c.fail(rows.Close())
}

// fail is the error a call gets for err from the driver: the bound of a
// row when the connection ended on one (rowbound.go), which the driver
// words as a broken connection, else err classified.
func (c *conn) fail(err error) error {
	if err == nil {
		return nil
	}
	if tb := c.b.bounds.tooBig(c.s.id); tb != nil {
		return tb
	}
	return c.b.classify(err)
}

// Cancel sends KILL QUERY for this connection's statement from another
// connection: the driver only closes its socket when the context ends,
// and the server would run on. Then it ends the connection with KILL
// CONNECTION, which the server does not forget: a KILL QUERY that
// reaches the server before the statement starts is dropped when the
// statement begins, and a statement the driver had sent before closing
// its socket would then run. The connection is closed after a cancel
// anyway, so nothing later can meet the kill.
func (c *conn) Cancel() {
	c.cancelled.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	id := strconv.FormatUint(c.s.id, 10)
	var err error
	for deadline := time.Now().Add(killWait); ; time.Sleep(killPoll) {
		for _, q := range []string{"KILL QUERY ", "KILL CONNECTION "} {
			if _, err = c.b.kill.ExecContext(ctx, q+id); err != nil && !unknownThread(err) {
				break
			}
			err = nil
		}
		// The connection is gone from the process list once the server
		// has let it go; until then, kill it again. One the server marked
		// Killed still runs its statement while INFO shows it: a function
		// that never looks at the kill flag runs on to its end.
		var left int
		if err == nil {
			err = c.b.kill.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = "+id+
				" AND INFO IS NOT NULL").Scan(&left)
		}
		if err != nil || left == 0 || time.Now().After(deadline) {
			if err == nil && left > 0 {
				err = errors.New("the server still runs the statement after KILL")
				c.b.left.Add(c.s.id)
			}
			break
		}
	}
	c.killed = make(chan error, 1)
	c.killed <- err
}

const (
	// killWait is how long Cancel keeps killing a statement the server
	// still runs, and killPoll how often it looks.
	killWait = 2 * time.Second
	killPoll = 50 * time.Millisecond
)

// unknownThread reports the server's answer to a KILL of a connection
// that has already ended.
func unknownThread(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1094
}

// Release rolls the transaction back and hands the connection back; a
// connection whose rollback fails, or whose statement was killed, is
// closed instead.
func (c *conn) Release(err error) error {
	if c.ctxEnded && !c.cancelled.Load() {
		c.Cancel()
	}
	ok := !c.cancelled.Load()
	if c.inTx && ok {
		// ROLLBACK leaves named locks held, and a view's function can take
		// one (GET_LOCK, which the guard refuses in the text): release
		// them too, as PostgreSQL's DISCARD ALL does its advisory locks.
		ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		_, rerr := c.c.ExecContext(ctx, "ROLLBACK")
		if rerr == nil {
			_, rerr = c.c.ExecContext(ctx, "DO RELEASE_ALL_LOCKS()")
		}
		cancel()
		ok = rerr == nil
	}
	if !ok {
		c.b.mu.Lock()
		delete(c.b.sessions, c.s.id)
		c.b.mu.Unlock()
		discard(c.c)
	} else {
		c.c.Close()
	}
	if c.killed != nil {
		if kerr := <-c.killed; kerr != nil && err != nil {
			return fmt.Errorf("%w (and KILL QUERY failed: %v)", source.ErrLeftRunning, kerr)
		}
	}
	return err
}

// classify turns the server's statement time limit into a
// *source.TimeoutError, a failed connection into a *source.ConnError and
// the server's other errors into *source.EngineError.
func (b *backend) classify(err error) error {
	var me *mysql.MySQLError
	var ne net.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &me):
		switch me.Number {
		case 1969, 3024: // MariaDB's and MySQL's statement time limit
			return &source.TimeoutError{Timeout: b.limits.Timeout}
		case 1114: // ER_RECORD_FILE_FULL: a read-only statement fills only its temporary tables
			if b.mariaDB {
				return &source.EngineError{Code: string(me.SQLState[:]), Err: err, Message: fmt.Sprintf(
					"the query needed a temporary table of more than %d MiB on disk (tmp_disk_table_size) and was stopped inside the database; "+
						"make it cheaper: filter with WHERE before sorting, grouping or joining, aggregate before joining, select fewer columns, or add LIMIT",
					b.tempTable>>20)}
			}
		}
		// "Table 'db.t' doesn't exist": the current database goes
		// without saying, and the model writes t.
		msg := strings.ReplaceAll(me.Message, "'"+b.cfg.DBName+".", "'")
		return &source.EngineError{Message: msg, Code: string(me.SQLState[:]), Err: err}
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, mysql.ErrInvalidConn), errors.Is(err, io.EOF),
		errors.As(err, &ne):
		return &source.ConnError{Unreachable: isDial(err), Reason: reason(err, b.cfg), Err: err}
	}
	return err
}

func isDial(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// kind is how a column's text becomes a cell.
type kind uint8

const (
	kText kind = iota
	kInt
	kUint
	kDecimal
	kFloat
	kBit
	kJSON
	kBinary
)

// kindOf reads the driver's type name.
func kindOf(t string) kind {
	switch t {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR":
		return kInt
	case "UNSIGNED TINYINT", "UNSIGNED SMALLINT", "UNSIGNED MEDIUMINT", "UNSIGNED INT", "UNSIGNED BIGINT":
		return kUint
	case "DECIMAL":
		return kDecimal
	case "FLOAT", "DOUBLE":
		return kFloat
	case "BIT":
		return kBit
	case "JSON":
		return kJSON
	case "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "BINARY", "VARBINARY", "GEOMETRY":
		return kBinary
	}
	return kText
}

// typeName spells the driver's type name as a column's type: "bigint
// unsigned", "decimal", "datetime".
func typeName(t string) string {
	t = strings.ToLower(t)
	if rest, ok := strings.CutPrefix(t, "unsigned "); ok {
		return rest + " unsigned"
	}
	return t
}

// cell turns one value's text as the server sent it into a cell (see
// source.Conn.Run): integers as int64, BIGINT UNSIGNED past int64 and
// DECIMAL as exact json.Number, BIT as its number, JSON as a document,
// dates and times as the server writes them, binary strings as bytes;
// text and binary longer than cut (when set) as a source.Partial.
func cell(v sql.RawBytes, k kind, cut int) any {
	if v == nil {
		return nil
	}
	s := string(v)
	switch k {
	case kInt:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case kUint:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
		if _, err := strconv.ParseUint(s, 10, 64); err == nil {
			return json.Number(s)
		}
	case kDecimal:
		return json.Number(s)
	case kFloat:
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	case kBit:
		var n uint64
		for _, c := range v {
			n = n<<8 | uint64(c)
		}
		if n <= 1<<63-1 {
			return int64(n)
		}
		return json.Number(strconv.FormatUint(n, 10))
	case kJSON:
		if cut > 0 && len(v) > cut {
			return source.Partial{Head: append([]byte(nil), v[:cut]...), Size: len(v)}
		}
		if json.Valid(v) {
			return json.RawMessage(append([]byte(nil), v...))
		}
	case kBinary:
		if cut > 0 && len(v) > cut {
			return source.Partial{Head: append([]byte(nil), v[:cut]...), Size: len(v), Blob: true}
		}
		return append([]byte(nil), v...)
	}
	if cut > 0 && len(v) > cut {
		return source.Partial{Head: append([]byte(nil), v[:cut]...), Size: len(v)}
	}
	return s
}
