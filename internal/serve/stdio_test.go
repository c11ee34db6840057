package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/serve"
)

const initializeLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// replies reads the JSON-RPC replies in out, by id.
func replies(t *testing.T, out []byte) map[string]map[string]json.RawMessage {
	t.Helper()
	got := map[string]map[string]json.RawMessage{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msgs []map[string]json.RawMessage
		line := sc.Bytes()
		if len(line) > 0 && line[0] == '[' {
			if err := json.Unmarshal(line, &msgs); err != nil {
				t.Fatalf("stdout holds a line that is not JSON: %q", line)
			}
		} else {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("stdout holds a line that is not JSON: %q", line)
			}
			msgs = append(msgs, m)
		}
		for _, m := range msgs {
			got[string(m["id"])] = m
		}
	}
	return got
}

// A client may write its requests and hang up at once, as a shell
// pipeline does: every request is still answered, a slow one too.
func TestStdioAnswersBeforeHangingUp(t *testing.T) {
	t.Parallel()
	viaBoth(t, testStdioAnswersBeforeHangingUp)
}

// viaBoth runs test with tools/call answered by the tools' handlers
// directly, as sqlmcp serves, and by the SDK's dispatch.
func viaBoth(t *testing.T, test func(t *testing.T, serve stdioFunc, srv *mcp.Server)) {
	for _, direct := range []bool{true, false} {
		t.Run(fmt.Sprintf("direct=%v", direct), func(t *testing.T) {
			t.Parallel()
			srv, calls := newServerCalls(t, dbtest.SQLite(t, nil), &mcptest.Log{}, 0)
			run := serve.Stdio
			if direct {
				run = func(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer, drain time.Duration) error {
					return serve.StdioCalls(ctx, srv, calls, in, out, drain)
				}
			}
			test(t, run, srv)
		})
	}
}

// stdioFunc is serve.Stdio's signature.
type stdioFunc func(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer, drain time.Duration) error

func testStdioAnswersBeforeHangingUp(t *testing.T, stdio stdioFunc, srv *mcp.Server) {
	const calls = 20
	var in strings.Builder
	in.WriteString(initializeLine)
	// The slow one counts to two million, row by row.
	slow := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) AS n FROM c"
	for id := 1; id <= calls; id++ {
		sql := fmt.Sprintf("SELECT %d AS n", id)
		if id == calls {
			sql = slow
		}
		args, _ := json.Marshal(map[string]any{"name": "run_query", "arguments": map[string]string{"sql": sql}})
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`+"\n", id, args)
	}
	in.WriteString(`{"jsonrpc":"2.0","id":"last","method":"ping"}`) // no newline: the end of input ends it

	var out bytes.Buffer
	if err := stdio(t.Context(), srv, strings.NewReader(in.String()), &out, time.Minute); err != nil {
		t.Fatal(err)
	}
	answered := replies(t, out.Bytes())
	for id := 0; id <= calls; id++ {
		m, ok := answered[fmt.Sprint(id)]
		if !ok {
			t.Errorf("request %d was not answered (%d of %d were)", id, len(answered), calls+2)
		}
		if m["error"] != nil {
			t.Errorf("request %d: error %s", id, m["error"])
		}
	}
	if _, ok := answered[`"last"`]; !ok {
		t.Error("the last request, cut short by the end of input, was not answered")
	}
	if r := string(answered[fmt.Sprint(calls)]["result"]); !strings.Contains(r, "2000000") || strings.Contains(r, `"isError":true`) {
		t.Errorf("the slow query's result: %s", r)
	}
}

// TestStdioDrainBound: a reply that would take longer than drain is not
// waited for past it.
func TestStdioDrainBound(t *testing.T) {
	t.Parallel()
	srv := newServer(t, dbtest.SQLite(t, nil), &mcptest.Log{}, 0)
	in := initializeLine + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"` + sqliteRunaway + `"}}}` + "\n"
	start := time.Now()
	if err := serve.Stdio(t.Context(), srv, strings.NewReader(in), io.Discard, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Stdio returned after %s, want about the 300ms drain", d)
	}
}

// TestStdioLines: a batch gets one array of replies; a line that is not
// JSON, or not JSON-RPC 2.0, gets an error reply and the session goes on;
// blank lines are skipped.
func TestStdioLines(t *testing.T) {
	t.Parallel()
	viaBoth(t, testStdioLines)
}

func testStdioLines(t *testing.T, stdio stdioFunc, srv *mcp.Server) {
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}` + "\n" +
		"\n" +
		"not json\n" +
		`{"jsonrpc":"1.0","id":5,"method":"ping"}` + "\n" +
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"two","method":"ping"}]` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}` + "\n"
	var out bytes.Buffer
	if err := stdio(t.Context(), srv, strings.NewReader(in), &out, time.Minute); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("got %d lines, want 5 (initialize, two errors, the batch, tools/list):\n%s", len(lines), out.String())
	}
	// The errors are written as the lines are read, the replies when the
	// server has them: find each by what it holds.
	find := func(what string) string {
		for _, l := range lines {
			if strings.Contains(l, what) {
				return l
			}
		}
		t.Errorf("no line holds %s:\n%s", what, out.String())
		return ""
	}
	find(`"code":-32700`)
	find(`"code":-32600`)
	var batch []map[string]any
	if l := find(`[{`); json.Unmarshal([]byte(l), &batch) != nil || len(batch) != 2 || batch[0]["id"] != float64(1) || batch[1]["id"] != "two" {
		t.Errorf("the batch: got %s, want an array of the two replies in order", l)
	}
	find(`"name":"run_query"`)
}

// TestStdioLineBound: a line longer than MaxLineBytes is skipped as it is
// read and answered with an error, at the end of the input too; the line
// at the bound and the requests after it are answered.
func TestStdioLineBound(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ping := func(id int, pad int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"%s}`, id, strings.Repeat(" ", pad)) + "\n"
	}
	at := ping(2, 0)
	at = ping(2, serve.MaxLineBytes-len(at)+1) // MaxLineBytes before its newline
	in := strings.Join([]string{
		strings.SplitAfter(initializeLine, "\n")[0],
		ping(1, serve.MaxLineBytes), // past the bound
		at,
		ping(3, 0),
		ping(4, serve.MaxLineBytes+5)[:serve.MaxLineBytes+2], // unterminated, past the bound
	}, "")
	var out bytes.Buffer
	if err := serve.Stdio(t.Context(), srv, strings.NewReader(in), &out, time.Minute); err != nil {
		t.Fatal(err)
	}
	got := replies(t, out.Bytes())
	for _, id := range []string{"0", "2", "3"} {
		if _, ok := got[id]["result"]; !ok {
			t.Errorf("request %s: got %s, want a result", id, got[id])
		}
	}
	if _, ok := got["1"]; ok {
		t.Errorf("the line past the bound was answered as a request: %s", got["1"])
	}
	tooLong := strings.Count(out.String(), "the limit is "+fmt.Sprint(serve.MaxLineBytes))
	if tooLong != 2 {
		t.Errorf("%d replies say a message was too long, want 2:\n%.2000s", tooLong, out.String())
	}
}

// TestStdioClient: the go-sdk's own client over a pair of pipes calls
// every tool.
func TestStdioClient(t *testing.T) {
	t.Parallel()
	cs := stdioSession(t, serve.Stdio)
	for _, c := range everyTool {
		if text, isErr := callText(t, cs, c.tool, c.args); isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s: got isError=%v %q, want %q", c.tool, isErr, text, c.want)
		}
	}
}

// stdioSession runs serve over a pair of OS pipes and connects the go-sdk
// client to the other ends.
func stdioSession(t testing.TB, serve func(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer, drain time.Duration) error) *mcp.ClientSession {
	t.Helper()
	srv := newServer(t, dbtest.SQLite(t, nil), &mcptest.Log{}, 0)
	toServer, in := pipe(t)
	out, fromServer := pipe(t)
	go serve(t.Context(), srv, toServer, fromServer, time.Second)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(t.Context(), &mcp.IOTransport{Reader: out, Writer: in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// pipe is an OS pipe closed when the test ends.
func pipe(t testing.TB) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestStdioInFlightBound: a client that writes requests without reading
// the replies makes sqlmcp hold at most MaxInFlight of them: the reader
// reads no further ahead of the replies written. Every request is still
// answered once the client reads, as a pipeline that writes everything
// first expects; a batch over MaxStdioBatch is refused whole.
func TestStdioInFlightBound(t *testing.T) {
	t.Parallel()
	viaBoth(t, testStdioInFlightBound)
}

func testStdioInFlightBound(t *testing.T, stdio stdioFunc, srv *mcp.Server) {
	calls := 4 * serve.MaxInFlight
	lines := strings.SplitAfter(initializeLine, "\n")
	lines = lines[:len(lines)-1]
	for id := 1; id <= calls; id++ {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT %d AS n"}}}`+"\n", id, id))
	}
	var batch []string
	for i := range serve.MaxStdioBatch + 1 {
		batch = append(batch, fmt.Sprintf(`{"jsonrpc":"2.0","id":"b%d","method":"ping"}`, i))
	}
	lines = append(lines, "["+strings.Join(batch, ",")+"]\n")
	out := &stalledWriter{release: make(chan struct{})}
	in := &lineFeed{lines: lines, out: out, allRead: make(chan struct{})}
	// The writer lets replies out once the reader has read every line (it
	// read on regardless: the bound failed) or, when it stopped, after a
	// pause; the bound is judged by counts at each read, not by time.
	go func() {
		select {
		case <-in.allRead:
		case <-time.After(time.Second):
		}
		close(out.release)
	}()
	if err := stdio(t.Context(), srv, in, out, time.Minute); err != nil {
		t.Fatal(err)
	}
	if in.ahead > serve.MaxInFlight+2 {
		t.Errorf("the reader read %d requests ahead of the replies written, want at most %d", in.ahead, serve.MaxInFlight)
	}
	got := replies(t, out.buf.Bytes())
	for id := 1; id <= calls; id++ {
		if _, ok := got[fmt.Sprint(id)]["result"]; !ok {
			t.Fatalf("request %d: got %s, want a result", id, got[fmt.Sprint(id)])
		}
	}
	if !strings.Contains(out.buf.String(), fmt.Sprintf("a batch of %d messages", serve.MaxStdioBatch+1)) {
		t.Errorf("the batch of %d was not refused", serve.MaxStdioBatch+1)
	}
}

// stalledWriter holds every write until release is closed, counting the
// lines written.
type stalledWriter struct {
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
	lines   int
}

func (w *stalledWriter) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines += bytes.Count(p, []byte("\n"))
	return w.buf.Write(p)
}

func (w *stalledWriter) written() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lines
}

// lineFeed hands out one line per Read, noting the most lines it had
// handed out beyond those out had written.
type lineFeed struct {
	lines   []string
	next    int
	out     *stalledWriter
	ahead   int
	allRead chan struct{}
}

func (f *lineFeed) Read(p []byte) (int, error) {
	if f.next == len(f.lines) {
		return 0, io.EOF
	}
	if len(p) < len(f.lines[f.next]) {
		return 0, io.ErrShortBuffer
	}
	n := copy(p, f.lines[f.next])
	f.next++
	f.ahead = max(f.ahead, f.next-f.out.written())
	if f.next == len(f.lines) {
		close(f.allRead)
	}
	return n, nil
}

// TestStdioIDInFlight: a request whose id is that of a request still in
// flight gets an error reply at once (the SDK would leave it unanswered,
// and the reader would count it in flight for ever, until it stopped at
// MaxInFlight); the requests after it are answered.
func TestStdioIDInFlight(t *testing.T) {
	t.Parallel()
	viaBoth(t, testStdioIDInFlight)
}

func testStdioIDInFlight(t *testing.T, stdio stdioFunc, srv *mcp.Server) {
	slow := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) AS n FROM c"
	var in strings.Builder
	in.WriteString(initializeLine)
	for range serve.MaxInFlight + 1 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":%q}}}`+"\n", slow)
	}
	in.WriteString(`{"jsonrpc":"2.0","id":"last","method":"ping"}` + "\n")
	// The deadline only ends the test if the reader stops for good.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := stdio(ctx, srv, strings.NewReader(in.String()), &out, time.Minute); err != nil {
		t.Fatal(err)
	}
	got := replies(t, out.Bytes())
	if _, ok := got[`"last"`]["result"]; !ok {
		t.Fatalf("the ping after the reused ids was not answered:\n%.3000s", out.String())
	}
	if _, ok := got["7"]["result"]; !ok {
		t.Errorf("request 7 was not answered")
	}
	if n := strings.Count(out.String(), "id 7 is already used by a request in flight"); n == 0 {
		t.Errorf("no reused id was refused:\n%.3000s", out.String())
	}
	if n := strings.Count(out.String(), "\n"); n != serve.MaxInFlight+3 {
		t.Errorf("%d replies, want one for each of the %d requests", n, serve.MaxInFlight+3)
	}
}

// TestStdioIDs: a request's reply carries its id as sent, a number
// written otherwise too (1e3); a numeric id the reply could not carry as
// sent (a fraction, 2^53 and past, past int64) gets an error saying so,
// not a reply to another id.
func TestStdioIDs(t *testing.T) {
	t.Parallel()
	viaBoth(t, testStdioIDs)
}

func testStdioIDs(t *testing.T, stdio stdioFunc, srv *mcp.Server) {
	in := initializeLine
	for _, id := range []string{"1.5", "9007199254740993", "1e19", "-1e300", "9007199254740991", "1e3", "-5", `"x"`} {
		in += `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT 1"}}}` + "\n"
	}
	var out bytes.Buffer
	if err := stdio(t.Context(), srv, strings.NewReader(in), &out, time.Minute); err != nil {
		t.Fatal(err)
	}
	got := replies(t, out.Bytes())
	for _, id := range []string{"9007199254740991", "1000", "-5", `"x"`} {
		if _, ok := got[id]["result"]; !ok {
			t.Errorf("id %s: no result:\n%s", id, out.String())
		}
	}
	for _, id := range []string{"1", "9007199254740992", "-9223372036854775808"} {
		if _, ok := got[id]; ok {
			t.Errorf("a reply to id %s, which no request had:\n%s", id, out.String())
		}
	}
	for _, id := range []string{"1.5", "9007199254740993", "1e19", "-1e300"} {
		if !strings.Contains(out.String(), "the id "+id+" is not a string or an integer") {
			t.Errorf("id %s was not refused:\n%s", id, out.String())
		}
	}
}
