// Package audit is sqlmcp's audit file: an append-only file of JSON lines,
// one per tool call, that an operator can keep and check. A File receives
// each event as one JSON object (tools writes them with zerolog, the same
// fields as the tool_call log event plus who called), numbers it, chains it
// to the line before with a SHA-256 hash, and writes it from one goroutine,
// so a slow or full disk never holds a call up for long. It fsyncs on a
// bounded interval and on Close, and rotates the file by size, the chain
// running on across files and restarts. Verify checks a chain and says
// which line was edited, removed or inserted.
//
// audit sits beside tools, which writes to it through an io.Writer; only
// cmd/sqlmcp opens a File. It imports zerolog for its own error events.
//
// # Format
//
// Every line is a JSON object ending in a newline. The writer puts two
// fields first: "seq", the line's number in the whole chain (1 for the
// first line ever written, across rotations and restarts), and, with the
// chain on, "prev": the lowercase hex SHA-256 of the previous line's bytes,
// its newline included, so that
//
//	sed -n 41p audit.jsonl | sha256sum
//
// prints line 42's prev. The first line of the first file has Genesis as
// its prev. The writer adds lines of its own, with "event":
//
//   - "audit_open": the first line of every file it creates, with
//     "reason": "new" (the first file) or "rotated" (its prev is the hash
//     of the last line of the file rotated away);
//   - "audit_torn": written on opening a file whose last line has no
//     newline (the server stopped in the middle of writing it); the torn
//     line is ended with a newline and kept as it was, and this line's
//     prev is its hash, so the chain runs on over it;
//   - "audit_lost": written after events the file could not take (a write
//     failed, or the queue was full), with "lost": how many.
package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// Genesis is the prev of the first line of the first file: 64 zeros.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// Options configure Open. The zero value, and nil, mean the defaults.
type Options struct {
	// Sync is the longest a written line waits before it is fsynced.
	// Zero means the default, one second; negative means fsync after
	// every batch of lines, the safest and slowest.
	Sync time.Duration
	// MaxSize is the size in bytes past which the file is rotated: PATH
	// becomes PATH.1, PATH.1 becomes PATH.2 and so on. Zero means never.
	MaxSize int64
	// Keep is how many rotated files are kept (PATH.1 to PATH.Keep); the
	// oldest beyond it is removed. Zero means 10.
	Keep int
	// NoChain leaves the prev field out: lines are numbered, not chained.
	NoChain bool
	// Logger receives the file's own error events (a failed write, a full
	// disk). Default: none.
	Logger zerolog.Logger
	// Queue is how many lines may wait for the disk; when it is full a
	// call waits at most QueueWait, then its line is counted as lost.
	// Zero means 4096 lines and 100ms.
	Queue     int
	QueueWait time.Duration
	// CloseWait is the longest Close waits for the queue to be written.
	// Zero means 10 seconds.
	CloseWait time.Duration
}

// File is an audit file being written. Its Write is safe for concurrent
// use; Close ends it.
type File struct {
	path string
	opts Options
	log  zerolog.Logger

	lines chan []byte
	done  chan struct{}
	err   error // from the last fsync and close, for Close

	// mu orders Write's send before Close's close of lines.
	mu       sync.RWMutex
	closed   bool
	lost     atomic.Int64 // lines dropped since the last audit_lost line
	written  atomic.Int64
	failures atomic.Int64

	// The writer goroutine's alone.
	f        *os.File
	size     int64
	seq      int64             // the last line's, written or in buf
	prev     [sha256.Size]byte // its hash
	wseq     int64             // the last line's on disk
	wprev    [sha256.Size]byte // its hash
	markLost int64             // lost events an audit_lost line in buf records
	dirty    bool              // written since the last fsync
	broken   bool              // a write failed: find where the file stands before the next
	lastLoud time.Time
	buf      []byte
}

// Open opens the audit file at path, creating it if needed, and continues
// its chain from its last line: a restart goes on numbering and chaining
// where the last run stopped. It returns an error when the file cannot be
// opened or read.
func Open(path string, opts *Options) (*File, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Sync == 0 {
		o.Sync = time.Second
	}
	if o.Keep <= 0 {
		o.Keep = 10
	}
	if o.Queue <= 0 {
		o.Queue = 4096
	}
	if o.QueueWait <= 0 {
		o.QueueWait = 100 * time.Millisecond
	}
	if o.CloseWait <= 0 {
		o.CloseWait = 10 * time.Second
	}
	a, err := open(path, o)
	if err != nil {
		return nil, err
	}
	go a.run()
	return a, nil
}

// open opens the file and finds where its chain stands, for Open to start
// the writer. At the start a file that cannot be written is an error: the
// server does not begin to serve without the audit file asked for.
func open(path string, o Options) (*File, error) {
	a := &File{path: path, opts: o, log: o.Logger, lines: make(chan []byte, o.Queue), done: make(chan struct{})}
	if err := a.resume(); err != nil {
		if a.f != nil {
			a.f.Close()
		}
		return nil, err
	}
	if err := a.f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		a.f.Close()
		return nil, fmt.Errorf("audit file %s: %w", path, err)
	}
	a.dirty = false
	return a, nil
}

// Path is the file's path.
func (a *File) Path() string { return a.path }

// Write queues one event, p: a JSON object, with or without its final
// newline. It never waits for the disk; when the queue is full it waits at
// most Options.QueueWait, then counts the event as lost. It returns an
// error only when p is not a JSON object or the file is closed.
func (a *File) Write(p []byte) (int, error) {
	q := bytes.TrimRight(p, "\n")
	if len(q) < 2 || q[0] != '{' || q[len(q)-1] != '}' {
		return 0, errors.New("an audit event is a JSON object")
	}
	line := append([]byte(nil), q...)
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.closed {
		return 0, errors.New("the audit file is closed")
	}
	select {
	case a.lines <- line:
		return len(p), nil
	default:
	}
	t := time.NewTimer(a.opts.QueueWait)
	defer t.Stop()
	select {
	case a.lines <- line:
	case <-t.C:
		a.lost.Add(1)
		a.failures.Add(1)
	}
	return len(p), nil
}

// Stats are counts since Open.
type Stats struct {
	Written  int64 // lines written, the file's own included
	Lost     int64 // events not written, not yet recorded by an audit_lost line
	Failures int64 // failed writes and fsyncs, and events dropped
}

// Stats returns the counts so far. It is safe for concurrent use.
func (a *File) Stats() Stats {
	return Stats{Written: a.written.Load(), Lost: a.lost.Load(), Failures: a.failures.Load()}
}

// Close writes what is queued, fsyncs and closes the file, waiting at
// most Options.CloseWait. Events written after Close are refused. It
// returns the last fsync's or close's error, or says the wait ran out.
func (a *File) Close() error {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.lines)
	}
	a.mu.Unlock()
	// A disk that takes nothing (a hung network mount) must not keep the
	// server from exiting.
	t := time.NewTimer(a.opts.CloseWait)
	defer t.Stop()
	select {
	case <-a.done:
		return a.err
	case <-t.C:
		return fmt.Errorf("audit file %s: the last lines were not written within %s", a.path, a.opts.CloseWait)
	}
}

// run is the writer: it takes queued lines in batches, writes them, and
// fsyncs when the interval is up.
func (a *File) run() {
	defer close(a.done)
	interval := a.opts.Sync
	if interval < 0 {
		interval = time.Hour // every batch is synced below
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				a.finish()
				return
			}
			if !a.batch(line) {
				a.finish()
				return
			}
			if a.opts.Sync < 0 {
				a.sync()
			}
		case <-tick.C:
			a.sync()
		}
	}
}

// finish fsyncs and closes the file, once every line is written.
func (a *File) finish() {
	a.sync()
	if err := a.f.Close(); err != nil && a.err == nil {
		a.err = err
	}
}

// batch writes line and whatever else is queued, in one write when it
// can. It reports false when the queue was closed: Close was called.
func (a *File) batch(line []byte) bool {
	a.buf = a.buf[:0]
	for n := 1; ; n++ {
		a.add(line)
		if n == 256 || len(a.buf) >= 64<<10 {
			break
		}
		var ok bool
		select {
		case line, ok = <-a.lines:
			if !ok {
				a.flush()
				return false
			}
			continue
		default:
		}
		break
	}
	a.flush()
	return true
}

// add numbers and chains one event into buf, rotating first when it
// would take the file past MaxSize. After a failed write it first finds
// where the file stands, and records the events lost.
func (a *File) add(event []byte) {
	if a.broken {
		if err := a.resume(); err != nil {
			a.fail("reading the audit file after a failed write", err)
			a.lost.Add(1)
			return
		}
		a.broken = false
	}
	if n := a.lost.Swap(0); n > 0 {
		a.markLost += n
		a.own(fmt.Appendf(nil, `{"time":%q,"event":"audit_lost","lost":%d}`, now(), n))
	}
	if a.opts.MaxSize > 0 && a.size+int64(len(a.buf)) > 0 && a.size+int64(len(a.buf)+len(event)+100) > a.opts.MaxSize {
		a.flush()
		if !a.broken {
			if err := a.rotate(); err != nil {
				a.broken = true
				a.fail("rotating the audit file", err)
			}
		}
		if a.broken {
			a.lost.Add(1)
			return
		}
	}
	a.own(event)
}

// own appends event to buf as the next line of the chain.
func (a *File) own(event []byte) {
	start := len(a.buf)
	a.buf = append(a.buf, `{"seq":`...)
	a.buf = strconv.AppendInt(a.buf, a.seq+1, 10)
	if !a.opts.NoChain {
		a.buf = append(a.buf, `,"prev":"`...)
		a.buf = hex.AppendEncode(a.buf, a.prev[:])
		a.buf = append(a.buf, '"')
	}
	if len(event) > 2 {
		a.buf = append(a.buf, ',')
	}
	a.buf = append(a.buf, event[1:]...)
	a.buf = append(a.buf, '\n')
	a.seq++
	a.prev = sha256.Sum256(a.buf[start:])
}

// flush writes buf. On failure the lines in it are lost and counted, and
// the next line first finds where the file stands (resume).
func (a *File) flush() {
	if len(a.buf) == 0 {
		return
	}
	lines := int64(bytes.Count(a.buf, []byte{'\n'}))
	n, err := a.f.Write(a.buf)
	a.size += int64(n)
	a.buf = a.buf[:0]
	if err != nil {
		// The numbering goes back to the last line on disk; resume reads
		// it again, and a torn line, from the file itself.
		a.broken = true
		a.seq, a.prev = a.wseq, a.wprev
		a.lost.Add(lines + a.markLost)
		a.markLost = 0
		a.fail("writing the audit file", err)
		return
	}
	a.wseq, a.wprev, a.markLost = a.seq, a.prev, 0
	a.written.Add(lines)
	a.dirty = true
}

// sync fsyncs the file when something was written since the last time.
func (a *File) sync() {
	if !a.dirty || a.f == nil {
		return
	}
	a.dirty = false
	if err := a.f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		a.err = err
		a.fail("syncing the audit file", err)
	}
}

// fail counts and logs a failure of the file, at error level, at most
// once a second: under load a full disk fails every call's line.
func (a *File) fail(doing string, err error) {
	a.failures.Add(1)
	full := errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
	if time.Since(a.lastLoud) < time.Second {
		return
	}
	a.lastLoud = time.Now()
	e := a.log.Error().Str("event", "audit_error").Str("path", a.path).Str("error", fmt.Sprintf("%s: %v", doing, err)).
		Int64("failures", a.failures.Load()).Int64("lost", a.lost.Load())
	if full {
		e.Bool("disk_full", true).Msg("the audit file's disk is full: tool calls go on, but are not recorded in the audit file until there is room")
		return
	}
	e.Msg("the audit file could not be written: tool calls go on, and the events it misses are counted in an audit_lost line")
}

// rotate moves PATH to PATH.1 (and each PATH.N to PATH.N+1, removing the
// one past Keep) and starts a new PATH whose first line chains to the old
// one's last.
func (a *File) rotate() error {
	if err := a.f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	a.dirty = false
	if err := a.f.Close(); err != nil {
		return err
	}
	keep := a.opts.Keep
	if err := os.Remove(fmt.Sprintf("%s.%d", a.path, keep)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for i := keep - 1; i >= 1; i-- {
		if err := os.Rename(fmt.Sprintf("%s.%d", a.path, i), fmt.Sprintf("%s.%d", a.path, i+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.Rename(a.path, a.path+".1"); err != nil {
		return err
	}
	f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		a.broken = true
		return err
	}
	if err := lock(f); err != nil {
		f.Close()
		a.broken = true
		return err
	}
	a.f, a.size = f, 0
	a.own(fmt.Appendf(nil, `{"time":%q,"event":"audit_open","reason":"rotated"}`, now()))
	return nil
}

// resume opens the file for appending and reads where its chain stands:
// the last line's seq and hash. A new or empty file gets its audit_open
// line; a last line torn by a crash gets its newline and an audit_torn
// line after it.
func (a *File) resume() error {
	if a.f != nil {
		a.f.Close()
		a.f = nil
	}
	f, err := os.OpenFile(a.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit file %s: %w", a.path, err)
	}
	a.f = f
	if err := lock(f); err != nil {
		return fmt.Errorf("audit file %s: %w", a.path, err)
	}
	t, err := readTail(f)
	if err != nil {
		return fmt.Errorf("audit file %s: %w", a.path, err)
	}
	a.size = t.size
	a.buf = a.buf[:0]
	switch {
	case t.size == 0 && a.wseq == 0:
		// The first file, or a restart after a rotation moved PATH away
		// and stopped before the new PATH had a line: then PATH.1's last
		// line is where the chain stands.
		reason := "new"
		if prev, err := os.Open(a.path + ".1"); err == nil {
			pt, err := readTail(prev)
			prev.Close()
			if err == nil && pt.size > 0 && !pt.torn {
				a.seq, a.prev, reason = pt.lastSeq, sha256.Sum256(pt.last), "rotated"
			}
		}
		a.own(fmt.Appendf(nil, `{"time":%q,"event":"audit_open","reason":%q}`, now(), reason))
	case t.size == 0:
		// Gone or emptied while running: a new file, still chained.
		a.seq, a.prev = a.wseq, a.wprev
		a.own(fmt.Appendf(nil, `{"time":%q,"event":"audit_open","reason":"rotated"}`, now()))
	case t.torn:
		a.seq = t.lastSeq + 1 // the torn line had its number
		a.prev = sha256.Sum256(append(t.last, '\n'))
		a.buf = append(a.buf, '\n')
		a.own(fmt.Appendf(nil, `{"time":%q,"event":"audit_torn","torn_bytes":%d}`, now(), len(t.last)))
	default:
		a.seq, a.prev = t.lastSeq, sha256.Sum256(t.last)
	}
	if len(a.buf) == 0 {
		a.wseq, a.wprev = a.seq, a.prev
		return nil
	}
	lines := int64(bytes.Count(a.buf, []byte{'\n'}))
	n, err := f.Write(a.buf)
	a.size += int64(n)
	a.buf = a.buf[:0]
	if err != nil {
		return fmt.Errorf("audit file %s: %w", a.path, err)
	}
	a.wseq, a.wprev = a.seq, a.prev
	a.written.Add(lines)
	a.dirty = true
	return nil
}

// now is the time the file's own lines carry.
func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }
