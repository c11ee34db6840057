package tools

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzMembers: the arguments read in one pass are those encoding/json
// reads.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"sql":"SELECT 1","max_rows":5}`, `{"sql":"a","sql":"b"}`, `{"SQL":"x"}`, `{"s\u0071l":"x"}`,
		`{"a":{"b":[1,2,{"c":null}]},"d":"\u00e9\n"}`, `{}`, ` { "a" : 1 } `, `{"a":1,}`, `{"a":"\xff"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := members(raw)
		if got == nil {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("members read %q, which encoding/json refuses: %v", raw, err)
		}
		if len(got) != len(want) {
			t.Fatalf("members: %q; encoding/json: %q", got, want)
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("members: %q; encoding/json: %q", got, want)
			}
		}
	})
}
