package schema

import (
	"slices"
	"strings"
	"testing"
)

// TestStem: the forms of a word meet at one stem, and a short word or a
// unit written in mixed case stays whole.
func TestStem(t *testing.T) {
	for _, group := range [][]string{
		{"enrolled", "enrolling", "enrollment", "enroll"},
		{"hired", "hire"},
		{"dropped", "drop"},
		{"eligible", "eligibility"},
		{"monthly", "month"},
		{"communication", "communicate", "communicated"},
	} {
		want := stem(singular(group[0]))
		for _, w := range group[1:] {
			if got := stem(singular(w)); got != want {
				t.Errorf("stem(%q) = %q, want %q as for %q", w, got, want, group[0])
			}
		}
	}
	for _, w := range []string{"id", "status", "class"} {
		if got := stem(singular(w)); got != singular(w) {
			t.Errorf("stem(%q) = %q, want it whole", w, got)
		}
	}
	if got, _ := queryWords("total kWh of smart meters"); len(got) != 3 || got[0] != "kwh" {
		t.Errorf("queryWords split a unit: %q", got)
	}
	if got := singular("categories") + " " + singular("addresses") + " " + singular("boxes"); got != "category address box" {
		t.Errorf("singulars: %q", got)
	}
}

// TestPorter2: stem gives the Porter2 stems of the algorithm's own
// examples, its exceptions included.
func TestPorter2(t *testing.T) {
	for w, want := range map[string]string{
		"consign": "consign", "consigned": "consign", "consigning": "consign", "consignment": "consign",
		"consistency": "consist", "consistently": "consist", "knackeries": "knackeri", "knaves": "knave",
		"generate": "generat", "generously": "generous", "communication": "communic", "caresses": "caress",
		"ponies": "poni", "ties": "tie", "cats": "cat", "hopping": "hop", "hoped": "hope", "happy": "happi",
		"relational": "relat", "conditional": "condit", "rational": "ration", "digitizer": "digit",
		"predication": "predic", "operator": "oper", "feudalism": "feudal", "decisiveness": "decis",
		"hopefulness": "hope", "callousness": "callous", "abandoned": "abandon", "abilities": "abil",
		"able": "abl", "above": "abov", "absence": "absenc", "absolutely": "absolut", "academy": "academi",
		"accessible": "access", "accident": "accid", "accompanied": "accompani", "according": "accord",
		"achieve": "achiev", "actually": "actual", "additional": "addit", "administration": "administr",
		"agreement": "agreement", "enrolled": "enrol", "monthly": "month", "name": "name", "title": "titl",
		"status": "status", "cardiology": "cardiolog", "sky": "sky", "dying": "die", "succeeds": "succeed",
		"hiring": "hire", "saying": "say", "crying": "cri", "by": "by", "playing": "play", "controlled": "control",
		"rolling": "roll", "2023": "2023", "kwh2": "kwh2",
	} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestSplit: a run-together identifier splits into the words the schema
// uses elsewhere, and a word it knows, or cannot read whole, stays.
func TestSplit(t *testing.T) {
	v := newVocabulary()
	for _, id := range []string{"customer_name", "OrderDate", "ship_via", "employee_id", "last_login"} {
		v.addIdentifier(id)
	}
	v.addText("First name of the contact, as the address book has it. In whatever format it was entered.")
	for _, c := range []struct{ word, want string }{
		{"customerid", "customer id"},
		{"orderdate", "order date"},
		{"firstname", "first name"},
		{"employeeid", "employee id"},
		{"customernameid", "customer name id"},
		{"format", ""},  // a word the descriptions use
		{"address", ""}, // known
		{"status", ""},  // no known parts
		{"orderid", "order id"},
		{"shipvia", "ship via"},
		{"idname", ""}, // a part of two letters only ends a word
		{"nameat", ""}, // nor is it one that ends no identifier
		{"bookname", "book name"},
	} {
		got := strings.Join(v.split(c.word), " ")
		if got != c.want {
			t.Errorf("split(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	words := indexWords("CustomerID customerid", true, v)
	ids := 0
	for _, w := range words {
		if w == "id" {
			ids++
		}
	}
	if !slices.Contains(words, stem("customer")) || ids != 2 {
		t.Errorf("indexWords: %q, want customer and id from both forms", words)
	}
}

// TestProperWords: words capitalised inside a sentence are proper
// nouns; a sentence's first word, an identifier and a word in capitals
// alone are not.
func TestProperWords(t *testing.T) {
	got := properWords(`Which students got an incomplete grade in Biology? Incomplete refers to letter_grade = 'I'; "Roosevelt Elementary" is a school.`)
	var words []string
	for w := range got {
		words = append(words, w)
	}
	slices.Sort(words)
	want := []string{stem("elementary"), stem("roosevelt"), stem("biology")}
	slices.Sort(want)
	if !slices.Equal(words, want) {
		t.Errorf("properWords = %q, want %q", words, want)
	}
}
