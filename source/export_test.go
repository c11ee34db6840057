package source

import (
	"context"
	"database/sql"
	"fmt"
)

// OpenEngineOnly opens path read-only in the engine with the guard off, so
// tests can prove the engine wall holds alone.
var OpenEngineOnly = func(path string) (interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	Close() error
}, error) {
	return openSQLite(path, false, 1)
}

// RunPostgresEngineOnly runs sql on db's pool through the engine wall
// alone, the guard bypassed: in the READ ONLY transaction with the
// timeouts, on the extended protocol, and, when limit > 0, wrapped in the
// LIMIT the door puts around a query. It returns the rows.
func RunPostgresEngineOnly(ctx context.Context, db *DB, sql string, limit int) ([][]any, error) {
	st := pgStatement{text: sql, position: func(p int) int { return p }}
	if limit > 0 {
		st.text = fmt.Sprintf("SELECT * FROM (\n%s\n) AS sqlmcp_q LIMIT %d", sql, limit)
	}
	var rows [][]any
	err := db.execPostgres(ctx, st, nil, nil, func(r []any) bool {
		rows = append(rows, r)
		return true
	})
	return rows, err
}

// PostgresConnExec runs sql on one of db's pooled connections outside the
// door (no transaction, no reset afterwards), to put the session in a
// state a test needs.
func PostgresConnExec(ctx context.Context, db *DB, sql string) error {
	conn, err := db.pg.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	_, err = conn.Exec(ctx, sql)
	return err
}
