package duckdb

import (
	"context"
	"time"

	"github.com/sqlmcp/sqlmcp/source"
)

func init() { allowRaw = true }

// RawQuery runs every statement of text on b's locked instance, as
// database/sql does, with the guard and the engine's statement check both
// off, so tests can prove what DuckDB's settings hold alone; it returns
// the rows of the last.
func RawQuery(ctx context.Context, b source.Backend, text string) ([][]any, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return runOn(ctx, b, request{Op: opRaw, SQL: text})
}

// RunUnguarded runs text through the engine's own check (one query, by
// DuckDB's parser and binder) and the sandbox, the guard off.
func RunUnguarded(ctx context.Context, b source.Backend, text string) ([][]any, error) {
	return runOn(ctx, b, request{Op: opRun, SQL: text})
}

func runOn(ctx context.Context, b source.Backend, req request) ([][]any, error) {
	c, err := b.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	var rows [][]any
	err = c.(*conn).run(ctx, req, source.Sink{Row: func(r []any) bool {
		rows = append(rows, r)
		return true
	}})
	return rows, c.Release(err)
}

// WorkerPID is the process id of b's running worker, or 0 when none runs.
func WorkerPID(b source.Backend) int { return withWorker(b, func(*worker) {}) }

// withWorker calls f with b's running worker, under the lock that guards
// it, and returns its process id; 0, without calling f, when none runs.
func withWorker(b source.Backend, f func(*worker)) int {
	ws := b.(*backend).workers
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.cur == nil || ws.cur.stopped() {
		return 0
	}
	f(ws.cur)
	return ws.cur.cmd.Process.Pid
}

// Retire marks b's running worker to be replaced, as an out-of-memory
// error does, and returns its process id (0 when none runs).
func Retire(b source.Backend) int { return withWorker(b, (*worker).retire) }
