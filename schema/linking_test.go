package schema_test

import (
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/schema"
)

// goldColumns reads the columns a gold SQL statement uses: every column of
// a table the statement names whose name appears in it as an identifier.
func goldColumns(sql string, tables []*schema.Table) map[string]bool {
	ident := regexp.MustCompile("\"[^\"]+\"|`[^`]+`|\\[[^\\]]+\\]|[A-Za-z_][A-Za-z0-9_]*")
	seen := map[string]bool{}
	for _, tok := range ident.FindAllString(sql, -1) {
		seen[strings.ToLower(strings.Trim(tok, "\"`[]"))] = true
	}
	gold := map[string]bool{}
	for _, t := range tables {
		if !seen[strings.ToLower(t.Name)] {
			continue
		}
		for _, c := range t.Columns {
			if seen[strings.ToLower(c.Name)] {
				gold[t.Name+"."+c.Name] = true
			}
		}
	}
	return gold
}

// bm25 is the plain baseline: one document per column (its name, its
// table's name, description and value notes), Okapi BM25 over Words.
type bm25 struct {
	docs [][]string
	keys []string
	df   map[string]int
	avg  float64
}

func newBM25(tables []*schema.Table) *bm25 {
	b := &bm25{df: map[string]int{}}
	total := 0
	for _, t := range tables {
		for _, c := range t.Columns {
			doc := schema.Words(strings.Join([]string{c.Name, t.Name, c.Description, c.Values}, " "))
			b.docs = append(b.docs, doc)
			b.keys = append(b.keys, t.Name+"."+c.Name)
			total += len(doc)
			uniq := map[string]bool{}
			for _, w := range doc {
				if !uniq[w] {
					uniq[w] = true
					b.df[w]++
				}
			}
		}
	}
	b.avg = float64(total) / float64(max(len(b.docs), 1))
	return b
}

func (b *bm25) rank(query string, k int) []string {
	const k1, bb = 1.2, 0.75
	type hit struct {
		key   string
		score float64
	}
	var hits []hit
	n := float64(len(b.docs))
	for i, doc := range b.docs {
		s := 0.0
		for _, q := range schema.Words(query) {
			tf := 0
			for _, w := range doc {
				if w == q {
					tf++
				}
			}
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(b.df[q])+0.5)/(float64(b.df[q])+0.5))
			s += idf * float64(tf) * (k1 + 1) / (float64(tf) + k1*(1-bb+bb*float64(len(doc))/b.avg))
		}
		if s > 0 {
			hits = append(hits, hit{b.keys[i], s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	var out []string
	for i := 0; i < len(hits) && i < k; i++ {
		out = append(out, hits[i].key)
	}
	return out
}

// TestLinkingRecall measures how many of the gold columns of the demo's
// questions search_schema finds in its first 5, 10 and 20 matches, beside
// a plain BM25 ranker over the same fields, and fails if search_schema
// falls behind it at 10.
func TestLinkingRecall(t *testing.T) {
	cat := demoCatalog(t)
	if err := cat.IndexValues(t.Context()); err != nil {
		t.Fatal(err)
	}
	tables, err := cat.Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var qs []struct {
		Question, Evidence, SQL string
	}
	if err := json.Unmarshal(demo.Questions, &qs); err != nil {
		t.Fatal(err)
	}
	base := newBM25(tables)
	ks := []int{5, 10, 20}
	found := map[string][]int{"search_schema": make([]int, len(ks)), "bm25": make([]int, len(ks))}
	totalGold := 0
	for _, q := range qs {
		gold := goldColumns(q.SQL, tables)
		if len(gold) == 0 {
			continue
		}
		totalGold += len(gold)
		query := q.Question + " " + q.Evidence
		ms, err := cat.Search(t.Context(), query, 20)
		if err != nil {
			t.Fatal(err)
		}
		var ours []string
		for _, m := range ms {
			if m.Column != "" {
				ours = append(ours, m.Table+"."+m.Column)
			}
		}
		if testing.Verbose() {
			b := base.rank(query, 10)
			for g := range gold {
				in := func(l []string) bool {
					for i, x := range l {
						if i < 10 && x == g {
							return true
						}
					}
					return false
				}
				if !in(ours) && in(b) {
					t.Logf("missed %s for %q; ours: %v", g, query, ours[:min(10, len(ours))])
				}
			}
		}
		for name, ranked := range map[string][]string{"search_schema": ours, "bm25": base.rank(query, 20)} {
			for i, k := range ks {
				for j, key := range ranked {
					if j < k && gold[key] {
						found[name][i]++
					}
				}
			}
		}
	}
	recall := func(name string, i int) float64 { return float64(found[name][i]) / float64(totalGold) }
	for i, k := range ks {
		t.Logf("recall@%d of %d gold columns: search_schema %.2f, bm25 %.2f", k, totalGold, recall("search_schema", i), recall("bm25", i))
	}
	if recall("search_schema", 1) < recall("bm25", 1) {
		t.Errorf("search_schema's recall@10 %.2f is below BM25's %.2f", recall("search_schema", 1), recall("bm25", 1))
	}
}
