// Package dbtest builds fresh test databases from testdata, for tests only.
package dbtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/mattn/go-sqlite3" // the writable driver that builds fixtures

	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/builtin"
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

// DamagedSQLiteFile makes a SQLite file in t.TempDir whose index pages
// are damaged, as PRAGMA quick_check finds, while its catalog still reads,
// and returns its path.
func DamagedSQLiteFile(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "damaged.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA page_size = 4096", "CREATE TABLE t (x TEXT)", "CREATE INDEX t_x ON t (x)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t SELECT printf('row %08d', i) FROM n"} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var root int
	if err := w.QueryRow("SELECT rootpage FROM sqlite_schema WHERE name = 't_x'").Scan(&root); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := []byte(strings.Repeat("\xff", 200))
	if _, err := f.WriteAt(junk, int64(root-1)*4096+8); err != nil { // past the page header: its cell pointers
		t.Fatal(err)
	}
	return path
}

// SQLite opens a fresh copy of the SQLite fixture through source, with
// opts (nil for defaults), and closes it when the test ends.
func SQLite(t testing.TB, opts *source.Options) *source.DB {
	t.Helper()
	return Open(t, SQLiteFile(t), opts)
}

// Open opens dsn through source and closes it when the test ends. With
// opts.Engines empty, the built-in engines open it.
func Open(t testing.TB, dsn string, opts *source.Options) *source.DB {
	t.Helper()
	db, err := source.Open(t.Context(), dsn, Options(opts))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Options returns a copy of opts (nil: the defaults) whose Engines are
// the built-in ones when it names none.
func Options(opts *source.Options) *source.Options {
	o := source.Options{}
	if opts != nil {
		o = *opts
	}
	if len(o.Engines) == 0 {
		o.Engines = builtin.Engines(nil)
	}
	return &o
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

// PostgresEnv names the variable holding a PostgreSQL URL whose role may
// CREATE DATABASE, e.g. postgres://postgres@127.0.0.1:5432/postgres.
// Tests that need PostgreSQL skip when it is unset.
const PostgresEnv = "SQLMCP_TEST_POSTGRES"

// PostgresDSN creates a fresh database on the server SQLMCP_TEST_POSTGRES
// names, loads testdata/postgres/schema.sql and seed.sql into it, and
// returns its URL, with the same role. The database is dropped when the
// test ends, its sessions ended first. It skips the test when the variable
// is unset.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(PostgresEnv)
	if admin == "" {
		t.Skip(PostgresEnv + " is not set: skipping the PostgreSQL test")
	}
	u, err := url.Parse(admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s must be a postgres:// URL", PostgresEnv)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "sqlmcp_test_" + hex.EncodeToString(b)
	PostgresExec(t, admin, "CREATE DATABASE "+name)
	t.Cleanup(func() {
		PostgresExec(t, admin, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = '`+name+`' AND pid <> pg_backend_pid()`)
		PostgresExec(t, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u.Path = "/" + name
	dsn := u.String()
	for _, file := range []string{"schema.sql", "seed.sql"} {
		text, err := os.ReadFile(filepath.Join(Root(), "testdata", "postgres", file))
		if err != nil {
			t.Fatal(err)
		}
		PostgresExec(t, dsn, string(text))
	}
	return dsn
}

// Postgres opens a fresh copy of the PostgreSQL fixture (see PostgresDSN)
// through source, with opts (nil for defaults), and closes it when the
// test ends.
func Postgres(t testing.TB, opts *source.Options) *source.DB {
	t.Helper()
	return Open(t, PostgresDSN(t), opts)
}

// PostgresConn connects to dsn with pgx, outside sqlmcp's walls, for tests
// that set up or inspect the server; it closes when the test ends.
func PostgresConn(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting to the test server: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// PostgresExec runs sql, which may hold several statements, on dsn as its
// role, outside sqlmcp's walls, and fails the test on error.
func PostgresExec(t testing.TB, dsn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connecting to the test server: %v", err)
	}
	defer conn.Close(ctx)
	// No arguments: the simple protocol, which runs every statement.
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%.60q: %v", sql, err)
	}
}

// Engine is one database of the same fixture, named by its dialect.
type Engine struct {
	Name string // "sqlite" or "postgres"
	DB   *source.DB
}

// All opens the fixture on every engine there is: SQLite always, and
// PostgreSQL when SQLMCP_TEST_POSTGRES is set, for one behaviour test
// with a subtest per engine.
func All(t testing.TB, opts *source.Options) []Engine {
	t.Helper()
	engines := []Engine{{"sqlite", SQLite(t, opts)}}
	if os.Getenv(PostgresEnv) != "" {
		engines = append(engines, Engine{"postgres", Postgres(t, opts)})
	}
	return engines
}

// NoneLeftRunning waits, up to within, until db tracks no statement the
// database did not stop when asked, and reports whether it came to that.
func NoneLeftRunning(db *source.DB, within time.Duration) bool {
	deadline := time.After(within)
	for {
		n, changed := db.LeftRunning()
		if n == 0 {
			return true
		}
		select {
		case <-changed:
		case <-deadline:
			return false
		}
	}
}
