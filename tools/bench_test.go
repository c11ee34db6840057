package tools_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/audit"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/tools"
)

// BenchmarkRunQuery measures one run_query call through the MCP server
// and client over in-memory transports: the server's own cost per call.
func BenchmarkRunQuery(b *testing.B) {
	cs := serveBench(b)
	params := &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": "SELECT 1"}}
	for b.Loop() {
		if res, err := cs.CallTool(b.Context(), params); err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkRunQueryAudit is BenchmarkRunQuery with and without the audit
// file: its cost per call, the hash chain included (chain), without it
// (no-chain), and with an fsync after every call (sync-each), which the
// default one-second interval spares. It reports the CPU time the process
// (client and server) spends per call, steadier than the wall time on a
// busy machine, and the bytes each call adds to the file.
func BenchmarkRunQueryAudit(b *testing.B) {
	params := &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": "SELECT 1"}}
	for _, c := range []struct {
		name string
		opts *audit.Options // nil: no audit file
	}{
		{"none", nil},
		{"chain", &audit.Options{}},
		{"no-chain", &audit.Options{NoChain: true}},
		{"sync-each", &audit.Options{Sync: -1}},
	} {
		b.Run(c.name, func(b *testing.B) {
			opts := &tools.Options{}
			var f *audit.File
			path := filepath.Join(b.TempDir(), "audit.jsonl")
			if c.opts != nil {
				var err error
				if f, err = audit.Open(path, c.opts); err != nil {
					b.Fatal(err)
				}
				opts.Audit = f
			}
			cs := serveWith(b, dbtest.SQLite(b, nil), opts)
			before := cpu()
			for b.Loop() {
				if res, err := cs.CallTool(b.Context(), params); err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
			if f != nil {
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpu()-before).Microseconds())/float64(b.N), "cpu-µs/op")
			if f != nil {
				st, _ := os.Stat(path)
				b.ReportMetric(float64(st.Size())/float64(b.N), "file-bytes/op")
				if s := f.Stats(); s.Lost > 0 || s.Failures > 0 {
					b.Errorf("stats %+v", s)
				}
			}
		})
	}
}

// cpu is the CPU time the process has used, user and system.
func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
