package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

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
// A statement timeout (57014) and the statement's own errors are not.
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
		errors.Is(err, pgconn.ErrConnClosed)
}

// pgUnreachable reports whether err says sqlmcp could not reach a working
// server at all: no connection could be made, or the server is starting
// up or shutting down (57P01 from a shutdown, 57P02, 57P03), or the
// connection broke (class 08). A recovery conflict or a deadlock is not:
// the server answered.
func pgUnreachable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || strings.HasPrefix(pe.Code, "08")
	}
	return pgRetryable(err)
}

// pgServerEnded reports whether err says the server ended the session
// itself: a FATAL or PANIC error (an administrator's terminate, a
// shutdown, a crash of another backend), or the socket closed from the
// server's end (end of file, a reset, a broken pipe, or pgx finding the
// connection closed under it when no context ran out). Its backend runs
// nothing more.
func pgServerEnded(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Severity == "FATAL" || pe.Severity == "PANIC"
	}
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, pgconn.ErrConnClosed)
}
