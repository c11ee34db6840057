package schema_test

import (
	"database/sql"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// TestRowCountNoticesWrites checks that a cached row count is never served
// after another writer changed the table: in rollback-journal mode and in
// WAL mode, for several commits in a row (faster than the file clock
// ticks), and after a checkpoint starts the log over.
func TestRowCountNoticesWrites(t *testing.T) {
	for _, mode := range []string{"delete", "wal"} {
		t.Run(mode, func(t *testing.T) {
			path := dbtest.SQLiteFile(t)
			w, err := sql.Open("sqlite3", path)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			w.SetMaxOpenConns(1)
			exec := func(q string) {
				t.Helper()
				if _, err := w.ExecContext(t.Context(), q); err != nil {
					t.Fatal(err)
				}
			}
			exec("PRAGMA journal_mode = " + mode)
			exec("CREATE TABLE n (x INTEGER)")
			cat := fixtureCatalog(t, path, nil)
			count := func() int64 {
				t.Helper()
				tb, err := cat.Table(t.Context(), "n")
				if err != nil {
					t.Fatal(err)
				}
				n, exact, ok := cat.RowCount(t.Context(), tb)
				if !ok || !exact {
					t.Fatalf("RowCount: ok %v, exact %v, want an exact count", ok, exact)
				}
				return n
			}
			for i := int64(1); i <= 20; i++ {
				exec("INSERT INTO n VALUES (1)")
				if got := count(); got != i {
					t.Fatalf("after %d inserts: count %d, want %d", i, got, i)
				}
				if got := count(); got != i { // the cached count
					t.Fatalf("after %d inserts, counted again: %d, want %d", i, got, i)
				}
				if i%7 == 0 && mode == "wal" {
					exec("PRAGMA wal_checkpoint(TRUNCATE)")
				}
			}
			exec("DELETE FROM n")
			if got := count(); got != 0 {
				t.Errorf("after deleting every row: count %d, want 0", got)
			}
		})
	}
}
