package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlmcp/sqlmcp/internal/rawio"
)

// pgFirstAnswer is how long a server may take to answer the first
// message of a connection (SSLRequest or StartupMessage): PostgreSQL
// answers at once, so a peer that stays silent this long is not
// PostgreSQL (a Redis or HTTP port waits for a line that never comes).
const pgFirstAnswer = 2 * time.Second

// sniffPeer makes every new connection check, at its first bytes, that
// the peer speaks PostgreSQL's protocol: a MySQL or MariaDB server speaks
// first, with a greeting PostgreSQL never sends, and a peer that does not
// answer within pgFirstAnswer is refused rather than waited on for the
// whole timeout. Its reads and writes are raw system calls (see rawio).
func sniffPeer(cc *pgx.ConnConfig) {
	dial := cc.DialFunc
	cc.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &sniffConn{Conn: rawio.WrapConn(c), addr: addr}, nil
	}
}

// errNotPostgres is the error of a peer that is not PostgreSQL.
type errNotPostgres struct{ msg string }

func (e *errNotPostgres) Error() string { return e.msg }

// sniffConn checks the first bytes the peer sends, then gets out of the
// way.
type sniffConn struct {
	net.Conn
	addr    string
	checked bool
	held    []byte // bytes read while checking, not yet handed on
}

func (c *sniffConn) Read(p []byte) (int, error) {
	if len(c.held) > 0 {
		n := copy(p, c.held)
		c.held = c.held[n:]
		return n, nil
	}
	if c.checked {
		return c.Conn.Read(p)
	}
	c.checked = true
	// The first answer: its deadline is pgFirstAnswer, or sooner if pgx
	// set one. Whatever pgx set is put back.
	c.Conn.SetReadDeadline(time.Now().Add(pgFirstAnswer))
	buf := make([]byte, max(len(p), 64))
	n, err := c.Conn.Read(buf)
	c.Conn.SetReadDeadline(time.Time{})
	var ne net.Error
	if n == 0 && errors.As(err, &ne) && ne.Timeout() {
		return 0, &errNotPostgres{fmt.Sprintf("the server at %s accepted the connection but did not answer "+
			"PostgreSQL's first message within %s, as PostgreSQL does at once: is this a PostgreSQL port? (a Redis or HTTP port waits like this)", c.addr, pgFirstAnswer)}
	}
	if mysqlGreeting(buf[:n]) {
		return 0, &errNotPostgres{fmt.Sprintf("the server at %s is MySQL or MariaDB, not PostgreSQL "+
			"(it greeted first, with protocol 10); use a mysql:// URL for it if this build serves MySQL, or point --db at a PostgreSQL port", c.addr)}
	}
	c.held = buf[:n]
	m := copy(p, c.held)
	c.held = c.held[m:]
	return m, err
}

// mysqlGreeting reports whether b starts like a MySQL handshake packet: a
// three-byte length, sequence number 0, protocol version 10. PostgreSQL's
// first answer is one byte (S or N, to SSLRequest) or a message whose
// type byte is followed by a four-byte length, never 0x0a for the
// messages that can come first.
func mysqlGreeting(b []byte) bool {
	return len(b) >= 5 && b[2] == 0 && b[3] == 0 && b[4] == 10
}
