package eval

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
)

// Tally counts right answers among questions.
type Tally struct {
	Questions int     `json:"questions"`
	Correct   int     `json:"correct"`
	Accuracy  float64 `json:"accuracy"` // percent
}

func (t *Tally) add(correct bool) {
	t.Questions++
	if correct {
		t.Correct++
	}
	t.Accuracy = percent(t.Correct, t.Questions)
}

// Summary sums up a run's predictions.
type Summary struct {
	System string `json:"system,omitempty"`
	Model  string `json:"model,omitempty"`
	Tally
	ByDifficulty map[string]*Tally `json:"by_difficulty"`
	ByDatabase   map[string]*Tally `json:"by_database"`
	// ValidSQL counts predictions whose SQL ran without error; ValidRate
	// is their percentage.
	ValidSQL  int     `json:"valid_sql"`
	ValidRate float64 `json:"valid_sql_rate"`
	// Refused counts statements the guard refused, over all questions.
	Refused     int     `json:"refused"`
	MeanSeconds float64 `json:"mean_seconds"`
	MeanTokens  float64 `json:"mean_tokens"`
	MeanTurns   float64 `json:"mean_turns"`
	// WithNotes counts the questions whose prompt held notes, and
	// MeanNotesBytes their mean size over all questions (experienced).
	WithNotes      int     `json:"with_notes,omitempty"`
	MeanNotesBytes float64 `json:"mean_notes_bytes,omitempty"`
	// Errors counts predictions by error kind (see Prediction.ErrorKind).
	Errors map[string]int `json:"errors"`
}

// Summarize sums up predictions; a question_id seen twice counts once, as
// first seen.
func Summarize(ps []Prediction) *Summary {
	s := &Summary{ByDifficulty: map[string]*Tally{}, ByDatabase: map[string]*Tally{}, Errors: map[string]int{}}
	seen := map[int]bool{}
	var seconds, tokens, turns, notesBytes float64
	for _, p := range ps {
		if seen[p.QuestionID] {
			continue
		}
		seen[p.QuestionID] = true
		s.add(p.Correct)
		for _, m := range []struct {
			by  map[string]*Tally
			key string
		}{{s.ByDifficulty, p.Difficulty}, {s.ByDatabase, p.DB}} {
			if m.by[m.key] == nil {
				m.by[m.key] = &Tally{}
			}
			m.by[m.key].add(p.Correct)
		}
		if p.ErrorKind == "" {
			s.ValidSQL++
		} else {
			s.Errors[p.ErrorKind]++
		}
		s.Refused += p.Refused
		seconds += p.Seconds
		tokens += float64(p.Tokens)
		turns += float64(p.Turns)
		notesBytes += float64(p.NotesBytes)
		if p.NotesBytes > 0 {
			s.WithNotes++
		}
	}
	if n := float64(s.Questions); n > 0 {
		s.ValidRate = percent(s.ValidSQL, s.Questions)
		s.MeanSeconds = round(seconds/n, 2)
		s.MeanTokens = round(tokens/n, 1)
		s.MeanTurns = round(turns/n, 2)
		s.MeanNotesBytes = round(notesBytes/n, 0)
	}
	return s
}

func percent(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return round(100*float64(a)/float64(b), 2)
}

func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

// difficulties orders BIRD's difficulties; others follow by name.
var difficulties = []string{"simple", "easy", "moderate", "challenging", "hard"}

// Print writes the summary for a person to read.
func (s *Summary) Print(w io.Writer) {
	if s.System != "" {
		fmt.Fprintf(w, "system %s · model %s\n", s.System, s.Model)
	}
	fmt.Fprintf(w, "accuracy %.2f %% (%d of %d)\n", s.Accuracy, s.Correct, s.Questions)
	keys := slices.SortedFunc(maps.Keys(s.ByDifficulty), func(a, b string) int {
		ia, ib := slices.Index(difficulties, a), slices.Index(difficulties, b)
		if ia < 0 {
			ia = len(difficulties)
		}
		if ib < 0 {
			ib = len(difficulties)
		}
		if ia != ib {
			return ia - ib
		}
		return strings.Compare(a, b)
	})
	printTallies(w, "difficulty", keys, s.ByDifficulty)
	printTallies(w, "database", slices.Sorted(maps.Keys(s.ByDatabase)), s.ByDatabase)
	fmt.Fprintf(w, "valid SQL %.2f %% (%d of %d) · guard refusals %d\n", s.ValidRate, s.ValidSQL, s.Questions, s.Refused)
	fmt.Fprintf(w, "mean %.2f s · %.0f tokens · %.2f turns per question\n", s.MeanSeconds, s.MeanTokens, s.MeanTurns)
	if s.System == "experienced" {
		fmt.Fprintf(w, "notes in %d of %d prompts · mean %.0f bytes\n", s.WithNotes, s.Questions, s.MeanNotesBytes)
	}
	if len(s.Errors) > 0 {
		kinds := slices.Sorted(maps.Keys(s.Errors))
		sort.SliceStable(kinds, func(i, j int) bool { return s.Errors[kinds[i]] > s.Errors[kinds[j]] })
		var parts []string
		for _, k := range kinds {
			parts = append(parts, fmt.Sprintf("%s %d", k, s.Errors[k]))
		}
		fmt.Fprintf(w, "errors: %s\n", strings.Join(parts, ", "))
	}
}

func printTallies(w io.Writer, what string, keys []string, by map[string]*Tally) {
	width := len(what)
	for _, k := range keys {
		width = max(width, len(k))
	}
	fmt.Fprintf(w, "  %-*s  accuracy  correct\n", width, what)
	for _, k := range keys {
		t := by[k]
		fmt.Fprintf(w, "  %-*s  %6.2f %%  %d of %d\n", width, k, t.Accuracy, t.Correct, t.Questions)
	}
}

// Comparison pairs two runs on the questions both answered.
type Comparison struct {
	Shared                      int
	Both, OnlyA, OnlyB, Neither int
	AccuracyA, AccuracyB        float64 // percent, on the shared questions
	P                           float64 // McNemar's exact two-sided p-value
}

// Compare pairs a and b by question_id (and db_id), counting the questions
// both got right, only one got right, and neither.
func Compare(a, b []Prediction) *Comparison {
	type key struct {
		db string
		id int
	}
	right := map[key]bool{}
	for _, p := range a {
		k := key{p.DB, p.QuestionID}
		if _, ok := right[k]; !ok {
			right[k] = p.Correct
		}
	}
	c := &Comparison{}
	seen := map[key]bool{}
	for _, p := range b {
		k := key{p.DB, p.QuestionID}
		ra, ok := right[k]
		if !ok || seen[k] {
			continue
		}
		seen[k] = true
		c.Shared++
		switch {
		case ra && p.Correct:
			c.Both++
		case ra:
			c.OnlyA++
		case p.Correct:
			c.OnlyB++
		default:
			c.Neither++
		}
	}
	c.AccuracyA = percent(c.Both+c.OnlyA, c.Shared)
	c.AccuracyB = percent(c.Both+c.OnlyB, c.Shared)
	c.P = McNemar(c.OnlyA, c.OnlyB)
	return c
}

// McNemar returns the exact two-sided p-value of McNemar's test for b and
// c discordant pairs: under the null hypothesis each discordant pair is a
// fair coin, so p = min(1, 2·P(X ≤ min(b, c))) for X ~ Binomial(b+c, ½).
// No discordant pairs gives 1.
func McNemar(b, c int) float64 {
	n, k := b+c, min(b, c)
	if n == 0 {
		return 1
	}
	// Sum the binomial terms in log space: n may be in the thousands.
	lgn, _ := math.Lgamma(float64(n + 1))
	sum := 0.0
	for i := 0; i <= k; i++ {
		li, _ := math.Lgamma(float64(i + 1))
		lr, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lgn - li - lr - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*sum)
}

// Print writes the paired table, naming the runs a and b.
func (c *Comparison) Print(w io.Writer, a, b string) {
	fmt.Fprintf(w, "A: %s\nB: %s\n", a, b)
	fmt.Fprintf(w, "%d shared questions · A %.2f %% · B %.2f %%\n\n", c.Shared, c.AccuracyA, c.AccuracyB)
	fmt.Fprintf(w, "              B right  B wrong\n")
	fmt.Fprintf(w, "  A right  %10d %8d\n", c.Both, c.OnlyA)
	fmt.Fprintf(w, "  A wrong  %10d %8d\n\n", c.OnlyB, c.Neither)
	fmt.Fprintf(w, "both right %d · only A %d · only B %d · neither %d\n", c.Both, c.OnlyA, c.OnlyB, c.Neither)
	fmt.Fprintf(w, "McNemar's exact test on the %d discordant pairs: p = %.4g\n", c.OnlyA+c.OnlyB, c.P)
}
