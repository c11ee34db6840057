package serve

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/jsonscan"
)

// TestPlainResult: the results written directly are byte for byte what
// the SDK's marshalling makes of them, and the others go its way.
func TestPlainResult(t *testing.T) {
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	marshalled, err := json.Marshal(map[string]any{"rows": [][]any{{1, "<b>&\u2028\xff\"\\ x"}}, "columns": []string{"a b"}})
	if err != nil {
		t.Fatal(err)
	}
	withErr := &mcp.CallToolResult{}
	withErr.SetError(bytes.ErrTooLarge)
	tests := []struct {
		name  string
		res   *mcp.CallToolResult
		plain bool
	}{
		{"text and structured", &mcp.CallToolResult{Content: text("a\n<b>&\u2028\xff\"\\"), StructuredContent: json.RawMessage(`{"rows":[[1,"x\"y"]]}`)}, true},
		{"structured content json.Marshal wrote", &mcp.CallToolResult{Content: text("x"), StructuredContent: jsonscan.Compact(marshalled)}, true},
		{"text only", &mcp.CallToolResult{Content: text("")}, true},
		{"an error", withErr, true},
		{"an error with structured content", &mcp.CallToolResult{Content: text("no"), IsError: true, StructuredContent: json.RawMessage(`[]`)}, true},
		{"structured content with markup", &mcp.CallToolResult{Content: text("x"), StructuredContent: json.RawMessage(`{"a":"<b>"}`)}, false},
		{"structured content with a line separator", &mcp.CallToolResult{Content: text("x"), StructuredContent: json.RawMessage("{\"a\":\"b\u2028c\"}")}, false},
		{"structured content with spaces", &mcp.CallToolResult{Content: text("x"), StructuredContent: json.RawMessage(`{"a": 1}`)}, false},
		{"structured content with a string's spaces", &mcp.CallToolResult{Content: text("x"), StructuredContent: json.RawMessage(`{"a":"b c\"d e"}`)}, true},
		{"structured content as a map", &mcp.CallToolResult{Content: text("x"), StructuredContent: map[string]int{"a": 1}}, false},
		{"_meta", &mcp.CallToolResult{Meta: mcp.Meta{"k": 1}, Content: text("x")}, false},
		{"annotations", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{Priority: 1}}}}, false},
		{"two contents", &mcp.CallToolResult{Content: append(text("x"), text("y")...)}, false},
		{"no content", &mcp.CallToolResult{Content: []mcp.Content{}}, false},
		{"request state", &mcp.CallToolResult{Content: text("x"), RequestState: "s"}, false},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(tt.res); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		got, plain := plainResult(tt.res)
		if plain != tt.plain {
			t.Errorf("%s: written directly %v, want %v", tt.name, plain, tt.plain)
		}
		if plain && !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, want)
		}
		if all, err := marshalResult(tt.res); err != nil || !bytes.Equal(all, want) {
			t.Errorf("%s: marshalResult = %s, %v; want %s", tt.name, all, err, want)
		}
	}
}
