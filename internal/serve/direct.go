package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/jsonscan"
)

// Calls gives a tool's handler by name, for a transport that answers
// tools/call itself (*tools.Calls is one). Handler returns nil for a tool
// the SDK must answer.
//
// A plain tools/call, only a name and arguments on an initialized session,
// needs nothing of the SDK's dispatch: the handler is the whole call. The
// SDK's path costs about as much CPU as the call itself on a trivial
// query (a goroutine and two JSON decoders per request on stdio, a whole
// session per request over HTTP: UPSTREAM.md), so the transports hand such
// a call straight to its handler and marshal the result as the SDK does;
// everything else (initialize, tools/list, a call with _meta or a progress
// token, a tool this server does not know) goes to the SDK as before.
// Serve without Calls when a receiving middleware must see every call
// (traces): the direct path skips the SDK's middleware.
type Calls interface {
	Handler(name string) mcp.ToolHandler
}

// directCall returns the handler that answers req and its params, or nil
// when the SDK must answer it: a notification, another method, params
// holding more than name and arguments (_meta, which carries progress
// tokens and the per-request protocol of 2026-07-28, and the multi round
// trip's inputResponses and requestState), a name calls does not know,
// or params that do not decode as the SDK would decode them (its field
// names are case-sensitive, so the keys are compared exactly).
func directCall(calls Calls, req *jsonrpc.Request) (mcp.ToolHandler, *mcp.CallToolParamsRaw) {
	if calls == nil || req.Method != "tools/call" || !req.IsCall() {
		return nil, nil
	}
	params, ok := fastCallParams(req.Params)
	if !ok {
		params, ok = callParams(req.Params)
	}
	if !ok {
		return nil, nil
	}
	h := calls.Handler(params.Name)
	if h == nil {
		return nil, nil
	}
	return h, params
}

// callParams decodes a tools/call's params with encoding/json, reporting
// false when they hold more than a name and arguments, or do not decode.
func callParams(raw json.RawMessage) (*mcp.CallToolParamsRaw, bool) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, false
	}
	params := &mcp.CallToolParamsRaw{}
	for k, v := range fields {
		switch k {
		case "name":
			if err := json.Unmarshal(v, &params.Name); err != nil {
				return nil, false
			}
		case "arguments":
			if string(v) != "null" { // null leaves them nil, as the SDK's decoding does
				params.Arguments = v
			}
		default:
			return nil, false
		}
	}
	return params, true
}

// callKeys are the members of plain tools/call params.
var callKeys = []string{"name", "arguments"}

// fastCallParams is callParams for params in the usual form (see
// jsonscan): a name with no escape, each key once. It reports false
// for anything else, which callParams then judges. The arguments alias
// raw.
func fastCallParams(raw json.RawMessage) (*mcp.CallToolParamsRaw, bool) {
	var v [2][]byte
	ok := jsonscan.Fields(raw, callKeys, v[:])
	name, args := v[0], v[1]
	if !ok || name == nil {
		return nil, false
	}
	n, ok := jsonscan.PlainString(name)
	if !ok {
		return nil, false
	}
	params := &mcp.CallToolParamsRaw{Name: n}
	if args != nil && string(args) != "null" {
		params.Arguments = json.RawMessage(args)
	}
	return params, true
}

// answer runs h and returns the reply to request id as the SDK's dispatch
// makes it (Server.callTool, then jsonrpc2.NewResponse): an error becomes
// a JSON-RPC error, a result without content gets an empty list, and the
// result is marshalled by its own MarshalJSON.
func answer(ctx context.Context, h mcp.ToolHandler, id jsonrpc.ID, params *mcp.CallToolParamsRaw) *jsonrpc.Response {
	res, err := h(ctx, &mcp.CallToolRequest{Params: params})
	if err != nil {
		return &jsonrpc.Response{ID: id, Error: err}
	}
	if res != nil && res.Content == nil {
		r := *res
		r.Content = []mcp.Content{} // as the SDK does: no "null"
		res = &r
	}
	b, err := marshalResult(res)
	if err != nil {
		return &jsonrpc.Response{ID: id, Error: err}
	}
	return &jsonrpc.Response{ID: id, Result: b}
}

// marshalResult is res as the SDK marshals it (jsonrpc2's jsonMarshal:
// an Encoder without HTML escaping, around CallToolResult's MarshalJSON).
// The results sqlmcp's tools make, one text and structured content that
// is already compact JSON, are written directly: encoding/json would scan
// and copy the text and the structured content two more times, once per
// MarshalJSON it meets (UPSTREAM.md, 4). Any other result goes the SDK's
// way.
func marshalResult(res *mcp.CallToolResult) ([]byte, error) {
	if b, ok := plainResult(res); ok {
		return b, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// plainResult writes res when it holds nothing but one text content (no
// _meta, no annotations), structured content as a jsonscan.Compact (the
// tools' own, written by json.Marshal) or a json.RawMessage that is
// valid, compact JSON, and IsError: the fields, order and escaping of
// CallToolResult's and TextContent's MarshalJSON. Any other field set,
// exported or not (a multi round trip's), and it reports false.
func plainResult(res *mcp.CallToolResult) ([]byte, bool) {
	if res == nil || len(res.Content) != 1 {
		return nil, false
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || text == nil || len(text.Meta) > 0 || text.Annotations != nil {
		return nil, false
	}
	var structured json.RawMessage
	switch sc := res.StructuredContent.(type) {
	case nil:
	case jsonscan.Compact:
		structured = json.RawMessage(sc) // as isCompact would have it, unscanned
	case json.RawMessage:
		if len(sc) == 0 || !json.Valid(sc) || !isCompact(sc) {
			return nil, false
		}
		structured = sc
	default:
		return nil, false
	}
	v := reflect.ValueOf(res).Elem()
	for i := range v.NumField() {
		switch v.Type().Field(i).Name {
		case "Content", "StructuredContent", "IsError", "err": // err is never marshalled
		default:
			if !v.Field(i).IsZero() {
				return nil, false
			}
		}
	}
	quoted, err := json.Marshal(text.Text) // escaped as TextContent's json.Marshal escapes it
	if err != nil {
		return nil, false
	}
	b := make([]byte, 0, len(quoted)+len(structured)+64)
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = append(b, quoted...)
	b = append(b, `}]`...)
	if structured != nil {
		b = append(b, `,"structuredContent":`...)
		b = append(b, structured...)
	}
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), true
}

// isCompact reports whether the valid JSON b is as encoding/json's
// compaction inside CallToolResult's MarshalJSON (json.Marshal) would
// leave it: no whitespace outside its strings, and none of the
// characters it escapes within them (<, >, &, U+2028, U+2029).
func isCompact(b []byte) bool {
	inString, escaped := false, false
	for i, c := range b {
		switch {
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9): // U+2028, U+2029
			return false
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}
