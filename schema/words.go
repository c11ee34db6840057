package schema

import (
	"slices"
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

// stem folds a word's English endings so that forms of one word meet:
// enrolled, enrolling and enrollment -> enroll; eligible and eligibility
// -> elig; monthly -> month. It is the Porter2 (English Snowball)
// algorithm, written from its published description: both the question
// and the schema go through it, so a stem need not be a word, only the
// same for the forms it joins. Words with digits or other letters than
// a-z stay.
func stem(w string) string {
	if len(w) <= 2 || !isLetters(w) {
		return w
	}
	if x, ok := stemExceptions[w]; ok {
		return x
	}
	b := []byte(w)
	// A y that begins the word or follows a vowel is a consonant: Y.
	for i := range b {
		if b[i] == 'y' && (i == 0 || isVowel(b[i-1])) {
			b[i] = 'Y'
		}
	}
	r1, r2 := regions(b)
	b = step1a(b)
	if stemInvariants[string(b)] {
		return string(b)
	}
	b = step1b(b, r1)
	b = step1c(b)
	b = step2(b, r1)
	b = step3(b, r1, r2)
	b = step4(b, r2)
	b = step5(b, r1, r2)
	for i := range b {
		if b[i] == 'Y' {
			b[i] = 'y'
		}
	}
	return string(b)
}

// stemExceptions are the words Porter2 stems by a list, not its rules.
var stemExceptions = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie", "idly": "idl",
	"gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
	"sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

// stemInvariants are the words Porter2 leaves whole once step 1a has
// taken their plural.
var stemInvariants = map[string]bool{
	"inning": true, "outing": true, "canning": true, "herring": true, "earring": true,
	"proceed": true, "exceed": true, "succeed": true,
}

// isVowel reports whether c is a vowel as Porter2 counts them; Y, a y
// read as a consonant, is not.
func isVowel(c byte) bool { return strings.IndexByte("aeiouy", c) >= 0 }

// regions returns where Porter2's regions R1 and R2 start: R1 after the
// first non-vowel that follows a vowel (after gener, commun or arsen when
// the word begins so), R2 the same within R1.
func regions(b []byte) (r1, r2 int) {
	r1 = -1
	for _, p := range []string{"gener", "commun", "arsen"} {
		if len(b) >= len(p) && string(b[:len(p)]) == p {
			r1 = len(p)
		}
	}
	if r1 < 0 {
		r1 = regionAfter(b, 0)
	}
	return r1, regionAfter(b, r1)
}

// regionAfter is where the region after the first non-vowel following a
// vowel at or after from starts, or len(b).
func regionAfter(b []byte, from int) int {
	for i := from + 1; i < len(b); i++ {
		if isVowel(b[i-1]) && !isVowel(b[i]) {
			return i + 1
		}
	}
	return len(b)
}

// hasSuffix reports whether b ends in suf.
func hasSuffix(b []byte, suf string) bool {
	return len(b) >= len(suf) && string(b[len(b)-len(suf):]) == suf
}

// longestSuffix returns the longest of sufs that b ends in, or "".
func longestSuffix(b []byte, sufs ...string) string {
	best := ""
	for _, s := range sufs {
		if len(s) > len(best) && hasSuffix(b, s) {
			best = s
		}
	}
	return best
}

// shortSyllableEnd reports whether b ends in a short syllable: a
// non-vowel, a vowel and a non-vowel other than w, x and Y, or, as the
// whole word, a vowel and a non-vowel.
func shortSyllableEnd(b []byte) bool {
	n := len(b)
	if n == 2 {
		return isVowel(b[0]) && !isVowel(b[1])
	}
	return n >= 3 && !isVowel(b[n-3]) && isVowel(b[n-2]) && !isVowel(b[n-1]) && strings.IndexByte("wxY", b[n-1]) < 0
}

// step1a takes a plural's ending: sses -> ss, ies -> i (ie after one
// letter), s after a part with a vowel before its last letter.
func step1a(b []byte) []byte {
	switch n := len(b); {
	case hasSuffix(b, "sses"):
		return b[:n-2]
	case hasSuffix(b, "ied"), hasSuffix(b, "ies"):
		if n > 4 {
			return b[:n-2]
		}
		return b[:n-1]
	case hasSuffix(b, "us"), hasSuffix(b, "ss"):
		return b
	case hasSuffix(b, "s"):
		for _, c := range b[:n-2] {
			if isVowel(c) {
				return b[:n-1]
			}
		}
	}
	return b
}

// step1b takes the endings of past tenses and participles: eed -> ee in
// R1; ed and ing after a part with a vowel, then restoring an e
// (hoped -> hope) or undoubling a consonant (hopped -> hop).
func step1b(b []byte, r1 int) []byte {
	suf := longestSuffix(b, "eed", "eedly", "ed", "edly", "ing", "ingly")
	n := len(b)
	switch suf {
	case "":
		return b
	case "eed", "eedly":
		if n-len(suf) >= r1 {
			return append(b[:n-len(suf)], "ee"...)
		}
		return b
	}
	part := b[:n-len(suf)]
	if !slices.ContainsFunc(part, isVowel) {
		return b
	}
	switch m := len(part); {
	case hasSuffix(part, "at"), hasSuffix(part, "bl"), hasSuffix(part, "iz"):
		return append(part, 'e')
	case m >= 2 && part[m-1] == part[m-2] && strings.IndexByte("bdfgmnprt", part[m-1]) >= 0:
		return part[:m-1]
	case r1 >= m && shortSyllableEnd(part):
		return append(part, 'e')
	}
	return part
}

// step1c turns a final y after a non-vowel, not the first letter, to i.
func step1c(b []byte) []byte {
	if n := len(b); n > 2 && (b[n-1] == 'y' || b[n-1] == 'Y') && !isVowel(b[n-2]) {
		b[n-1] = 'i'
	}
	return b
}

// step2Suffixes are Porter2's step 2 endings and their replacements, in
// pairs.
var step2Suffixes = []string{
	"tional", "tion", "enci", "ence", "anci", "ance", "abli", "able", "entli", "ent", "izer", "ize",
	"ization", "ize", "ational", "ate", "ation", "ate", "ator", "ate", "alism", "al", "aliti", "al",
	"alli", "al", "fulness", "ful", "ousli", "ous", "ousness", "ous", "iveness", "ive", "iviti", "ive",
	"biliti", "ble", "bli", "ble", "ogi", "og", "fulli", "ful", "lessli", "less", "li", "",
}

// step3Suffixes are Porter2's step 3 endings and their replacements, in
// pairs.
var step3Suffixes = []string{
	"tional", "tion", "ational", "ate", "alize", "al", "icate", "ic", "iciti", "ic", "ical", "ic",
	"ful", "", "ness", "", "ative", "",
}

// step4Suffixes are the endings Porter2's step 4 deletes in R2.
var step4Suffixes = []string{"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
	"ism", "ate", "iti", "ous", "ive", "ize", "ion"}

// replaceSuffix replaces the longest ending of b among the endings of
// table (ending, replacement pairs), when it starts at or after from and
// ok allows it.
func replaceSuffix(b []byte, table []string, from int, ok func(suf string, start int) bool) []byte {
	suf, to := "", ""
	for i := 0; i < len(table); i += 2 {
		if s := table[i]; len(s) > len(suf) && hasSuffix(b, s) {
			suf, to = s, table[i+1]
		}
	}
	start := len(b) - len(suf)
	if suf == "" || start < from || !ok(suf, start) {
		return b
	}
	return append(b[:start], to...)
}

// step2 folds derivational endings in R1: -ization -> -ize, -fulness ->
// -ful, -li after c, d, e, g, h, k, m, n, r or t taken.
func step2(b []byte, r1 int) []byte {
	return replaceSuffix(b, step2Suffixes, r1, func(suf string, start int) bool {
		switch suf {
		case "ogi":
			return start > 0 && b[start-1] == 'l'
		case "li":
			return start > 0 && strings.IndexByte("cdeghkmnrt", b[start-1]) >= 0
		}
		return true
	})
}

// step3 folds more endings in R1: -icate -> -ic, -ness and -ful taken,
// -ative taken in R2.
func step3(b []byte, r1, r2 int) []byte {
	return replaceSuffix(b, step3Suffixes, r1, func(suf string, start int) bool {
		return suf != "ative" || start >= r2
	})
}

// step4 deletes the longest of step4Suffixes in R2; ion only after s or t.
func step4(b []byte, r2 int) []byte {
	suf := longestSuffix(b, step4Suffixes...)
	start := len(b) - len(suf)
	if suf == "" || start < r2 || suf == "ion" && (start == 0 || b[start-1] != 's' && b[start-1] != 't') {
		return b
	}
	return b[:start]
}

// step5 deletes a final e in R2, or in R1 after no short syllable, and
// the second l of a final ll in R2.
func step5(b []byte, r1, r2 int) []byte {
	n := len(b)
	switch {
	case n > 0 && b[n-1] == 'e' && (n-1 >= r2 || n-1 >= r1 && !shortSyllableEnd(b[:n-1])):
		return b[:n-1]
	case n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && n-1 >= r2:
		return b[:n-1]
	}
	return b
}

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
