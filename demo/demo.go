// Package demo builds the bundled demo database: a fictional school district's
// SQLite database (schools, students, teachers, courses, enrollments, test
// scores, attendance, a state meal-program file, supply orders) with the
// awkward names, NULLs and soft-delete flags of a real one, plus BIRD-style
// column descriptions. `sqlmcp serve --demo` serves it, and golden tests rely
// on it, so every build is byte-for-byte identical. It sits beside the other
// packages and imports only the standard library and the SQLite driver.
package demo

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	_ "github.com/mattn/go-sqlite3" // the demo is built with the same driver that serves it
)

// Version names the demo's content; bump it whenever the generated data or schema changes, so a cached copy is rebuilt.
const Version = "1"

// Build writes the demo database to path (a new SQLite file; it builds into a
// temporary file in the same directory and renames it into place, so a crash
// never leaves a half-built file at path), and writes BIRD-style column
// descriptions beside it in filepath.Join(filepath.Dir(path),
// "database_description", "<table>.csv"), and table descriptions in
// annotations.json in the same directory, overwriting earlier ones. It returns
// an error wrapping fs.ErrExist if path already exists.
func Build(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("building demo database: %w", &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist})
	}
	dir := filepath.Dir(path)
	if err := writeDescriptions(dir); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".demo-*.sqlite")
	if err != nil {
		return fmt.Errorf("building demo database: %w", err)
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp + "-journal")
	if err := fill(tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("building demo database: %w", err)
	}
	// The database was written with synchronous=OFF; flush it once before it becomes visible.
	err = syncFile(tmp)
	if err == nil {
		err = os.Chmod(tmp, 0o644) // CreateTemp made it private
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("building demo database: %w", err)
	}
	// A hard link puts the file in place without replacing one that appeared meanwhile.
	err = os.Link(tmp, path)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		err = os.Rename(tmp, path) // the file system has no hard links
	}
	os.Remove(tmp)
	if err != nil {
		return fmt.Errorf("building demo database: %w", err)
	}
	return nil
}

// fill creates the schema in the empty SQLite file at path and loads the data in one transaction.
func fill(path string) error {
	ctx := context.Background()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx) // pragmas are per connection
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, p := range []string{"PRAGMA journal_mode=DELETE", "PRAGMA synchronous=OFF", "PRAGMA foreign_keys=ON"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("setting %s: %w", p, err)
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	g := &gen{r: rand.New(rand.NewPCG(2024, 3)), ins: map[string]*sql.Stmt{}}
	for _, t := range tables {
		if _, err := tx.Exec(t.createSQL()); err != nil {
			return fmt.Errorf("creating table %s: %w", t.name, err)
		}
		if g.ins[t.name], err = tx.Prepare(t.insertSQL()); err != nil {
			return fmt.Errorf("preparing insert into %s: %w", t.name, err)
		}
		defer g.ins[t.name].Close()
	}
	if err := g.run(); err != nil {
		return err
	}
	last := slices.Clone(indexes)
	for _, v := range views {
		last = append(last, "CREATE VIEW "+v.name+" AS\n"+v.sql)
	}
	for _, q := range last {
		if _, err := tx.Exec(q); err != nil {
			return fmt.Errorf("running %q: %w", q, err)
		}
	}
	return tx.Commit()
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// writeDescriptions writes database_description/<table>.csv and annotations.json into dir.
func writeDescriptions(dir string) error {
	descDir := filepath.Join(dir, "database_description")
	if err := os.MkdirAll(descDir, 0o755); err != nil {
		return fmt.Errorf("writing demo descriptions: %w", err)
	}
	type note struct {
		Description string `json:"description"`
	}
	notes := map[string]note{}
	for _, v := range views {
		notes[v.name] = note{v.about}
	}
	for _, t := range tables {
		notes[t.name] = note{t.about}
		var buf bytes.Buffer
		if t.bom {
			buf.WriteString("\uFEFF")
		}
		w := csv.NewWriter(&buf)
		w.Write([]string{"original_column_name", "column_name", "column_description", "data_format", "value_description"})
		for _, col := range t.cols {
			w.Write([]string{col.name, col.readable, col.desc, col.format(), col.vals})
		}
		w.Flush()
		if err := os.WriteFile(filepath.Join(descDir, t.name+".csv"), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing demo descriptions: %w", err)
		}
	}
	data, err := json.MarshalIndent(map[string]any{"tables": notes}, "", "  ")
	if err != nil {
		return fmt.Errorf("writing demo annotations: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "annotations.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing demo annotations: %w", err)
	}
	return nil
}

// Open returns the path of the demo database in dir (e.g. the user's cache
// directory + "/sqlmcp"), which is filepath.Join(dir, "demo-"+Version,
// "demo.sqlite"), building it on first use. It is safe to call from several
// processes at once: each builder works in a private temporary directory
// inside dir and renames the finished directory into place; a builder that
// loses the race removes its copy and returns the winner's.
func Open(dir string) (string, error) {
	final := filepath.Join(dir, "demo-"+Version)
	path := filepath.Join(final, "demo.sqlite")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("opening demo database: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, ".demo-"+Version+"-build-*")
	if err != nil {
		return "", fmt.Errorf("opening demo database: %w", err)
	}
	defer os.RemoveAll(tmp) // empty after a successful rename
	if err := Build(filepath.Join(tmp, "demo.sqlite")); err != nil {
		return "", fmt.Errorf("opening demo database: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp made it private
		return "", fmt.Errorf("opening demo database: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(path); statErr == nil {
			return path, nil // another process won the race
		}
		return "", fmt.Errorf("opening demo database: %w", err)
	}
	return path, nil
}
