package source

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
	return openSQLite(path, false)
}

// RunPostgresEngineOnly runs sql on db's pool through the engine wall
// alone, the guard bypassed: in the READ ONLY transaction with the
// timeouts, on the extended protocol, and, when cursor is set, declared as
// the cursor the door fetches up to fetch rows from. It returns the rows.
func RunPostgresEngineOnly(ctx context.Context, db *DB, sql string, cursor bool, fetch int) ([][]any, error) {
	st := pgStatement{text: sql, cursor: cursor}
	if cursor {
		st.text = "DECLARE " + pgCursor + " NO SCROLL CURSOR FOR " + sql
	}
	var rows [][]any
	err := db.execPostgres(ctx, st, nil, fetch, nil, func(r []any) bool {
		rows = append(rows, r)
		return true
	})
	return rows, err
}
