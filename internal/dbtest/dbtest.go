// Package dbtest builds fresh test databases from testdata, for tests only.
package dbtest

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the writable driver that builds fixtures

	"github.com/sqlmcp/sqlmcp/source"
)

// Root is the repository's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// SQLiteFile builds testdata/sqlite/schema.sql and seed.sql into a new file
// in t.TempDir and returns its path.
func SQLiteFile(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range []string{"schema.sql", "seed.sql"} {
		text, err := os.ReadFile(filepath.Join(Root(), "testdata", "sqlite", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(text)); err != nil {
			t.Fatalf("loading %s: %v", name, err)
		}
	}
	return path
}

// SQLite opens a fresh copy of the SQLite fixture through source, with
// opts (nil for defaults), and closes it when the test ends.
func SQLite(t testing.TB, opts *source.Options) *source.DB {
	t.Helper()
	return Open(t, SQLiteFile(t), opts)
}

// Open opens dsn through source and closes it when the test ends.
func Open(t testing.TB, dsn string, opts *source.Options) *source.DB {
	t.Helper()
	db, err := source.Open(t.Context(), dsn, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Expand returns c's SQL with {{dir}} replaced by dir.
func (c Case) Expand(dir string) string { return strings.ReplaceAll(c.SQL, "{{dir}}", dir) }

// Fingerprint returns a digest of the file at path, to prove it unchanged.
func Fingerprint(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// AssertEmptyDir fails the test if anything was written into dir.
func AssertEmptyDir(t testing.TB, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("a file appeared in %s: %s", dir, e.Name())
	}
}
