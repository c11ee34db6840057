// Package cut shortens text for what sqlmcp shows, with the one marker
// every shortened text carries: "…[cut: N bytes in all]". The server's
// layers (guard, source and its engines, tools) cut through it, so a
// model meets one spelling of a cut whatever cut it.
package cut

import (
	"fmt"
	"unicode/utf8"
)

// Text returns s when it is at most max bytes, or else its first bytes up
// to max, on a rune boundary, and the marker saying how long it was.
func Text(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return Head(s, max, len(s))
}

// Head shortens s, the first bytes of a text of total bytes (all of it,
// or a prefix read so far), to at most maxLen bytes on a rune boundary, and
// says how long the whole was. A last rune the cut, here or as s was read,
// split is dropped.
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
