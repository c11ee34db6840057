package schema

import (
	"context"
	"sort"
	"strings"
	"unicode"
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
	Score       float64  `json:"score"`
}

// Field weights: a word in a name says more than one in a description.
const (
	weightName        = 3
	weightDescription = 1.5
	weightValues      = 1
	weightTableName   = 0.5 // a column of a table whose name matches
)

// Search finds tables and columns whose names, descriptions or value notes
// hold the words of query, best first, at most limit of them. Words match
// inside identifiers split at underscores, case changes, spaces and
// punctuation ("free meal" finds "Free Meal Count (K-12)"), and by prefix
// ("enrol" finds "enrollment").
func (c *Catalog) Search(ctx context.Context, query string, limit int) ([]Match, error) {
	tables, err := c.Tables(ctx)
	if err != nil {
		return nil, err
	}
	words := Words(query)
	if len(words) == 0 {
		return []Match{}, nil
	}
	phrase := strings.Join(words, " ")
	var matches []Match
	for _, t := range tables {
		tableName := Words(t.Name)
		fields := []field{{"name", weightName, tableName}, {"description", weightDescription, Words(t.Description)}}
		if m, ok := score(words, phrase, fields); ok {
			m.Table, m.Description = t.Name, t.Description
			matches = append(matches, m)
		}
		for _, col := range t.Columns {
			fields := []field{
				{"name", weightName, Words(col.Name)},
				{"description", weightDescription, Words(col.Description)},
				{"values", weightValues, Words(col.Values)},
				{"table name", weightTableName, tableName},
			}
			m, ok := score(words, phrase, fields)
			if !ok || len(m.Matched) == 1 && m.Matched[0] == "table name" {
				continue // the table's own match already covers it
			}
			m.Table, m.Column, m.Type, m.Description = t.Name, col.Name, col.Type, col.Description
			matches = append(matches, m)
		}
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

type field struct {
	name   string
	weight float64
	words  []string
}

// score rates how well fields hold words: each word scores in the best
// field holding it (whole words above prefixes), a match of every word
// doubles the score, and the words side by side in a field add a bonus.
func score(words []string, phrase string, fields []field) (Match, bool) {
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
			m.Score += best
			matched[bestField] = true
		}
	}
	if found == 0 {
		return m, false
	}
	if found == len(words) {
		m.Score *= 2
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
	m.Score = float64(int(m.Score*100+0.5)) / 100
	return m, true
}

// Words splits text into lower-case words at spaces, punctuation,
// underscores, case changes (freeMealCount) and letter-digit boundaries,
// and drops a plural "s" so "meals" matches "meal".
func Words(text string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, singular(strings.ToLower(string(cur))))
			cur = cur[:0]
		}
	}
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if len(cur) > 0 {
				prev := cur[len(cur)-1]
				next := rune(0)
				if i+1 < len(rs) {
					next = rs[i+1]
				}
				lowerToUpper := unicode.IsLower(prev) && unicode.IsUpper(r)
				acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(r) && unicode.IsLower(next)
				digitEdge := unicode.IsDigit(prev) != unicode.IsDigit(r)
				if lowerToUpper || acronymEnd || digitEdge {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
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
