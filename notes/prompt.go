package notes

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/sqlmcp/sqlmcp/internal/sqlscan"
	"github.com/sqlmcp/sqlmcp/internal/text"
)

// Query is the question a prompt is built for.
type Query struct {
	// ID is the question's id in its question set; NoQuestion when it has
	// none.
	ID       int
	Question string
	Hint     string
}

// DefaultBudget is the prompt size, in bytes, that a budget of 0 means.
const DefaultBudget = 6000

// How many entries of each kind Prompt may include. Lessons are few and
// general, so they go in even when no word matches.
const (
	maxLessons  = 8
	maxExamples = 4
	maxTriplets = 4
)

// Prompt returns the notes that bear on q, as text to add to a model's
// prompt, or "" when none do. It is at most budget bytes (0 or less means
// DefaultBudget) and holds whole entries only: one that does not fit is
// left out and the next tried.
//
// It never includes q's own entry: a lesson or example whose QuestionID
// is q.ID (when q.ID is not NoQuestion), or whose question equals q.Question
// ignoring case and spacing. Entries are ranked by BM25 of q's question
// and hint against each entry's words: its question, hint, lesson line,
// description, tables and join, and the names in its SQL. It includes up
// to 8 lessons, best first, even those sharing no word with q; then up to
// 4 examples and 4 triplets that share at least one. The sections are
// headed "Lessons from past mistakes:", "Solved examples:" and "Queries
// known to run on this database:".
func (n *Notes) Prompt(q Query, budget int) string {
	if n == nil {
		return ""
	}
	if budget <= 0 {
		budget = DefaultBudget
	}
	query := words(q.Question + " " + q.Hint)
	ownQuestion := normal(q.Question)
	own := func(id int, question string) bool {
		return q.ID >= 0 && id == q.ID || ownQuestion != "" && normal(question) == ownQuestion
	}

	var lessons section
	for _, l := range n.Lessons {
		if own(l.QuestionID, l.Question) {
			continue
		}
		lessons.add(lessonItem(l), l.Question, l.Hint, l.Lesson, sqlNames(l.WrongSQL), sqlNames(l.SQL))
	}
	var examples section
	for _, x := range n.Examples {
		if own(x.QuestionID, x.Question) {
			continue
		}
		examples.add(exampleItem(x), x.Question, x.Hint, sqlNames(x.SQL))
	}
	var triplets section
	for _, t := range n.Triplets {
		triplets.add(tripletItem(t), t.Description, strings.Join(t.Tables, " "), t.Join, sqlNames(t.SQL))
	}

	const intro = "Notes from earlier work on this database (use what applies; the schema and the data decide):\n"
	var b strings.Builder
	for _, s := range []struct {
		heading string
		items   []string
	}{
		{"Lessons from past mistakes:", lessons.best(query, maxLessons, true)},
		{"Solved examples:", examples.best(query, maxExamples, false)},
		{"Queries known to run on this database:", triplets.best(query, maxTriplets, false)},
	} {
		started := false
		for _, item := range s.items {
			add := item
			if !started {
				add = "\n" + s.heading + "\n" + item
			}
			size := b.Len() + len(add)
			if b.Len() == 0 {
				size += len(intro)
			}
			if size > budget {
				continue
			}
			if b.Len() == 0 {
				b.WriteString(intro)
			}
			b.WriteString(add)
			started = true
		}
	}
	return b.String()
}

// section gathers one kind's entries as prompt text beside the words they
// are ranked by.
type section struct {
	items []string
	docs  [][]string
}

func (s *section) add(item string, texts ...string) {
	if item == "" {
		return
	}
	s.items = append(s.items, item)
	s.docs = append(s.docs, words(strings.Join(texts, " ")))
}

// best returns up to limit items ranked for query, best first and in file
// order among equals; those scoring 0 only when keepZero.
func (s *section) best(query []string, limit int, keepZero bool) []string {
	scores := bm25(s.docs, query)
	order := make([]int, len(s.items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	var out []string
	for _, i := range order {
		if len(out) == limit || !keepZero && scores[i] <= 0 {
			break
		}
		out = append(out, s.items[i])
	}
	return out
}

func lessonItem(l Lesson) string {
	return item(oneLine(l.Lesson), questionLine(l.Question, l.Hint),
		label("Wrong SQL: ", sqlLine(l.WrongSQL)), label("Right SQL: ", sqlLine(l.SQL)))
}

func exampleItem(x Example) string {
	return item(questionLine(x.Question, x.Hint), label("SQL: ", sqlLine(x.SQL)))
}

func tripletItem(t Triplet) string {
	var meta []string
	if len(t.Tables) > 0 {
		meta = append(meta, "tables: "+oneLine(strings.Join(t.Tables, ", ")))
	}
	if j := oneLine(t.Join); j != "" {
		meta = append(meta, "join: "+j)
	}
	head := oneLine(t.Description)
	switch {
	case head == "":
		head = strings.Join(meta, "; ")
	case len(meta) > 0:
		head += " (" + strings.Join(meta, "; ") + ")"
	}
	return item(head, label("SQL: ", sqlLine(t.SQL)))
}

// item makes a list item of the non-empty lines: "- " before the first,
// two spaces before the rest. It is "" when all are empty.
func item(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		if l == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("- ")
		} else {
			b.WriteString("  ")
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

func questionLine(question, hint string) string {
	question, hint = oneLine(question), oneLine(hint)
	switch {
	case question == "" && hint == "":
		return ""
	case hint == "":
		return "Question: " + question
	case question == "":
		return "Hint: " + hint
	}
	return "Question: " + question + " (Hint: " + hint + ")"
}

func label(prefix, value string) string {
	if value == "" {
		return ""
	}
	return prefix + value
}

// oneLine collapses runs of white space, line breaks included, to one space.
func oneLine(s string) string { return text.OneLine(s, 0) }

// normal is a question reduced for comparison: lower case, single spaces.
func normal(s string) string {
	return strings.ToLower(oneLine(s))
}

// sqlLine puts sql on one line: white space outside quotes collapsed and
// "--" comments dropped, since on one line they would swallow the rest.
// Quoted strings and names are kept as they are.
func sqlLine(sql string) string {
	var b strings.Builder
	space := false
	for _, t := range sqlscan.Tokens(sql) {
		text := t.Text
		switch t.Kind {
		case sqlscan.Space, sqlscan.LineComment:
			space = true
			continue
		case sqlscan.BlockComment:
			text = oneLine(text)
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(text)
	}
	return b.String()
}

// sqlNames returns the names in sql, space-separated: its words that are
// not keywords, numbers or short aliases (t1), and its quoted names. String
// literals and comments are left out.
func sqlNames(sql string) string {
	var names []string
	for _, t := range sqlscan.Tokens(sql) {
		switch t.Kind {
		case sqlscan.Quoted:
			names = append(names, strings.Trim(t.Text, "\"`"))
		case sqlscan.Word:
			w := strings.ToLower(t.Text)
			if sqlKeywords[w] || w[0] >= '0' && w[0] <= '9' || isAlias(w) {
				continue
			}
			names = append(names, t.Text)
		}
	}
	return strings.Join(names, " ")
}

// isAlias reports whether w looks like a table alias: a letter and digits.
func isAlias(w string) bool {
	return len(w) <= 4 && strings.Trim(w[1:], "0123456789") == ""
}

var sqlKeywords = set(`select from where join inner left right outer full cross natural on using
	and or not as group by order having limit offset distinct case when then else end in is
	null like glob ilike between exists union all intersect except with recursive asc desc
	nulls first last count sum avg min max total cast coalesce ifnull nullif iif round abs
	length lower upper substr substring trim strftime date datetime julianday extract
	interval real integer int text varchar numeric float double decimal over partition
	window filter true false any some values escape collate nocase top fetch next rows only`)

// words splits text into the terms Prompt ranks by: text.Words (lower
// case, split at underscores, case changes and letter-digit edges),
// without common English words, each made singular ("schools" is
// "school", "class" stays).
func words(s string) []string {
	var out []string
	for _, w := range text.Words(s) {
		if !stopWords[w] {
			out = append(out, text.Singular(w))
		}
	}
	return out
}

var stopWords = set(`a an the and or but not of in on at to for from by with as into than then
	is are was were be been being do does did has have had it its this that these those there
	their them they he she his her we our you your i me my which what who whom whose when where
	why how many much please give list show find tell`)

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// bm25 scores each document against the query terms by Okapi BM25 (k1
// 1.2, b 0.75), with the idf that stays positive when a term is in most
// documents: ln(1 + (N - n + 0.5) / (n + 0.5)). A term repeated in the
// query counts once. It returns one score per document, 0 for a document
// sharing no term with the query.
func bm25(docs [][]string, query []string) []float64 {
	const k1, b = 1.2, 0.75
	scores := make([]float64, len(docs))
	if len(docs) == 0 {
		return scores
	}
	// Sorted, so the sums come out the same on every call.
	var uniq []string
	terms := map[string]bool{}
	for _, t := range query {
		if !terms[t] {
			terms[t] = true
			uniq = append(uniq, t)
		}
	}
	slices.Sort(uniq)
	total := 0
	df := map[string]int{}
	tfs := make([]map[string]int, len(docs))
	for i, d := range docs {
		total += len(d)
		tfs[i] = map[string]int{}
		for _, w := range d {
			if terms[w] {
				if tfs[i][w] == 0 {
					df[w]++
				}
				tfs[i][w]++
			}
		}
	}
	if total == 0 {
		return scores
	}
	avg := float64(total) / float64(len(docs))
	n := float64(len(docs))
	for i, d := range docs {
		norm := k1 * (1 - b + b*float64(len(d))/avg)
		for _, w := range uniq {
			tf := tfs[i][w]
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
			f := float64(tf)
			scores[i] += idf * f * (k1 + 1) / (f + norm)
		}
	}
	return scores
}
