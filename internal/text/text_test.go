package text

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, c := range []struct {
		name, in string
		n        int
		want     string
	}{
		{"fits", "abc", 3, "abc"},
		{"at a line end", "line one\nline two\nline three", 20, "line one\nline two\n…[cut: 28 bytes in all]"},
		{"no line end in the second half", "abcdefghij", 4, "abcd\n…[cut: 10 bytes in all]"},
		{"never inside a rune", "ééé", 3, "é\n…[cut: 6 bytes in all]"},
		{"nothing kept", "abc", 0, "\n…[cut: 3 bytes in all]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Cut(c.in, c.n)
			if got != c.want {
				t.Errorf("Cut(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Cut(%q, %d) is not valid UTF-8", c.in, c.n)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	if got := OneLine("a\n  b\tc ", 0); got != "a b c" {
		t.Errorf("OneLine = %q", got)
	}
	if got := OneLine("héllo world", 5); got != "héll…" {
		t.Errorf("OneLine clipped = %q", got)
	}
	if got := Clip(strings.Repeat("x", 5), 5); got != "xxxxx" {
		t.Errorf("Clip at the limit = %q", got)
	}
}

func TestWords(t *testing.T) {
	got := Words("freeMealCount2024 CDSCode, school_type")
	want := []string{"free", "meal", "count", "2024", "cds", "code", "school", "type"}
	if !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
	for in, want := range map[string]string{"schools": "school", "class": "class", "its": "its"} {
		if got := Singular(in); got != want {
			t.Errorf("Singular(%q) = %q, want %q", in, got, want)
		}
	}
}
