package schema

import (
	"cmp"
	"context"
	"fmt"
	"github.com/sqlmcp/sqlmcp/internal/text"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Match is one table or column that a search found.
type Match struct {
	Table  string `json:"table"`
	Column string `json:"column,omitempty"` // "" when the table itself matched
	Type   string `json:"type,omitempty"`
	// Matched names the fields the words were found in: "name",
	// "description", "values" (the value notes), "value" (a value the
	// column holds), "table name", "table description".
	Matched []string `json:"matched"`
	// Why says, per field, which words of the query matched there and
	// how: "name: grade, lowest~low; table name: school". A word~form
	// pair is a word matched in another form (a prefix, a stem). Last,
	// "alike in orders_2023, stg_orders and 4 more" names the copies of
	// the table whose same-named column (or which, for a table,
	// themselves) matched exactly alike, listed once here.
	Why         string `json:"why,omitempty"`
	Description string `json:"description,omitempty"`
	// Commented is true when Description is the database's own comment,
	// as Table.Commented.
	Commented bool `json:"-"`
	// Value is a value the column holds that matched, when one did.
	Value string   `json:"value,omitempty"`
	Score float64  `json:"score"`
	why   []string // Why's parts
	also  []string // Also's first tables
	more  int      // and how many more
}

// finish writes Why from its parts.
func (m *Match) finish() {
	why := m.why
	if len(m.also) > 0 {
		alike := "alike in " + strings.Join(m.also, ", ")
		if m.more > 0 {
			alike += fmt.Sprintf(" and %d more", m.more)
		}
		why = append(why[:len(why):len(why)], alike)
	}
	m.Why = strings.Join(why, "; ")
}

// The fields of a column, in the order Matched lists them.
const (
	fName = iota
	fDescription
	fNotes
	fValue
	fTableName
	fTableDescription
	nFields
)

var fieldNames = [nFields]string{"name", "description", "values", "value", "table name", "table description"}

// fieldWeights: a word in a name says more than one in a description or
// a value note; a value the column holds says almost as much as its name.
// The table's fields count in the table's own score, which its columns
// inherit in part.
var fieldWeights = [nFields]float64{3, 1.5, 1, 2.5, 3, 1.2}

const (
	inherit    = 0.9  // how much of its table's score a column inherits
	tableShare = 0.7  // a table's own entry scores this much of its score: its columns are the answer
	lengthNorm = 0.35 // how much a long text's matches are discounted, BM25's b
	// nameBonus is added, times the column name's weight, when the query
	// writes the column's whole name (is_title_i, "Academic Year").
	nameBonus = 2.5
)

// Search finds tables and columns whose names, descriptions, value notes
// or values hold the words of query, best first, at most limit of them
// (every match when limit is 0). Words match inside identifiers split at
// underscores, case changes, digits and punctuation ("free meal" finds
// "Free Meal Count (K-12)"), in their plural, stemmed by Porter2
// ("enrolled" finds "enrollment"), abbreviated ("quantity" finds "qty")
// and prefix forms. A word found in few places weighs more than one
// found in many (inverse document frequency), a question's scaffolding
// ("how many", "the", "of") is ignored unless it is all the query holds,
// and a proper noun (capitalised inside a sentence) weighs more in the
// values columns hold. A column inherits part of its table's match, so
// "the name of each singer" finds singer.name, and the tables whose
// columns matched best lend part of that to their other matching
// columns. The list covers the query: a word's evidence counts for
// less in each candidate after the first that holds it, so a question
// about students, a grade and a course lists a column for each rather
// than ten of the students table; a copy of a table (stg_orders beside
// orders) counts for less than the table, and adds little once the list
// holds the same column of the other, and a view counts for less than
// the base tables it repeats. A question's numbers match values, not
// the digits of table names (orders_2023). A question that names a time
// (a year, a month, "when") raises the date columns of the tables it is
// about, and the keys joining the list's first tables are listed with
// them.
// Each match says which fields matched and why; Score is what the match
// added to the list at its place, so scores fall along it.
//
// Word statistics are built once per reading of the schema (and again
// when the value index arrives), not per call.
func (c *Catalog) Search(ctx context.Context, query string, limit int) ([]Match, error) {
	tables, err := c.Tables(ctx)
	if err != nil {
		return nil, err
	}
	ix := c.searchIndexFor(tables, c.valueIndexFor(tables))
	return ix.search(query, limit), nil
}

// searchIndex holds what Search needs of one reading of the schema: every
// column's words by field, the words' document frequencies and posting
// lists. It is read-only once built.
type searchIndex struct {
	tables []*Table
	values *valueIndex
	cols   []searchDoc // one per column
	tabs   []searchDoc // one per table
	// colPost and tabPost map a word to the documents holding it.
	colPost, tabPost map[string][]posting
	colDF, tabDF     map[string]*[nFields]int32 // per field: how many documents hold the word there
	vocab            []string                   // every word, sorted, for prefix matches
	tableIndex       map[string]int32           // a table's name -> its index
	first            []int32                    // per table: the document of its first column
	fullNames        map[string][]int32         // a column's lower-cased name less underscores (fullName) -> its documents
	spacedNames      []int32                    // columns whose names hold spaces or punctuation
	isView           []bool                     // per table: it is a view of some kind
	family           []int32                    // per table: the table it is a copy of, or itself
	temporal         []bool                     // per column: it holds dates or times
	nTemporal        int                        // how many do
}

type searchDoc struct {
	table  int32 // index into tables
	col    *Column
	fields [nFields][]string // words per field; a table's own in fName and fDescription
	norm   [nFields]float32  // what a match in each field is divided by: BM25's length normalisation
	label  bool              // a column that names its row (isLabel)
}

// posting is one document holding a word, with the fields it is in.
type posting struct {
	doc    int32
	fields uint8
}

// SearchNames is Search without the values the columns hold: matched and
// ranked by names and descriptions alone. The value index is read by
// sqlmcp's own connection, as its connecting role; a caller whose
// statements run as another role (row-level security, fewer grants) must
// learn nothing of those values, neither shown nor by how they weigh.
func (c *Catalog) SearchNames(ctx context.Context, query string, limit int) ([]Match, error) {
	tables, err := c.Tables(ctx)
	if err != nil {
		return nil, err
	}
	c.searchMu.Lock()
	ix := c.names
	if ix == nil || !sameTables(ix.tables, tables) {
		ix = buildSearchIndex(tables, nil)
		c.names = ix
	}
	c.searchMu.Unlock()
	return ix.search(query, limit), nil
}

// searchIndexFor returns the search index of tables with values, building
// it when the schema or the value index changed since the last.
func (c *Catalog) searchIndexFor(tables []*Table, values *valueIndex) *searchIndex {
	c.searchMu.Lock()
	defer c.searchMu.Unlock()
	if ix := c.search; ix != nil && sameTables(ix.tables, tables) && ix.values == values {
		return ix
	}
	c.search = buildSearchIndex(tables, values)
	return c.search
}

// indexWords are the words a field's text contributes: its words'
// stems, and in an identifier the words its abbreviations stand for
// (qty -> quantity) and, when vocab is given, the words a run-together
// part holds (customerid -> customer id).
func indexWords(text string, identifier bool, vocab *vocabulary) []string {
	var out []string
	for _, w := range Words(text) {
		out = append(out, stem(w))
		if !identifier {
			continue
		}
		parts := []string{w}
		if vocab != nil {
			if split := vocab.split(w); split != nil {
				parts = split
				for _, p := range split {
					out = append(out, stem(p))
				}
			}
		}
		for _, p := range parts {
			if exp, ok := abbreviations[p]; ok {
				for _, e := range strings.Fields(exp) {
					out = append(out, stem(e))
				}
			}
		}
	}
	return out
}

// schemaVocabulary is the vocabulary of tables' descriptions, value notes
// and split identifiers.
func schemaVocabulary(tables []*Table) *vocabulary {
	v := newVocabulary()
	for _, t := range tables {
		v.addIdentifier(t.rel)
		v.addText(t.Description)
		for i := range t.Columns {
			c := &t.Columns[i]
			v.addIdentifier(c.Name)
			v.addText(c.Description)
			v.addText(c.Values)
		}
	}
	return v
}

func buildSearchIndex(tables []*Table, values *valueIndex) *searchIndex {
	ix := &searchIndex{tables: tables, values: values, colPost: map[string][]posting{}, tabPost: map[string][]posting{},
		colDF: map[string]*[nFields]int32{}, tabDF: map[string]*[nFields]int32{}, fullNames: map[string][]int32{}, tableIndex: map[string]int32{}}
	vocab := schemaVocabulary(tables)
	for ti, t := range tables {
		ix.tableIndex[t.Name] = int32(ti)
		ix.isView = append(ix.isView, strings.Contains(t.Kind, "view"))
		ix.first = append(ix.first, int32(len(ix.cols)))
		td := searchDoc{table: int32(ti)}
		td.fields[fName] = indexWords(t.rel, true, vocab)
		td.fields[fDescription] = indexWords(t.Description, false, nil)
		ix.tabs = append(ix.tabs, td)
		for i := range t.Columns {
			col := &t.Columns[i]
			d := searchDoc{table: int32(ti), col: col}
			d.fields[fName] = indexWords(col.Name, true, vocab)
			d.fields[fDescription] = indexWords(col.Description, false, nil)
			d.fields[fNotes] = indexWords(col.Values, false, nil)
			for _, v := range values.columnValues(col) {
				d.fields[fValue] = append(d.fields[fValue], indexWords(v, false, nil)...)
			}
			d.label = isLabel(&d)
			doc := int32(len(ix.cols))
			name := strings.ToLower(col.Name)
			if len(name) >= 4 {
				if isIdentifier(name) {
					ix.fullNames[fullName(name)] = append(ix.fullNames[fullName(name)], doc)
				} else {
					ix.spacedNames = append(ix.spacedNames, doc)
				}
			}
			ix.cols = append(ix.cols, d)
			ix.temporal = append(ix.temporal, isTemporal(col))
			if isTemporal(col) {
				ix.nTemporal++
			}
		}
	}
	ix.family = copyFamilies(tables)
	post := func(docs []searchDoc, postings map[string][]posting, df map[string]*[nFields]int32, fields int) {
		for di := range docs {
			seen := map[string]uint8{}
			for f := 0; f < fields; f++ {
				for _, w := range docs[di].fields[f] {
					seen[w] |= 1 << f
				}
			}
			for w, mask := range seen {
				postings[w] = append(postings[w], posting{int32(di), mask})
				counts := df[w]
				if counts == nil {
					counts = &[nFields]int32{}
					df[w] = counts
				}
				for f := 0; f < fields; f++ {
					if mask&(1<<f) != 0 {
						counts[f]++
					}
				}
			}
		}
	}
	post(ix.cols, ix.colPost, ix.colDF, fTableName)
	post(ix.tabs, ix.tabPost, ix.tabDF, fNotes)
	for w := range ix.colPost {
		ix.vocab = append(ix.vocab, w)
	}
	for w := range ix.tabPost {
		if _, ok := ix.colPost[w]; !ok {
			ix.vocab = append(ix.vocab, w)
		}
	}
	sort.Strings(ix.vocab)
	normalise(ix.cols, fNotes) // a value matched is no weaker for the column's other values
	normalise(ix.tabs, fDescription)
	capPostings(ix.colPost, ix.colDF, ix.cols, len(ix.cols), fName, fValue)
	capPostings(ix.tabPost, ix.tabDF, ix.tabs, len(ix.tabs), fName, fDescription)
	return ix
}

// copyFamilies returns, per table, the table it is a copy of, or itself:
// a copy's name is another table's with a warehouse's affixes
// (stg_orders, orders_2023, orders_v2_old: at most two words either
// side), and it holds at least half of that table's columns.
func copyFamilies(tables []*Table) []int32 {
	byName := map[string]int32{}
	for ti, t := range tables {
		byName[strings.ToLower(t.rel)] = int32(ti)
	}
	family := make([]int32, len(tables))
	for ti, t := range tables {
		family[ti] = int32(ti)
		parts := strings.Split(strings.ToLower(t.rel), "_")
		best := -1
		for i := 0; i <= 2 && i < len(parts); i++ {
			for j := 0; j <= 2 && i+j < len(parts); j++ {
				if i+j == 0 {
					continue
				}
				b, ok := byName[strings.Join(parts[i:len(parts)-j], "_")]
				if !ok || best >= 0 && len(tables[b].rel) >= len(tables[best].rel) || !sharesColumns(t, tables[b]) {
					continue
				}
				best = int(b)
			}
		}
		if best >= 0 {
			family[ti] = int32(best)
		}
	}
	return family
}

// sharesColumns reports whether copy holds at least half of base's
// columns, by name.
func sharesColumns(copy, base *Table) bool {
	names := map[string]bool{}
	for _, c := range copy.Columns {
		names[strings.ToLower(c.Name)] = true
	}
	n := 0
	for _, c := range base.Columns {
		if names[strings.ToLower(c.Name)] {
			n++
		}
	}
	return 2*n >= len(base.Columns)
}

// maxPostings is how many documents of a word's posting list a search
// scores in full: a word held by more (id, name, status on a big
// catalog) weighs little, and its other documents are only looked up for
// the candidates the rest of the query found, so one common word cannot
// make a call slow.
const maxPostings = 200

// capPostings orders each posting list longer than maxPostings so that
// its first maxPostings are the documents where the word weighs most (in
// a name, in a short field) and the rest are sorted by document, to be
// looked up.
func capPostings(postings map[string][]posting, df map[string]*[nFields]int32, docs []searchDoc, n, from, to int) {
	for w, ps := range postings {
		if len(ps) <= maxPostings {
			continue
		}
		weights := fieldIDF(n, df[w], 1)
		impact := make(map[int32]float64, len(ps))
		for _, p := range ps {
			impact[p.doc] = bestField(p.fields, &weights, wordMatch{}, &docs[p.doc].norm, from, to).score
		}
		slices.SortStableFunc(ps, func(a, b posting) int { return cmp.Compare(impact[b.doc], impact[a.doc]) })
		slices.SortFunc(ps[maxPostings:], func(a, b posting) int { return cmp.Compare(a.doc, b.doc) })
	}
}

// tail is the part of a long posting list past maxPostings, looked up
// only for the candidates found otherwise.
type tail struct {
	qi int
	wm wordMatch
	w  [nFields]float64
	ps []posting // sorted by document
}

// lookup returns the posting of document d in t, if it has one.
func (t *tail) lookup(d int32) (posting, bool) {
	i, ok := slices.BinarySearchFunc(t.ps, d, func(p posting, d int32) int { return cmp.Compare(p.doc, d) })
	if !ok {
		return posting{}, false
	}
	return t.ps[i], true
}

// maxInherit is how many of the best matching tables lend their match
// to all their columns; the columns of the others inherit only when they
// are candidates of their own.
const maxInherit = 50

// normalise sets each document's per-field length normalisation, as
// BM25F does: a match in a field longer than that field's average counts
// for less, so a column's description neither helps nor hurts the match
// of its name.
func normalise(docs []searchDoc, last int) {
	for i := range docs {
		for f := range docs[i].norm {
			docs[i].norm[f] = 1
		}
	}
	for f := 0; f <= last; f++ {
		total, n := 0, 0
		for _, d := range docs {
			if len(d.fields[f]) > 0 {
				total += len(d.fields[f])
				n++
			}
		}
		avg := float64(total) / float64(max(n, 1))
		for i := range docs {
			docs[i].norm[f] = float32(1 - lengthNorm + lengthNorm*float64(len(docs[i].fields[f]))/max(avg, 1))
		}
	}
}

// fullName is a lower-cased identifier as whole names are compared:
// without its underscores, so a question's has_iep names the column
// hasiep, and its hasiep the column has_iep.
func fullName(s string) string { return strings.ReplaceAll(s, "_", "") }

func isIdentifier(s string) bool {
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// queryWords are the words of a query that can point at a column: its
// words less the scaffolding, unless that is all there is, each once, in
// order, with the form the user wrote beside the stem matched.
func queryWords(query string) (stems, written []string) {
	all := Words(unitCase(query))
	seen := map[string]bool{}
	pick := func(keep func(string) bool) {
		for _, w := range all {
			s := stem(w)
			if keep(w) && !seen[s] {
				seen[s] = true
				stems, written = append(stems, s), append(written, w)
			}
		}
	}
	pick(func(w string) bool { return !stopWords[w] })
	if len(stems) == 0 {
		pick(func(string) bool { return true })
	}
	return stems, written
}

// entityBoost is how much more a table whose name or description holds
// an entity word of the question weighs.
const entityBoost = 2

// entityWords are the stems of the words a question asks about or groups
// by: the first word after "which", "each", "per", "every" or "how many"
// ("which school", "for each school type"): the rows it counts or
// returns, most often a table's.
func entityWords(query string) map[string]bool {
	all := Words(query)
	out := map[string]bool{}
	for i, w := range all {
		lead := w == "which" || w == "each" || w == "per" || w == "every" || w == "many" && i > 0 && all[i-1] == "how"
		if lead && i+1 < len(all) && !stopWords[all[i+1]] {
			out[stem(all[i+1])] = true
		}
	}
	return out
}

// properBoost is how much more a proper noun of the question (Biology,
// Roosevelt Elementary: capitalised inside a sentence) weighs in the
// values a column holds, where names are found.
const properBoost = 1.5

// properWords are the stems of the words a query capitalises inside a
// sentence, as proper nouns are written: not a sentence's first word,
// not an identifier (letter_grade), not a word in capitals alone (I, K).
func properWords(query string) map[string]bool {
	out := map[string]bool{}
	start := true
	for _, f := range strings.Fields(query) {
		tok := strings.TrimLeft(f, "\"'(`[")
		first, _ := utf8.DecodeRuneInString(tok)
		if !start && unicode.IsUpper(first) && !strings.ContainsAny(tok, "_") && strings.ToUpper(tok) != tok {
			for _, w := range Words(tok) {
				out[stem(w)] = true
			}
		}
		start = strings.ContainsAny(f[len(f)-1:], ".?!")
	}
	return out
}

// unitCase lower-cases the short words of prose whose case changes
// inside them (kWh, iOS, PhD), so they stay one word: in a question a
// case change splits a name written in camelCase, not a unit.
func unitCase(text string) string {
	fields := strings.Fields(text)
	for i, f := range fields {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) })
		if n := len(w); n >= 2 && n <= 4 && w != strings.ToUpper(w) && w != strings.ToLower(w) && isASCIILetters(w) {
			fields[i] = strings.ToLower(f)
		}
	}
	return strings.Join(fields, " ")
}

func isASCIILetters(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// wordMatch is a word of the index that a query word matches, and how
// well: 1 for the same word or stem, less for a prefix.
type wordMatch struct {
	word    string
	quality float64
	how     string // "" for the same word, "prefix", "stem"
}

// matchesOf finds the index words q matches: itself, words that q, of
// five letters or more, begins ("enrol" finds enrollment), and words of
// five letters or more that begin it ("studentid" finds student), a
// prefix counting less the more it leaves out.
func (ix *searchIndex) matchesOf(q, written string) []wordMatch {
	how := ""
	if q != written {
		how = "stem"
	}
	var ms []wordMatch
	if _, ok := ix.colPost[q]; ok {
		ms = append(ms, wordMatch{q, 1, how})
	} else if _, ok := ix.tabPost[q]; ok {
		ms = append(ms, wordMatch{q, 1, how})
	}
	partial := func(short, long string) float64 { return 0.45 + 0.3*float64(len(short))/float64(len(long)) }
	if len(q) >= 5 {
		for i := sort.SearchStrings(ix.vocab, q); i < len(ix.vocab) && strings.HasPrefix(ix.vocab[i], q); i++ {
			if v := ix.vocab[i]; v != q {
				ms = append(ms, wordMatch{v, partial(q, v), "prefix"})
			}
		}
	}
	for n := len(q) - 1; n >= 5; n-- {
		v := q[:n]
		_, inCols := ix.colPost[v]
		_, inTabs := ix.tabPost[v]
		if inCols || inTabs {
			ms = append(ms, wordMatch{v, partial(v, q), "prefix"})
		}
	}
	// Shorter words that abbreviate q, as names do beyond the list of
	// common forms (ord for order, prc for price, nm for name): counted
	// in names only (search below).
	if isLetters(q) && len(q) >= 4 {
		for i := sort.SearchStrings(ix.vocab, q[:1]); i < len(ix.vocab) && ix.vocab[i][0] == q[0]; i++ {
			if v := ix.vocab[i]; len(v) < len(q) && len(v) < 5 && abbreviates(v, q) && !strings.HasPrefix(q, v+"s") {
				ms = append(ms, wordMatch{v, abbreviationQuality, "abbreviation"})
			}
		}
	}
	return ms
}

// abbreviationQuality is how much a name's abbreviation of a query word
// counts, beside 1 for the word itself: enough to find the column, less
// than a name that spells the word out.
const abbreviationQuality = 0.6

// abbreviates reports whether v is a short form of w as identifiers write
// them: w's first letters (ord, disc, stat, of three letters or more), or
// w's first letter and then some of its consonants in order (prc for
// price, qty, amt, nm and cd for name and code; two letters only for a word
// of five letters or fewer, where they leave little else to mean).
func abbreviates(v, w string) bool {
	if len(v) < 2 || v[0] != w[0] || !isLetters(v) {
		return false
	}
	if len(v) >= 3 && strings.HasPrefix(w, v) {
		return true
	}
	if len(v) == 2 && len(w) > 5 {
		return false
	}
	j := 1
	for i := 1; i < len(v); i++ {
		if isVowel(v[i]) {
			return false
		}
		for j < len(w) && w[j] != v[i] {
			j++
		}
		if j == len(w) {
			return false
		}
		j++
	}
	return true
}

// fieldIDF is a word's weight in each field: its inverse document
// frequency among that field's texts (a word common in descriptions may
// be rare in names), times how well the query word matched it.
func fieldIDF(n int, df *[nFields]int32, quality float64) [nFields]float64 {
	var w [nFields]float64
	for f := range w {
		w[f] = idf(n, int(df[f])) * quality
	}
	return w
}

// namesOnly keeps a word's weights in the fields that hold names: an
// abbreviation is a name's habit, and the same letters in prose or a value
// are another word.
func namesOnly(w [nFields]float64) [nFields]float64 {
	for f := range w {
		if f != fName && f != fTableName {
			w[f] = 0
		}
	}
	return w
}

func idf(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// hit is the best evidence for one query word in one document.
type hit struct {
	score float64
	field int
	word  string
	how   string
}

// scored accumulates a document's evidence, one hit per query word.
type scored struct {
	score float64
	hits  []hit
	q     []int // the query word of each hit
}

func (s *scored) add(qi int, h hit) {
	if h.field < 0 {
		return // no field of the document counts the word (an abbreviation in prose)
	}
	for i, x := range s.q {
		if x == qi {
			if h.score > s.hits[i].score {
				s.score += h.score - s.hits[i].score
				s.hits[i] = h
			}
			return
		}
	}
	s.q, s.hits = append(s.q, qi), append(s.hits, h)
	s.score += h.score
}

func (ix *searchIndex) search(query string, limit int) []Match {
	stems, written := queryWords(query)
	if len(stems) == 0 {
		return []Match{}
	}
	entities := entityWords(query)
	proper := properWords(query)
	cols := map[int32]*scored{}
	tabs := map[int32]*scored{}
	get := func(m map[int32]*scored, d int32) *scored {
		s := m[d]
		if s == nil {
			s = &scored{}
			m[d] = s
		}
		return s
	}
	nCols, nTabs := len(ix.cols), len(ix.tabs)
	var colTails, tabTails []tail
	for qi, q := range stems {
		for _, wm := range ix.matchesOf(q, written[qi]) {
			if ps := ix.colPost[wm.word]; len(ps) > 0 {
				w := fieldIDF(nCols, ix.colDF[wm.word], wm.quality)
				if wm.how == "abbreviation" {
					w = namesOnly(w)
				}
				if proper[q] {
					w[fValue] *= properBoost
				}
				if len(ps) > maxPostings {
					colTails = append(colTails, tail{qi, wm, w, ps[maxPostings:]})
					ps = ps[:maxPostings]
				}
				for _, p := range ps {
					if h := bestField(p.fields, &w, wm, &ix.cols[p.doc].norm, fName, fValue); h.field >= 0 {
						get(cols, p.doc).add(qi, h)
					}
				}
			}
			if ps := ix.tabPost[wm.word]; len(ps) > 0 {
				w := fieldIDF(nTabs, ix.tabDF[wm.word], wm.quality)
				if wm.how == "abbreviation" {
					w = namesOnly(w)
				}
				if isDigits(wm.word) {
					// A number in a table's name marks a copy or a
					// period (orders_2023, stats_v2); in a question it
					// is a value: a year, an amount.
					w[fName] = 0
				}
				if entities[q] {
					for f := range w {
						w[f] *= entityBoost
					}
				}
				if len(ps) > maxPostings {
					tabTails = append(tabTails, tail{qi, wm, w, ps[maxPostings:]})
					ps = ps[:maxPostings]
				}
				for _, p := range ps {
					if h := bestField(p.fields, &w, wm, &ix.tabs[p.doc].norm, fName, fDescription); h.field >= 0 {
						get(tabs, p.doc).add(qi, h)
					}
				}
			}
		}
	}
	for _, t := range tabTails {
		for d, s := range tabs {
			if p, ok := t.lookup(d); ok {
				s.add(t.qi, bestField(p.fields, &t.w, t.wm, &ix.tabs[d].norm, fName, fDescription))
			}
		}
	}
	// The query naming a column whole is the strongest evidence there is.
	lq := strings.ToLower(query)
	// It weighs as the name is rare, and is shared among the columns of
	// that name: "status" names many.
	named := map[int32]float64{}
	for _, tok := range identifierTokens(lq) {
		n := len(ix.fullNames[fullName(tok)])
		if n > maxPostings {
			continue // it would weigh nothing
		}
		for _, d := range ix.fullNames[fullName(tok)] {
			named[d] = idf(nCols, n) / float64(n)
		}
	}
	// A name compared with a quoted value (status = 'active', as a
	// question's evidence writes it) means the columns of that name that
	// hold the value: they share the name's weight among themselves.
	for _, m := range comparison.FindAllStringSubmatch(lq, -1) {
		var holding []int32
		for _, d := range ix.fullNames[fullName(m[1])] {
			if ix.values.holds(ix.cols[d].col, m[2]) {
				holding = append(holding, d)
			}
		}
		for _, d := range holding {
			named[d] = idf(nCols, len(holding)) / float64(len(holding))
		}
	}
	for _, d := range ix.spacedNames {
		if strings.Contains(lq, strings.ToLower(ix.cols[d].col.Name)) {
			named[d] = idf(nCols, 1)
		}
	}
	// Adjacent words of the query side by side in a field add a bonus.
	phrase := func(s *scored, fields *[nFields][]string) {
		for i := 0; i+1 < len(s.hits); i++ {
			for j := range s.hits {
				if s.q[j] == s.q[i]+1 && s.hits[i].field == s.hits[j].field && adjacent(fields[s.hits[i].field], s.hits[i].word, s.hits[j].word) {
					s.score += 0.5 * min(s.hits[i].score, s.hits[j].score)
				}
			}
		}
	}
	var out []ranked
	tableScore := map[int32]*scored{}
	entityTable := map[int32]bool{} // tables whose names hold an entity word
	var matched []int32             // the tables that matched
	for d, s := range tabs {
		phrase(s, &ix.tabs[d].fields)
		ti := ix.tabs[d].table
		tableScore[ti] = s
		for i, h := range s.hits {
			if h.field == fName && entities[stems[s.q[i]]] {
				entityTable[ti] = true
			}
		}
		out = append(out, ranked{score: s.score * tableShare, key: 2 * int(ix.firstColumn(ti)), table: ti, doc: -1, own: s})
		matched = append(matched, ti)
	}
	// Every column of a matching table inherits the match, so the
	// table's columns fill the list after the direct matches; of many
	// tables, the best maxInherit lend it to all their columns.
	if len(matched) > maxInherit {
		slices.SortFunc(matched, func(a, b int32) int {
			return cmp.Or(cmp.Compare(tableScore[b].score, tableScore[a].score), cmp.Compare(a, b))
		})
		matched = matched[:maxInherit]
	}
	for _, ti := range matched {
		first := ix.firstColumn(ti)
		for i := range ix.tables[ti].Columns {
			get(cols, first+int32(i))
		}
	}
	for d := range named {
		get(cols, d)
	}
	for _, t := range colTails {
		for d, s := range cols {
			if p, ok := t.lookup(d); ok {
				s.add(t.qi, bestField(p.fields, &t.w, t.wm, &ix.cols[d].norm, fName, fValue))
			}
		}
	}
	// A question that speaks of a time (a year, a month, "when") needs
	// the date columns of the tables it is about: each candidate's date
	// or time column holds that word's evidence, as a word of its own.
	nq := len(stems)
	lenders := ix.bestColumnTables(cols, lendTables)
	if trig := timeWord(query); trig != "" && ix.nTemporal > 0 {
		h := hit{score: timeWeight * fieldWeights[fName] * idf(nCols, ix.nTemporal), field: fName, word: "date or time", how: "time"}
		// The tables it is about are those that matched and those whose
		// own columns matched best, named or not (absences: the
		// attendance table's status and excused columns).
		for ti := range lenders {
			first := ix.firstColumn(ti)
			for i := range ix.tables[ti].Columns {
				if d := first + int32(i); ix.temporal[d] {
					get(cols, d)
				}
			}
		}
		for d, s := range cols {
			if ix.temporal[d] {
				s.add(nq, h)
			}
		}
		written = append(written, trig)
		nq++
	}
	for d, s := range cols {
		doc := &ix.cols[d]
		phrase(s, &doc.fields)
		r := ranked{score: s.score, key: 2*int(d) + 1, table: doc.table, doc: d, own: s}
		if w, ok := named[d]; ok {
			r.score += nameBonus * fieldWeights[fName] * w
			r.named = true
		}
		if ts := tableScore[doc.table]; ts != nil {
			// Of a table's columns, its key and its label (name, title)
			// are what a query over it uses most: to join and to show.
			share := inherit
			if doc.col.PrimaryKey > 0 || doc.label {
				share *= keyShare
			}
			if doc.label && entityTable[doc.table] {
				// "Which school", "each singer": the rows asked for are
				// the table's, shown by their label.
				share *= entityLabel
			} else if !r.named && !addsWords(s, ts) {
				// A lead, not evidence: it matched nothing, or only the
				// words its table did (a student's withdrawal date, for
				// "students").
				share *= inheritedOnly
			}
			r.score += share * ts.score
			r.inherited, r.share = ts, share
		}
		if l, ok := lenders[doc.table]; ok && l.doc != d && len(s.hits) > 0 {
			// A column of a table whose other column matched best takes
			// a share of that match, as of its table's own.
			r.score += max(0, siblingShare*l.score-r.share*scoreOf(r.inherited))
		}
		out = append(out, r)
	}
	for i := range out {
		if ix.isView[out[i].table] {
			out[i].score *= viewShare
		}
		if ti := out[i].table; ix.family[ti] != ti {
			out[i].score *= copyWeight
		}
	}
	out = prune(out, max(maxCandidates, 10*limit))
	out = ix.addJoins(out, limit, nq)
	out = ix.cover(out, limit, nq)
	// Copies of a table (orders_2023, stg_orders) match alike: the list
	// names each such match once, with the other tables that have it, so
	// it fills up with distinct candidates.
	ms := []Match{}
	type shown struct {
		r ranked
		i int // its place in ms
	}
	alike := map[string][]shown{} // by column name and score
	for _, r := range out {
		if limit > 0 && len(ms) == limit {
			break
		}
		key := ""
		if r.doc >= 0 {
			key = strings.ToLower(ix.cols[r.doc].col.Name)
		}
		key += "\x00" + strconv.FormatInt(r.rounded, 10)
		folded := false
		for _, s := range alike[key] {
			if ix.sameEvidence(s.r, r) {
				if m := &ms[s.i]; len(m.also) < maxAlso {
					m.also = append(m.also, ix.tables[r.table].Name)
				} else {
					m.more++
				}
				folded = true
				break
			}
		}
		if !folded {
			alike[key] = append(alike[key], shown{r, len(ms)})
			ms = append(ms, ix.match(r, written, stems))
		}
	}
	for i := range ms {
		ms[i].finish()
	}
	return ms
}

// sameEvidence reports whether two candidates of one name and score
// matched alike: copies of one table (copyFamilies) with the same words
// in the same fields and the same joins. Columns of one name in tables
// that are not copies (attendance.reason, drop_log.reason; the two ends
// of a join) are not alike, however they matched: a query may need
// either, or both.
func (ix *searchIndex) sameEvidence(a, b ranked) bool {
	if ix.family[a.table] != ix.family[b.table] {
		return false
	}
	same := func(x, y *scored) bool {
		if x == nil || y == nil {
			return x == y
		}
		if len(x.hits) != len(y.hits) {
			return false
		}
		for i := range x.hits {
			if x.q[i] != y.q[i] || x.hits[i].field != y.hits[i].field || x.hits[i].word != y.hits[i].word {
				return false
			}
		}
		return true
	}
	return (a.doc < 0) == (b.doc < 0) && a.named == b.named && same(a.own, b.own) &&
		same(a.inherited, b.inherited) && slices.Equal(a.joins, b.joins)
}

// maxAlso is how many other tables a match names that match alike.
const maxAlso = 3

// ranked is a candidate match: its score and the evidence to explain it.
type ranked struct {
	score     float64
	key       int     // where it stands in the schema, for ties: a table before its columns
	table     int32   // its table
	doc       int32   // its column's document; -1 for a table
	own       *scored // the words its own fields matched
	inherited *scored // its table's, for a column of a matching table
	share     float64 // how much of inherited's score it took
	named     bool    // the query wrote the column's whole name
	joins     []string
	rounded   int64   // score to two places, for sorting
	gain      float64 // what it adds to the list at its place: its score less the words already covered
	nameLen   int32   // its table name's length, for ties
}

// match spells out a candidate as the Match Search returns.
func (ix *searchIndex) match(r ranked, written, stems []string) Match {
	t := ix.tables[r.table]
	m := Match{Table: t.Name, Description: t.Description, Commented: t.Commented, Score: math.Round(r.gain*100) / 100}
	if r.doc >= 0 {
		col := ix.cols[r.doc].col
		m.Column, m.Type, m.Description, m.Commented = col.Name, col.Type, col.Description, col.Commented
	}
	if r.named {
		m.Matched, m.why = []string{"name"}, []string{"name: written whole in the query"}
	}
	if r.own != nil {
		explain(&m, r.own, written, 0)
	}
	if r.inherited != nil {
		explain(&m, r.inherited, written, fTableName)
	}
	if len(r.joins) > 0 {
		m.Matched = append(m.Matched, "join key")
		m.why = append(m.why, r.joins...)
	}
	if r.doc >= 0 && slices.Contains(m.Matched, "value") {
		m.Value = ix.values.matchingValue(ix.cols[r.doc].col, stems)
	}
	return m
}

// sortRanked orders candidates best first; of equal scores, the shorter
// table name first (orders before its copy orders_2023), then as they
// stand in the schema.
func (ix *searchIndex) sortRanked(out []ranked) {
	for i := range out {
		out[i].rounded = int64(math.Round(out[i].score * 100))
		out[i].nameLen = int32(len(ix.tables[out[i].table].Name))
	}
	slices.SortFunc(out, func(a, b ranked) int {
		if a.rounded != b.rounded {
			return cmp.Compare(b.rounded, a.rounded)
		}
		if a.nameLen != b.nameLen {
			return cmp.Compare(a.nameLen, b.nameLen)
		}
		return cmp.Compare(a.key, b.key)
	})
}

// joinTables and joinShare: the keys joining the best few tables of a
// search are listed too, scoring joinShare of the weaker table's best, as
// a query over those tables needs them.
const (
	joinTables = 5
	joinShare  = 1.0
	joinMinX   = 0.3 // the least share of the best table's score a table joined must have
	keyShare   = 1.3 // a table's key and label columns inherit this much more of its match
	// inheritedOnly discounts a column that matched through its table
	// alone: it fills the list after the columns with words of their own.
	inheritedOnly = 0.5
)

// addsWords reports whether s holds a query word that the table's
// match ts does not.
func addsWords(s, ts *scored) bool {
	for _, q := range s.q {
		if !slices.Contains(ts.q, q) {
			return true
		}
	}
	return false
}

// entityLabel is how much more of its table's match the label of a
// table named by a question's entity word (entityWords) inherits.
const entityLabel = 1.5

// isLabel reports whether a column names its row: a text column called
// name or title, or a name of some kind (first_name, school_name,
// username, surname: a word ending in name).
func isLabel(d *searchDoc) bool {
	if !textLike(d.col.Type) {
		return false
	}
	for _, w := range Words(d.col.Name) {
		if w == "title" || strings.HasSuffix(w, "name") {
			return true
		}
	}
	return false
}

// addJoins adds, or raises, the columns that join the tables of the best
// matches to one another, by declared foreign keys or, where none is
// declared, by key names and types, and sorts out again. The tables
// joined are the first joinTables of the list as cover orders it, so a
// table that alone holds one of the query's words (the course named by
// a value) is joined to the others though its score is low.
func (ix *searchIndex) addJoins(out []ranked, limit, nq int) []ranked {
	best := map[int32]float64{} // table -> its best match's score
	for _, r := range out {
		if r.score > best[r.table] {
			best[r.table] = r.score
		}
	}
	ix.sortRanked(out)
	var top []int32 // the first joinTables tables of the covering order
	covering := ix.cover(slices.Clone(out), limit, nq)
	// A table's weight in a join is what its best candidate adds to the
	// covering list: a table that only repeats another's match (a
	// drop_log.term beside enrollments.term) adds little.
	gain := map[int32]float64{}
	for _, r := range covering {
		gain[r.table] = max(gain[r.table], r.gain)
	}
	for t := range best {
		best[t] = min(best[t], gain[t])
	}
	for _, r := range covering {
		if len(top) == joinTables {
			break
		}
		if !slices.Contains(top, r.table) {
			top = append(top, r.table)
		}
	}
	at := map[int32]int{} // column document -> its place in out
	for i, r := range out {
		if r.doc >= 0 {
			at[r.doc] = i
		}
	}
	for i, a := range top {
		for _, b := range top[i+1:] {
			keys, guessed := Joins(ix.tables[a], ix.tables[b])
			score := joinShare * min(best[a], best[b])
			for _, k := range keys {
				why := "join key: " + k.Table + "(" + strings.Join(k.Columns, ", ") + ") = " + k.RefTable + "(" + strings.Join(k.RefColumns, ", ") + ")"
				if guessed {
					why += ", guessed from names"
				}
				for _, side := range []struct {
					table string
					cols  []string
				}{{k.Table, k.Columns}, {k.RefTable, k.RefColumns}} {
					ti := ix.tableIndex[side.table]
					for _, name := range side.cols {
						d := ix.columnDoc(ti, name)
						if d < 0 {
							continue
						}
						j, ok := at[d]
						if !ok {
							j = len(out)
							at[d] = j
							out = append(out, ranked{key: 2*int(d) + 1, table: ti, doc: d})
						}
						out[j].score = max(out[j].score, score)
						out[j].joins = append(out[j].joins, why)
					}
				}
			}
		}
	}
	ix.sortRanked(out)
	return out
}

// columnDoc is the document of table ti's column named name, or -1.
func (ix *searchIndex) columnDoc(ti int32, name string) int32 {
	first := ix.firstColumn(ti)
	for i, c := range ix.tables[ti].Columns {
		if c.Name == name {
			return first + int32(i)
		}
	}
	return -1
}

// firstColumn is the document of table ti's first column.
func (ix *searchIndex) firstColumn(ti int32) int32 {
	return ix.first[ti]
}

// bestField is the hit of word match wm, weighing w per field, in the best of the
// fields from..to that mask holds, each normalised by its length.
func bestField(mask uint8, w *[nFields]float64, wm wordMatch, norm *[nFields]float32, from, to int) hit {
	best := hit{field: -1}
	for f := from; f <= to; f++ {
		if s := w[f] * fieldWeights[f] / float64(norm[f]); mask&(1<<f) != 0 && s > best.score {
			best = hit{s, f, wm.word, wm.how}
		}
	}
	return best
}

// explain adds s's hits to m's Matched and Why, each field named shift
// fields on (a table's name is its columns' "table name").
func explain(m *Match, s *scored, written []string, shift int) {
	for f := 0; f+shift < nFields; f++ {
		var words []string
		for i, h := range s.hits {
			if h.field != f {
				continue
			}
			w := written[s.q[i]]
			switch {
			case h.how == "time":
				w += "~" + h.word
			case h.how == "prefix":
				w += "~" + h.word + " (prefix)"
			case h.how == "abbreviation":
				w += "~" + h.word + " (abbreviation)"
			case w != h.word && stem(w) != h.word:
				w += "~" + h.word
			}
			words = append(words, w)
		}
		if len(words) == 0 {
			continue
		}
		name := fieldNames[f+shift]
		if !slices.Contains(m.Matched, name) {
			m.Matched = append(m.Matched, name)
		}
		m.why = append(m.why, name+": "+strings.Join(words, ", "))
	}
}

// adjacent reports whether a is followed by b in words.
func adjacent(words []string, a, b string) bool {
	for i := 0; i+1 < len(words); i++ {
		if words[i] == a && words[i+1] == b {
			return true
		}
	}
	return false
}

// identifierTokens splits lower-cased text at what cannot be part of an
// unquoted SQL identifier.
func identifierTokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
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
		d := EditDistance(lname, lc)
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

// EditDistance is the Levenshtein distance between a and b, in bytes.
func EditDistance(a, b string) int {
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

// coverDecay is how much a query word's evidence counts again in a
// candidate once the list holds another candidate with that word: a
// question names several things (the students, the course, the grade),
// and its answer needs a column for each, not ten for the commonest.
const coverDecay = 0.5

// viewShare is how much a view's match counts against a table's: a view
// is derived from base tables and repeats their columns, and of a view
// and its base matching alike the base comes first, as queries are most
// often written against it; a view whose own words match better still
// leads.
const viewShare = 0.7

// copyShare is how much a column of a copy of a table (copyFamilies)
// adds to the list once the list holds the same column of another table
// of its family: the copy is named in the first's place, not in its own.
const copyShare = 0.3

// copyWeight is how much a copy of a table (copyFamilies) counts
// against the table: like a view, it repeats the table's columns, and of
// the two matching alike the table comes first, as queries are most
// often written against it; a copy whose own words match better still
// leads.
const copyWeight = 0.7

// coverPool is how many of the best candidates, at least, the covering
// order is chosen from.
const coverPool = 100

// cover reorders the best candidates so that the list covers the query's
// words: each place goes to the candidate that adds the most, its words'
// evidence counted less for every candidate before it that holds the
// same word. Copies of a candidate (same name, score and evidence) follow
// it without counting, as the list folds them into it. Each candidate's
// gain is what it added at its place; the gains fall along the list.
func (ix *searchIndex) cover(out []ranked, limit, nq int) []ranked {
	pool := min(len(out), max(5*limit, coverPool))
	type cand struct {
		contrib []float64 // per query word
		rest    float64   // the score no word accounts for: joins, whole names, phrases
	}
	cands := make([]cand, pool)
	for i := range pool {
		r := &out[i]
		c := cand{contrib: make([]float64, nq)}
		if r.own != nil {
			for j, h := range r.own.hits {
				c.contrib[r.own.q[j]] += h.score
			}
		}
		if r.doc < 0 {
			for q := range c.contrib {
				c.contrib[q] *= tableShare
			}
		}
		sum := 0.0
		for _, v := range c.contrib {
			sum += v
		}
		c.rest = max(0, r.score-sum)
		cands[i] = c
	}
	covered := make([]int, nq)
	decay := make([]float64, nq)
	for q := range decay {
		decay[q] = 1
	}
	// A column of a copy of a table (stg_orders.total beside
	// orders.total) adds little once the list holds the same column of
	// its family.
	type copyKey struct {
		family int32
		name   string
	}
	keys := make([]copyKey, pool)
	for i := range pool {
		keys[i].family = ix.family[out[i].table]
		if out[i].doc >= 0 {
			keys[i].name = strings.ToLower(ix.cols[out[i].doc].col.Name)
		}
	}
	listed := map[copyKey]bool{}
	done := make([]bool, pool)
	picked := make([]ranked, 0, len(out))
	distinct := 0
	for distinct < pool && (limit == 0 || distinct < limit) {
		best, bestGain := -1, -1.0
		for i := range pool {
			if done[i] {
				continue
			}
			g := cands[i].rest
			for q, v := range cands[i].contrib {
				g += v * decay[q]
			}
			if listed[keys[i]] {
				g *= copyShare
			}
			if g > bestGain+1e-9 {
				best, bestGain = i, g
			}
		}
		if best < 0 {
			break
		}
		done[best] = true
		r := out[best]
		r.gain = bestGain
		picked = append(picked, r)
		distinct++
		// Its copies follow it and take no place of their own.
		for i := range pool {
			if !done[i] && out[i].rounded == r.rounded && ix.sameName(out[i], r) && ix.sameEvidence(out[i], r) {
				done[i] = true
				c := out[i]
				c.gain = bestGain
				picked = append(picked, c)
			}
		}
		listed[keys[best]] = true
		for q, v := range cands[best].contrib {
			if v > 0 {
				covered[q]++
				decay[q] *= coverDecay
			}
		}
	}
	for i := range pool {
		if !done[i] {
			out[i].gain = 0
			picked = append(picked, out[i])
		}
	}
	for i := pool; i < len(out); i++ {
		out[i].gain = out[i].score
		picked = append(picked, out[i])
	}
	return picked
}

// sameName reports whether two candidates are both tables or both
// columns of one name.
func (ix *searchIndex) sameName(a, b ranked) bool {
	if (a.doc < 0) != (b.doc < 0) {
		return false
	}
	return a.doc < 0 || strings.EqualFold(ix.cols[a.doc].col.Name, ix.cols[b.doc].col.Name)
}

// lendTables is how many of the tables whose columns matched best lend
// that match to their other columns: a table is what a question is about
// when its columns match it, whether or not its own name does (the
// attendance table of "unexcused absences", by its status and excused
// columns).
const lendTables = 3

// siblingShare is how much of the best column's match of such a table
// its other matching columns take (a date column by the question's
// time, a column by one word), when it is more than they inherit from
// the table's own match.
const siblingShare = 0.5

// scoreOf is s's score, 0 for none.
func scoreOf(s *scored) float64 {
	if s == nil {
		return 0
	}
	return s.score
}

// lending is a table's best column, by its own words, and that column's
// score.
type lending struct {
	doc   int32
	score float64
}

// bestColumnTables returns the n tables whose columns' own words (not
// their table's) scored best in cols, each with its best column.
func (ix *searchIndex) bestColumnTables(cols map[int32]*scored, n int) map[int32]lending {
	type top struct {
		lending
		table int32
	}
	better := func(a, b top) bool { // a before b
		return a.score > b.score || a.score == b.score && a.doc < b.doc
	}
	best := make([]top, 0, n+1) // the n best tables' best columns, best first
	for d, s := range cols {
		if len(s.hits) == 0 {
			continue
		}
		c := top{lending{d, s.score}, ix.cols[d].table}
		if i := slices.IndexFunc(best, func(t top) bool { return t.table == c.table }); i >= 0 {
			if !better(c, best[i]) {
				continue
			}
			best = slices.Delete(best, i, i+1)
		}
		i := 0
		for i < len(best) && better(best[i], c) {
			i++
		}
		if i < n {
			best = slices.Insert(best, i, c)
			best = best[:min(len(best), n)]
		}
	}
	out := make(map[int32]lending, len(best))
	for _, t := range best {
		out[t.table] = t.lending
	}
	return out
}

// timeWeight is how much a time in the question counts for a date
// column, against a word of the question found in its name.
const timeWeight = 0.5

// isTemporal reports whether a column holds dates or times: by its type,
// or by its name (birth_date, created_at, opened_on, fiscal_year).
func isTemporal(col *Column) bool {
	t := strings.ToLower(col.Type)
	if strings.Contains(t, "date") || strings.Contains(t, "time") {
		return true
	}
	ws := text.Words(col.Name)
	for i, w := range ws {
		switch w {
		case "date", "time", "timestamp", "datetime", "year", "month", "day", "dt", "ts":
			return true
		case "at", "on":
			if i > 0 && i == len(ws)-1 {
				return true
			}
		}
	}
	return false
}

// timeWord returns the first word of query that speaks of a time: a
// year (2023, 2023-24), a month's name, or a word such as "when",
// "date", "year", "month"; "" when there is none.
func timeWord(query string) string {
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) == 4 && (strings.HasPrefix(w, "19") || strings.HasPrefix(w, "20")) && isDigits(w) {
			return w
		}
		if timeWords[w] {
			return w
		}
	}
	return ""
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// timeWords are the words that put a question in time.
var timeWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`when date dates day days daily week weeks weekly month months monthly year years
		yearly annual quarter quarterly january february march april may june july august september october november
		december`) {
		timeWords[w] = true
	}
}

// maxCandidates is how many of the best candidates, at least, go on to
// be joined, ordered and explained; the rest cannot reach the list.
const maxCandidates = 300

// prune keeps the n best scored of out, in no order.
func prune(out []ranked, n int) []ranked {
	if len(out) <= n {
		return out
	}
	scores := make([]float64, len(out))
	for i, r := range out {
		scores[i] = r.score
	}
	slices.Sort(scores)
	least := scores[len(scores)-n]
	kept := out[:0]
	for _, r := range out {
		if r.score >= least { // ties at the edge all stay, so the list does not depend on map order
			kept = append(kept, r)
		}
	}
	return kept
}

// comparison finds a name compared with a quoted value in lower-cased
// text: status = 'active', kind in ('a', 'b'), name like 'x%'.
var comparison = regexp.MustCompile(`([a-z_][a-z0-9_]*)\s*(?:==?|!=|<>|\bin\s*\(|\blike\b)\s*'([^']*)'`)
