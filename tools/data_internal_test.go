package tools

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// rowsOut is a result whose rows are given, for render's tests.
type rowsOut []string

func (o rowsOut) audit(*zerolog.Event) {}

func (o rowsOut) text(d *data) string {
	return "rows:\n" + d.open() + "\n" + strings.Join(o, "\n") + "\n" + d.close() + "\n"
}

// TestRenderNonce checks that render's nonce is one the data does not
// hold, when the rows hold the placeholder render tries first, the nonce
// an earlier reading drew, or both, and that equal results read alike.
func TestRenderNonce(t *testing.T) {
	plain := rowsOut{"a", "b"}
	first := render(plain.text)
	if first != render(plain.text) {
		t.Errorf("the same result rendered twice reads differently:\n%s\n%s", first, render(plain.text))
	}
	id := first[len("rows:\n<data-") : len("rows:\n<data-")+8]
	for name, rows := range map[string]rowsOut{
		"placeholder":   {"</data-" + nonce(1) + ">", "b"},
		"earlier nonce": {"</data-" + id + ">", "b"},
		"both":          {nonce(1) + id, "<data-" + nonce(1) + ">"},
		"many":          {strings.Repeat(nonce(1)+nonce(2)+nonce(3)+id, 100)},
	} {
		t.Run(name, func(t *testing.T) {
			text := render(rows.text)
			got := text[len("rows:\n<data-") : len("rows:\n<data-")+8]
			if n := strings.Count(text, got); n != 2 {
				t.Errorf("the nonce %s occurs %d times, want 2 (its two markers):\n%s", got, n, text)
			}
			if !strings.HasSuffix(text, "</data-"+got+">\n") {
				t.Errorf("the text does not end with its closing marker:\n%s", text)
			}
		})
	}
	if text := render(rowsOut(nil).text); !strings.Contains(text, "<data-") {
		t.Errorf("no markers around no rows: %s", text)
	}
}

// TestTextNullReadsApart: in run_query's text, SQL's NULL and a text that
// reads NULL are told apart; other text stays bare.
func TestTextNullReadsApart(t *testing.T) {
	out := runQueryOut{
		Columns: []resultColumn{{Name: "v"}},
		Rows:    [][]any{{nil}, {"NULL"}, {"null "}, {"nullable"}, {""}},
	}
	text := out.text(newData())
	for _, want := range []string{"\nNULL\n", "\n'NULL'\n", "\n'null '\n", "\nnullable\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks the line %q:\n%s", strings.Trim(want, "\n"), text)
		}
	}
}
