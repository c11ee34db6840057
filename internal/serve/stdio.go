package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio serves srv on in and out, one JSON-RPC message (or batch) a line,
// until ctx ends or in does. A client may write its requests and close its
// end at once (a shell pipeline, a script): at the end of in, Stdio first
// waits for the replies to every request it read, for up to drain, or
// until ctx ends. It returns nil when in ends or ctx does, and the error
// of a failed write otherwise.
//
// Messages are read and written by sqlmcp's own connection rather than
// the SDK's IOTransport: it decodes each line once, with the standard
// library, and writes replies from pooled buffers without re-encoding the
// result the SDK already marshalled (see UPSTREAM.md).
func Stdio(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer, drain time.Duration) error {
	return StdioCalls(ctx, srv, nil, in, out, drain)
}

// StdioCalls is Stdio with the plain tools/call requests answered by
// calls' handlers rather than the SDK's dispatch (see Calls); nil calls
// is Stdio.
func StdioCalls(ctx context.Context, srv *mcp.Server, calls Calls, in io.Reader, out io.Writer, drain time.Duration) error {
	defer keepHeapFloor()
	t := &stdioTransport{in: in, out: out, drain: drain, calls: calls}
	err := srv.Run(ctx, t)
	if c := t.conn; c != nil {
		// Nothing is written to out once Stdio returns: the direct calls
		// still running are cancelled and their replies written first.
		c.Close()
		c.running.Wait()
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// stdioTransport is an mcp.Transport over a pair of streams.
type stdioTransport struct {
	in    io.Reader
	out   io.Writer
	drain time.Duration
	calls Calls      // nil: every message goes to the SDK
	conn  *stdioConn // the connection Connect made
}

// Connect starts the connection's one reader goroutine. Calls answered
// directly run with ctx, until the connection closes.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		out:      t.out,
		drain:    t.drain,
		calls:    t.calls,
		incoming: make(chan incoming),
		closed:   make(chan struct{}),
		answered: make(chan struct{}),
	}
	c.ctx, c.stop = context.WithCancel(ctx)
	t.conn = c
	in := t.in
	if s, ok := in.(spinner); ok {
		in = idleSpin{in: s, c: c}
	}
	go c.readLoop(bufio.NewReaderSize(in, 64<<10))
	return c, nil
}

// readSpin is how long the reader tries its input again, once every
// request has its reply, before it sleeps until the next message: a
// client's next call often follows at once (a script, an evaluation, an
// agent's calls in a row), and waking a sleeping reader cost a fifth of a
// trivial call's latency (rawio.File.ReadSpin). Measured with bench/ab on
// SQLite, p50 of sequential calls: 50 µs of spin took 4% off, 100 µs and
// 200 µs 21%, with no more CPU per call than sleeping and waking. A client
// that pauses longer costs at most readSpin of CPU per reply.
const readSpin = 100 * time.Microsecond

// spinner is an input that can try a read again before it sleeps.
type spinner interface {
	ReadSpin(p []byte, spin time.Duration) (int, error)
}

// idleSpin reads its connection's input, spinning (readSpin) only while
// no request is in flight: while one runs, the processor is the call's.
type idleSpin struct {
	in spinner
	c  *stdioConn
}

func (s idleSpin) Read(p []byte) (int, error) {
	spin := time.Duration(0)
	s.c.mu.Lock()
	if s.c.pending == 0 {
		spin = readSpin
	}
	s.c.mu.Unlock()
	return s.in.ReadSpin(p, spin)
}

// incoming is one message read, or the error that ended the input.
type incoming struct {
	msg jsonrpc.Message
	err error
}

// stdioConn is one session's connection. Read is called by one goroutine,
// Write by many, Close by any.
type stdioConn struct {
	out      io.Writer
	drain    time.Duration
	incoming chan incoming
	closed   chan struct{}
	once     sync.Once

	wmu sync.Mutex // one message written at a time

	mu       sync.Mutex
	pending  int           // requests delivered, not yet answered
	answered chan struct{} // closed, and replaced, when pending falls
	batches  map[jsonrpc.ID]*batch
	inflight map[jsonrpc.ID]bool // the ids of the requests read and not yet answered

	// The calls answered without the SDK (see Calls): they run with ctx,
	// which stop cancels as the connection closes.
	calls       Calls
	ctx         context.Context
	stop        context.CancelFunc
	initID      *jsonrpc.ID                       // of the initialize request, under mu
	initialized atomic.Bool                       // its reply went out without an error
	direct      map[jsonrpc.ID]context.CancelFunc // calls in flight, under mu
	running     sync.WaitGroup                    // the direct calls not yet answered

	ahead readAheadWatch
}

// readAheadWatch is the one call running on the reading goroutine (see
// runHere), for the watch that hands the reading on when it runs long.
type readAheadWatch struct {
	mu       sync.Mutex
	run      uint64 // the call's number; 0: none runs on the reader
	calls    uint64 // how many have run there
	since    time.Time
	r        *bufio.Reader
	watching bool // a watch goroutine runs
}

// batch collects the replies to a JSON-RPC batch, written as one array
// when the last arrives.
type batch struct {
	replies []*jsonrpc.Response
	slot    map[jsonrpc.ID]int
	left    int
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.stop()
	})
	return nil
}

// Read returns the next message. At the end of the input it waits for the
// replies to the requests delivered, up to drain, before it says so.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case in := <-c.incoming:
		if in.err == nil {
			if req, ok := in.msg.(*jsonrpc.Request); ok && req.IsCall() {
				c.mu.Lock()
				c.pending++
				c.mu.Unlock()
			}
			return in.msg, nil
		}
		if errors.Is(in.err, io.EOF) {
			c.waitAnswered(ctx)
		}
		return nil, in.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
}

// waitAnswered waits until every request delivered has its reply, drain
// has passed, ctx has ended or the connection has closed.
func (c *stdioConn) waitAnswered(ctx context.Context) {
	timer := time.NewTimer(c.drain)
	defer timer.Stop()
	for {
		c.mu.Lock()
		pending, answered := c.pending, c.answered
		c.mu.Unlock()
		if pending <= 0 {
			return
		}
		select {
		case <-answered:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		}
	}
}

// Write writes one message as a line, or holds a reply back until the rest
// of its batch is ready.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	resp, isReply := msg.(*jsonrpc.Response)
	if !isReply {
		return c.writeLine(msg)
	}
	c.mu.Lock()
	delete(c.inflight, resp.ID)
	if c.initID != nil && *c.initID == resp.ID {
		c.initID = nil
		c.initialized.Store(resp.Error == nil)
	}
	var done []*jsonrpc.Response
	held := false
	if b := c.batches[resp.ID]; b != nil {
		held = true
		b.replies[b.slot[resp.ID]] = resp
		delete(c.batches, resp.ID)
		if b.left--; b.left == 0 {
			done = b.replies
		}
	}
	c.mu.Unlock()
	var err error
	switch {
	case !held:
		err = c.writeLine(msg)
	case done != nil:
		err = c.writeBatch(done)
	}
	// Answered once written (or held for its batch, which the last reply
	// writes): the wait at the end of the input ends after the write.
	c.mu.Lock()
	c.pending--
	close(c.answered)
	c.answered = make(chan struct{})
	c.mu.Unlock()
	return err
}

// writeLine writes msg as one line.
func (c *stdioConn) writeLine(msg jsonrpc.Message) error {
	return c.send(func(buf *bytes.Buffer) error { return encode(buf, msg) })
}

// writeBatch writes a batch's replies as one array on one line.
func (c *stdioConn) writeBatch(replies []*jsonrpc.Response) error {
	return c.send(func(buf *bytes.Buffer) error {
		buf.WriteByte('[')
		for i, r := range replies {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encode(buf, r); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	})
}

// send writes what fill puts in a pooled buffer, and a newline, in one
// Write.
func (c *stdioConn) send(fill func(*bytes.Buffer) error) error {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := fill(buf); err != nil {
		return err
	}
	buf.WriteByte('\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(buf.Bytes())
	return err
}

// encode appends msg's JSON to buf. A successful reply is written around
// the result the SDK has already marshalled, which json.Marshal would
// scan and copy again; anything else is the SDK's own encoding.
func encode(buf *bytes.Buffer, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil && len(r.Result) > 0 {
		buf.WriteString(`{"jsonrpc":"2.0","id":`)
		if err := appendID(buf, r.ID); err != nil {
			return err
		}
		buf.WriteString(`,"result":`)
		buf.Write(r.Result)
		buf.WriteByte('}')
		return nil
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	buf.Write(b)
	return nil
}

func appendID(buf *bytes.Buffer, id jsonrpc.ID) error {
	switch v := id.Raw().(type) {
	case int64:
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), v, 10))
	case string:
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		buf.Write(b)
	default:
		buf.WriteString("null")
	}
	return nil
}

// Buffers for writing replies; a buffer grown past maxPooled by a big
// result is left to the collector rather than kept.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooled = 1 << 20

func getBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

func putBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooled {
		return
	}
	b.Reset()
	buffers.Put(b)
}

// readLoop reads lines from r until the input ends or the connection
// closes, delivering each message to Read, or to its handler when it is
// answered directly. A line that is not JSON-RPC gets an error reply and
// reading goes on. A line holding one direct call is answered on the
// goroutine that read it while a new readLoop reads on.
func (c *stdioConn) readLoop(r *bufio.Reader) {
	var line []byte
	for {
		if !c.waitRoom() {
			return
		}
		var err error
		line, err = readLine(r, line[:0])
		var calls []func() // answered directly
		var long *lineTooLong
		if errors.As(err, &long) {
			c.writeLine(&jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: long.Error()}})
			line, err = line[:0], long.err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			msgs, derr := c.decodeLine(line)
			if derr != nil {
				c.writeLine(&jsonrpc.Response{Error: derr})
			}
			for _, m := range msgs {
				if direct, call := c.answerDirect(m); direct {
					if call != nil {
						calls = append(calls, call)
					}
					continue
				}
				select {
				case c.incoming <- incoming{msg: m}:
				case <-c.closed:
					return
				}
			}
		}
		if len(calls) == 1 && err == nil {
			if !c.runHere(r, calls[0]) {
				return // another goroutine reads on
			}
			continue
		}
		for _, call := range calls {
			go call()
		}
		if err != nil {
			select {
			case c.incoming <- incoming{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// MaxInFlight bounds the requests of one stdio connection that are read
// and not yet answered: at the bound the reader reads no more until a
// reply has been written. Each request in flight may hold a reply up to
// the result limits, and a client that sends requests without reading
// the replies (its pipe full, every write waiting) would otherwise make
// sqlmcp hold them all: 3,000 calls of 200 KB results took it to 2 GB.
// A client that writes all its requests at once is still answered, the
// later ones as the earlier are read.
const MaxInFlight = 64

// MaxStdioBatch bounds the messages of one JSON-RPC batch, whose replies
// are held until the last is ready: a larger batch gets an error reply.
const MaxStdioBatch = maxBatch

// waitRoom waits until fewer than MaxInFlight requests are in flight,
// reporting false when the connection closes first.
func (c *stdioConn) waitRoom() bool {
	for {
		c.mu.Lock()
		pending, answered := c.pending, c.answered
		c.mu.Unlock()
		if pending < MaxInFlight {
			return true
		}
		select {
		case <-answered:
		case <-c.closed:
			return false
		}
	}
}

// readAhead is how long a call answered on the reading goroutine runs
// before another goroutine takes over the reading; readAheadIdle is how
// many of those periods the watch goes on without a call before it stops.
const (
	readAhead     = 500 * time.Microsecond
	readAheadIdle = 16
)

// runHere runs call on the goroutine that read it, which reads on once
// the call returns, reporting whether it still reads. A short call thus
// wakes no other goroutine or thread: the scheduler's handoffs were most
// of a trivial call's latency. When more input is already buffered, a new
// readLoop reads on meanwhile, and when the call runs past readAhead the
// watch starts one, so the next requests (a cancellation among them) are
// not held up.
//
// The watch is one goroutine on a ticker, not a timer per call: arming a
// timer woke an idle thread to mind it, a fifth of a trivial call's CPU.
func (c *stdioConn) runHere(r *bufio.Reader, call func()) bool {
	if r.Buffered() > 0 {
		go c.readLoop(r)
		call()
		return false
	}
	w := &c.ahead
	w.mu.Lock()
	w.calls++
	run := w.calls
	w.run, w.since, w.r = run, time.Now(), r
	if !w.watching {
		w.watching = true
		go c.watchReadAhead()
	}
	w.mu.Unlock()
	call()
	w.mu.Lock()
	still := w.run == run // else the watch took over the reading
	if still {
		w.run, w.r = 0, nil
	}
	w.mu.Unlock()
	return still
}

// watchReadAhead starts a readLoop for the call running on the reader
// once it has run readAhead, checking every readAhead, until no call has
// come for readAheadIdle periods or the connection closes.
func (c *stdioConn) watchReadAhead() {
	t := time.NewTicker(readAhead)
	defer t.Stop()
	w := &c.ahead
	seen, idle := uint64(0), 0
	for {
		select {
		case <-t.C:
		case <-c.ctx.Done():
			w.mu.Lock()
			w.watching = false
			w.mu.Unlock()
			return
		}
		w.mu.Lock()
		switch {
		case w.run != 0 && time.Since(w.since) >= readAhead:
			go c.readLoop(w.r)
			w.run, w.r = 0, nil
		case w.run == 0 && w.calls == seen:
			idle++
		default:
			idle = 0
		}
		seen = w.calls
		if idle >= readAheadIdle {
			w.watching = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
}

// answerDirect reports true when m is a plain tools/call on an
// initialized session (directCall), with the call that answers it for the
// caller to run, or the cancellation of one such call in flight, which it
// cancels. It notes the initialize request, whose reply marks the session
// initialized, as the SDK's state does.
func (c *stdioConn) answerDirect(m jsonrpc.Message) (direct bool, call func()) {
	req, ok := m.(*jsonrpc.Request)
	if !ok || c.calls == nil {
		return false, nil
	}
	switch req.Method {
	case "initialize":
		if req.IsCall() {
			c.mu.Lock()
			id := req.ID
			c.initID = &id
			c.mu.Unlock()
		}
		return false, nil
	case "notifications/cancelled":
		return c.cancelDirect(req.Params), nil
	}
	if !c.initialized.Load() {
		return false, nil
	}
	h, params := directCall(c.calls, req)
	if h == nil {
		return false, nil
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	if _, dup := c.direct[req.ID]; dup {
		// The SDK decides what an id reused in flight gets.
		c.mu.Unlock()
		cancel()
		return false, nil
	}
	if c.direct == nil {
		c.direct = map[jsonrpc.ID]context.CancelFunc{}
	}
	c.direct[req.ID] = cancel
	c.pending++ // Write counts it answered
	c.mu.Unlock()
	c.running.Add(1)
	return true, func() {
		defer c.running.Done()
		resp := answer(ctx, h, req.ID, params)
		c.mu.Lock()
		delete(c.direct, req.ID)
		c.mu.Unlock()
		cancel()
		c.Write(context.Background(), resp)
	}
}

// cancelDirect cancels the call in flight that the notifications/cancelled
// params name, reporting whether it was one answered directly; the SDK
// hears of the others.
func (c *stdioConn) cancelDirect(params json.RawMessage) bool {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	id, err := decodeID(p.RequestID)
	if err != nil {
		return false
	}
	c.mu.Lock()
	cancel := c.direct[id]
	c.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	return true
}

// MaxLineBytes bounds one message (or batch) read from stdio: a longer
// line is skipped as it is read, never held, and answered with an error.
// The longest SQL the guard reads (guard.MaxSQLBytes, 1 MiB) fits in it
// with every character escaped.
const MaxLineBytes = 8 << 20

// lineTooLong is a line longer than MaxLineBytes, skipped; err is what
// ended it (nil at its newline, io.EOF at the end of the input).
type lineTooLong struct {
	n   int
	err error
}

func (e *lineTooLong) Error() string {
	return fmt.Sprintf("invalid request: a message of %d bytes; the limit is %d", e.n, MaxLineBytes)
}

// readLine appends the next line of r, without its newline, to line. At
// the end of the input it returns the last line, if unterminated, with
// io.EOF. A line longer than MaxLineBytes is read to its end and dropped,
// and the error is a *lineTooLong.
func readLine(r *bufio.Reader, line []byte) ([]byte, error) {
	start := len(line)
	n := 0
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if n <= MaxLineBytes+1 { // the newline does not count
			line = append(line, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case n > MaxLineBytes+1 || (n == MaxLineBytes+1 && err != nil):
			if err == nil {
				n-- // its newline
			}
			return line[:start], &lineTooLong{n: n, err: err}
		case err == nil:
			return line[:len(line)-1], nil
		default:
			return line, err
		}
	}
}

// envelope is a JSON-RPC message as it arrives: a request, a notification
// or a reply.
type envelope struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

// decodeLine decodes one line: a message or a batch of them. A batch's
// requests are noted so their replies go out together.
func (c *stdioConn) decodeLine(line []byte) ([]jsonrpc.Message, error) {
	line = bytes.TrimSpace(line)
	if line[0] != '[' {
		m, err := decodeMessage(line)
		if err != nil {
			return nil, err
		}
		msgs := []jsonrpc.Message{m}
		c.mu.Lock()
		defer c.mu.Unlock()
		if err := c.claim(msgs); err != nil {
			return nil, err
		}
		return msgs, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: " + err.Error()}
	}
	if len(raws) == 0 {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: an empty batch"}
	}
	if len(raws) > MaxStdioBatch {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("invalid request: a batch of %d messages; at most %d may be sent at once: send the rest in another batch", len(raws), MaxStdioBatch)}
	}
	msgs := make([]jsonrpc.Message, 0, len(raws))
	b := &batch{slot: map[jsonrpc.ID]int{}}
	for _, raw := range raws {
		m, err := decodeMessage(raw)
		if err != nil {
			return nil, err
		}
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			if _, dup := b.slot[req.ID]; dup {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("invalid request: id %v twice in a batch", req.ID.Raw())}
			}
			b.slot[req.ID] = len(b.replies)
			b.replies = append(b.replies, nil)
		}
		msgs = append(msgs, m)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.claim(msgs); err != nil {
		return nil, err
	}
	if len(b.replies) > 0 {
		b.left = len(b.replies)
		if c.batches == nil {
			c.batches = map[jsonrpc.ID]*batch{}
		}
		for id := range b.slot {
			c.batches[id] = b
		}
	}
	return msgs, nil
}

// claim notes the ids of the requests among msgs as in flight, under
// c.mu. When one is in flight already (a client may not reuse an id until
// its reply), it notes none and returns the error that answers the line:
// the SDK would drop such a request unanswered, and the reader, counting
// it in flight for ever, would stop at MaxInFlight.
func (c *stdioConn) claim(msgs []jsonrpc.Message) error {
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() && c.inflight[req.ID] {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("invalid request: id %v is already used by a request in flight; give each request its own id", req.ID.Raw())}
		}
	}
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			if c.inflight == nil {
				c.inflight = map[jsonrpc.ID]bool{}
			}
			c.inflight[req.ID] = true
		}
	}
	return nil
}

// decodeMessage decodes one JSON-RPC message.
func decodeMessage(raw []byte) (jsonrpc.Message, error) {
	if req, ok := fastRequest(raw); ok {
		return req, nil
	}
	return decodeStandard(raw)
}

// decodeStandard decodes one JSON-RPC message with encoding/json.
func decodeStandard(raw []byte) (jsonrpc.Message, error) {
	var e envelope
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: " + err.Error()}
	}
	if e.Version != "2.0" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(`invalid request: "jsonrpc" is %q, not "2.0"`, e.Version)}
	}
	id, err := decodeID(e.ID)
	if err != nil {
		return nil, err
	}
	if e.Method != nil {
		return &jsonrpc.Request{ID: id, Method: *e.Method, Params: e.Params}, nil
	}
	r := &jsonrpc.Response{ID: id, Result: e.Result}
	if e.Error != nil {
		r.Error = e.Error
	}
	return r, nil
}

// decodeID reads an id as the SDK keeps it: a string, an integer, or
// none. A number the reply could not give back as it was sent is refused,
// so no reply goes to an id the client never sent: the SDK keeps a number
// as a float64 made int64, so it would answer 1.5 as 1, 2^53+1 as 2^53 and
// 1e19 as a negative number.
func decodeID(raw json.RawMessage) (jsonrpc.ID, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return jsonrpc.ID{}, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: the id: " + err.Error()}
		}
		return jsonrpc.MakeID(s)
	}
	const exact = 1 << 53 // every integer below it is a float64
	f, err := strconv.ParseFloat(string(raw), 64)
	if n, ierr := strconv.ParseInt(string(raw), 10, 64); ierr == nil {
		f, err = float64(n), nil
		if n <= -exact || n >= exact {
			err = strconv.ErrRange
		}
	}
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= exact {
		return jsonrpc.ID{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("invalid request: the id %.40s is not a string or an integer below 2^53 in magnitude; give each request such an id", raw)}
	}
	return jsonrpc.MakeID(f)
}
