package notes

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// awkward holds what a file format gets wrong: quotes, backticks, a line
// of SQL that is a fence, unicode, empty and multi-line hints, text that
// looks like a heading or a key, SQL with blank lines and a final newline.
func awkward() *Notes {
	return &Notes{
		Lessons: []Lesson{
			{
				QuestionID: 12,
				Question:   "How many schools in Alameda have a free meal rate above 0.5?",
				Hint:       "free meal rate = `Free Meal Count (K-12)` / `Enrollment (K-12)`",
				Lesson:     "The free meal counts are in frpm, per school; join on CDSCode.",
				WrongSQL:   "SELECT COUNT(*) FROM schools WHERE County = 'Alameda'",
				SQL:        "SELECT COUNT(*)\nFROM frpm\nWHERE `County Name` = 'Alameda'\n  AND \"Free Meal Count (K-12)\" / \"Enrollment (K-12)\" > 0.5",
			},
			{QuestionID: NoQuestion, Lesson: "Dates are text in yyyy-mm-dd; compare them as strings."},
			{
				QuestionID: 40,
				Question:   "Which école has the most élèves? 日本語の質問",
				Hint:       "line one\nline two: with a colon\nHint: looks like a key\n```not a fence",
				Lesson:     `Names hold quotes: O'Brien and "x".`,
				SQL:        "SELECT 'a ``` b' AS x\n```\n-- the line above is a fence\n````\nSELECT 1;\n",
			},
		},
		Examples: []Example{
			{QuestionID: 7, Question: "List the top 3 schools by enrollment.", SQL: "SELECT School FROM schools ORDER BY Enrollment DESC LIMIT 3"},
			{QuestionID: 0, Question: "## not a heading", Hint: "Question 5", SQL: "   indented first line\n\n\nSELECT 2"},
		},
		Triplets: []Triplet{
			{
				Tables:      []string{"customers", "orders"},
				Join:        "orders.customer_id = customers.id",
				Description: "Orders per customer",
				SQL:         "SELECT c.name, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name",
			},
			{Tables: []string{"frpm"}, Description: "Schools with their free meal counts", SQL: "SELECT CDSCode FROM frpm"},
			{Description: "A query on no table", SQL: "SELECT 1"},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "california_schools")
	want := awkward()
	if err := want.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load after Save (-want +got):\n%s", diff)
	}

	for file, title := range map[string]string{LessonsFile: "# Lessons\n", ExamplesFile: "# Examples\n", ExploredFile: "# Explored\n"} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), title) {
			t.Errorf("%s starts %q, want %q", file, b[:min(len(b), 20)], title)
		}
	}
	lessons, _ := os.ReadFile(filepath.Join(dir, LessonsFile))
	// The SQL holds a run of four backticks, so its fence has five.
	if !strings.Contains(string(lessons), "\n`````sql\nSELECT 'a ``` b'") {
		t.Errorf("lessons.md does not fence the SQL holding ```` with `````:\n%s", lessons)
	}
	if !strings.Contains(string(lessons), "## Question 12\nQuestion: How many schools") {
		t.Errorf("lessons.md lacks the question 12 heading:\n%s", lessons)
	}

	// Saving what was loaded writes the same bytes.
	again := filepath.Join(t.TempDir(), "again")
	if err := got.Save(again); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{LessonsFile, ExamplesFile, ExploredFile} {
		a, _ := os.ReadFile(filepath.Join(dir, file))
		b, _ := os.ReadFile(filepath.Join(again, file))
		if string(a) != string(b) {
			t.Errorf("%s differs on a second save:\n%s\n---\n%s", file, a, b)
		}
	}
}

func TestSaveWritesOnlyKindsItHas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	n := &Notes{Triplets: awkward().Triplets}
	if err := n.Save(dir); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{LessonsFile, ExamplesFile} {
		if _, err := os.Stat(filepath.Join(dir, file)); !os.IsNotExist(err) {
			t.Errorf("%s: stat error %v, want it not to exist", file, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ExploredFile)); err != nil {
		t.Errorf("explored.md not written: %v", err)
	}

	// A file that exists is rewritten even when its entries are all gone,
	// keeping its header and its permissions.
	lessons := filepath.Join(dir, LessonsFile)
	if err := os.WriteFile(lessons, []byte("# Lessons\n\n## Old\nLesson: gone soon\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := n.Save(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(lessons)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "gone soon") || !strings.HasPrefix(string(b), "# Lessons\n") {
		t.Errorf("lessons.md after saving no lessons:\n%s", b)
	}
	if fi, _ := os.Stat(lessons); fi.Mode().Perm() != 0o600 {
		t.Errorf("lessons.md mode %v, want 0600 kept", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}

	// Empty notes create nothing, not even the directory.
	none := filepath.Join(t.TempDir(), "none")
	if err := (&Notes{}).Save(none); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(none); !os.IsNotExist(err) {
		t.Errorf("empty notes: stat error %v, want no directory", err)
	}
}

func TestLoadMissing(t *testing.T) {
	n, err := Load(filepath.Join(t.TempDir(), "no", "such", "db"))
	if err != nil {
		t.Fatalf("Load of a missing dir: %v", err)
	}
	if n == nil || n.Len() != 0 {
		t.Errorf("Load of a missing dir = %+v, want empty notes", n)
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(file); err == nil || !strings.HasPrefix(err.Error(), "reading notes: ") {
		t.Errorf("Load of a file, not a dir: error %v, want reading notes: ...", err)
	}
}

func TestLoadHandEdited(t *testing.T) {
	dir := t.TempDir()
	lessons := strings.Join([]string{
		"# Lessons",
		"",
		"My own notes, kept by hand.",
		"Stuff: this is the header, so it is not a key",
		"",
		"## Dates are text",
		"",
		"lesson:   Dates are stored as text; compare with strftime.  ",
		"Right SQL:",
		"",
		"```sql",
		"SELECT strftime('%Y', d) FROM t",
		"```",
		"",
		"",
		"## Question 3",
		"Question: How many",
		"   orders are there?",
		"Hint:",
		"Right  sql: SELECT COUNT(*) FROM orders",
		"",
	}, "\r\n")
	explored := "\ufeff# Explored\n\n## my favourite\nTables: customers,orders ,  \nDescription: Orders per customer\nSQL:\n  ~~~\n  SELECT *\n    FROM orders\n  ~~~\n"
	for file, text := range map[string]string{LessonsFile: lessons, ExploredFile: explored} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := &Notes{
		Lessons: []Lesson{
			{QuestionID: NoQuestion, Lesson: "Dates are stored as text; compare with strftime.", SQL: "SELECT strftime('%Y', d) FROM t"},
			{QuestionID: 3, Question: "How many\norders are there?", SQL: "SELECT COUNT(*) FROM orders"},
		},
		Triplets: []Triplet{
			{Tables: []string{"customers", "orders"}, Description: "Orders per customer", SQL: "SELECT *\n  FROM orders"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}

	// Saved back, the person's entries keep their content.
	if err := got.Save(dir); err != nil {
		t.Fatal(err)
	}
	again, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, again); diff != "" {
		t.Errorf("Load after saving a hand-edited file (-want +got):\n%s", diff)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, file, text string
		line             int
		want             []string // in the message after "line N: "
	}{
		{"unknown key", LessonsFile, "# Lessons\n\n## Question 1\nQuestion: x\nHnt: y\n", 5,
			[]string{`unknown key "Hnt"`, "Question, Hint, Lesson, Wrong SQL, Right SQL"}},
		{"key of another file", LessonsFile, "## Question 1\nSQL:\n```sql\nSELECT 1\n```\n", 2,
			[]string{`unknown key "SQL"`, "Right SQL"}},
		{"unclosed block", ExamplesFile, "## Question 1\nSQL:\n```sql\nSELECT 1\n``\n", 3,
			[]string{"not closed"}},
		{"prose in an entry", ExploredFile, "## a\nTables: a\nThis table is handy\n", 3,
			[]string{`"This table is handy"`, "Tables, Join, Description, SQL"}},
		{"key twice", LessonsFile, "## x\nLesson: a\n\nLesson: b\n", 4,
			[]string{"Lesson appears twice", "line 2"}},
		{"indent after a blank line", ExamplesFile, "## x\nQuestion: a\n\n  more\n", 4,
			[]string{"indented line"}},
		{"block after a one-line value", ExamplesFile, "## x\nSQL: SELECT 1\n```sql\nSELECT 2\n```\n", 3,
			[]string{"code block must follow"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			n, err := Load(dir)
			if err == nil {
				t.Fatalf("Load = %+v, want an error", n)
			}
			prefix := filepath.Join(dir, tt.file) + " line " + strconv.Itoa(tt.line) + ": "
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q, want it to start %q", err, prefix)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q, want it to contain %q", err, w)
				}
			}
			if n != nil {
				t.Errorf("Load returned notes %+v with the error", n)
			}
		})
	}
}

func TestHasAndLen(t *testing.T) {
	n := awkward()
	for id, want := range map[int]bool{12: true, 40: true, 7: true, 0: true, NoQuestion: false, 13: false} {
		if got := n.Has(id); got != want {
			t.Errorf("Has(%d) = %v, want %v", id, got, want)
		}
	}
	if got := n.Len(); got != 8 {
		t.Errorf("Len = %d, want 8", got)
	}
	var none *Notes
	if none.Has(12) || none.Len() != 0 {
		t.Error("nil notes claim entries")
	}
}

// schools is a small set of notes about BIRD's california_schools.
func schools() *Notes {
	return &Notes{
		Lessons: []Lesson{
			{QuestionID: 1, Question: "How many schools in Alameda county have a free meal rate above 0.5?",
				Hint: "free meal rate = Free Meal Count / Enrollment", Lesson: "Free meal counts are in frpm; join schools on CDSCode.",
				WrongSQL: "SELECT COUNT(*) FROM schools WHERE FreeMeals > 0.5", SQL: "SELECT COUNT(*) FROM frpm WHERE `Free Meal Count (K-12)` / `Enrollment (K-12)` > 0.5"},
			{QuestionID: 2, Question: "What is the average SAT math score of charter schools?",
				Lesson: "SAT scores are in satscores, keyed by cds; charter status is in schools.", SQL: "SELECT AVG(AvgScrMath) FROM satscores JOIN schools ON cds = CDSCode WHERE Charter = 1"},
		},
		Examples: []Example{
			{QuestionID: 10, Question: "How many students are enrolled in Fresno schools?", SQL: "SELECT SUM(`Enrollment (K-12)`) FROM frpm WHERE `County Name` = 'Fresno'"},
			{QuestionID: 11, Question: "Which school has the highest SAT math score?", Hint: "highest means MAX", SQL: "SELECT sname FROM satscores ORDER BY AvgScrMath DESC LIMIT 1"},
			{QuestionID: 12, Question: "What is the phone number of the district office?", SQL: "SELECT Phone FROM schools WHERE School IS NULL"},
		},
		Triplets: []Triplet{
			{Tables: []string{"schools"}, Description: "Phone numbers and websites of schools", SQL: "SELECT School, Phone, Website FROM schools"},
			{Tables: []string{"satscores", "schools"}, Join: "satscores.cds = schools.CDSCode", Description: "Average SAT math score per charter school",
				SQL: "SELECT s.School, t.AvgScrMath FROM satscores t JOIN schools s ON t.cds = s.CDSCode WHERE s.Charter = 1"},
			{Tables: []string{"frpm"}, Description: "Free meal counts per county", SQL: "SELECT `County Name`, SUM(`Free Meal Count (K-12)`) FROM frpm GROUP BY 1"},
		},
	}
}

func TestPromptShape(t *testing.T) {
	n := &Notes{
		Lessons: []Lesson{
			{QuestionID: 4, Question: "How many orders?", Lesson: "Count rows of orders, not customers.",
				WrongSQL: "SELECT COUNT(*)\n  FROM customers", SQL: "SELECT COUNT(*) -- all of them\nFROM orders"},
			{Lesson: "Dates are text.", SQL: ""},
		},
		Examples: []Example{{QuestionID: 5, Question: "Which customer ordered most?", Hint: "most = max count", SQL: "SELECT name\nFROM customers"}},
		Triplets: []Triplet{{Tables: []string{"customers", "orders"}, Join: "orders.customer_id = customers.id",
			Description: "Orders per customer", SQL: "SELECT name, COUNT(*)\n\tFROM orders JOIN customers ON orders.customer_id = customers.id\nGROUP BY name"}},
	}
	got := n.Prompt(Query{ID: 9, Question: "Which customer placed the most orders?"}, 0)
	want := `Notes from earlier work on this database (use what applies; the schema and the data decide):

Lessons from past mistakes:
- Count rows of orders, not customers.
  Question: How many orders?
  Wrong SQL: SELECT COUNT(*) FROM customers
  Right SQL: SELECT COUNT(*) FROM orders
- Dates are text.

Solved examples:
- Question: Which customer ordered most? (Hint: most = max count)
  SQL: SELECT name FROM customers

Queries known to run on this database:
- Orders per customer (tables: customers, orders; join: orders.customer_id = customers.id)
  SQL: SELECT name, COUNT(*) FROM orders JOIN customers ON orders.customer_id = customers.id GROUP BY name
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Prompt (-want +got):\n%s", diff)
	}
}

func TestPromptExcludesOwnEntry(t *testing.T) {
	n := schools()
	// BIRD numbers questions from 0: question 0 is a question like any other.
	n.Lessons[1].QuestionID = 0
	tests := []struct {
		name     string
		q        Query
		excluded []string // text of entries that must not appear
		included []string // text of other questions' entries that must
	}{
		{"lesson by id", Query{ID: 1, Question: "Count Alameda schools whose free meal rate exceeds one half"},
			[]string{"Free meal counts are in frpm"}, []string{"SAT scores are in satscores"}},
		{"lesson by text", Query{ID: NoQuestion, Question: "  how many SCHOOLS in alameda county\nhave a free meal rate above 0.5? "},
			[]string{"Free meal counts are in frpm"}, []string{"SAT scores are in satscores"}},
		{"question 0 by id", Query{ID: 0, Question: "Mean SAT math of charter schools"},
			[]string{"SAT scores are in satscores"}, []string{"Free meal counts are in frpm"}},
		{"example by id", Query{ID: 10, Question: "How many students are enrolled in schools with a high SAT math score?"},
			[]string{"Fresno"}, []string{"Which school has the highest SAT math score?"}},
		{"example by text", Query{ID: 99, Question: "Which   SCHOOL has the highest sat math score?"},
			[]string{"AvgScrMath DESC"}, []string{"How many students are enrolled in Fresno schools?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := n.Prompt(tt.q, 0)
			for _, s := range tt.excluded {
				if strings.Contains(got, s) {
					t.Errorf("prompt includes the question's own entry (%q):\n%s", s, got)
				}
			}
			for _, s := range tt.included {
				if !strings.Contains(got, s) {
					t.Errorf("prompt lacks another question's entry (%q):\n%s", s, got)
				}
			}
		})
	}
}

// items splits a prompt into its list items, each with its indented lines.
func items(prompt string) []string {
	var out []string
	for _, line := range strings.SplitAfter(prompt, "\n") {
		switch {
		case strings.HasPrefix(line, "- "):
			out = append(out, line)
		case strings.HasPrefix(line, "  ") && len(out) > 0:
			out[len(out)-1] += line
		}
	}
	return out
}

// sectionItems returns the items under heading.
func sectionItems(prompt, heading string) []string {
	_, after, ok := strings.Cut(prompt, "\n"+heading+"\n")
	if !ok {
		return nil
	}
	before, _, _ := strings.Cut(after, "\n\n")
	return items(before)
}

func TestPromptBudget(t *testing.T) {
	n := schools()
	q := Query{ID: 50, Question: "What is the SAT math score and phone number of schools in Fresno county?", Hint: "free meal"}
	full := n.Prompt(q, 100000)
	whole := items(full)
	if len(whole) < 6 {
		t.Fatalf("full prompt has %d items, want at least 6:\n%s", len(whole), full)
	}
	sawPart := false
	for budget := 1; budget <= len(full)+5; budget++ {
		got := n.Prompt(q, budget)
		if len(got) > budget {
			t.Fatalf("budget %d: prompt is %d bytes", budget, len(got))
		}
		if got == "" {
			continue
		}
		if !strings.HasPrefix(got, "Notes from earlier work") {
			t.Fatalf("budget %d: prompt starts %q", budget, got[:20])
		}
		parts := items(got)
		if len(parts) == 0 {
			t.Fatalf("budget %d: a prompt with no entries:\n%s", budget, got)
		}
		for _, p := range parts {
			if !slices.Contains(whole, p) {
				t.Fatalf("budget %d: entry is not whole:\n%s", budget, p)
			}
		}
		if len(parts) < len(whole) {
			sawPart = true
		}
	}
	if !sawPart {
		t.Error("no budget gave a partial prompt")
	}
	if got := n.Prompt(q, len(full)); got != full {
		t.Errorf("budget of exactly the full size gave %d bytes, want %d", len(got), len(full))
	}

	// An entry too big is skipped and a smaller one after it still goes in.
	big := &Notes{Lessons: []Lesson{
		{QuestionID: NoQuestion, Lesson: "Huge lesson about orders " + strings.Repeat("x", 500)},
		{QuestionID: NoQuestion, Lesson: "Small lesson."},
	}}
	got := big.Prompt(Query{ID: NoQuestion, Question: "orders"}, 300)
	if strings.Contains(got, "Huge") || !strings.Contains(got, "- Small lesson.\n") {
		t.Errorf("budget 300 with a huge first lesson:\n%s", got)
	}

	// Budget 0 is DefaultBudget.
	var many Notes
	for i := range 100 {
		many.Examples = append(many.Examples, Example{QuestionID: i + 1, Question: "orders " + strings.Repeat("y", 2000)})
		many.Lessons = append(many.Lessons, Lesson{QuestionID: NoQuestion, Lesson: "Lesson " + strings.Repeat("z", 1000)})
	}
	if got := many.Prompt(Query{ID: NoQuestion, Question: "orders"}, 0); len(got) > DefaultBudget || len(got) < DefaultBudget/2 {
		t.Errorf("budget 0 gave %d bytes, want at most and near %d", len(got), DefaultBudget)
	}
}

func TestPromptEmpty(t *testing.T) {
	q := Query{ID: 1, Question: "How many orders?"}
	var none *Notes
	if got := none.Prompt(q, 0); got != "" {
		t.Errorf("nil notes: %q", got)
	}
	if got := (&Notes{}).Prompt(q, 0); got != "" {
		t.Errorf("empty notes: %q", got)
	}
	unrelated := &Notes{
		Examples: []Example{{QuestionID: 2, Question: "Which school is oldest?", SQL: "SELECT School FROM schools"}},
		Triplets: []Triplet{{Tables: []string{"frpm"}, Description: "Free meals", SQL: "SELECT 1 FROM frpm"}},
	}
	if got := unrelated.Prompt(q, 0); got != "" {
		t.Errorf("notes sharing no word with the question: %q", got)
	}
	own := &Notes{Lessons: []Lesson{{QuestionID: 1, Question: "How many orders?", Lesson: "Count orders."}}}
	if got := own.Prompt(q, 0); got != "" {
		t.Errorf("notes holding only the question's own lesson: %q", got)
	}
	if got := own.Prompt(Query{ID: 2}, 0); !strings.Contains(got, "Count orders.") {
		t.Errorf("a lesson scoring 0 is left out of a prompt with room:\n%s", got)
	}
}

func TestPromptRanking(t *testing.T) {
	n := schools()
	got := n.Prompt(Query{ID: 50, Question: "What is the phone number of the school district office in Fresno?"}, 0)
	if ex := sectionItems(got, "Solved examples:"); len(ex) == 0 || !strings.Contains(ex[0], "phone number of the district office") {
		t.Errorf("examples, want the phone number one first: %q", ex)
	}
	if tr := sectionItems(got, "Queries known to run on this database:"); len(tr) == 0 || !strings.Contains(tr[0], "Phone numbers and websites") {
		t.Errorf("triplets, want the phone one first: %q", tr)
	}

	got = n.Prompt(Query{ID: 50, Question: "Average SAT math score of charter schools in each county"}, 0)
	if tr := sectionItems(got, "Queries known to run on this database:"); len(tr) == 0 || !strings.Contains(tr[0], "charter school") {
		t.Errorf("triplets, want the charter one first: %q", tr)
	}
	if ls := sectionItems(got, "Lessons from past mistakes:"); len(ls) != 2 || !strings.Contains(ls[0], "SAT scores are in satscores") {
		t.Errorf("lessons, want both, the SAT one first: %q", ls)
	}

	// Caps: 8 lessons even unmatched, 4 examples and 4 triplets.
	var many Notes
	for i := range 10 {
		many.Lessons = append(many.Lessons, Lesson{QuestionID: NoQuestion, Lesson: "Lesson " + strconv.Itoa(i)})
		many.Examples = append(many.Examples, Example{QuestionID: i + 1, Question: "Orders number " + strconv.Itoa(i)})
		many.Triplets = append(many.Triplets, Triplet{Tables: []string{"orders"}, SQL: "SELECT " + strconv.Itoa(i) + " FROM orders"})
	}
	got = many.Prompt(Query{ID: NoQuestion, Question: "orders"}, 0)
	for heading, want := range map[string]int{"Lessons from past mistakes:": 8, "Solved examples:": 4, "Queries known to run on this database:": 4} {
		if n := len(sectionItems(got, heading)); n != want {
			t.Errorf("%s %d items, want %d", heading, n, want)
		}
	}
}

func TestBM25(t *testing.T) {
	docs := [][]string{
		words("phone numbers and websites of schools"),
		words("average SAT math score per charter school"),
		words("free meal count per county"),
	}
	scores := bm25(docs, words("Which charter schools have the best SAT math score?"))
	if len(scores) != 3 || scores[1] <= scores[0] || scores[1] <= scores[2] {
		t.Errorf("scores %v, want the SAT document (1) first", scores)
	}
	if scores[2] != 0 {
		t.Errorf("score of a document sharing no word = %v, want 0", scores[2])
	}

	if got := bm25(nil, words("anything")); len(got) != 0 {
		t.Errorf("empty corpus: %v", got)
	}
	if got := bm25(docs, nil); slices.ContainsFunc(got, func(s float64) bool { return s != 0 }) || len(got) != 3 {
		t.Errorf("empty query: %v, want three zeros", got)
	}
	if got := bm25([][]string{nil, nil}, []string{"x"}); len(got) != 2 || got[0] != 0 {
		t.Errorf("empty documents: %v", got)
	}

	// "common" is in every document, "rare" in one: matching the rare word
	// is worth more, the documents being otherwise alike.
	idf := [][]string{
		{"rare", "filler"},
		{"common", "filler"},
		{"common", "other"},
		{"common", "more"},
	}
	s := bm25(idf, []string{"common", "rare"})
	if s[0] <= s[1] {
		t.Errorf("scores %v: the rare word should outweigh the common one", s)
	}
	if s[1] <= 0 {
		t.Errorf("scores %v: a word in most documents should still count", s)
	}
	// Of two documents matching once, the shorter matches better.
	long := bm25([][]string{{"orders", "a"}, {"orders", "a", "b", "c", "d", "e"}, {"x"}}, []string{"orders"})
	if long[0] <= long[1] {
		t.Errorf("scores %v: the shorter document should rank first", long)
	}
	// Repeating a query word changes nothing.
	if r := bm25(idf, []string{"rare", "rare", "common"}); !slices.Equal(r, s) {
		t.Errorf("repeated query word: %v, want %v", r, s)
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Free Meal Count (K-12)", []string{"free", "meal", "count", "k", "12"}},
		{"freeMealCount CDSCode", []string{"free", "meal", "count", "cds", "code"}},
		{"customer_id", []string{"customer", "id"}},
		{"How many schools are there in this district?", []string{"school", "district"}},
		{"class address bus", []string{"class", "address", "bus"}},
		{"Élève_Nom", []string{"élève", "nom"}},
		{"  --  ", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, words(tt.text), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("words(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestSQLLineAndNames(t *testing.T) {
	sql := "SELECT T1.`School Name`, COUNT(*) -- how many\n" +
		"FROM schools AS T1\n\tJOIN frpm T2 ON T1.CDSCode = T2.CDSCode /* the\n key */\n" +
		"WHERE T1.County = 'San  Diego' AND \"it\"\"s\" > 10"
	wantLine := "SELECT T1.`School Name`, COUNT(*) FROM schools AS T1 JOIN frpm T2 ON T1.CDSCode = T2.CDSCode /* the key */ WHERE T1.County = 'San  Diego' AND \"it\"\"s\" > 10"
	if got := sqlLine(sql); got != wantLine {
		t.Errorf("sqlLine:\n got %s\nwant %s", got, wantLine)
	}
	wantNames := "School Name schools frpm CDSCode CDSCode County it\"\"s"
	if got := sqlNames(sql); got != wantNames {
		t.Errorf("sqlNames:\n got %s\nwant %s", got, wantNames)
	}
	if got := sqlLine("SELECT 'unclosed"); got != "SELECT 'unclosed" {
		t.Errorf("sqlLine of an unclosed quote = %q", got)
	}
}

// BenchmarkPrompt ranks the notes of a large question set on one database
// (BIRD dev has about 140 questions a database) for one question.
func BenchmarkPrompt(b *testing.B) {
	for _, size := range []int{150, 1500} {
		var n Notes
		for i := range size {
			s := strconv.Itoa(i)
			n.Lessons = append(n.Lessons, Lesson{QuestionID: i, Question: "How many schools in county " + s + " have a free meal rate above 0." + s + "?",
				Lesson: "Free meal counts are in frpm; join schools on CDSCode " + s, WrongSQL: "SELECT COUNT(*) FROM schools WHERE x" + s + " > 1",
				SQL: "SELECT COUNT(*) FROM frpm JOIN schools ON frpm.CDSCode = schools.CDSCode WHERE `County Name` = 'c" + s + "'"})
			n.Examples = append(n.Examples, Example{QuestionID: size + i, Question: "What is the SAT math score of school " + s + "?",
				SQL: "SELECT AvgScrMath FROM satscores WHERE sname = 's" + s + "'"})
			n.Triplets = append(n.Triplets, Triplet{Tables: []string{"satscores", "schools"}, Join: "satscores.cds = schools.CDSCode",
				Description: "Average SAT math score of school " + s, SQL: "SELECT AvgScrMath FROM satscores t JOIN schools s ON t.cds = s.CDSCode"})
		}
		q := Query{ID: NoQuestion, Question: "What is the average SAT math score of charter schools in Fresno?", Hint: "charter schools refers to Charter = 1"}
		b.Run(strconv.Itoa(3*size)+" entries", func(b *testing.B) {
			for b.Loop() {
				if n.Prompt(q, 0) == "" {
					b.Fatal("no notes")
				}
			}
		})
	}
}

func TestDatabaseName(t *testing.T) {
	t.Parallel()
	for db, want := range map[string]string{
		"/data/dev/california_schools/california_schools.sqlite": "california_schools",
		"sqlite:/data/shop.db?mode=ro":                           "shop",
		"file:shop.db":                                           "shop",
		"postgres://me@db:5432/financial?sslmode=disable":        "financial",
	} {
		if got := DatabaseName(db); got != want {
			t.Errorf("DatabaseName(%q) = %q, want %q", db, got, want)
		}
	}
}
