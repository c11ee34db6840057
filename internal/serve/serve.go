// Package serve carries one *mcp.Server over a transport: HTTP (streamable
// HTTP at /mcp, with bearer tokens, Host and Origin allowlists, body
// limits, an access log, health endpoints and a graceful shutdown) and
// Stdio (newline-delimited JSON-RPC on a pair of streams, answering every
// request before it hangs up).
//
// It sits between tools, which builds the server, and cmd/sqlmcp, which
// turns flags into the options here. Its options are plain data: it never
// reads flags, files or the environment, and it knows nothing of the
// database but a readiness function.
package serve

import "time"

// ms is a duration in milliseconds, for log fields named *_ms.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// cut shortens s to n bytes for a log field or an error, marking the cut.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
