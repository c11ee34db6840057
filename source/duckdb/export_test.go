package duckdb

import (
	"context"
	"database/sql"

	"github.com/sqlmcp/sqlmcp/source"
)

// Sandbox is b's DuckDB instance with the guard and the engine's
// statement check both off: database/sql runs every statement of a text
// on it, so tests can prove what DuckDB's settings hold alone.
func Sandbox(b source.Backend) *sql.DB { return b.(*backend).sb.db }

// RunUnguarded runs text through the engine's own check (one query, by
// DuckDB's parser and binder) and the sandbox, the guard off.
func RunUnguarded(ctx context.Context, b source.Backend, text string) ([][]any, error) {
	c, err := b.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	err = c.(*conn).run(ctx, text, nil, source.Sink{Row: func(r []any) bool {
		rows = append(rows, append([]any(nil), r...))
		return true
	}})
	return rows, c.Release(err)
}
