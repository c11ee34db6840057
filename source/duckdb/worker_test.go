//go:build unix

package duckdb_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
)

// openDoor opens dir with the DuckDB engine behind the door, under a
// timeout and a memory_limit.
func openDoor(t *testing.T, dir string, timeout time.Duration, memory string) *source.DB {
	t.Helper()
	db, err := source.Open(t.Context(), dir, &source.Options{Limits: sqlmcp.Limits{Timeout: timeout},
		Engines: []source.Engine{duckdb.Engine{MemoryLimit: memory}}})
	must(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// alive reports whether process pid runs.
func alive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}

// TestRunawayValues: a query whose single function call builds a value of
// gigabytes, outside DuckDB's memory_limit and past its interrupt, ends
// within its time and the worker's memory bound, with an error, and the
// source answers the next query. None of it reaches sqlmcp's own memory.
// The shapes are the class, not a list of functions: a count argument, a
// width, a list built from a number, doubling by concatenation through
// WITH queries and through a lambda.
func TestRunawayValues(t *testing.T) {
	dir, _ := fixture(t)
	const timeout = time.Second
	db := openDoor(t, dir, timeout, "256MB")
	before := peakRSS(t)
	doubling := "WITH a0 AS (SELECT 'xxxxxxxxxxxxxxxx' AS s)"
	for i := 1; i <= 28; i++ {
		doubling += fmt.Sprintf(", a%d AS (SELECT s || s AS s FROM a%d)", i, i-1)
	}
	doubling += " SELECT length(s) FROM a28"
	for name, sql := range map[string]string{
		"repeat":               "SELECT length(repeat('x', 2000000000))",
		"lpad":                 "SELECT length(lpad('x', 1500000000, 'y'))",
		"printf width":         "SELECT length(printf('%1500000000d', 1))",
		"format width":         "SELECT length(format('{:>1500000000}', 'x'))",
		"range list":           "SELECT len(range(300000000))",
		"list_resize":          "SELECT len(list_resize([1], 300000000))",
		"repeat of a list":     "SELECT len(repeat([1], 300000000))",
		"nested repeat":        "SELECT length(repeat(repeat('x', 100000), 20000))",
		"replace amplifies":    "SELECT length(replace(repeat('a', 100000), 'a', repeat('b', 20000)))",
		"doubling in WITH":     doubling,
		"doubling in a lambda": "SELECT length(list_reduce(list_transform(range(33), x -> 'x'), (a, b) -> a || a))",
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			res, err := db.Query(t.Context(), sql, 0)
			took := time.Since(start)
			if err == nil {
				t.Fatalf("answered %v: want an error", res.Rows)
			}
			// The time limit, the worker's grace and a new worker's start.
			if took > timeout+5*time.Second {
				t.Errorf("took %v, past %v and the worker's grace", took, timeout)
			}
			if strings.Contains(err.Error(), "may still be running") {
				t.Errorf("err = %v: the statement must be stopped, not left running", err)
			}
			t.Logf("%v: %v", took.Round(time.Millisecond), err)
			if res, err := db.Query(t.Context(), "SELECT count(*) FROM people", 0); err != nil || len(res.Rows) != 1 {
				t.Errorf("the next query: %v", err)
			}
		})
	}
	if n, _ := db.LeftRunning(); n != 0 {
		t.Errorf("LeftRunning = %d, want 0", n)
	}
	if r, _ := db.Restarts(); r["memory"] == 0 || r["ended"] != 0 {
		t.Errorf("restarts %v, want workers replaced for memory and none ended by itself", r)
	}
	if grew := peakRSS(t) - before; grew > 256<<20 {
		t.Errorf("sqlmcp's own peak memory grew by %d MiB", grew>>20)
	}
}

// TestWorkerStoppedPastItsTime: a statement DuckDB does not stop when
// asked (levenshtein of two long texts) ends its call as a timeout soon
// after its time, its worker process is gone, a call beside it answers
// meanwhile, and the next call gets a new worker.
func TestWorkerStoppedPastItsTime(t *testing.T) {
	dir, _ := fixture(t)
	db := openDoor(t, dir, 300*time.Millisecond, "")
	if _, err := db.Query(t.Context(), "SELECT 1", 0); err != nil {
		t.Fatal(err)
	}
	pid := duckdb.WorkerPID(db.Backend())
	if !alive(pid) {
		t.Fatalf("worker %d is not running", pid)
	}
	var wg sync.WaitGroup
	var slow error
	var took time.Duration
	wg.Go(func() {
		start := time.Now()
		_, slow = db.Query(t.Context(), "SELECT levenshtein(repeat('a', 60000), repeat('b', 60000))", 0)
		took = time.Since(start)
	})
	time.Sleep(100 * time.Millisecond)
	if res, err := db.Query(t.Context(), "SELECT count(*) FROM people", 0); err != nil || len(res.Rows) != 1 {
		t.Errorf("beside it: %v", err)
	}
	wg.Wait()
	var te *source.TimeoutError
	if !errors.As(slow, &te) || te.Running {
		t.Errorf("err = %v, want a timeout, stopped", slow)
	}
	if took > 3*time.Second {
		t.Errorf("the call took %v: the worker was not stopped soon after its time", took)
	}
	if alive(pid) {
		t.Errorf("worker %d still runs", pid)
	}
	if n, _ := db.LeftRunning(); n != 0 {
		t.Errorf("LeftRunning = %d, want 0", n)
	}
	start := time.Now()
	if res, err := db.Query(t.Context(), "SELECT 1", 0); err != nil || len(res.Rows) != 1 {
		t.Fatalf("afterwards: %v", err)
	}
	t.Logf("the first call on a new worker took %v", time.Since(start))
	if now := duckdb.WorkerPID(db.Backend()); now == pid || !alive(now) {
		t.Errorf("worker %d after, %d before: want a new one", now, pid)
	}
	if r, ok := db.Restarts(); !ok || r["timeout"] != 1 || r["ended"]+r["memory"] != 0 {
		t.Errorf("restarts %v, want one for a timeout", r)
	}
}

// TestWorkerKilled: a call whose worker dies under it (killed from
// outside) runs once more on a new worker and answers; when that one dies
// too, the call fails with an error naming the worker; the next call
// starts another.
func TestWorkerKilled(t *testing.T) {
	dir, _ := fixture(t)
	db := openDoor(t, dir, 10*time.Second, "")
	// About half a second of DuckDB's work, in one call.
	const slow = "SELECT levenshtein(repeat('a', 20000), repeat('b', 20000)) AS d"
	query := func() <-chan error {
		done := make(chan error, 1)
		go func() {
			res, err := db.Query(t.Context(), slow, 0)
			if err == nil && fmt.Sprint(res.Rows) != "[[20000]]" {
				err = fmt.Errorf("rows %v", res.Rows)
			}
			done <- err
		}()
		return done
	}
	// kill kills the worker running the call, once it is not the one
	// killed before.
	kill := func(before int) int {
		t.Helper()
		var pid int
		waitFor(t, func() bool { pid = duckdb.WorkerPID(db.Backend()); return pid != 0 && pid != before })
		time.Sleep(150 * time.Millisecond)
		must(t, syscall.Kill(pid, syscall.SIGKILL))
		return pid
	}
	wait := func(done <-chan error) error {
		t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("the call did not end")
			return nil
		}
	}
	done := query()
	first := kill(0)
	if err := wait(done); err != nil {
		t.Errorf("killed once: %v, want the answer from a new worker", err)
	}
	if now := duckdb.WorkerPID(db.Backend()); now == first || now == 0 {
		t.Errorf("worker %d after, %d before: want a new one", now, first)
	}
	done = query()
	kill(kill(first)) // and again, on the new worker it started
	if err := wait(done); err == nil || !strings.Contains(err.Error(), "worker") {
		t.Errorf("killed twice: %v, want an error naming DuckDB's worker", err)
	}
	if res, err := db.Query(t.Context(), "SELECT count(*) FROM people", 0); err != nil || len(res.Rows) != 1 {
		t.Fatalf("afterwards: %v", err)
	}
	if r, _ := db.Restarts(); r["ended"] != 3 || r["timeout"]+r["memory"] != 0 {
		t.Errorf("restarts %v, want three workers ended from outside", r)
	}
}

// waitFor waits up to 5 s for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}

// TestCutInTheWorker: the model's statements get no more of a long value
// than the answer shows, with its real size, and no more rows than the
// answer holds; sqlmcp's own reads get whole values.
func TestCutInTheWorker(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	_, rows, err := run(t.Context(), b, source.Statement{SQL: "SELECT repeat('x', 100000) AS t, range(5000) AS l, repeat('\\xAA'::BLOB, 1000) AS b", Cut: 100})
	must(t, err)
	p, ok := rows[0][0].(source.Partial)
	if !ok || len(p.Head) != 100 || p.Size != 100000 {
		t.Errorf("text = %T %.40v, want a Partial of 100 bytes of 100000", rows[0][0], rows[0][0])
	}
	l, ok := rows[0][1].(source.Lazy)
	if !ok {
		t.Fatalf("list = %T, want a list cut in the worker", rows[0][1])
	}
	cells := l.Cell(100).([]any)
	if last := fmt.Sprint(cells[len(cells)-1]); !strings.Contains(last, "of 5000 elements") {
		t.Errorf("the cut list ends %q, want its real length", last)
	}
	if bp, ok := rows[0][2].(source.Partial); !ok || !bp.Blob || bp.Size != 1000 {
		t.Errorf("blob = %T %.40v, want a Partial BLOB of 1000 bytes", rows[0][2], rows[0][2])
	}
	_, rows, err = run(t.Context(), b, source.Statement{SQL: "SELECT repeat('x', 100000)", Own: true})
	if err != nil || len(rows[0][0].(string)) != 100000 {
		t.Errorf("own read: %v", err)
	}
	// A million rows of 1 KiB: the worker stops past the answer's bytes.
	_, rows, err = run(t.Context(), b, source.Statement{SQL: "SELECT repeat('y', 1000) FROM range(1000000)", Cut: 2048})
	must(t, err)
	limits := sqlmcp.Limits{}.WithDefaults()
	if sent := len(rows) * 1000; sent > limits.MaxBytes+limits.MaxCellBytes+1000*batchSlack {
		t.Errorf("%d rows sent (%d bytes), past the answer's %d bytes", len(rows), sent, limits.MaxBytes)
	}
}

// batchSlack is how many rows past the budget may be read before the
// worker notices.
const batchSlack = 1

// TestWorkerConcurrentCalls: calls that share the worker's pipes at once
// each get their own answer, whole, rows and errors alike.
func TestWorkerConcurrentCalls(t *testing.T) {
	dir, _ := fixture(t)
	db := openDoor(t, dir, 10*time.Second, "")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 60 {
				n := g*1000 + i
				if i%10 == 9 {
					if _, err := db.Query(t.Context(), fmt.Sprintf("SELECT no_such_column_%d FROM people", n), 0); err == nil ||
						!strings.Contains(err.Error(), fmt.Sprint("no_such_column_", n)) {
						t.Errorf("call %d: err = %v, want its own error", n, err)
					}
					continue
				}
				res, err := db.Query(t.Context(), fmt.Sprintf("SELECT %d AS n, length(repeat('x', %d)) AS l FROM range(%d)", n, n, i%7+1), 0)
				if err != nil {
					t.Errorf("call %d: %v", n, err)
					continue
				}
				if len(res.Rows) != i%7+1 || fmt.Sprint(res.Rows[0]) != fmt.Sprintf("[%d %d]", n, n) {
					t.Errorf("call %d: rows %v", n, res.Rows)
				}
			}
		})
	}
	wg.Wait()
}

// TestWorkerEnvironment: the worker, which runs the model's SQL, holds
// none of sqlmcp's environment but the system's and Go's settings.
func TestWorkerEnvironment(t *testing.T) {
	t.Setenv("SQLMCP_AUTH_TOKENS", "secret-token-4411")
	t.Setenv("PGPASSWORD", "secret-password-4411")
	t.Setenv("TZ", "UTC")
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	pid := duckdb.WorkerPID(b)
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if strings.Contains(string(env), "secret-") {
		t.Errorf("the worker's environment holds a secret: %q", env)
	}
	if !strings.Contains(string(env), "TZ=UTC") {
		t.Errorf("the worker's environment lacks TZ: %q", env)
	}
}

// TestWorkerBoundReported: the source's start lines say the worker's
// memory bound, memory_limit and a GiB, as the operator wrote the limit.
func TestWorkerBoundReported(t *testing.T) {
	dir, _ := fixture(t)
	for limit, want := range map[string]string{
		"512MB":  "bounded at 1512 MiB (RLIMIT_DATA)",
		"1GiB":   "bounded at 2048 MiB (RLIMIT_DATA)",
		"2.5 GB": "bounded at 3408 MiB (RLIMIT_DATA)",
	} {
		b := open(t, dir, duckdb.Engine{MemoryLimit: limit})
		if lines := strings.Join(b.Info().Guard, "\n"); !strings.Contains(lines, want) {
			t.Errorf("memory_limit %s: %s; want %q", limit, lines, want)
		}
	}
	if _, err := (duckdb.Engine{MemoryLimit: "lots"}).Open(t.Context(), dir, source.Config{Limits: sqlmcp.Limits{}.WithDefaults()}); err == nil ||
		!strings.Contains(err.Error(), "give a size") {
		t.Errorf("memory_limit lots: %v", err)
	}
}

// TestWorkerKilledMidResult: a worker that dies while a result's rows
// are being read fails the call with an error that says so; the rows
// read so far are never taken for the whole result, and a worker that
// dies before its first row is never an empty result either.
func TestWorkerKilledMidResult(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	// 20 MB of rows: far more than the pipes hold, so the worker is
	// still sending when it is killed.
	const many = "SELECT i, repeat('x', 100) AS pad FROM range(200000) t(i)"
	var pid int
	got := 0
	c, err := b.Acquire(t.Context())
	must(t, err)
	err = c.Run(t.Context(), source.Statement{SQL: many, Own: true}, source.Sink{Row: func([]any) bool {
		if got++; got == 1 {
			pid = duckdb.WorkerPID(b)
			must(t, syscall.Kill(pid, syscall.SIGKILL))
		}
		return true
	}})
	err = c.Release(err)
	if err == nil || !strings.Contains(err.Error(), "ended while reading the result") {
		t.Errorf("killed after %d of 200000 rows: err = %v, want the worker ended while reading the result", got, err)
	}
	if got >= 200000 {
		t.Errorf("all %d rows came from a killed worker", got)
	}
	// Before the first row: the call fails too (the door runs it again
	// on a new worker, which this test does not).
	c, err = b.Acquire(t.Context())
	must(t, err)
	got = 0
	err = c.Run(t.Context(), source.Statement{SQL: many, Own: true}, source.Sink{
		Columns: func([]source.Column) { must(t, syscall.Kill(duckdb.WorkerPID(b), syscall.SIGKILL)) },
		Row:     func([]any) bool { got++; return true },
	})
	if err = c.Release(err); err == nil || got == 200000 || !strings.Contains(err.Error(), "ended while reading the result") {
		t.Errorf("killed at the columns: %d rows, err = %v, want the worker ended while reading the result", got, err)
	}
}

// TestAtMostTwoWorkers: a retired worker finishes its calls while a new
// one serves, but when the new one is retired in turn, the first, still
// busy, is stopped: a source never holds more than two workers' memory.
func TestAtMostTwoWorkers(t *testing.T) {
	dir, _ := fixture(t)
	db := openDoor(t, dir, 30*time.Second, "")
	// Seconds of DuckDB's work, checked for interrupts between chunks.
	const slow = "SELECT sum(levenshtein(repeat('a', 3000), repeat('b', 3000 + r))) AS d FROM range(400) t(r)"
	var calls sync.WaitGroup
	defer calls.Wait()
	busy := func(before int) int {
		t.Helper()
		calls.Go(func() { db.Query(context.Background(), slow, 0) })
		var pid int
		waitFor(t, func() bool { pid = duckdb.WorkerPID(db.Backend()); return pid != 0 && pid != before })
		time.Sleep(300 * time.Millisecond) // the call is running on it
		return duckdb.Retire(db.Backend())
	}
	first := busy(0)
	second := busy(first)
	if !alive(first) || !alive(second) {
		t.Fatalf("workers %d and %d: want both running their calls", first, second)
	}
	if res, err := db.Query(t.Context(), "SELECT 42 AS n", 0); err != nil || fmt.Sprint(res.Rows) != "[[42]]" {
		t.Fatalf("a call on the third worker: %v", err)
	}
	for deadline := time.Now().Add(time.Second); alive(first); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("worker %d still runs beside %d and a third", first, second)
		}
	}
	if !alive(second) {
		t.Errorf("worker %d, retired last, was stopped before its call ended", second)
	}
}

// TestFileThatCrashesTheBuild: a served file whose reading crashes the
// worker as the catalog is made (JSON nested 100,000 deep) is left out
// with a warning saying so, and the other files are served.
func TestFileThatCrashesTheBuild(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "good.csv"), []byte("id,name\n1,a\n2,b\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "deep.json"), []byte(`{"a":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+"}\n"), 0o644))
	db := openDoor(t, dir, 10*time.Second, "")
	res, err := db.Query(t.Context(), "SELECT count(*) FROM good", 0)
	if err != nil || fmt.Sprint(res.Rows) != "[[2]]" {
		t.Fatalf("the good file: %v, %v", res, err)
	}
	var said bool
	for _, w := range db.Warnings() {
		said = said || strings.Contains(w.Message, "deep.json is not served: reading it crashed DuckDB's worker")
	}
	if !said {
		t.Errorf("warnings %v, want deep.json left out for crashing the worker", db.Warnings())
	}
	if _, err := db.Query(t.Context(), "SELECT * FROM deep", 0); err == nil {
		t.Error("the file that crashed the worker is served")
	}
}

// TestCrashingStatementNotRetried: a statement that crashes the worker
// alone (json_structure of a value nested 200,000 deep) fails saying so
// and is not run again, which would crash the next worker and the calls
// it runs; the next call answers.
func TestCrashingStatementNotRetried(t *testing.T) {
	dir, _ := fixture(t)
	db := openDoor(t, dir, 10*time.Second, "")
	_, err := db.Query(t.Context(), "SELECT json_structure(repeat('[', 200000) || repeat(']', 200000)) AS s", 0)
	if err == nil || !strings.Contains(err.Error(), "crashed while running this statement") {
		t.Fatalf("err = %v, want the crash named", err)
	}
	if r, _ := db.Restarts(); r["ended"] != 1 {
		t.Errorf("restarts %v, want one worker ended: the statement was run again", r)
	}
	if res, err := db.Query(t.Context(), "SELECT count(*) FROM people", 0); err != nil || len(res.Rows) != 1 {
		t.Fatalf("afterwards: %v", err)
	}
}
