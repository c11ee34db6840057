package source

import (
	"cmp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// RedactValues returns an engine's error message with every place a value
// from the database can sit replaced by "…", for logs that must never hold
// row data. The rule follows how PostgreSQL and SQLite word their messages:
// a value (and a user's identifier) sits in quotes, a number is printed
// bare, and what follows a colon is the thing the message is about. So
// everything from the first quote to the last (of any kind, as translated
// messages use other quotes; a quote inside a value cannot end the cut
// early), everything after the first colon, the lines after the first, and
// every bare word shaped like a value rather than wording (valueLike) go.
// What is left is the message's fixed wording: "invalid input syntax for
// type integer: …", "column "…" does not exist".
func RedactValues(msg string) string {
	const cut = "…"
	if i := strings.IndexAny(msg, "\r\n"); i >= 0 {
		// The lines after the first show where the value went wrong
		// (DuckDB's caret under the value, repeated bare).
		msg = msg[:i] + " " + cut
	}
	isQuote := func(r rune) bool { return strings.ContainsRune("\"'`“”„‘’‚«»‹›「」", r) }
	if first := strings.IndexFunc(msg, isQuote); first >= 0 {
		last := strings.LastIndexFunc(msg, isQuote)
		_, size := utf8.DecodeRuneInString(msg[last:])
		if last == first {
			last, size = len(msg), 0
		}
		msg = msg[:first] + `"` + cut + `"` + msg[last+size:]
	}
	if i := strings.Index(msg, ":"); i >= 0 {
		msg = msg[:i+1] + " " + cut
	}
	words := strings.Fields(msg)
	for i, w := range words {
		if valueLike(w) {
			words[i] = cut
		}
	}
	return strings.Join(words, " ")
}

// Redacted is the error for logs: the SQLSTATE and the engine's message
// with its values cut by RedactValues. Detail and Hint are left out: the
// engine puts data there verbatim (the JSON token, the XML line).
func (e *EngineError) Redacted() string {
	if e.Raised {
		return "an error raised in a context of its own (a function's body), its message left out (SQLSTATE " + cmp.Or(e.Code, "unknown") + ")"
	}
	if e.Code == "" {
		return RedactValues(e.Message)
	}
	return RedactValues(e.Message) + " (SQLSTATE " + e.Code + ")"
}

// valueLike reports whether a bare word of a message looks like a value
// rather than the engine's wording: it holds a digit, an underscore, or a
// capital past its first letter (a code, an identifier, a word the
// statement made up: DuckDB's error() is the model's own text). Engines
// word their messages in lower case, a sentence's first word capitalized.
func valueLike(w string) bool {
	for i, r := range w {
		if unicode.IsDigit(r) || r == '_' || (i > 0 && unicode.IsUpper(r)) {
			return true
		}
	}
	return false
}
