// Package text holds the few text helpers both sides share: cutting a
// long text with the one marker every cut text carries, "…[cut: N bytes in
// all]" (a value in a row, a refusal's quote, a long tool result),
// collapsing text to one line, and splitting text into words. It imports
// only the standard library.
package text

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Cut shortens s to at most n bytes, on a line boundary when one falls in
// the second half, never inside a UTF-8 sequence, and ends it with the
// marker (Marker) on a line of its own. s is returned whole when it fits;
// n <= 0 cuts everything.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	keep := s[:max(n, 0)]
	if i := strings.LastIndexByte(keep, '\n'); i > n/2 {
		keep = keep[:i+1]
	}
	for len(keep) > 0 && !utf8.RuneStart(s[len(keep)]) {
		keep = keep[:len(keep)-1]
	}
	return strings.TrimRight(keep, "\n") + "\n" + Marker(len(s))
}

// Inline returns s when it is at most max bytes, or else its first bytes
// up to max, on a rune boundary, followed by the marker: for a value in a
// line (a cell, a quote in a message).
func Inline(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return Head(s, max, len(s))
}

// Head shortens s, the first bytes of a text of total bytes (all of it,
// or a prefix read so far), to at most maxLen bytes on a rune boundary,
// followed by the marker saying how long the whole was. A last rune the
// cut, here or as s was read, split is dropped.
func Head(s string, maxLen, total int) string {
	s = s[:min(max(maxLen, 0), len(s))]
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				s = s[:i]
			}
			break
		}
	}
	return s + Marker(total)
}

// Marker is what follows a text cut from total bytes.
func Marker(total int) string { return fmt.Sprintf("…[cut: %d bytes in all]", total) }

// Clip shortens s to at most n characters, the last one an ellipsis when
// it cuts; n <= 0 means no limit.
func Clip(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// OneLine collapses runs of white space, line breaks included, to one
// space and clips the result to n characters (n <= 0: no limit).
func OneLine(s string, n int) string {
	return Clip(strings.Join(strings.Fields(s), " "), n)
}

// Words splits text into lower-case words at spaces, punctuation,
// underscores, case changes (freeMealCount, CDSCode) and letter-digit
// edges: "freeMealCount2024" is free, meal, count, 2024.
func Words(text string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(text)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 {
			prev, next := cur[len(cur)-1], rune(0)
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			lowerToUpper := unicode.IsLower(prev) && unicode.IsUpper(r)
			acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(r) && unicode.IsLower(next)
			digitEdge := unicode.IsDigit(prev) != unicode.IsDigit(r)
			if lowerToUpper || acronymEnd || digitEdge {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// Singular drops a plural "s" from a lower-case word longer than three
// letters: "schools" is "school", "class" stays.
func Singular(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}
