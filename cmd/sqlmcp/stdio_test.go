package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// A client may write its requests and hang up at once, as a shell
// pipeline does: every request is still answered, a slow one too.
func TestStdioAnswersBeforeHangingUp(t *testing.T) {
	t.Parallel()
	path := dbtest.SQLiteFile(t)
	const calls = 20
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	// The slow one counts to two million, row by row.
	slow := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) AS n FROM c"
	for id := 1; id <= calls; id++ {
		sql := fmt.Sprintf("SELECT %d AS n", id)
		if id == calls {
			sql = slow
		}
		args, _ := json.Marshal(map[string]any{"name": "run_query", "arguments": map[string]string{"sql": sql}})
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`+"\n", id, args)
	}
	in.WriteString(`{"jsonrpc":"2.0","id":"last","method":"ping"}`) // no newline: the end of input ends it

	var out, errOut bytes.Buffer
	err := run(t.Context(), []string{"serve", "--db", path, "--log-level", "warn"}, strings.NewReader(in.String()), &out, &errOut,
		func(string) string { return "" })
	if err != nil {
		t.Fatalf("serve: %v\n%s", err, errOut.String())
	}
	answered := map[string]string{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("stdout holds a line that is not JSON: %q", sc.Text())
		}
		if _, ok := answersFast(sc.Bytes()); !ok {
			t.Errorf("a reply of the shape answers does not read fast: %.80s", sc.Text())
		}
		if len(msg.Error) > 0 {
			t.Errorf("request %s: error %s", msg.ID, msg.Error)
		}
		answered[string(msg.ID)] = string(msg.Result)
	}
	for id := 0; id <= calls; id++ {
		if _, ok := answered[fmt.Sprint(id)]; !ok {
			t.Errorf("request %d was not answered (%d of %d were)", id, len(answered), calls+2)
		}
	}
	if _, ok := answered[`"last"`]; !ok {
		t.Error("the last request, cut short by the end of input, was not answered")
	}
	if r := answered[fmt.Sprint(calls)]; !strings.Contains(r, "2000000") || strings.Contains(r, `"isError":true`) {
		t.Errorf("the slow query's result: %s", r)
	}
}

func TestStdioCounts(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]int{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`:         1,
		`{"jsonrpc":"2.0","id":"a","method":"ping"}`:             1,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`: 0,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`:            0,
		`{"jsonrpc":"2.0","id":3,"result":{}}`:                   0, // a client's reply
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]`: 2,
		`not json`: 0,
		``:         0,
	} {
		if got := requests([]byte(line)); got != want {
			t.Errorf("requests(%s) = %d, want %d", line, got, want)
		}
	}
	for msg, want := range map[string]int{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}` + "\n":                                 1,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}`:                     1,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"result":1}}`:              0,
		`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`:                                        0,
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`:           2,
		`{"jsonrpc":"2.0","id":1,"result":{` + strings.Repeat(`"k":1,`, 1000) + `"z":"cut here`: 1,
		`garbage`: 0,
	} {
		if got := answers([]byte(msg)); got != want {
			t.Errorf("answers(%.60s) = %d, want %d", msg, got, want)
		}
	}
}

func BenchmarkStdioAnswers(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 8000) + `"}]}}` + "\n")
	b.ReportAllocs()
	for b.Loop() {
		if answers(msg) != 1 {
			b.Fatal("not an answer")
		}
	}
}
