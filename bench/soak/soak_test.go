package main

import (
	"errors"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench"
)

// Only a cancel on purpose, a runaway stopped by the timeout and a call
// in flight during a restart (or just after) are explained; a failure
// during a kill is not.
func TestExplain(t *testing.T) {
	s := &soak{config: config{grace: time.Second}, faults: []fault{
		{kind: "kill", start: 10 * time.Second, end: 10 * time.Second},
		{kind: "restart", start: 20 * time.Second, end: 23 * time.Second},
	}}
	sec := func(a, b float64) (time.Duration, time.Duration) {
		return time.Duration(a * float64(time.Second)), time.Duration(b * float64(time.Second))
	}
	type tc struct {
		c    call
		want bool
	}
	cases := []tc{
		{call{kind: "client cancel", cancelled: true}, true},
		{call{kind: "tool error", msg: "the query ran longer than the Ns timeout", runaway: true}, true},
		{call{kind: "tool error", msg: "permission denied", runaway: true}, false},
		{call{kind: "client cancel"}, false},
	}
	// In a restart's window or its grace: explained; across a kill or
	// anywhere else: not.
	for _, w := range [][3]float64{{19.5, 20.1, 1}, {21, 21.1, 1}, {23.5, 23.9, 1}, {9.9, 10.1, 0}, {24.5, 24.6, 0}, {5, 6, 0}} {
		a, b := sec(w[0], w[1])
		cases = append(cases, tc{call{kind: "tool error", msg: "the database is unavailable", start: a, end: b}, w[2] == 1})
	}
	for _, c := range cases {
		if got := s.explain(c.c) != ""; got != c.want {
			t.Errorf("%+v: explained %v, want %v", c.c, got, c.want)
		}
	}
	if !s.nearKill(call{start: 10*time.Second - time.Millisecond, end: 10*time.Second + time.Millisecond}) {
		t.Error("a call across the kill is not near it")
	}
}

func TestClassify(t *testing.T) {
	for err, want := range map[error]string{
		&mcpbench.ToolError{Message: "x 12"}:           "tool error",
		&mcpbench.StatusError{Code: 503, Body: "busy"}: "HTTP status",
		&mcpbench.RPCError{Code: -32603, Message: "x"}: "JSON-RPC error",
		errors.New("dial tcp: connection refused"):     "transport",
	} {
		if got, _ := classify(err); got != want {
			t.Errorf("%v: %s, want %s", err, got, want)
		}
	}
	if _, msg := classify(errors.New("port 5432 pid 77")); msg != "port N pid N" {
		t.Errorf("numbers not folded: %q", msg)
	}
}
