package duckdb_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
)

// secret is what the file outside the served set holds; no answer may
// ever contain it.
const secret = "OUTSIDE-THE-SERVED-SET-7f3a"

// fixture writes a folder of data files the way analysts get them, and a
// file beside the folder that is not served. It returns the folder and
// the outside file.
func fixture(t testing.TB) (dir, outside string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "data")
	must(t, os.MkdirAll(filepath.Join(dir, "sales", "year=2024"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "sales", "year=2025"), 0o755))
	outside = filepath.Join(root, "secret.csv")
	must(t, os.WriteFile(outside, []byte("token\n"+secret+"\n"), 0o644))
	// Awkward headers: spaces, a comma and quotes in a name; quoted
	// fields holding commas, quotes and a newline.
	must(t, os.WriteFile(filepath.Join(dir, "people.csv"), []byte(
		"id,full name,\"e-mail, primary\",\"say \"\"hi\"\"\"\n"+
			"1,Ada Lovelace,ada@example.com,\"hello, world\"\n"+
			"2,\"O'Brien, Pat\",pat@example.com,\"she said \"\"no\"\"\"\n"+
			"3,Grace Hopper,,\"two\nlines\"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "events.ndjson"), []byte(
		`{"id":1,"kind":"click","tags":["a","b"],"meta":{"x":1,"y":"p"}}`+"\n"+
			`{"id":2,"kind":"view","tags":[],"meta":{"x":2,"y":"q"}}`+"\n"+
			`{"id":3,"kind":"click","tags":["c"],"meta":{"x":3,"y":null}}`+"\n"), 0o644))
	// Parquet with nested types and key-value descriptions, and a
	// partitioned folder, written by a DuckDB of the test's own.
	w, err := sql.Open("duckdb", "")
	must(t, err)
	defer w.Close()
	for _, q := range []string{
		`COPY (SELECT i AS id, [i, i + 1] AS pair, {'a': i, 'b': 'x' || i} AS point, MAP {'k': i} AS attrs,
			'name ' || i AS label FROM range(100) t(i))
			TO '` + filepath.Join(dir, "nested.parquet") + `' (FORMAT parquet, KV_METADATA {description: 'Nested values, one per id', 'description:pair': 'the id and the next'})`,
		`COPY (SELECT i AS id, i * 10 AS amount FROM range(30) t(i)) TO '` + filepath.Join(dir, "sales", "year=2024", "part-0.parquet") + `' (FORMAT parquet)`,
		`COPY (SELECT i AS id, i * 20 AS amount FROM range(20) t(i)) TO '` + filepath.Join(dir, "sales", "year=2025", "part-0.parquet") + `' (FORMAT parquet)`,
	} {
		_, err := w.Exec(q)
		must(t, err)
	}
	return dir, outside
}

// duckFile writes a DuckDB database with a table of each kind of column,
// keys and a view.
func duckFile(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.duckdb")
	w, err := sql.Open("duckdb", path)
	must(t, err)
	for _, q := range []string{
		`CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, tags VARCHAR[], address STRUCT(city VARCHAR, zip VARCHAR))`,
		`COMMENT ON TABLE customers IS 'People who bought something'`,
		`CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), total DECIMAL(10,2), placed TIMESTAMP)`,
		`INSERT INTO customers VALUES (1, 'Ada', ['vip'], {'city': 'London', 'zip': 'N1'}), (2, 'Linus', [], {'city': 'Helsinki', 'zip': '00100'})`,
		`INSERT INTO orders VALUES (10, 1, 12.50, '2024-01-02 03:04:05'), (11, 1, 7.25, '2024-02-03 04:05:06'), (12, 2, 100.00, '2024-03-04 05:06:07')`,
		`CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 10`,
	} {
		_, err := w.Exec(q)
		must(t, err)
	}
	must(t, w.Close())
	return path
}

// open opens dsn with the DuckDB engine and closes it when the test ends.
func open(t testing.TB, dsn string, e duckdb.Engine) source.Backend {
	t.Helper()
	b, err := e.Open(context.Background(), dsn, source.Config{Limits: sqlmcp.Limits{}.WithDefaults(), MaxConns: 4})
	must(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

// run runs one statement through the backend's door (guard, prepare
// check, sandbox) and returns its rows.
func run(ctx context.Context, b source.Backend, st source.Statement) ([]source.Column, [][]any, error) {
	c, err := b.Acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	var cols []source.Column
	var rows [][]any
	err = c.Run(ctx, st, source.Sink{
		Columns: func(cs []source.Column) { cols = cs },
		Row: func(r []any) bool {
			rows = append(rows, append([]any(nil), r...))
			return st.Fetch == 0 || len(rows) < st.Fetch
		},
	})
	return cols, rows, c.Release(err)
}

// reader is the backend's door as a source.Reader.
type reader struct{ b source.Backend }

func (r reader) Catalog(ctx context.Context, sql string, args ...any) ([][]any, error) {
	_, rows, err := run(ctx, r.b, source.Statement{SQL: sql, Args: args})
	return rows, err
}

// fingerprint hashes every file under dir, by relative path.
func fingerprint(t testing.TB, dir string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	must(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		sums[rel] = hex.EncodeToString(h[:])
		return nil
	}))
	return sums
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// contains reports whether any cell of rows holds s.
func contains(rows [][]any, s string) bool {
	for _, r := range rows {
		for _, c := range r {
			if strings.Contains(toString(c), s) {
				return true
			}
		}
	}
	return false
}

func toString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(fmt.Sprint(v), "\n", " "), "\t", " "))
}

// TestMain lets the test binary stand in for sqlmcp as DuckDB's worker.
func TestMain(m *testing.M) {
	duckdb.ServeWorker()
	os.Exit(m.Run())
}
