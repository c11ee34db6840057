package term

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	var b bytes.Buffer
	Table(&b, Result{Columns: []string{"city", "customers"}, Rows: [][]any{{"London", 2.0}, {"New York", 1.0}, {nil, 1.0}}, RowCount: 3}, 2)
	want := ` city     | customers
----------+-----------
 London   |         2
 New York |         1
(first 2 of 3 rows)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	Table(&b, Result{Columns: []string{"n"}, Rows: [][]any{{1.0}}, RowCount: 1, Truncated: true}, 20)
	if !strings.HasSuffix(b.String(), "(1 row; the server cut the result at 1 rows, and there are more)\n") {
		t.Errorf("truncated: %q", b.String())
	}
}

func TestCell(t *testing.T) {
	for in, want := range map[any]string{nil: "NULL", 2.5: "2.5", true: "true", "a\nb\tc": "a↵b c", strings.Repeat("x", 70): strings.Repeat("x", 59) + "…"} {
		if got := Cell(in); got != want {
			t.Errorf("Cell(%v) = %q, want %q", in, got, want)
		}
	}
	if got := Cell([]any{1.0, "a"}); got != `[1,"a"]` {
		t.Errorf("Cell of an array = %q", got)
	}
	if Duration(850*time.Millisecond) != "850 ms" || Duration(2500*time.Millisecond) != "2.5 s" {
		t.Error("Duration")
	}
}

// TestProgressNotTerminal checks that off a terminal only the lines are
// written: no status line, no escape codes.
func TestProgressNotTerminal(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b)
	if p.Live() || IsTerminal(&b) {
		t.Fatal("a buffer is not a terminal")
	}
	p.Status("turn 1 · model")
	p.Line("model x")
	p.Writer().Write([]byte("a log line\n"))
	p.Show("3/10 questions")
	p.Close()
	if got := b.String(); got != "model x\na log line\n" {
		t.Errorf("wrote %q", got)
	}
}
