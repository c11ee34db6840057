//go:build !noduckdb

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp"
	conf "github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/eval"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/notes"
)

// demoParquet writes the demo as Parquet files into a new folder and
// returns the demo's SQLite file and the folder.
func demoParquet(t *testing.T) (path, dir string) {
	t.Helper()
	path, err := demo.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if _, err := writeDemoParquet(t.Context(), path, dir); err != nil {
		t.Fatal(err)
	}
	return path, dir
}

// TestDemoQuestionsDuckDB: on the demo as Parquet files served by DuckDB,
// each question's DuckDB gold SQL returns the rows SQLite's gold SQL
// returns on SQLite (numbers to within 0.0001), scores right against
// itself, and is the question's own only when SQLite's fails there or
// returns other rows.
func TestDemoQuestionsDuckDB(t *testing.T) {
	t.Parallel()
	path, dir := demoParquet(t)
	qs, err := eval.ParseQuestions(demo.Questions)
	if err != nil {
		t.Fatal(err)
	}
	lite, err := eval.OpenDB(t.Context(), path, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	duck, err := eval.OpenDB(t.Context(), dir, 0, engines(&conf.Source{}))
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	if duck.Dialect() != sqlmcp.DuckDB {
		t.Fatalf("the scorer opened %s as %s", dir, duck.Dialect())
	}
	const all = 1_000_000
	own := 0
	for _, q := range qs {
		want, err := lite.Query(t.Context(), q.SQL, all)
		if err != nil {
			t.Fatalf("question %d: SQLite: %v", q.ID, err)
		}
		gold := q.Gold(sqlmcp.DuckDB)
		got, err := duck.Query(t.Context(), gold, all)
		if err != nil {
			t.Errorf("question %d: the DuckDB gold SQL failed: %v\n%s", q.ID, err, gold)
			continue
		}
		if diff := dbtest.SameRows(want.Rows, got.Rows); diff != "" {
			t.Errorf("question %d: the DuckDB gold SQL returns other rows than SQLite's: %s\n%s", q.ID, diff, gold)
		}
		if ok, err := eval.Score(t.Context(), duck, gold, gold); !ok || err != nil {
			t.Errorf("question %d: the DuckDB gold SQL does not score right against itself: %v", q.ID, err)
		}
		if _, ok := q.Dialects[sqlmcp.DuckDB]; ok {
			own++
			plain, err := duck.Query(t.Context(), q.SQL, all)
			if err == nil && dbtest.SameRows(want.Rows, plain.Rows) == "" {
				t.Errorf("question %d: SQL_duckdb is not needed: SQLite's gold SQL returns the same rows there", q.ID)
			}
		}
	}
	if own == 0 {
		t.Error("no question has SQL_duckdb")
	}
}

// TestEvalDemoDuckDB: sqlmcp eval --demo --db DIR scores the demo's
// questions on the demo's Parquet files, served and scored by DuckDB, by
// their DuckDB gold SQL.
func TestEvalDemoDuckDB(t *testing.T) {
	t.Parallel()
	_, dir := demoParquet(t)
	fake := newFakeEval(t, dialectScript(sqlmcp.DuckDB))
	out := filepath.Join(t.TempDir(), "oneshot")
	got, err := runEvalCmd(t, "--demo", "--db", dir, "--system", "oneshot", "--out", out, "--base-url", fake.BaseURL(), "--model", "fake-1")
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	checkDialectRun(t, out, got)
}

// TestLearnDuckDB: sqlmcp learn --db on the demo's Parquet files keeps
// each lesson beside the DuckDB gold SQL, the right SQL there.
func TestLearnDuckDB(t *testing.T) {
	t.Parallel()
	_, dir := demoParquet(t)
	var raw []map[string]any
	if err := json.Unmarshal(demo.Questions, &raw); err != nil {
		t.Fatal(err)
	}
	qfile := filepath.Join(t.TempDir(), "questions.json")
	b, _ := json.Marshal(raw[32:34]) // both with SQL_duckdb
	if err := os.WriteFile(qfile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := eval.ParseQuestions(b)
	if err != nil {
		t.Fatal(err)
	}
	fake := experienceModel(t, qs, func(int) bool { return false })
	notesDir := filepath.Join(t.TempDir(), "notes")
	out, err := runCmd(t, "learn", "--questions", qfile, "--db", dir, "--notes", notesDir, "--max-turns", "2", "--base-url", fake.BaseURL(), "--model", "fake-1")
	if err != nil {
		t.Fatalf("learn: %v\n%s", err, out)
	}
	if want := "learned from 2 questions: 0 examples, 2 lessons; 0 skipped"; !strings.Contains(out, want) {
		t.Errorf("learn says:\n%s\nwant %q", out, want)
	}
	book, err := notes.Load(filepath.Join(notesDir, "demo"))
	if err != nil {
		t.Fatal(err)
	}
	if len(book.Lessons) != 2 {
		t.Fatalf("%d lessons, want 2", len(book.Lessons))
	}
	for i, l := range book.Lessons {
		if want := qs[i].Gold(sqlmcp.DuckDB); l.SQL != want || want == qs[i].SQL {
			t.Errorf("question %d: the lesson's right SQL is %q, want DuckDB's %q", l.QuestionID, l.SQL, want)
		}
	}
}
