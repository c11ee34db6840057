package sqlite

import (
	"context"
	"database/sql"
)

// OpenEngineOnly opens path read-only in the engine with the guard off, so
// tests can prove the engine wall holds alone.
var OpenEngineOnly = func(path string) (interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	Close() error
}, error) {
	return openSQLite(path, false, 1)
}

// SetTempFileLimit sets the bound of SQLite's temporary files opened from
// now on, and returns the one before.
func SetTempFileLimit(n int64) (was int64) {
	was = tempLimitNow()
	setTempFileLimit(n)
	return was
}
