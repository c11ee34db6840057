package duckdb

import (
	"bufio"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sync"
	"time"
	"unsafe"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlmcp/sqlmcp/source"
)

// workerEnv marks a process started as the DuckDB worker.
const workerEnv = "SQLMCP_DUCKDB_WORKER"

// ServeWorker makes this process sqlmcp's DuckDB worker, when it was
// started as one, and exits once its parent is gone; otherwise it returns
// at once. The engine starts the worker as a second copy of the running
// program (ownProgram), so a program that opens DuckDB sources calls
// ServeWorker first thing in main, and so does the TestMain of a test
// binary that opens them.
func ServeWorker() {
	if os.Getenv(workerEnv) != "1" {
		return
	}
	nameWorker()
	if err := serveWorker(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sqlmcp DuckDB worker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// workerSide is the worker's end of the pipes: the locked instance and
// the requests it runs.
type workerSide struct {
	db    *sql.DB
	raw   bool
	bound int64 // the data memory bound, or zero

	conns int // the instance's connections for statements

	pmu     sync.Mutex
	parsers []*parser // idle, kept for parsing; no more than conns

	wmu sync.Mutex
	enc *gob.Encoder
	out *bufio.Writer

	mu      sync.Mutex
	running map[uint64]context.CancelFunc
}

// serveWorker reads requests from in until it ends (the parent is gone)
// and writes the replies to out. Each request but the opening and a
// cancel runs on a goroutine of its own.
func serveWorker(in io.Reader, out io.Writer) error {
	registerCells()
	bw := bufio.NewWriterSize(out, 64<<10)
	w := &workerSide{enc: gob.NewEncoder(bw), out: bw, running: map[uint64]context.CancelFunc{}}
	dec := gob.NewDecoder(bufio.NewReaderSize(in, 64<<10))
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading a request: %w", err)
		}
		switch {
		case req.Op == opOpen:
			w.open(req)
		case req.Op == opCancel:
			w.mu.Lock()
			if cancel := w.running[req.Target]; cancel != nil {
				cancel()
			}
			w.mu.Unlock()
		case w.db == nil:
			w.send(reply{ID: req.ID, Done: true, Err: &wireError{Message: "the DuckDB worker has not opened a database"}})
		default:
			ctx, cancel := context.WithCancel(context.Background())
			if !req.Deadline.IsZero() {
				cancel()
				ctx, cancel = context.WithDeadline(context.Background(), req.Deadline)
			}
			w.mu.Lock()
			w.running[req.ID] = cancel
			w.mu.Unlock()
			go func() {
				defer func() {
					w.mu.Lock()
					delete(w.running, req.ID)
					w.mu.Unlock()
					cancel()
				}()
				w.serve(ctx, req)
			}()
		}
	}
}

// send writes one reply whole, and sends what is written when the reply
// is the request's last. A last reply that cannot be encoded is replaced
// by an error: the parent waits for one.
func (w *workerSide) send(r reply) {
	if err := w.write(r, r.Done); err != nil && r.Done {
		w.write(reply{ID: r.ID, Done: true, Err: &wireError{Message: "the DuckDB worker could not send its answer: " + err.Error()}}, true)
	}
}

// write writes one reply, and sends what is written when flush is set:
// a short answer's columns, rows and end go in one write. Its error is
// the statement's: a reply of rows that could not be written (a value gob
// cannot carry, a message past gob's bound) must fail the statement, or
// the parent would read the rows after it as all there is. A write to the
// pipe fails only when the parent is gone, and the read loop then ends
// the process.
func (w *workerSide) write(r reply, flush bool) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if err := w.enc.Encode(&r); err != nil {
		return err
	}
	if flush {
		return w.out.Flush()
	}
	return nil
}

// open bounds the process's memory and opens the locked instance.
func (w *workerSide) open(req request) {
	o := req.Open
	if o == nil || w.db != nil {
		w.send(reply{ID: req.ID, Done: true, Err: &wireError{Message: "the DuckDB worker opens one database, once"}})
		return
	}
	// A first word, before the work: the parent then knows this is a
	// worker, and a crash in what follows for a crash, not a program
	// that never became one.
	w.write(reply{ID: req.ID}, true)
	// Where the system cannot bound the process, the worker runs
	// without, and says so: the time limit still stops it.
	bounded := *o
	if err := limitData(o.DataLimit); err != nil {
		bounded.DataLimit, bounded.Unbounded = 0, err.Error()
	}
	var (
		settings []string
		made     *built
		err      error
	)
	if len(o.Build) > 0 {
		made, err = buildCatalog(context.Background(), o.DB, o.Build)
		if made != nil {
			bounded.Files = made.Files
		}
	}
	if err == nil {
		w.db, settings, err = openInstance(context.Background(), bounded)
	}
	w.raw, w.bound, w.conns = o.Raw, bounded.DataLimit, o.Conns
	w.send(reply{ID: req.ID, Settings: settings, Built: made, Done: true, Err: toWire(context.Background(), err)})
}

// serve answers one request, its last reply marked Done.
func (w *workerSide) serve(ctx context.Context, req request) {
	var (
		text string
		err  error
	)
	switch req.Op {
	case opParse:
		text, err = w.parse(ctx, req.SQL)
	case opPing:
		err = w.db.PingContext(ctx)
	case opRun:
		err = w.run(ctx, req)
	case opRaw:
		err = errors.New("the DuckDB worker does not run unchecked statements")
		if w.raw {
			err = w.runRaw(ctx, req)
		}
	default:
		err = fmt.Errorf("the DuckDB worker has no request %d", req.Op)
	}
	last := reply{ID: req.ID, Text: text, Done: true, Err: toWire(ctx, err)}
	// Only a statement's rows grow the memory held; and an allocation
	// that failed may have failed anywhere, so the process is not trusted
	// with another statement.
	var ee *source.EngineError
	last.Retire = errors.As(err, &ee) && ee.Code == source.OutOfMemory ||
		(req.Op == opRun || req.Op == opRaw) && w.bound > 0 && dataInUse() > w.bound/4*3
	w.send(last)
}

// parse is DuckDB's json_serialize_sql of text, by a parser the worker
// keeps: a connection with the statement prepared. It runs nothing of the
// text, so it keeps nothing of one call for the next; and preparing once
// saves more than half of a parse (117 µs instead of 280 for SELECT 1).
func (w *workerSide) parse(ctx context.Context, text string) (string, error) {
	w.pmu.Lock()
	var p *parser
	if n := len(w.parsers); n > 0 {
		p, w.parsers = w.parsers[n-1], w.parsers[:n-1]
	}
	w.pmu.Unlock()
	if p == nil {
		c, err := w.db.Conn(ctx)
		if err != nil {
			return "", err
		}
		st, err := c.PrepareContext(ctx, serializeText)
		if err != nil {
			c.Close()
			return "", fmt.Errorf("parsing with DuckDB: %w", err)
		}
		p = &parser{c, st}
	}
	out, err := serializeSQL(ctx, p.st, text)
	// An interrupted connection is not kept, nor more than conns.
	w.pmu.Lock()
	keep := ctx.Err() == nil && len(w.parsers) < w.conns
	if keep {
		w.parsers = append(w.parsers, p)
	}
	w.pmu.Unlock()
	if !keep {
		p.st.Close()
		p.c.Close()
	}
	return out, err
}

// parser is a connection kept for parsing, with serializeText prepared.
type parser struct {
	c  *sql.Conn
	st *sql.Stmt
}

// serializeText is the statement that parses a text with DuckDB's parser.
const serializeText = "SELECT CAST(json_serialize_sql(CAST(? AS VARCHAR)) AS VARCHAR)"

// serializeSQL is DuckDB's json_serialize_sql of text, by st
// (serializeText prepared).
func serializeSQL(ctx context.Context, st *sql.Stmt, text string) (string, error) {
	var out string
	err := st.QueryRowContext(ctx, text).Scan(&out)
	if err != nil {
		return "", fmt.Errorf("parsing with DuckDB: %w", err)
	}
	return out, nil
}

// Rows go to the parent in batches of at most this many rows or bytes.
const (
	batchRows  = 256
	batchBytes = 256 << 10
)

// run checks, with DuckDB's parser and binder, that the text is one
// query, runs it on a connection of its own, closed after, so nothing of
// the call (a temporary object, a variable) outlives it, and sends its
// columns and rows, each value cut to req.Cut. The check comes first
// because the driver runs every statement of a text but the last while
// preparing it.
func (w *workerSide) run(ctx context.Context, req request) error {
	if err := w.oneQuery(ctx, req.SQL); err != nil {
		return err
	}
	c, err := w.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() {
		c.Raw(func(any) error { return driver.ErrBadConn })
		c.Close()
	}()
	return c.Raw(func(dc any) error {
		dconn, ok := dc.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("not a DuckDB connection: %T", dc)
		}
		ps, err := dconn.PrepareContext(ctx, req.SQL)
		if err != nil {
			return engineError(err)
		}
		defer ps.Close()
		stmt := ps.(*duckdb.Stmt)
		typ, err := stmt.StatementType()
		if err != nil {
			return err
		}
		if typ != duckdb.STATEMENT_TYPE_SELECT && typ != duckdb.STATEMENT_TYPE_EXPLAIN {
			return errNotQuery
		}
		named := make([]driver.NamedValue, len(req.Args))
		for i, a := range req.Args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := stmt.QueryContext(ctx, named)
		if err != nil {
			return engineError(err)
		}
		defer rows.Close()
		names := rows.Columns()
		cols := make([]wireColumn, len(names))
		typed, _ := rows.(driver.RowsColumnTypeDatabaseTypeName)
		for i, n := range names {
			cols[i].Name = n
			if typed != nil {
				cols[i].Type = typed.ColumnTypeDatabaseTypeName(i)
			}
		}
		if err := w.write(reply{ID: req.ID, Columns: cols}, false); err != nil {
			return fmt.Errorf("sending the result's columns: %w", err)
		}
		return w.sendRows(ctx, req, cols, func(dest []driver.Value) error { return fetched(rows, rows.Next(dest)) })
	})
}

// fetched is err, the error of rows.Next, unless it says the rows ended
// when they did not: DuckDB's driver takes a chunk DuckDB failed to hand
// over (an allocation that failed, a spilled block it could not read
// back) for the end of the rows, and only the result's error tells them
// apart.
func fetched(rows driver.Rows, err error) error {
	if !errors.Is(err, io.EOF) {
		return err
	}
	res := resultOf(rows)
	if res == nil {
		return errors.New("cannot tell the end of DuckDB's result from a failure: its driver keeps the result where sqlmcp does not look for it")
	}
	if msg := mapping.ResultError(res); msg != "" {
		return engineError(&duckdb.Error{Type: duckdb.ErrorType(mapping.ResultErrorType(res)), Msg: msg})
	}
	return err
}

// resultOf is the DuckDB result behind the driver's rows, or nil when the
// driver keeps it elsewhere (TestResultOf fails on a driver that does).
// The driver does not hand it out, and its error is the only word of a
// chunk that failed.
func resultOf(rows driver.Rows) *mapping.Result {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("res")
	if !f.IsValid() || f.Type() != reflect.TypeFor[mapping.Result]() {
		return nil
	}
	return (*mapping.Result)(unsafe.Pointer(f.UnsafeAddr()))
}

// sendRows reads rows with next until io.EOF and sends them in batches.
// With a budget it stops once the rows sent pass it: the answer cannot
// hold more.
func (w *workerSide) sendRows(ctx context.Context, req request, cols []wireColumn, next func([]driver.Value) error) error {
	dest := make([]driver.Value, len(cols))
	var batch [][]any
	size, sent := 0, 0
	// flush sends the batch, with the end when last is set.
	flush := func(last bool) error {
		if len(batch) == 0 {
			return nil
		}
		err := w.write(reply{ID: req.ID, Rows: batch}, !last)
		batch, size = nil, 0
		if err != nil {
			return fmt.Errorf("sending the result's rows: %w", err)
		}
		return nil
	}
	for {
		if err := next(dest); err != nil {
			// The last batch goes with the end.
			if ferr := flush(true); ferr != nil {
				return ferr
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return engineError(err)
		}
		row := make([]any, len(cols))
		n := 0
		for i, v := range dest {
			row[i] = cutCell(columnCell(cols[i].Type, v), req.Cut)
			n += wireSize(row[i])
		}
		batch = append(batch, row)
		size += n
		sent += n
		if req.Budget > 0 && sent > req.Budget {
			return flush(false)
		}
		if len(batch) >= batchRows || size >= batchBytes {
			if err := flush(false); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			if ferr := flush(false); ferr != nil {
				return ferr
			}
			return err
		}
	}
}

// runRaw runs every statement of the text, as database/sql does, and
// sends the rows of the last, whole.
func (w *workerSide) runRaw(ctx context.Context, req request) error {
	rows, err := w.db.QueryContext(ctx, req.SQL, req.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return err
	}
	cols := make([]wireColumn, len(names))
	for i, n := range names {
		cols[i].Name = n
	}
	if err := w.write(reply{ID: req.ID, Columns: cols}, false); err != nil {
		return fmt.Errorf("sending the result's columns: %w", err)
	}
	vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return w.sendRows(ctx, req, cols, func(dest []driver.Value) error {
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return err
			}
			return io.EOF
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			dest[i] = v
		}
		return nil
	})
}

// oneQuery reports whether DuckDB's parser reads text as exactly one
// SELECT, or EXPLAIN of one: json_serialize_sql serializes SELECT
// statements only, and fails on any other.
func (w *workerSide) oneQuery(ctx context.Context, text string) error {
	if explain(text) {
		text = leading(text)[len("EXPLAIN"):]
	}
	out, err := w.parse(ctx, text)
	if err != nil {
		return err
	}
	var res struct {
		Error      bool              `json:"error"`
		Statements []json.RawMessage `json:"statements"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return fmt.Errorf("reading DuckDB's parse tree: %w", err)
	}
	if res.Error || len(res.Statements) != 1 {
		return errNotQuery
	}
	return nil
}

// toWire is err as the parent needs it.
func toWire(ctx context.Context, err error) *wireError {
	if err == nil {
		return nil
	}
	var de *duckdb.Error
	var ee *source.EngineError
	switch {
	case errors.As(err, &de) && de.Type == duckdb.ErrorTypeInterrupt, ctx.Err() != nil,
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &wireError{Kind: errStopped, Message: err.Error()}
	case errors.Is(err, errNotQuery):
		return &wireError{Kind: errNotOneQuery}
	case errors.As(err, &ee):
		return &wireError{Kind: errEngine, Message: ee.Message, Code: ee.Code, Name: ee.Name}
	}
	return &wireError{Kind: errOther, Message: err.Error()}
}

// cutCell cuts a cell for an answer that shows at most cut bytes of a
// value (no cut when cut is zero): a longer text or JSON document becomes
// a source.Partial of its first cut bytes, a BLOB one of its first bytes,
// a longer list a cutList. Only what the answer can show crosses the
// pipe.
func cutCell(v any, cut int) any {
	if cut <= 0 {
		return v
	}
	switch c := v.(type) {
	case string:
		if len(c) > cut {
			return source.Partial{Head: []byte(c[:cut]), Size: len(c)}
		}
	case json.RawMessage:
		if len(c) > cut {
			return source.Partial{Head: c[:cut], Size: len(c)}
		}
	case []byte:
		if len(c) > blobHead {
			return source.Partial{Head: c[:blobHead], Size: len(c), Blob: true}
		}
	case []any:
		// Every element takes a byte at least, so no more than cut of
		// them can show.
		head := c
		if len(c) > cut {
			head = c[:cut]
		}
		for i := range head {
			head[i] = cutCell(head[i], cut)
		}
		if len(head) < len(c) {
			return cutList{Head: head, Len: len(c)}
		}
		return head
	}
	return v
}

// blobHead is how many bytes of a long BLOB the worker sends: what an
// answer's preview shows.
const blobHead = 16

// cutList is a list of which only the first elements crossed the pipe:
// its cell shows those that fit, and the list's real length.
type cutList struct {
	Head []any
	Len  int
}

// Cell is the list's cell (source.Lazy).
func (l cutList) Cell(maxText int) any { return source.CutArrayOf(l.Head, l.Len, maxText) }

// wireSize is a lower bound of a cell's size in an answer's JSON, for the
// worker's budget.
func wireSize(c any) int {
	switch c := c.(type) {
	case string:
		return len(c)
	case json.RawMessage:
		return len(c)
	case []byte:
		return len(c)
	case source.Partial:
		return len(c.Head)
	case []any:
		n := 1
		for _, e := range c {
			n += wireSize(e) + 1
		}
		return n
	case cutList:
		return wireSize(c.Head)
	case time.Time:
		return 20
	}
	return 1
}
