package sqlscan

import (
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	sql := `SELECT "a""b", x1 FROM t -- c` + "\n" + `WHERE s = 'it''s' /* d */ AND ` + "`q`"
	var kinds []Kind
	var joined strings.Builder
	for _, tok := range Tokens(sql) {
		joined.WriteString(tok.Text)
		if tok.Kind != Space && tok.Kind != Other {
			kinds = append(kinds, tok.Kind)
		}
	}
	if joined.String() != sql {
		t.Errorf("the tokens put together are %q, not the text", joined.String())
	}
	want := []Kind{Word, Quoted, Word, Word, Word, LineComment, Word, Word, String, BlockComment, Word, Quoted}
	if len(kinds) != len(want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Errorf("token %d: kind %d, want %d", i, kinds[i], want[i])
		}
	}
}

func TestCode(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"SELECT 'a::b' -- x::y", "SELECT " + strings.Repeat(" ", 14)},
		{`SELECT "a::b"::int /* `, `SELECT "a::b"::int    `},
		{"SELECT 'unclosed", "SELECT          "},
	} {
		if got := Code(tt.in); got != tt.want || len(got) != len(tt.in) {
			t.Errorf("Code(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
