package demo

import (
	"crypto/sha256"
	"database/sql"
	"encoding/csv"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

func build(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "demo.sqlite")
	start := time.Now()
	if err := Build(path); err != nil {
		t.Fatal(err)
	}
	t.Logf("built in %v", time.Since(start))
	return path
}

func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestBuild(t *testing.T) {
	path := build(t)
	db := openDB(t, path)

	if n := count(t, db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'"); n < 9 {
		t.Errorf("tables: got %d, want at least 9", n)
	}
	if n := count(t, db, "SELECT count(*) FROM sqlite_schema WHERE type = 'view'"); n < 1 {
		t.Errorf("views: got %d, want at least 1", n)
	}
	if n := count(t, db, "SELECT count(*) FROM sqlite_schema s, pragma_foreign_key_list(s.name) WHERE s.type = 'table'"); n == 0 {
		t.Error("no foreign keys declared")
	}
	rows, err := db.Query("PRAGMA foreign_key_check")
	if err != nil {
		t.Fatal(err)
	}
	if rows.Next() {
		t.Error("PRAGMA foreign_key_check reports violations")
	}
	rows.Close()
	if n := count(t, db, `SELECT count(*) FROM pragma_table_info('StateMealProgram') WHERE name = 'Free Meal Count (K-12)'`); n != 1 {
		t.Error(`column "Free Meal Count (K-12)" missing`)
	}

	for _, tc := range []struct {
		table    string
		min, max int
	}{
		{"schools", 25, 25},
		{"courses", 40, 50},
		{"teachers", 250, 350},
		{"students", 5000, 5000},
		{"vendors", 5, 20},
		{"StateMealProgram", 50, 50},
		{"enrollments", 15000, 40000},
		{"drop_log", 300, 3000},
		{"test_scores", 10000, 40000},
		{"attendance", 30000, 70000},
		{"order", 1000, 2000},
	} {
		n := count(t, db, "SELECT count(*) FROM "+quote(tc.table))
		t.Logf("%s: %d rows", tc.table, n)
		if n < tc.min || n > tc.max {
			t.Errorf("%s: got %d rows, want %d to %d", tc.table, n, tc.min, tc.max)
		}
	}
	for _, v := range views {
		count(t, db, "SELECT count(*) FROM "+v.name)
	}

	t.Run("descriptions cover every column", func(t *testing.T) {
		names, err := db.Query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
		if err != nil {
			t.Fatal(err)
		}
		defer names.Close()
		for names.Next() {
			var table string
			names.Scan(&table)
			data, err := os.ReadFile(filepath.Join(filepath.Dir(path), "database_description", table+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(data), "\uFEFF"))).ReadAll()
			if err != nil {
				t.Fatalf("%s.csv: %v", table, err)
			}
			described := map[string]bool{}
			for _, r := range recs[1:] {
				described[r[0]] = true
			}
			cols, err := db.Query("SELECT name FROM pragma_table_info(?)", table)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for cols.Next() {
				var col string
				cols.Scan(&col)
				if n++; !described[col] {
					t.Errorf("%s.csv: no row for column %q", table, col)
				}
			}
			cols.Close()
			if n != len(recs)-1 {
				t.Errorf("%s.csv: got %d rows, want %d", table, len(recs)-1, n)
			}
		}
	})
}

// digest hashes the database and every description file built beside it.
func digest(t *testing.T, path string) map[string][32]byte {
	t.Helper()
	sums := map[string][32]byte{}
	dir := filepath.Dir(path)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		sums[rel] = sha256.Sum256(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

func TestBuildIsDeterministic(t *testing.T) {
	a, b := digest(t, build(t)), digest(t, build(t))
	if len(a) != len(tables)+2 {
		t.Errorf("got %d files, want %d: the database, annotations.json and one CSV per table", len(a), len(tables)+2)
	}
	for name, sum := range a {
		if b[name] != sum {
			t.Errorf("%s differs between two builds", name)
		}
	}
}

func TestBuildRefusesExistingPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.sqlite")
	if err := os.WriteFile(path, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Build(path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Build over an existing file: got %v, want fs.ErrExist", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "keep me" {
		t.Error("Build changed the existing file")
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	paths := make([]string, 2)
	for i := range paths {
		wg.Go(func() {
			var err error
			if paths[i], err = Open(dir); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	want := filepath.Join(dir, "demo-"+Version, "demo.sqlite")
	if paths[0] != want || paths[1] != want {
		t.Fatalf("concurrent Open: got %q, want %q", paths, want)
	}
	first, err := os.Stat(want)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if second, _ := os.Stat(again); again != want || !os.SameFile(first, second) {
		t.Errorf("second Open rebuilt or moved the database: got %q", again)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("dir holds %d entries after Open, want only demo-%s", len(entries), Version)
	}
	for _, name := range []string{"annotations.json", "database_description/schools.csv"} {
		if _, err := os.Stat(filepath.Join(dir, "demo-"+Version, name)); err != nil {
			t.Error(err)
		}
	}
	if n := count(t, openDB(t, want), "SELECT count(*) FROM students"); n == 0 {
		t.Error("opened demo database has no students")
	}
}
