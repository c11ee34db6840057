package schema

import "testing"

// TestStem: the forms of a word meet at one stem, and a short word or a
// unit written in mixed case stays whole.
func TestStem(t *testing.T) {
	for _, group := range [][]string{
		{"enrolled", "enrolling", "enrollment", "enroll"},
		{"hired", "hire"},
		{"dropped", "drop"},
		{"lowest", "low"},
		{"monthly", "month"},
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
