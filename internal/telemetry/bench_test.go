package telemetry_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/serve"
)

// BenchmarkHTTPSelect1 posts run_query SELECT 1 as a plain 2025-06-18
// client does, one at a time, with no telemetry, with metrics, and with
// metrics and traces sent to an in-process receiver: what each costs a
// call.
func BenchmarkHTTPSelect1(b *testing.B) {
	recv := newReceiver(b)
	for _, bc := range []struct {
		name      string
		metrics   bool
		tracesURL string
	}{{"telemetry=off", false, ""}, {"telemetry=metrics", true, ""}, {"telemetry=metrics+traces", true, recv.url}} {
		b.Run(bc.name, func(b *testing.B) {
			s := startWith(b, bc.metrics, bc.tracesURL, serve.HTTPOptions{})
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr}
			i := 0
			post := func() {
				i++
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT 1"}}}`, i)
				req, _ := http.NewRequest(http.MethodPost, s.base+"/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
				req.Header.Set("Traceparent", traceparent(headerTrace, headerSpan))
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				reply, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(reply), `"result"`) {
					b.Fatalf("%s: %s", resp.Status, reply)
				}
			}
			post()
			b.ReportAllocs()
			for b.Loop() {
				post()
			}
		})
	}
}
