package eval

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/demo"
)

var update = flag.Bool("update", false, "rewrite testdata/demo_gold.txt")

// TestDemoQuestions checks the bundled question set: enough questions of
// each difficulty, and gold SQL that runs on the demo and returns rows,
// the same rows every build (testdata/demo_gold.txt holds a digest of each
// answer's set of rows; go test ./eval -update rewrites it after a
// change to the demo or the questions).
func TestDemoQuestions(t *testing.T) {
	t.Parallel()
	qs, err := ParseQuestions(demo.Questions)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 30 {
		t.Errorf("%d questions, want 30 or more", len(qs))
	}
	count := map[string]int{}
	hints := 0
	for _, q := range qs {
		count[q.Difficulty]++
		if q.DB != "demo" {
			t.Errorf("question %d: db_id %q, want demo", q.ID, q.DB)
		}
		if q.Evidence != "" {
			hints++
		}
	}
	for _, d := range []string{"easy", "moderate", "hard"} {
		if count[d] < 8 {
			t.Errorf("%d %s questions, want 8 or more", count[d], d)
		}
	}
	if len(count) != 3 || hints < 15 {
		t.Errorf("difficulties %v, %d hints; want easy, moderate and hard, and 15 or more hints", count, hints)
	}

	path, err := demo.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenDB(t.Context(), path, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var lines []string
	for _, q := range qs {
		set, err := rowSet(t.Context(), db, q.SQL)
		if err != nil {
			t.Errorf("question %d: the gold SQL failed: %v", q.ID, err)
			continue
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range set {
				if !yield(k) {
					return
				}
			}
		})
		if len(keys) == 0 || keys[0] == rowKey([]any{nil}) {
			t.Errorf("question %d: the gold SQL returns no rows, or only NULL", q.ID)
		}
		if ok, err := Score(t.Context(), db, q.SQL, q.SQL); !ok || err != nil {
			t.Errorf("question %d: the gold SQL does not score right against itself: %v", q.ID, err)
		}
		lines = append(lines, fmt.Sprintf("%d %d rows %x", q.ID, len(keys), sha256.Sum256([]byte(strings.Join(keys, "\n")))))
	}
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "demo_gold.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the gold answers changed (go test ./eval -update after checking why):\ngot\n%s\nwant\n%s", got, want)
	}
}

func TestExtractSQL(t *testing.T) {
	tests := []struct{ name, reply, want string }{
		{"bare", "SELECT 1;", "SELECT 1"},
		{"fenced", "Here it is:\n```sql\nSELECT name\nFROM schools;\n```\nDone.", "SELECT name\nFROM schools"},
		{"fence without language", "```\nSELECT 2\n```", "SELECT 2"},
		{"think block first", "<think>maybe SELECT 3</think>\nSELECT 4", "SELECT 4"},
		{"space around", "  \n SELECT 5 ;; \n", "SELECT 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExtractSQL(tt.reply); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMcNemar(t *testing.T) {
	// Hand-computed: p = min(1, 2 * sum_{i<=min(b,c)} C(b+c, i) / 2^(b+c)).
	tests := []struct {
		b, c int
		want float64
	}{
		{0, 0, 1},
		{0, 5, 2.0 / 32},                     // 2 * 1/32
		{1, 6, 2 * 8.0 / 128},                // 2 * (1+7)/128
		{6, 1, 2 * 8.0 / 128},                // symmetric
		{2, 10, 2 * 79.0 / 4096},             // 2 * (1+12+66)/4096
		{3, 3, 1},                            // 2 * 42/64 > 1
		{10, 20, 2 * 53009102.0 / (1 << 30)}, // 2 * sum_{i<=10} C(30,i) / 2^30
	}
	for _, tt := range tests {
		if got := McNemar(tt.b, tt.c); fmt.Sprintf("%.10g", got) != fmt.Sprintf("%.10g", tt.want) {
			t.Errorf("McNemar(%d, %d) = %.12g, want %.12g", tt.b, tt.c, got, tt.want)
		}
	}
}

func TestParseQuestions(t *testing.T) {
	// BIRD's train set has no question_id: a question is its place.
	train := `[{"db_id": "movie_platform", "question": "How many movies?", "evidence": "", "SQL": "SELECT count(*) FROM movies"},
		{"db_id": "movie_platform", "question": "Oldest movie?", "evidence": "oldest refers to MIN(year)", "SQL": "SELECT title FROM movies ORDER BY year LIMIT 1"}]`
	qs, err := ParseQuestions([]byte(train))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].ID != 0 || qs[1].ID != 1 || qs[1].Evidence != "oldest refers to MIN(year)" || qs[1].Difficulty != "unknown" {
		t.Errorf("train-shaped questions: %+v", qs)
	}
	dev := `[{"question_id": 7, "db_id": "a", "question": "q", "evidence": "", "SQL": "SELECT 1", "difficulty": "simple"},
		{"question_id": 0, "db_id": "a", "question": "r", "evidence": "", "SQL": "SELECT 2", "difficulty": "challenging"}]`
	if qs, err = ParseQuestions([]byte(dev)); err != nil || qs[0].ID != 7 || qs[1].ID != 0 || qs[1].Difficulty != "challenging" {
		t.Errorf("dev-shaped questions: %+v, %v", qs, err)
	}
	withDialect := `[{"question_id": 1, "db_id": "a", "question": "q", "SQL": "SELECT \"x\" FROM t", "SQL_mysql": "SELECT x FROM t"}]`
	if qs, err = ParseQuestions([]byte(withDialect)); err != nil || qs[0].Gold(sqlmcp.MySQL) != "SELECT x FROM t" ||
		qs[0].Gold(sqlmcp.Postgres) != `SELECT "x" FROM t` || qs[0].Gold(sqlmcp.DuckDB) != `SELECT "x" FROM t` {
		t.Errorf("gold SQL by dialect: %+v, %v", qs, err)
	}
	for name, tt := range map[string]struct{ json, want string }{
		"an unknown dialect": {`[{"question_id": 1, "db_id": "a", "question": "q", "SQL": "S", "SQL_oracle": "S"}]`, "SQL_oracle names no dialect: use SQL_sqlite, SQL_postgres, SQL_mysql, SQL_duckdb"},
		"a dialect's empty":  {`[{"question_id": 1, "db_id": "a", "question": "q", "SQL": "S", "SQL_mysql": " "}]`, "SQL_mysql must be SQL text"},
		"not a list":         {`{"question": "q"}`, "want a JSON list"},
		"a repeated id":      {`[{"question_id": 1, "db_id": "a", "question": "q", "SQL": "S"}, {"question_id": 1, "db_id": "a", "question": "r", "SQL": "S"}]`, "question_id 1 appears twice"},
		"a place taken":      {`[{"db_id": "a", "question": "q", "SQL": "S"}, {"question_id": 0, "db_id": "a", "question": "r", "SQL": "S"}]`, "question_id 0 appears twice"},
		"no SQL":             {`[{"question_id": 1, "db_id": "a", "question": "q", "SQL": " "}]`, "lacks a db_id, question or SQL"},
		"a db_id with path":  {`[{"question_id": 1, "db_id": "../etc", "question": "q", "SQL": "S"}]`, "is not a plain name"},
	} {
		if _, err := ParseQuestions([]byte(tt.json)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, tt.want)
		}
	}
}
