package schema

import (
	"strings"

	"github.com/sqlmcp/sqlmcp/internal/text"
)

// Words splits text into lower-case words at spaces, punctuation,
// underscores, case changes (freeMealCount) and letter-digit boundaries,
// and folds a plural to its singular so "meals" matches "meal" and
// "categories" matches "category".
func Words(s string) []string {
	words := text.Words(s)
	for i, w := range words {
		words[i] = singular(w)
	}
	return words
}

// singular folds English plurals: categories -> category, addresses ->
// address, boxes -> box, meals -> meal; "ss", "us" and "is" endings and
// short words stay.
func singular(w string) string {
	switch {
	case len(w) <= 3 || !strings.HasSuffix(w, "s"):
		return w
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	}
	return w[:len(w)-1]
}

// stem folds a word's common English endings so that forms of one word
// meet: enrolled, enrolling and enrollment -> enroll; hired and hire ->
// hir; lowest -> low; monthly -> month. It is deliberately light: both
// the question and the schema go through it, so a stem need not be a
// word, only the same for the forms it joins.
func stem(w string) string {
	if len(w) < 4 || !isLetters(w) {
		return w
	}
	for _, suf := range []string{"ment", "ing", "est", "ed", "ly"} {
		if s := strings.TrimSuffix(w, suf); len(w) >= 5 && s != w && len(s) >= 3 && hasVowel(s) {
			w = undouble(s)
			break
		}
	}
	if len(w) >= 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// undouble drops the second of a doubled final consonant (dropp -> drop),
// except l, s and z, which English keeps doubled (enroll, class).
func undouble(s string) string {
	n := len(s)
	if n >= 2 && s[n-1] == s[n-2] && !strings.ContainsRune("aeioulsz", rune(s[n-1])) {
		return s[:n-1]
	}
	return s
}

func hasVowel(s string) bool { return strings.ContainsAny(s, "aeiouy") }

func isLetters(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// abbreviations are the short forms schemas use for common words, as
// identifier parts: qty finds "quantity", dob finds "birth" and "date".
// Only forms common across business schemas are listed, each with the
// words it stands for.
var abbreviations = map[string]string{
	"qty": "quantity", "amt": "amount", "num": "number", "nbr": "number", "no": "number",
	"dt": "date", "desc": "description", "addr": "address", "cnt": "count", "pct": "percent",
	"perc": "percent", "avg": "average", "yr": "year", "mo": "month", "dob": "birth date",
	"dept": "department", "emp": "employee", "mgr": "manager", "cust": "customer", "acct": "account",
	"prod": "product", "loc": "location", "org": "organization", "tel": "telephone phone",
	"ph": "phone", "est": "estimated", "appt": "appointment", "max": "maximum", "min": "minimum",
	"ref": "reference", "txn": "transaction", "qtr": "quarter", "wk": "week", "fname": "first name",
	"lname": "last name", "zip": "postal", "lat": "latitude", "lng": "longitude", "lon": "longitude",
	"temp": "temperature", "pos": "position", "sal": "salary", "bal": "balance", "freq": "frequency",
	"pmt": "payment", "pymt": "payment", "rcpt": "receipt", "recv": "received", "sched": "schedule",
	"info": "information", "msg": "message", "img": "image", "pwd": "password", "cat": "category",
	"stat": "statistic", "yob": "birth year", "tz": "timezone", "ts": "timestamp", "ssn": "social security number",
	"gpa": "grade point average", "sq": "square", "ft": "feet", "kg": "kilogram", "km": "kilometer",
	"mg": "milligram", "mm": "millimeter", "hrs": "hours", "mins": "minutes", "sec": "second",
	"pub": "published publication",
}

// stopWords are the scaffolding of a question, which says nothing about
// where its answer is.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be been by did do doe does for from had has have how
		i in is it its list many me much of on or per please show tell than that the their them there these
		they this those to was were what when where which who whom whose why with would give find all each
		every any number count total ha wa refer refers get got can could should will also into over under
		about only just than then other same such our your my we you he she his her him us if not no`) {
		stopWords[w] = true
	}
}

// vocabulary is the words a schema itself uses apart from run-together
// identifiers: the words of its descriptions and value notes and the
// parts of its identifiers that are split already (order_date,
// FirstName). It splits an identifier written as one lower-case word
// (customerid, orderdate, firstname) into the words it knows, with no
// dictionary but the schema's own.
type vocabulary struct {
	words map[string]bool // words of three letters or more
	ends  map[string]bool // the last parts of split identifiers (id, no, at)
}

func newVocabulary() *vocabulary {
	return &vocabulary{words: map[string]bool{}, ends: map[string]bool{}}
}

// addText adds the words of prose: a description or a value note.
func (v *vocabulary) addText(s string) {
	for _, w := range Words(s) {
		if len(w) >= 3 && isLetters(w) && !stopWords[w] {
			v.words[w] = true
		}
	}
}

// addIdentifier adds the parts of an identifier that splits into more
// than one word; one that does not split says nothing of its parts.
func (v *vocabulary) addIdentifier(s string) {
	ws := Words(s)
	if len(ws) < 2 {
		return
	}
	for i, w := range ws {
		if !isLetters(w) {
			continue
		}
		if len(w) >= 3 && !stopWords[w] {
			v.words[w] = true
		}
		if i == len(ws)-1 && len(w) >= 2 {
			v.ends[w] = true
		}
	}
}

// maxParts is the most words split finds in one run-together word.
const maxParts = 3

// split returns the words w runs together, or nil: w, of six letters or
// more and not a word the vocabulary knows, is read as the fewest known
// words of three letters or more (the last may be a known end of two,
// as in customerid), the longest shortest part first among equals.
func (v *vocabulary) split(w string) []string {
	if len(w) < 6 || !isLetters(w) || v.words[w] {
		return nil
	}
	type best struct {
		parts, shortest int
		from            int
	}
	at := make([]best, len(w)+1) // at[i]: the best split of w[:i]; parts 0 when none
	at[0] = best{shortest: len(w)}
	for i := 1; i <= len(w); i++ {
		for j := 0; j < i; j++ {
			if j > 0 && at[j].parts == 0 || at[j].parts >= maxParts {
				continue
			}
			part := w[j:i]
			if !(len(part) >= 3 && v.words[part] || len(part) == 2 && i == len(w) && v.ends[part]) {
				continue
			}
			c := best{at[j].parts + 1, min(at[j].shortest, len(part)), j}
			if cur := at[i]; cur.parts == 0 || c.parts < cur.parts || c.parts == cur.parts && c.shortest > cur.shortest {
				at[i] = c
			}
		}
	}
	if at[len(w)].parts < 2 {
		return nil
	}
	var parts []string
	for i := len(w); i > 0; i = at[i].from {
		parts = append([]string{w[at[i].from:i]}, parts...)
	}
	return parts
}
