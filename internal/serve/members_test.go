package serve

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/sqlmcp/sqlmcp/internal/jsonscan"
)

var memberSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT 1"}}}`,
	` {"jsonrpc": "2.0", "id": "a\"b", "method": "tools/call", "params": {"arguments": {"sql": "SELECT '\u00e9'", "max_rows": 1e2}, "name": "run_query"}} `,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
	`{"jsonrpc":"2.0","id":-0.5e1,"method":"ping","params":[1,true,false,null,{"a":[]}]}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_query","arguments":null}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_query","_meta":{"progressToken":1}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","name":"b"}}`,
	`{"JSONRPC":"2.0","id":1,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":01,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping",}`,
	`{"jsonrpc":"2.0","id":1,"method":"\xff"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"\x01"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":"\ud800"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"} x`,
	`{"name":"run_query","arguments":{"sql":"SELECT 1"}}`, `{"name":"a","name":"b"}`, `{"name":null,"arguments":null}`, `{"Name":"x"}`,
	`[1]`, `{}`, `{"a"}`, `{"a":}`, `"x"`, `nul`, `1.`, `-`, `1e`, `[[[[]]]]`,
}

// FuzzFastMessage: whatever the fast path reads, it reads as encoding/json
// does, and it never calls invalid JSON valid.
func FuzzFastMessage(f *testing.F) {
	for _, s := range memberSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if end, ok := jsonscan.SkipValue(raw, 0, 1); ok && end == len(raw) && !json.Valid(raw) {
			t.Fatalf("SkipValue takes invalid JSON: %q", raw)
		}
		if json.Valid(raw) && len(raw) < jsonscan.MaxDepth {
			i := jsonscan.SkipSpace(raw, 0)
			if end, ok := jsonscan.SkipValue(raw, i, 1); !ok || jsonscan.SkipSpace(raw, end) != len(raw) {
				t.Fatalf("SkipValue refuses valid JSON: %q", raw)
			}
		}
		if jsonscan.EachMember(raw, func(_, _ []byte) bool { return true }) {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
				t.Fatalf("EachMember takes what is not an object: %q (%v)", raw, err)
			}
		}
		if req, ok := fastRequest(raw); ok {
			m, err := decodeStandard(raw)
			want, isReq := m.(*jsonrpc.Request)
			if err != nil || !isReq {
				t.Fatalf("fast: %+v; encoding/json: %v, %v", req, m, err)
			}
			if req.ID != want.ID || req.Method != want.Method || !bytes.Equal(req.Params, want.Params) {
				t.Fatalf("fast: %+v; encoding/json: %+v", req, want)
			}
		}
		if p, ok := fastCallParams(raw); ok {
			want, wok := callParams(raw)
			if !wok || p.Name != want.Name || !bytes.Equal(p.Arguments, want.Arguments) || (p.Arguments == nil) != (want.Arguments == nil) {
				t.Fatalf("fast: %+v; encoding/json: %+v, %v", p, want, wok)
			}
		}
	})
}

// TestFastPathTaken: the requests clients send take the fast path.
func TestFastPathTaken(t *testing.T) {
	for _, s := range memberSeeds[:6] {
		if _, ok := fastRequest([]byte(s)); !ok {
			t.Errorf("not read by the fast path: %s", s)
		}
	}
	for _, s := range []string{`{"name":"run_query","arguments":{"sql":"SELECT 1"}}`, `{"arguments":{},"name":"x"}`, `{"name":"x"}`} {
		if _, ok := fastCallParams(json.RawMessage(s)); !ok {
			t.Errorf("params not read by the fast path: %s", s)
		}
	}
	for _, s := range memberSeeds[8:12] {
		if req, ok := fastRequest([]byte(s)); ok {
			t.Errorf("read by the fast path: %s as %+v", s, req)
		}
	}
	for _, s := range []string{`{"name":"a","name":"b"}`, `{"n\u0061me":"a"}`, `{"name":"a","_meta":{}}`, `{"Name":"a"}`, `{"name":"\u0061"}`} {
		if p, ok := fastCallParams(json.RawMessage(s)); ok {
			t.Errorf("params read by the fast path: %s as %+v", s, p)
		}
	}
}
