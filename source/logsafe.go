package source

import (
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
// early), everything after the first colon, and every word holding a digit
// go. What is left is the message's fixed wording: "invalid input syntax
// for type integer: …", "column "…" does not exist".
func RedactValues(msg string) string {
	const cut = "…"
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
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			words[i] = cut
		}
	}
	return strings.Join(words, " ")
}

// Redacted is the error for logs: the SQLSTATE and the engine's message
// with its values cut by RedactValues. Detail and Hint are left out: the
// engine puts data there verbatim (the JSON token, the XML line).
func (e *EngineError) Redacted() string {
	if e.Code == "" {
		return RedactValues(e.Message)
	}
	return RedactValues(e.Message) + " (SQLSTATE " + e.Code + ")"
}
