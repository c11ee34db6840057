package duckdb

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlmcp/sqlmcp/source"
)

// duckGiveUp is how long after a call's context ends (its timeout, or the
// caller gone), or its rows are no longer wanted, sqlmcp waits for DuckDB
// to stop the statement before it stops the worker. DuckDB's interrupt is
// checked between chunks of work, so a single long function call
// (levenshtein of two long texts, a big value built in one call) runs on
// past it.
const duckGiveUp = 2 * time.Second

// Why sqlmcp stops a worker.
const (
	whyTimeout = "a statement ran on past its time limit and the grace to stop it"
	whyMemory  = "it was replaced, to hand its memory back"
	whyClosed  = "the source closed"
	whyOpen    = "it could not open the database"
)

// workers keeps one worker process running for a source, starting it
// again, on the next call, when it stopped, and lets the one it replaced
// finish its calls.
type workers struct {
	open opening // Spill is a folder per worker under it

	mu  sync.Mutex
	cur *worker
	// draining is the worker retired before cur, still finishing its
	// calls: at most two workers live, each bounded, so a source holds at
	// most twice its memory_limit.
	draining *worker
	n        int // workers started
	closed   bool

	// timeouts, replaced and crashed count the workers that ended while
	// serving: stopped past a statement's time, replaced to hand memory
	// back, or ended by themselves (a crash, a kill from outside).
	timeouts, replaced, crashed atomic.Uint64
}

// ended counts a worker that ended, unless it was closed with its source
// or never opened.
func (ws *workers) ended(stoppedFor *string) {
	switch {
	case stoppedFor == nil:
		ws.crashed.Add(1)
	case *stoppedFor == whyTimeout:
		ws.timeouts.Add(1)
	case *stoppedFor == whyMemory:
		ws.replaced.Add(1)
	}
}

// counts are the workers ended while serving, by why.
func (ws *workers) counts() map[string]uint64 {
	return map[string]uint64{"timeout": ws.timeouts.Load(), "memory": ws.replaced.Load(), "ended": ws.crashed.Load()}
}

// get returns the running worker, starting one when none runs.
func (ws *workers) get(ctx context.Context) (*worker, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.closed {
		return nil, errors.New("the DuckDB source is closed")
	}
	if ws.cur != nil && !ws.cur.stopped() && !ws.cur.retiring.Load() {
		return ws.cur, nil
	}
	if ws.cur != nil {
		ws.cur.retire()
		if !ws.cur.stopped() {
			// A worker retired before it still finishing calls of its own
			// is stopped now, its calls failing, rather than a third
			// worker's memory joining the two.
			if d := ws.draining; d != nil && d != ws.cur && !d.stopped() {
				go d.stop(whyMemory)
			}
			ws.draining = ws.cur
		}
	}
	var left []source.Warning // files left out for crashing the worker
	for {
		ws.n++
		o := ws.open
		o.Spill = filepath.Join(ws.open.Spill, fmt.Sprintf("spill-%d", ws.n))
		w, err := startWorker(ctx, o, ws.ended)
		var bc *buildCrash
		if errors.As(err, &bc) && len(left) < maxBuildCrashes && len(ws.open.Build) > 1 {
			// A file whose reading crashed the worker is left out, as
			// one DuckDB cannot read is, and the catalog made again
			// without it.
			ws.open.Build = slices.DeleteFunc(slices.Clone(ws.open.Build), func(v wireView) bool { return v.Path == bc.path })
			left = append(left, source.Warning{Event: "file",
				Message: fmt.Sprintf("%s is not served: reading it crashed DuckDB's worker (%s)", bc.path, firstLine(bc.err.Error()))})
			continue
		}
		if err != nil {
			return nil, err
		}
		if w.built != nil {
			// The catalog is made: the next workers open it as it is.
			ws.open.Build, ws.open.Files = nil, w.built.Files
			w.built.Warnings = append(left, w.built.Warnings...)
		}
		ws.cur = w
		return w, nil
	}
}

// close stops the running worker and starts no other.
func (ws *workers) close() {
	ws.mu.Lock()
	w, d := ws.cur, ws.draining
	ws.closed, ws.cur, ws.draining = true, nil, nil
	ws.mu.Unlock()
	if d != nil && !d.stopped() {
		d.end()
	}
	if w != nil {
		w.end()
	}
}

// ownProgram is the running program, to start as a worker: on Linux
// /proc/self/exe, the very file this process runs even when an upgrade
// replaced it on disk since (a worker of another version would not speak
// the same pipes); elsewhere the path it was started from.
func ownProgram() (string, error) {
	const self = "/proc/self/exe"
	if _, err := os.Stat(self); err == nil {
		return self, nil
	}
	return os.Executable()
}

// workerEnviron is what of env the worker gets: the system's and Go's
// runtime settings, none of sqlmcp's (tokens, passwords, URLs): the
// process that runs the model's SQL holds no secret it could be made to
// read.
func workerEnviron(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH", name == "HOME", name == "TMPDIR", name == "TZ", name == "LANG", strings.HasPrefix(name, "LC_"),
			name == "LD_LIBRARY_PATH", // a DuckDB library linked dynamically
			name == "GOMAXPROCS", name == "GOGC", name == "GOMEMLIMIT", name == "GODEBUG", name == "GOTRACEBACK", name == "GORACE":
			out = append(out, kv)
		}
	}
	return out
}

// worker is one worker process, from sqlmcp's side: calls share its
// pipes, each by the ids of its requests.
type worker struct {
	cmd      *exec.Cmd
	spill    string
	settings []string
	built    *built
	ended    func(stoppedFor *string) // told once the process ended
	bound    int64
	stderr   *tail

	wmu sync.Mutex
	in  io.WriteCloser
	enc *gob.Encoder
	out *bufio.Writer

	mu    sync.Mutex
	calls map[uint64]*call
	next  uint64

	// retiring marks a worker to be replaced: no call is given it, and
	// it is stopped once its calls are done.
	retiring atomic.Bool
	// stoppedFor says why sqlmcp stopped the worker, when it did.
	stoppedFor atomic.Pointer[string]
	dead       chan struct{} // closed once the process ended
	why        error         // why it ended, set before dead closes
	// detail is why, as said after "ended while ...": "it ran out of its
	// memory bound (2048 MiB)"; set before dead closes.
	detail string
	// crashedBy: the process ended by itself while it ran one call, which
	// crashed it; set before dead closes.
	crashedBy bool
}

// call is one request's share of the replies.
type call struct {
	replies chan reply
	gone    chan struct{} // closed when the call stops reading
}

// startWorker starts a worker and opens o in it.
func startWorker(ctx context.Context, o opening, ended func(stoppedFor *string)) (*worker, error) {
	registerCells()
	exe, err := ownProgram()
	if err != nil {
		return nil, fmt.Errorf("finding sqlmcp's own program for DuckDB's worker: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Args = []string{"sqlmcp-duckdb-worker"}
	cmd.Env = append(workerEnviron(os.Environ()), workerEnv+"=1")
	w := &worker{cmd: cmd, spill: o.Spill, bound: o.DataLimit, stderr: &tail{}, calls: map[uint64]*call{}, dead: make(chan struct{}), ended: ended}
	cmd.Stderr = w.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting DuckDB's worker: %w", err)
	}
	w.in, w.out = in, bufio.NewWriterSize(in, 64<<10)
	w.enc = gob.NewEncoder(w.out)
	go w.read(out)
	r, err := w.do(ctx, request{Op: opOpen, Open: &o}, nil, nil)
	w.settings, w.built = r.Settings, r.Built
	if err != nil {
		w.stop(whyOpen)
		var ce *source.ConnError
		var ee *endedError
		switch {
		case errors.As(err, &ce) && errors.As(err, &ee) && !ee.heard:
			return nil, fmt.Errorf("DuckDB's worker (%s) ended before it answered (a program that serves DuckDB must call duckdb.ServeWorker first in main): %w", exe, err)
		case errors.As(err, &ee) && ee.heard && len(o.Build) > 0 && w.stderr.lastBuilding() != "":
			return nil, &buildCrash{path: w.stderr.lastBuilding(), err: err}
		}
		return nil, err
	}
	return w, nil
}

// buildCrash is a worker that ended while it read path for the catalog.
type buildCrash struct {
	path string
	err  error
}

func (e *buildCrash) Error() string { return e.err.Error() }
func (e *buildCrash) Unwrap() error { return e.err }

// maxBuildCrashes is how many files that crash the worker the catalog's
// build leaves out before it gives up.
const maxBuildCrashes = 8

// read hands each reply to its call until the pipe ends, then waits for
// the process and fails the calls left.
func (w *worker) read(out io.Reader) {
	dec := gob.NewDecoder(bufio.NewReaderSize(out, 64<<10))
	var garbled error
	for {
		var r reply
		if err := dec.Decode(&r); err != nil {
			// A pipe that ends, whole or mid-reply, is the process
			// ending; anything else is a reply sqlmcp cannot read, and
			// the worker is stopped for it.
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				garbled = err
			}
			break
		}
		w.mu.Lock()
		c := w.calls[r.ID]
		w.mu.Unlock()
		if c == nil {
			continue // a call that stopped reading
		}
		select {
		case c.replies <- r:
		case <-c.gone:
		}
	}
	w.mu.Lock()
	alone := len(w.calls) == 1
	w.mu.Unlock()
	w.cmd.Process.Kill()
	err := w.cmd.Wait()
	w.detail, w.why = w.reason(err, garbled)
	// The process ended by itself, not killed by a signal (sqlmcp's or
	// another's), while it ran one call: that call crashed it.
	var ee *exec.ExitError
	w.crashedBy = alone && w.stoppedFor.Load() == nil && garbled == nil && errors.As(err, &ee) && ee.Exited()
	os.RemoveAll(w.spill)
	if w.ended != nil {
		w.ended(w.stoppedFor.Load())
	}
	close(w.dead)
}

// reason says why the worker ended, from what stopped it, a reply that
// could not be read and its exit: as the detail that follows "ended
// while ...", and as an error.
func (w *worker) reason(exit, garbled error) (string, error) {
	if why := w.stoppedFor.Load(); why != nil {
		return "it was stopped: " + *why, fmt.Errorf("DuckDB's worker process was stopped: %s", *why)
	}
	if garbled != nil {
		return fmt.Sprintf("it sent a reply sqlmcp could not read (%v)", garbled), fmt.Errorf("DuckDB's worker process sent a reply sqlmcp could not read, and was stopped: %v", garbled)
	}
	last := w.stderr.lower()
	if w.bound > 0 && (strings.Contains(last, "out of memory") || strings.Contains(last, "bad_alloc") || strings.Contains(last, "cannot allocate memory")) {
		return fmt.Sprintf("it ran out of its memory bound (%d MiB)", w.bound>>20), fmt.Errorf("DuckDB's worker process ran out of its memory bound (%d MiB) and ended", w.bound>>20)
	}
	if exit == nil {
		return "it exited", errors.New("DuckDB's worker process ended")
	}
	return exit.Error(), fmt.Errorf("DuckDB's worker process ended: %v", exit)
}

// stopped reports whether the process ended, or is being stopped.
func (w *worker) stopped() bool {
	if w.stoppedFor.Load() != nil {
		return true
	}
	select {
	case <-w.dead:
		return true
	default:
		return false
	}
}

// stop kills the process, for the reason why, and waits for it to end.
func (w *worker) stop(why string) {
	w.stoppedFor.CompareAndSwap(nil, &why)
	w.cmd.Process.Kill()
	<-w.dead
}

// retire marks the worker to be replaced, and stops it once no call
// uses it.
func (w *worker) retire() {
	w.retiring.Store(true)
	w.stopIfRetired()
}

// stopIfRetired stops a retiring worker no call uses; the last call to
// end calls it again.
func (w *worker) stopIfRetired() {
	w.mu.Lock()
	idle := len(w.calls) == 0
	w.mu.Unlock()
	if idle && w.retiring.Load() {
		go w.stop(whyMemory)
	}
}

// end closes the worker's input, which ends it once its statements are
// interrupted, and stops it if it has not ended a second later.
func (w *worker) end() {
	w.stoppedFor.CompareAndSwap(nil, new(whyClosed))
	w.wmu.Lock()
	w.in.Close()
	w.wmu.Unlock()
	select {
	case <-w.dead:
	case <-time.After(time.Second):
		w.stop(whyClosed)
	}
}

// send writes one request whole.
func (w *worker) send(r request) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if err := w.enc.Encode(&r); err != nil {
		return err
	}
	return w.out.Flush()
}

// lost is the error of a call whose worker ended under it, for a
// request of op that had an answer in part when heard is set: a
// connection error, which the door runs again when no row had come.
func (w *worker) lost(op op, heard bool) error {
	<-w.dead
	e := &endedError{op: op, heard: heard, why: w.why, detail: w.detail}
	if w.crashedBy && op == opRun {
		// The statement that crashed the worker would crash the next
		// one, and with it the calls the next one runs: it fails, and
		// is not run again.
		e.culprit = true
		return e
	}
	return &source.ConnError{Reason: e.Error(), Err: e}
}

// endedError is the error of a request whose worker ended under it.
type endedError struct {
	op      op
	heard   bool // the worker had sent part of its answer
	culprit bool // it was the worker's only call when it crashed
	why     error
	// detail is why, as said after "ended while ...".
	detail string
}

// Error says what the worker was doing when it ended, when it had begun
// to answer: a result read in part is never taken for the whole.
func (e *endedError) Error() string {
	switch {
	case e.culprit:
		return "DuckDB's worker process crashed while running this statement, the only one it ran, so it is not run again (a value nested very deeply can do this): " + e.detail
	case e.heard && (e.op == opRun || e.op == opRaw):
		return "DuckDB's worker process ended while reading the result, so the result is not complete: " + e.detail
	case e.heard && e.op == opOpen:
		return "DuckDB's worker process crashed while opening the database: " + e.detail
	}
	return e.why.Error()
}

func (e *endedError) Unwrap() error { return e.why }

// do sends req and hands the replies before the last to each (the
// columns to columns, when not nil) until each returns false, and returns
// the last. When ctx ends, or each wants no more rows, the worker is
// asked to stop the statement, and the process is stopped if the
// statement runs on duckGiveUp later: what DuckDB does not stop when
// asked cannot outlive its time by more.
func (w *worker) do(ctx context.Context, req request, columns func([]wireColumn), each func([][]any) bool) (reply, error) {
	c := &call{replies: make(chan reply, 4), gone: make(chan struct{})}
	w.mu.Lock()
	w.next++
	req.ID = w.next
	w.calls[req.ID] = c
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.calls, req.ID)
		w.mu.Unlock()
		close(c.gone)
		w.stopIfRetired()
	}()
	if dl, ok := ctx.Deadline(); ok {
		req.Deadline = dl
	}
	if err := w.send(req); err != nil {
		return reply{}, w.lost(req.Op, false)
	}
	var giveUp <-chan time.Time
	stop := func() {
		if giveUp == nil {
			w.send(request{Op: opCancel, Target: req.ID})
			giveUp = time.After(duckGiveUp)
		}
	}
	wanted := true
	heard := false // a reply came: a result, or the opening, had begun
	done, dead := ctx.Done(), w.dead
	for {
		if dead == nil && len(c.replies) == 0 {
			return reply{}, w.lost(req.Op, heard)
		}
		select {
		case r := <-c.replies:
			heard = true
			if r.Retire {
				w.retiring.Store(true)
			}
			switch {
			case r.Done && r.Err == nil:
				return r, nil
			case r.Done && r.Err.Kind == errStopped && !wanted && ctx.Err() == nil:
				return r, nil
			case r.Done:
				return r, r.Err.err(ctx)
			case !wanted:
			case r.Columns != nil:
				if columns != nil {
					columns(r.Columns)
				}
			case each != nil && !each(r.Rows):
				wanted = false
				stop()
			}
		case <-done:
			done = nil
			stop()
		case <-giveUp:
			w.stop(whyTimeout)
			return reply{}, ctx.Err()
		case <-dead:
			// What the worker sent before it ended is read first (its
			// reader queues every reply before it closes dead): its
			// answer may be whole.
			dead = nil
		}
	}
}

// err is the error the worker's error stands for, for a call under ctx.
func (e *wireError) err(ctx context.Context) error {
	switch e.Kind {
	case errEngine:
		return &source.EngineError{Message: e.Message, Code: e.Code, Name: e.Name, Err: errors.New(e.Message)}
	case errNotOneQuery:
		return errNotQuery
	case errStopped:
		// The worker's deadline is the call's, and its timer can fire
		// first: the call's follows at once, and says it was the time.
		if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
			<-ctx.Done()
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return context.DeadlineExceeded
	}
	return errors.New(e.Message)
}

// tail keeps the last bytes a worker wrote to its standard error: what a
// crash says, never logged as it is (it can quote values).
type tail struct {
	mu       sync.Mutex
	buf      []byte
	building string // the file the worker last said it reads to build the catalog
}

// buildingMark starts the line a worker writes on stderr as it begins to
// read a file for the catalog, the file's path quoted after it: a crash's
// own output can be longer than the tail, so the path is kept apart.
const buildingMark = "sqlmcp-duckdb-building "

// lastBuilding is the file the worker last began to read for the catalog.
func (t *tail) lastBuilding() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.building
}

const tailBytes = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := bytes.LastIndex(p, []byte(buildingMark)); i >= 0 {
		line, _, _ := bytes.Cut(p[i+len(buildingMark):], []byte("\n"))
		if path, err := strconv.Unquote(string(line)); err == nil {
			t.building = path
		}
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

// lower is the tail, lower-cased.
func (t *tail) lower() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToLower(string(t.buf))
}
