package serve

import (
	"bytes"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/sqlmcp/sqlmcp/internal/jsonscan"
)

// requestKeys are the members of a request the fast path reads.
var requestKeys = []string{"jsonrpc", "id", "method", "params"}

// fastRequest decodes raw when it is a JSON-RPC request in the usual form
// (see jsonscan), reporting false for anything else: a response, a
// member other than jsonrpc, id, method and params, one of them twice or
// null, or a version or id that is wrong (decodeMessage words the error).
// The params are copied: raw may be a buffer that is read into again.
func fastRequest(raw []byte) (*jsonrpc.Request, bool) {
	var v [4][]byte
	ok := jsonscan.Fields(raw, requestKeys, v[:])
	version, id, method, params := v[0], v[1], v[2], v[3]
	for _, x := range v {
		if string(x) == "null" {
			ok = false
		}
	}
	if !ok || string(version) != `"2.0"` || method == nil {
		return nil, false
	}
	m, ok := jsonscan.PlainString(method)
	if !ok {
		return nil, false
	}
	reqID, err := decodeID(id)
	if err != nil {
		return nil, false
	}
	req := &jsonrpc.Request{ID: reqID, Method: m}
	if params != nil {
		req.Params = bytes.Clone(params)
	}
	return req, true
}
