package duckdb_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
)

// TestWritesToServedFiles pins down the one write DuckDB's settings do
// not stop: a file DuckDB may read (allowed_paths, the database file it
// opened) it may also overwrite, since its check of a path ignores
// whether the file is opened to read or to write. Through the door the
// guard refuses it and, with the guard off, the engine's statement check
// does; straight to the locked instance, DuckDB writes. If this test
// starts failing there, DuckDB has closed the gap: say so in the README.
func TestWritesToServedFiles(t *testing.T) {
	dir, _ := fixture(t)
	dbFile := duckFile(t)
	folder := open(t, dir, duckdb.Engine{})
	database := open(t, dbFile, duckdb.Engine{})
	for _, tc := range []struct {
		name string
		b    source.Backend
		path string
	}{
		{"a served CSV file", folder, filepath.Join(dir, "people.csv")},
		{"a Parquet file of a partitioned folder", folder, filepath.Join(dir, "sales", "year=2024", "part-0.parquet")},
		{"the DuckDB database file", database, dbFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			copyOver := "COPY (SELECT 'overwritten' AS a) TO " + quoteLit(tc.path) + " (USE_TMP_FILE false)"
			before, err := os.ReadFile(tc.path)
			must(t, err)
			_, _, err = run(t.Context(), tc.b, source.Statement{SQL: copyOver})
			var ge *guard.Error
			if !errors.As(err, &ge) {
				t.Errorf("the guard let COPY over it through: %v", err)
			}
			if _, err := duckdb.RunUnguarded(t.Context(), tc.b, copyOver); err == nil {
				t.Error("the engine's statement check let COPY over it through")
			}
			// DuckDB's own temporary file beside the target is not an
			// allowed path, so a plain COPY fails there.
			if _, err := duckdb.RawQuery(t.Context(), tc.b, "COPY (SELECT 1 AS a) TO "+quoteLit(tc.path)); err == nil {
				t.Error("COPY through a temporary file beside a served file ran")
			}
			after, err := os.ReadFile(tc.path)
			must(t, err)
			if !bytes.Equal(before, after) {
				t.Fatal("the file changed before the sandbox was tried alone")
			}
			if _, err := duckdb.RawQuery(t.Context(), tc.b, copyOver); err != nil {
				t.Fatalf("DuckDB's settings alone now refuse COPY over a file they let be read (%v): the gap is closed; update the README's safety section", err)
			}
			after, err = os.ReadFile(tc.path)
			must(t, err)
			if !bytes.Contains(after, []byte("overwritten")) {
				t.Errorf("COPY ran but the file holds %.40q", after)
			}
		})
	}
	// The report says which files are writable by sqlmcp's user.
	for b, want := range map[source.Backend]string{
		folder:   "files: 5 served, the only paths DuckDB may open beside sqlmcp's own catalog and spill folder; 5 of them writable by sqlmcp's user: ",
		database: "files: the database file alone, opened read-only; writable by sqlmcp's user: ",
	} {
		g := b.Info().Guard
		if line := g[len(g)-1]; !strings.HasPrefix(line, want) {
			t.Errorf("the report's last line is %q; want it to start %q", line, want)
		}
	}
}

func quoteLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
