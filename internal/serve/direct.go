package serve

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// callParams are the params of a tools/call request the transports answer
// themselves: a name and arguments, nothing else.
type callParams struct {
	name      string
	arguments json.RawMessage
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
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(req.Params, &fields); err != nil || fields == nil {
		return nil, nil
	}
	p := callParams{}
	for k, v := range fields {
		switch k {
		case "name":
			if err := json.Unmarshal(v, &p.name); err != nil {
				return nil, nil
			}
		case "arguments":
			p.arguments = v
		default:
			return nil, nil
		}
	}
	h := calls.Handler(p.name)
	if h == nil {
		return nil, nil
	}
	if string(p.arguments) == "null" {
		p.arguments = nil // as the SDK's decoding leaves it
	}
	return h, &mcp.CallToolParamsRaw{Name: p.name, Arguments: p.arguments}
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
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as jsonrpc2's jsonMarshal
	if err := enc.Encode(res); err != nil {
		return &jsonrpc.Response{ID: id, Error: err}
	}
	return &jsonrpc.Response{ID: id, Result: bytes.TrimSuffix(buf.Bytes(), []byte("\n"))}
}
