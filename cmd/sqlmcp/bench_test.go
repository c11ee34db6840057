package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// BenchmarkStdioAudit is run_query of SELECT 1 over stdio to sqlmcp as a
// subprocess, without and with --audit-file: the audit file's cost per
// call, as the server's CPU time per call (from /proc/PID/stat, steadier
// than the wall time on a busy machine) and the wall time's median.
func BenchmarkStdioAudit(b *testing.B) {
	path := dbtest.SQLiteFile(b)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"none", nil},
		{"audit-file", []string{"--audit-file", filepath.Join(b.TempDir(), "audit.jsonl")}},
		{"audit-file-no-chain", []string{"--audit-file", filepath.Join(b.TempDir(), "audit.jsonl"), "--audit-chain=false"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			cmd := exec.Command(os.Args[0], append([]string{"serve", "--db", path, "--log-level", "error"}, c.args...)...)
			cmd.Env = append(os.Environ(), "SQLMCP_TEST_BE_MAIN=1")
			client := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil)
			cs, err := client.Connect(b.Context(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": "SELECT 1"}}
			var took []time.Duration
			before := procCPU(b, cmd.Process.Pid)
			for b.Loop() {
				start := time.Now()
				res, err := cs.CallTool(b.Context(), params)
				took = append(took, time.Since(start))
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
			cpu := procCPU(b, cmd.Process.Pid) - before
			slices.Sort(took)
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "server-cpu-µs/op")
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
		})
	}
}

// procCPU is the CPU time process pid has used, user and system, from
// /proc/PID/stat (in clock ticks of 10ms).
func procCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(s[bytes.LastIndexByte(s, ')')+2:]))
	user, _ := strconv.Atoi(f[11])
	sys, _ := strconv.Atoi(f[12])
	return time.Duration(user+sys) * 10 * time.Millisecond
}
