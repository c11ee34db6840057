package source

import (
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// pgRetries is how many more times than the pool has connections a call
// is tried, on another connection, when its connection died, or the server
// cancelled it for a reason of its own, before it returned a row: each
// dead idle connection costs one try. Every statement sqlmcp runs is
// read-only and rolled back, so running it again is always safe.
const pgRetries = 2

// pgRetryable reports whether err says the connection or the server, not
// the statement, failed: the backend was terminated (57P01, 57P02), the
// server is starting or shutting down (57P03), the connection broke (class
// 08, or the socket closed under pgx), or a hot standby cancelled the
// statement for a conflict with recovery (40001) or a deadlock (40P01).
func pgRetryable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03",
			pe.Code == "40001", pe.Code == "40P01", strings.HasPrefix(pe.Code, "08"):
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	return pgconn.SafeToRetry(err) || errors.As(err, &ce) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		strings.Contains(err.Error(), "conn closed")
}
