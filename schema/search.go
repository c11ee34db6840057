package schema

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/sqlmcp/sqlmcp/internal/text"
)

// Match is one table or column that a search found.
type Match struct {
	Table  string `json:"table"`
	Column string `json:"column,omitempty"` // "" when the table itself matched
	Type   string `json:"type,omitempty"`
	// Matched names the fields the words were found in: "name",
	// "description", "values", "table name".
	Matched     []string `json:"matched"`
	Description string   `json:"description,omitempty"`
	// Value is a value the column holds that matched, when one did.
	Value string  `json:"value,omitempty"`
	Score float64 `json:"score"`
}

// Field weights: a word in a name says more than one in a description; a
// column inherits part of its table's match, so "the name of each singer"
// finds singer.name.
const (
	weightName             = 3
	weightDescription      = 1.5
	weightValues           = 1
	weightTableName        = 1.2
	weightTableDescription = 0.4
	weightValue            = 2 // a word among the values a column holds
)

// stopWords are the scaffolding of a question, which says nothing about
// where its answer is.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be by did do doe for from had has have how i in is it
		its list many me much of on or per please show tell than that the their them there these they this
		those to was were what when where which who whom whose why with would give find all each every
		any number count total there ha wa`) {
		stopWords[w] = true
	}
}

// Search finds tables and columns whose names, descriptions or value notes
// hold the words of query, best first, at most limit of them. Words match
// inside identifiers split at underscores, case changes, spaces and
// punctuation ("free meal" finds "Free Meal Count (K-12)"), and by prefix
// ("enrol" finds "enrollment"). A word found in few places weighs more
// than one found in many (inverse document frequency over the columns), a
// question's scaffolding ("how many", "the", "of") is ignored unless it is
// all the query holds, and a column inherits part of its table's match.
func (c *Catalog) Search(ctx context.Context, query string, limit int) ([]Match, error) {
	tables, err := c.Tables(ctx)
	if err != nil {
		return nil, err
	}
	words := queryWords(query)
	if len(words) == 0 {
		return []Match{}, nil
	}
	phrase := strings.Join(words, " ")
	values := c.valueIndexFor(tables)
	type doc struct {
		t      *Table
		col    *Column
		fields []field
	}
	var docs []doc
	df := map[string]int{}
	count := func(fields []field) {
		seen := map[string]bool{}
		for _, f := range fields {
			for _, w := range f.words {
				if !seen[w] {
					seen[w] = true
					df[w]++
				}
			}
		}
	}
	for _, t := range tables {
		tableName, tableDesc := Words(t.Name), Words(t.Description)
		tf := []field{{"name", weightName, tableName}, {"description", weightDescription, tableDesc}}
		docs = append(docs, doc{t: t, fields: tf})
		for i := range t.Columns {
			col := &t.Columns[i]
			fields := []field{
				{"name", weightName, Words(col.Name)},
				{"description", weightDescription, Words(col.Description)},
				{"values", weightValues, Words(col.Values)},
				{"table name", weightTableName, tableName},
				{"table description", weightTableDescription, tableDesc},
			}
			if vw := values.valueWords(col); vw != nil {
				var held []string
				for _, w := range words {
					if vw[w] {
						held = append(held, w)
					}
				}
				fields = append(fields, field{"value", weightValue, held})
			}
			count(fields[:3])
			docs = append(docs, doc{t: t, col: col, fields: fields})
		}
	}
	n := float64(len(docs))
	total := 0
	for _, d := range docs {
		total += docLen(d.fields)
	}
	avg := float64(total) / max(n, 1)
	idf := func(w string) float64 {
		// Counted over the columns' own fields; a word no column holds
		// (a table's name) weighs as a rare one.
		return math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
	}
	var matches []Match
	for _, d := range docs {
		m, ok := score(words, phrase, d.fields, idf)
		if !ok {
			continue
		}
		// As BM25 does: a match in a short text says more than one in a
		// long one.
		m.Score /= 1 - lengthNorm + lengthNorm*float64(docLen(d.fields))/avg
		if d.col == nil {
			m.Table, m.Description = d.t.Name, d.t.Description
			m.Score *= 0.5 // a table is a lead; its columns are the answer
		} else {
			if onlyInherited(m.Matched) {
				m.Score *= 0.5
			}
			m.Table, m.Column, m.Type, m.Description = d.t.Name, d.col.Name, d.col.Type, d.col.Description
			if slices.Contains(m.Matched, "value") {
				m.Value = values.matchingValue(d.col, words)
			}
		}
		m.Score = float64(int(m.Score*100+0.5)) / 100
		matches = append(matches, m)
	}
	sort.SliceStable(matches, func(i, j int) bool { return matches[i].Score > matches[j].Score })
	if limit > 0 && len(matches) > limit {
		matches = matches[:limit]
	}
	if matches == nil {
		matches = []Match{}
	}
	return matches, nil
}

// queryWords are the words of a query that can point at a column: its
// words less the scaffolding, unless that is all there is, each once.
func queryWords(query string) []string {
	all := Words(query)
	var words []string
	seen := map[string]bool{}
	for _, w := range all {
		if !stopWords[w] && !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		for _, w := range all {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	return words
}

// lengthNorm is how much a long text's matches are discounted, BM25's b.
const lengthNorm = 0.3

// docLen is how many words a match's fields hold.
func docLen(fields []field) int {
	n := 0
	for _, f := range fields {
		if f.name != "value" { // the words matched, not the text's length
			n += len(f.words)
		}
	}
	return n
}

// onlyInherited reports whether a column matched through its table alone.
func onlyInherited(matched []string) bool {
	for _, f := range matched {
		if f != "table name" && f != "table description" {
			return false
		}
	}
	return true
}

type field struct {
	name   string
	weight float64
	words  []string
}

// score rates how well fields hold words: each word scores its weight
// (idf) times the weight of the best field holding it (whole words above
// prefixes); the words side by side in a field add a bonus, and a match
// of every word raises the score by half.
func score(words []string, phrase string, fields []field, idf func(string) float64) (Match, bool) {
	var m Match
	found := 0
	matched := map[string]bool{}
	for _, w := range words {
		best, bestField := 0.0, ""
		for _, f := range fields {
			for _, fw := range f.words {
				s := 0.0
				switch {
				case fw == w:
					s = f.weight
				case len(w) >= 3 && strings.HasPrefix(fw, w):
					s = f.weight * 0.7 // "enrol" finds "enrollment"
				case len(fw) >= 4 && strings.HasPrefix(w, fw):
					s = f.weight * 0.6 // "deleted" finds "delete_flag"
				}
				if s > best {
					best, bestField = s, f.name
				}
			}
		}
		if best > 0 {
			found++
			m.Score += best * idf(w)
			matched[bestField] = true
		}
	}
	if found == 0 {
		return m, false
	}
	if found == len(words) && len(words) > 1 {
		m.Score *= 1.5
	}
	for _, f := range fields {
		if len(words) > 1 && strings.Contains(" "+strings.Join(f.words, " ")+" ", " "+phrase+" ") {
			m.Score += f.weight
			matched[f.name] = true
		}
	}
	for _, f := range fields {
		if matched[f.name] {
			m.Matched = append(m.Matched, f.name)
		}
	}
	return m, true
}

// Words splits text into lower-case words at spaces, punctuation,
// underscores, case changes (freeMealCount) and letter-digit boundaries
// (text.Words), and drops a plural "s" so "meals" matches "meal".
func Words(s string) []string {
	words := text.Words(s)
	for i, w := range words {
		words[i] = singular(w)
	}
	return words
}

func singular(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// Closest returns up to n of names nearest to name: those containing it or
// contained in it first, then by edit distance, ignoring case.
func Closest(name string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	lname := strings.ToLower(name)
	var cands []cand
	for _, c := range names {
		lc := strings.ToLower(c)
		d := distance(lname, lc)
		if len(lname) >= 3 && len(lc) >= 3 && (strings.Contains(lc, lname) || strings.Contains(lname, lc)) {
			d = 0
		}
		if d <= max(2, len(lname)/2) {
			cands = append(cands, cand{c, d})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].d < cands[j].d })
	var out []string
	for i := 0; i < len(cands) && i < n; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
