package tools_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
