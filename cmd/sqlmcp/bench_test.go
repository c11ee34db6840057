package main

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// BenchmarkStdioRoundTrip measures run_query calls from a real MCP client
// to sqlmcp running as a subprocess over stdio, as a desktop client runs
// it. It reports the median and 99th percentile of each call.
func BenchmarkStdioRoundTrip(b *testing.B) {
	path := dbtest.SQLiteFile(b)
	cmd := exec.Command(os.Args[0], "serve", "--db", path, "--log-level", "error")
	cmd.Env = append(os.Environ(), "SQLMCP_TEST_BE_MAIN=1")
	client := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil)
	cs, err := client.Connect(b.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for _, q := range []struct{ name, sql string }{
		{"select 1", "SELECT 1"},
		{"10k rows capped at 100", "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 10000) SELECT x, 'row ' || x FROM n"},
	} {
		b.Run(q.name, func(b *testing.B) {
			params := &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": q.sql}}
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := cs.CallTool(b.Context(), params)
				took = append(took, time.Since(start))
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
