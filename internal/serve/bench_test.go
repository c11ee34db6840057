package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/serve"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/tools"
)

const select1 = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT 1"}}}` + "\n"

// pointLookup is a point lookup whose text differs from call to call, as
// a model's do: the guard judges each one afresh.
const pointLookup = `{"jsonrpc":"2.0","id":%[1]d,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT * FROM customers WHERE id = 1 + (%[1]d * 7919) %% 4"}}}` + "\n"

// cpuTime is the CPU this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStdioSelect1 sends run_query SELECT 1 as raw JSON-RPC lines
// over OS pipes, one at a time, and reads each reply: sqlmcp's stdio
// connection beside the SDK's IOTransport on the same server. cpu-us/op
// is the whole process's CPU (the few microseconds of the client's
// loop included).
func BenchmarkStdioSelect1(b *testing.B) {
	sdk := func(ctx context.Context, srv *mcp.Server, _ serve.Calls, in io.Reader, out io.Writer, _ time.Duration) error {
		return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	}
	sdkDispatch := func(ctx context.Context, srv *mcp.Server, _ serve.Calls, in io.Reader, out io.Writer, drain time.Duration) error {
		return serve.Stdio(ctx, srv, in, out, drain)
	}
	for _, bc := range []struct {
		name   string
		engine func(testing.TB, *source.Options) *source.DB
		serve  func(context.Context, *mcp.Server, serve.Calls, io.Reader, io.Writer, time.Duration) error
	}{
		{"engine=sqlite/transport=sqlmcp", dbtest.SQLite, serve.StdioCalls},
		{"engine=sqlite/transport=sqlmcp-sdk-dispatch", dbtest.SQLite, sdkDispatch},
		{"engine=sqlite/transport=sdk", dbtest.SQLite, sdk},
		{"engine=postgres/transport=sqlmcp", dbtest.Postgres, serve.StdioCalls},
		{"engine=postgres/transport=sqlmcp-sdk-dispatch", dbtest.Postgres, sdkDispatch},
	} {
		for _, call := range []string{select1, pointLookup} {
			name := bc.name
			if call == pointLookup {
				name += "/point"
			}
			b.Run(name, func(b *testing.B) {
				srv, calls := benchServer(b, bc.engine(b, nil))
				toServer, in := pipe(b)
				out, fromServer := pipe(b)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				go bc.serve(ctx, srv, calls, toServer, fromServer, time.Second)
				r := bufio.NewReaderSize(out, 1<<16)
				roundTrip := func(line string) {
					if _, err := io.WriteString(in, line); err != nil {
						b.Fatal(err)
					}
					reply, err := r.ReadSlice('\n')
					if err != nil || !bytes.Contains(reply, []byte(`"result"`)) || bytes.Contains(reply, []byte(`"isError":true`)) {
						b.Fatalf("%v: %s", err, reply)
					}
				}
				roundTrip(strings.SplitAfter(initializeLine, "\n")[0])
				io.WriteString(in, strings.SplitAfter(initializeLine, "\n")[1])
				b.ReportAllocs()
				cpu := cpuTime()
				i := 0
				for b.Loop() {
					i++
					roundTrip(fmt.Sprintf(call, i))
				}
				b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-us/op")
			})
		}
	}
}

// startOnly hands w only the log's start events: the rest are formatted
// at the server's level, as for a real stream, but not parsed back.
type startOnly struct{ w io.Writer }

func (s startOnly) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"event":"start"`)) {
		return s.w.Write(p)
	}
	return len(p), nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// benchServer is the real sqlmcp server over db, its log discarded: the
// events are still formatted, as for a real stream, but not parsed back
// as the tests' log does.
func benchServer(b *testing.B, db *source.DB) (*mcp.Server, *tools.Calls) {
	cat, err := schema.New(db, nil)
	if err != nil {
		b.Fatal(err)
	}
	calls := new(tools.Calls)
	return tools.NewServer(db, cat, &tools.Options{Logger: zerolog.New(io.Discard), Calls: calls}), calls
}

// BenchmarkHTTPSelect1 posts run_query SELECT 1 as a plain 2025-06-18
// client does, over loopback, from eight goroutines at once, on SQLite
// and PostgreSQL.
func BenchmarkHTTPSelect1(b *testing.B) {
	for _, direct := range []bool{true, false} {
		dispatch := ""
		if !direct {
			dispatch = "/sdk-dispatch"
		}
		b.Run("engine=sqlite"+dispatch, func(b *testing.B) { benchHTTP(b, dbtest.SQLite(b, nil), direct) })
		b.Run("engine=postgres"+dispatch, func(b *testing.B) { benchHTTP(b, dbtest.Postgres(b, nil), direct) })
	}
}

// benchHTTP posts SELECT 1 to db's server, whose tools/call the tools'
// handlers answer directly (as sqlmcp serves) or, direct false, the SDK's
// dispatch does.
func benchHTTP(b *testing.B, db *source.DB, direct bool) {
	srv, calls := benchServer(b, db)
	opts := &serve.HTTPOptions{Addr: "127.0.0.1:0"}
	if direct {
		opts.Calls = calls
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	log := &mcptest.Log{}
	opts.Logger = zerolog.New(startOnly{log})
	go func() {
		done <- serve.HTTP(ctx, srv, opts)
	}()
	b.Cleanup(func() { cancel(); <-done })
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if evs := log.Find(map[string]any{"event": "start", "transport": "http"}); len(evs) > 0 {
			base = strings.TrimSuffix(evs[0]["url"].(string), "/mcp")
		}
	}
	if base == "" {
		b.Fatalf("no start event:\n%s", log)
	}
	s := &testServer{base: base}
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	b.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	body := fmt.Sprintf(select1, 1)
	post := func() error {
		req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		reply, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(reply, []byte(`"result"`)) {
			return fmt.Errorf("%s %v: %s", resp.Status, err, reply)
		}
		return nil
	}
	if err := post(); err != nil {
		b.Fatal(err)
	}
	b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0)))
	b.ReportAllocs()
	cpu := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := post(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-us/op")
}
