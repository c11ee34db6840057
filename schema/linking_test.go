package schema_test

import (
	"context"
	"database/sql"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/schema"
)

// The linking benchmark: questions with gold SQL, the gold columns read
// from the gold SQL by SQLite's own compiler, and the recall of those
// columns and their tables in search_schema's first 5, 10 and 20 matches
// beside a plain BM25 ranker, on the demo database alone, on the demo
// without its descriptions ("bare": names and values only), on the demo
// with its column names run together ("joined": firstname, studentid, as
// many real schemas write them), on the demo merged into a generated
// catalog of 2,000 decoy tables, and on a hospital schema the ranking was
// never tuned on ("fresh", testdata/linking/fresh), with its descriptions
// and without them ("fresh-bare").
//
// The questions are the demo's own (a fixed quarter held out: question_id
// % 4 == 3) and those of testdata/linking/questions.json, written before
// the ranking was tuned, each marked tune or held. Tuning looks at the
// tune part only (LINKING_MISSES=1 logs its misses); the held part is
// reported beside it and must meet the same targets. The fresh set's
// questions are all held: they were written before anything ran on its
// schema, and LINKING_MISSES=fresh logs their misses for reading, not for
// tuning.

//go:embed testdata/linking/questions.json
var linkingQuestions []byte

//go:embed testdata/linking/fresh/questions.json
var freshQuestions []byte

type linkQuestion struct {
	Set      string `json:"set"`   // "demo", "decoy" or "fresh": the schema it is about
	Split    string `json:"split"` // "tune" or "held"
	Question string `json:"question"`
	Evidence string `json:"evidence"`
	SQL      string `json:"sql"`
}

func loadQuestions(t testing.TB) []linkQuestion {
	var demoQs []struct {
		ID                      int `json:"question_id"`
		Question, Evidence, SQL string
	}
	if err := json.Unmarshal(demo.Questions, &demoQs); err != nil {
		t.Fatal(err)
	}
	var qs []linkQuestion
	for _, q := range demoQs {
		split := "tune"
		if q.ID%4 == 3 {
			split = "held"
		}
		qs = append(qs, linkQuestion{"demo", split, q.Question, q.Evidence, q.SQL})
	}
	for _, file := range [][]byte{linkingQuestions, freshQuestions} {
		var more []linkQuestion
		if err := json.Unmarshal(file, &more); err != nil {
			t.Fatal(err)
		}
		qs = append(qs, more...)
	}
	return qs
}

// goldReads returns the tables and table.column pairs that sql reads, as
// SQLite's authorizer reports them while it compiles the statement.
func goldReads(t testing.TB, db *sql.DB, query string) (tables, columns map[string]bool) {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tables, columns = map[string]bool{}, map[string]bool{}
	err = conn.Raw(func(dc any) error {
		c := dc.(*sqlite3.SQLiteConn)
		c.RegisterAuthorizer(func(op int, table, column, _ string) int {
			if op == sqlite3.SQLITE_READ && !strings.HasPrefix(table, "sqlite_") {
				tables[table] = true
				if column != "" {
					columns[table+"."+column] = true
				}
			}
			return sqlite3.SQLITE_OK
		})
		defer c.RegisterAuthorizer(nil)
		st, err := c.Prepare(query)
		if err != nil {
			return err
		}
		return st.Close()
	})
	if err != nil {
		t.Fatalf("gold SQL %q: %v", query, err)
	}
	return tables, columns
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

var recallAt = []int{5, 10, 20}

// recall counts gold columns and tables found within the first k items.
type recall struct {
	columns, tables         [3]int
	goldColumns, goldTables int
	questions               int
}

func (r *recall) add(ranked []string, goldTables, goldColumns map[string]bool) {
	r.questions++
	r.goldColumns += len(goldColumns)
	r.goldTables += len(goldTables)
	for i, k := range recallAt {
		seen := map[string]bool{}
		for j, key := range ranked {
			if j >= k {
				break
			}
			if goldColumns[key] {
				r.columns[i]++
			}
			table, _, _ := strings.Cut(key, ".")
			if goldTables[table] && !seen[table] {
				seen[table] = true
				r.tables[i]++
			}
		}
	}
}

func (r *recall) col(i int) float64 { return float64(r.columns[i]) / float64(max(r.goldColumns, 1)) }
func (r *recall) tab(i int) float64 { return float64(r.tables[i]) / float64(max(r.goldTables, 1)) }

// linkingSet measures both rankers on the questions of sets against the
// database at path served through cat, and returns their recall per split.
//
// The gold SQL is compiled against the database at goldPath, and a gold
// column's name goes through rename (nil: kept) when the catalog's table
// has a column of that name.
func linkingSet(t *testing.T, name, goldPath string, rename func(string) string, cat *schema.Catalog, qs []linkQuestion, sets ...string) map[string]map[string]*recall {
	if err := cat.IndexValues(t.Context()); err != nil {
		t.Fatal(err)
	}
	tables, err := cat.Tables(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Table names as Search and BM25 give them, by the name SQLite reports.
	names := map[string]string{}
	keys := map[string]bool{}
	for _, tb := range tables {
		names[strings.ToLower(tb.Name)] = tb.Name
		for _, c := range tb.Columns {
			keys[tb.Name+"."+c.Name] = true
		}
	}
	raw, err := sql.Open("sqlite3", "file:"+goldPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	base := newBM25(tables)
	out := map[string]map[string]*recall{"search_schema": {}, "bm25": {}}
	for _, q := range qs {
		if !slices.Contains(sets, q.Set) {
			continue
		}
		gt, gc := goldReads(t, raw, q.SQL)
		goldTables, goldColumns := map[string]bool{}, map[string]bool{}
		for tb := range gt {
			goldTables[names[strings.ToLower(tb)]] = true
		}
		for tc := range gc {
			tb, c, _ := strings.Cut(tc, ".")
			key := names[strings.ToLower(tb)] + "." + c
			if rename != nil && keys[names[strings.ToLower(tb)]+"."+rename(c)] {
				key = names[strings.ToLower(tb)] + "." + rename(c)
			}
			goldColumns[key] = true
		}
		query := strings.TrimSpace(q.Question + " " + q.Evidence)
		ms, err := cat.Search(t.Context(), query, 20)
		if err != nil {
			t.Fatal(err)
		}
		var ours []string
		for _, m := range ms {
			key := m.Table // a table's own match takes a place, and finds its table
			if m.Column != "" {
				key += "." + m.Column
			}
			ours = append(ours, key)
		}
		theirs := base.rank(query, 20)
		for ranker, ranked := range map[string][]string{"search_schema": ours, "bm25": theirs} {
			for _, split := range []string{q.Split, "all"} {
				if out[ranker][split] == nil {
					out[ranker][split] = &recall{}
				}
				out[ranker][split].add(ranked, goldTables, goldColumns)
			}
		}
		if v := os.Getenv("LINKING_MISSES"); v != "" && (q.Split == "tune" || v == q.Set) {
			for g := range goldColumns {
				if i := slices.Index(ours, g); i < 0 || i >= 10 {
					t.Logf("%s: missed %s (at %d) for %q\n  ours: %v\n  bm25: %v", name, g, i, query, ours[:min(10, len(ours))], theirs[:min(10, len(theirs))])
				}
			}
		}
	}
	for _, split := range []string{"tune", "held", "all"} {
		ours, theirs := out["search_schema"][split], out["bm25"][split]
		if ours == nil {
			continue // a set with no questions in this split
		}
		t.Logf("%-5s %-4s %2d questions, %3d gold columns, %3d tables | columns @5/10/20: search_schema %.2f %.2f %.2f, bm25 %.2f %.2f %.2f | tables @5/10/20: search_schema %.2f %.2f %.2f, bm25 %.2f %.2f %.2f",
			name, split, ours.questions, ours.goldColumns, ours.goldTables,
			ours.col(0), ours.col(1), ours.col(2), theirs.col(0), theirs.col(1), theirs.col(2),
			ours.tab(0), ours.tab(1), ours.tab(2), theirs.tab(0), theirs.tab(1), theirs.tab(2))
	}
	return out
}

// linkingFloors are the recall@10 of gold columns search_schema must
// keep, per set and split, and its least lead over BM25's: a little
// under the levels the ranking reached, so that a change that loses
// recall fails. The aim (a lead of 0.05 everywhere, 0.9 on the demo) is
// met on every part.
var linkingFloors = map[string]map[string]struct{ recall, lead float64 }{
	"demo":   {"tune": {0.97, 0.05}, "held": {0.89, 0.05}},
	"large":  {"tune": {0.93, 0.05}, "held": {0.81, 0.05}},
	"bare":   {"tune": {0.97, 0.05}, "held": {0.89, 0.05}},
	"joined": {"tune": {0.97, 0.05}, "held": {0.90, 0.05}},
	// The fresh set has no tuning part; its floors sit a little under
	// what the ranking reached when it was first measured, untuned (0.96
	// with descriptions, 0.91 without; BM25 0.55 and 0.59).
	"fresh":      {"held": {0.93, 0.05}},
	"fresh-bare": {"held": {0.88, 0.05}},
}

//go:embed testdata/linking/fresh/schema.sql
var freshSchema string

// freshCatalog builds the hospital database of testdata/linking/fresh in a
// new directory, with the BIRD-style column descriptions and the table
// notes beside it unless bare, and returns its path and catalog.
func freshCatalog(t *testing.T, bare bool) (string, *schema.Catalog) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fresh.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(freshSchema)
	db.Close()
	if err != nil {
		t.Fatalf("building the fresh schema: %v", err)
	}
	if bare {
		return path, fixtureCatalog(t, path, nil)
	}
	src := filepath.Join("testdata", "linking", "fresh")
	files, err := filepath.Glob(filepath.Join(src, "database_description", "*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("fresh description files: %v, %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "database_description"), filepath.Base(f), b)
	}
	return path, fixtureCatalog(t, path, &schema.Options{Annotations: filepath.Join(src, "annotations.json")})
}

// checkGold runs the gold SQL of every question of set against the
// database at path and fails t for each one that does not run or returns
// no row: a gold query that cannot be right measures nothing.
func checkGold(t *testing.T, path string, qs []linkQuestion, set string) {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	for _, q := range qs {
		if q.Set != set {
			continue
		}
		n++
		rows, err := db.Query(q.SQL)
		if err != nil {
			t.Errorf("%s gold SQL of %q: %v", set, q.Question, err)
			continue
		}
		got := 0
		for rows.Next() {
			got++
		}
		err = rows.Err()
		rows.Close()
		if err != nil || got == 0 {
			t.Errorf("%s gold SQL of %q: %d rows, %v", set, q.Question, got, err)
		}
	}
	if n == 0 {
		t.Errorf("no %s questions", set)
	}
}

// bareCatalog builds the demo database without its descriptions: names,
// types, keys and values alone, as many real databases come.
func bareCatalog(t testing.TB) (string, *schema.Catalog) {
	path := filepath.Join(t.TempDir(), "bare.sqlite")
	if err := demo.Build(path); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(filepath.Dir(path), "database_description")); err != nil {
		t.Fatal(err)
	}
	return path, fixtureCatalog(t, path, nil)
}

// joinedName is a column's name as a schema that runs its words together
// writes it: first_name -> firstname, CDSCode -> cdscode. A name that is
// not a plain identifier ("Academic Year") stays.
func joinedName(name string) string {
	if strings.ContainsAny(name, " ()%/-") {
		return name
	}
	return strings.ToLower(strings.ReplaceAll(name, "_", ""))
}

// joinedCatalog builds the demo database with its column names run
// together in lower case, as many real databases write them
// (customerid, orderdate), and its descriptions keyed to match: the
// words of a name are to be found in the descriptions and the other
// names, not in a dictionary.
func joinedCatalog(t testing.TB) *schema.Catalog {
	path := filepath.Join(t.TempDir(), "joined.sqlite")
	if err := demo.Build(path); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	for _, tb := range tables {
		cols, err := db.Query("SELECT name FROM pragma_table_info(?)", tb)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for cols.Next() {
			var n string
			if err := cols.Scan(&n); err != nil {
				t.Fatal(err)
			}
			names = append(names, n)
		}
		cols.Close()
		for _, c := range names {
			if j := joinedName(c); j != c {
				if _, err := db.Exec("ALTER TABLE " + quote(tb) + " RENAME COLUMN " + quote(c) + " TO " + quote(j)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// The BIRD description files name each column in their first field.
	descDir := filepath.Join(filepath.Dir(path), "database_description")
	files, err := filepath.Glob(filepath.Join(descDir, "*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("description files: %v, %v", files, err)
	}
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(in).ReadAll()
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(recs); i++ {
			recs[i][0] = joinedName(strings.TrimPrefix(recs[i][0], "\ufeff"))
		}
		var b strings.Builder
		w := csv.NewWriter(&b)
		if err := w.WriteAll(recs); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fixtureCatalog(t, path, &schema.Options{Annotations: filepath.Join(filepath.Dir(path), "annotations.json")})
}

// linkingCatalogs builds the demo database and the demo merged into the
// decoy catalog, with their catalogs.
func linkingCatalogs(t testing.TB) (demoPath string, demoCat *schema.Catalog, largePath string, largeCat *schema.Catalog) {
	dir := t.TempDir()
	demoPath = filepath.Join(dir, "demo", "demo.sqlite")
	largePath = filepath.Join(dir, "large", "large.sqlite")
	for _, p := range []string{demoPath, largePath} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := demo.Build(demoPath); err != nil {
		t.Fatal(err)
	}
	demoCat = fixtureCatalog(t, demoPath, &schema.Options{Annotations: filepath.Join(filepath.Dir(demoPath), "annotations.json")})
	ann := buildDecoys(t, largePath)
	largeCat = fixtureCatalog(t, largePath, &schema.Options{Annotations: ann})
	return demoPath, demoCat, largePath, largeCat
}

// TestLinkingRecall runs the linking benchmark and holds search_schema to
// linkingFloors on the tuning and the held-out questions alike.
func TestLinkingRecall(t *testing.T) {
	qs := loadQuestions(t)
	demoPath, demoCat, largePath, largeCat := linkingCatalogs(t)
	barePath, bareCat := bareCatalog(t)
	joinedCat := joinedCatalog(t)
	freshPath, freshCat := freshCatalog(t, false)
	freshBarePath, freshBareCat := freshCatalog(t, true)
	checkGold(t, freshPath, qs, "fresh")
	results := map[string]map[string]map[string]*recall{
		"demo":       linkingSet(t, "demo", demoPath, nil, demoCat, qs, "demo"),
		"large":      linkingSet(t, "large", largePath, nil, largeCat, qs, "demo", "decoy"),
		"bare":       linkingSet(t, "bare", barePath, nil, bareCat, qs, "demo"),
		"joined":     linkingSet(t, "joined", demoPath, joinedName, joinedCat, qs, "demo"),
		"fresh":      linkingSet(t, "fresh", freshPath, nil, freshCat, qs, "fresh"),
		"fresh-bare": linkingSet(t, "fresh-bare", freshBarePath, nil, freshBareCat, qs, "fresh"),
	}
	for _, set := range []string{"demo", "large", "bare", "joined", "fresh", "fresh-bare"} {
		for _, split := range []string{"tune", "held"} {
			floor, ok := linkingFloors[set][split]
			if !ok {
				continue // the fresh sets have no tuning part
			}
			ours, theirs := results[set]["search_schema"][split].col(1), results[set]["bm25"][split].col(1)
			what := fmt.Sprintf("%s, %s questions: recall@10 of gold columns", set, split)
			if ours < theirs+floor.lead {
				t.Errorf("%s: search_schema %.2f is not %.2f above BM25's %.2f", what, ours, floor.lead, theirs)
			}
			if ours < floor.recall {
				t.Errorf("%s: search_schema %.2f is below %.2f", what, ours, floor.recall)
			}
		}
	}
	st := largeCat.ValueStats()
	t.Logf("value index of the large catalog: %d columns read, %d indexed, %d values, %d bytes (bound %d)", st.ColumnsRead, st.Columns, st.Values, st.Bytes, st.MaxBytes)
	if !st.Built || st.Bytes > st.MaxBytes || st.Columns == 0 {
		t.Errorf("value index: %+v", st)
	}
}
