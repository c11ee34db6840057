package postgres

import (
	"context"
	"fmt"

	"github.com/sqlmcp/sqlmcp/source"
)

// RunEngineOnly runs sql on db's pool through the engine wall alone, the
// guard bypassed: in the READ ONLY transaction with the timeouts, on the
// extended protocol, and, when limit > 0, wrapped in the LIMIT the door
// puts around a query. It returns the rows.
func RunEngineOnly(ctx context.Context, db *source.DB, sql string, limit int) ([][]any, error) {
	p := db.Backend().(*backend)
	st := pgStatement{text: sql, sql: sql, position: func(p int) int { return p }}
	if limit > 0 {
		st.text = fmt.Sprintf("SELECT * FROM (\n%s\n) AS sqlmcp_q LIMIT %d", sql, limit)
	}
	c, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	br, err := p.exec(ctx, c, st, nil, nil, func(r []any) bool {
		rows = append(rows, r)
		return true
	})
	err = p.pgEndCall(c, br, err)
	c.Release()
	return rows, err
}

// ConnExec runs sql on one of db's pooled connections outside the door
// (no transaction, no reset afterwards), to put the session in a state a
// test needs.
func ConnExec(ctx context.Context, db *source.DB, sql string) error {
	conn, err := db.Backend().(*backend).acquire(ctx) // which frees the function catalog's connection, if it is the last
	if err != nil {
		return err
	}
	defer conn.Release()
	_, err = conn.Exec(ctx, sql)
	return err
}

// StillRunning is which of pids the server shows at work, as the count
// of statements left running asks it.
func StillRunning(db *source.DB, pids ...uint64) (map[uint64]bool, error) {
	return db.Backend().(*backend).stillRunning(pids)
}
