package sqlite_test

import (
	"database/sql"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// sqliteRunaway reads the fixture for as long as the timeout lets it.
const sqliteRunaway = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1e12) SELECT count(*) FROM c, customers"

// sqliteWriter opens path for writing as another application would, with
// no busy timeout: a lock makes its write fail at once.
func sqliteWriter(t *testing.T, path, journal string) *sql.DB {
	t.Helper()
	w, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	w.SetMaxOpenConns(1)
	if _, err := w.Exec("PRAGMA journal_mode=" + journal); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestSQLiteLiveFile: on a file another connection writes, in WAL mode a
// write during a long sqlmcp read goes through at once and the next call
// sees it, and sqlmcp says nothing at start; in rollback-journal mode the
// same write fails while the read runs, and sqlmcp warns at start.
func TestSQLiteLiveFile(t *testing.T) {
	for _, c := range []struct {
		journal    string
		writerWins bool
	}{{"wal", true}, {"delete", false}} {
		t.Run(c.journal, func(t *testing.T) {
			path := dbtest.SQLiteFile(t)
			w := sqliteWriter(t, path, c.journal)
			db := dbtest.Open(t, path, &source.Options{Limits: sqlmcp.Limits{Timeout: time.Second}})
			var warning string
			for _, w := range db.Warnings() {
				if w.Event == "journal" {
					warning = w.Message
				}
			}
			if c.writerWins != (warning == "") {
				t.Errorf("journal %s: warning %q", c.journal, warning)
			}
			if warning != "" && !strings.Contains(warning, "WAL") {
				t.Errorf("the warning %q does not say WAL avoids it", warning)
			}
			done := make(chan error, 1)
			go func() {
				_, err := db.Query(t.Context(), sqliteRunaway, 0)
				done <- err
			}()
			time.Sleep(300 * time.Millisecond) // the read is under way
			_, werr := w.Exec("INSERT INTO customers (name, email) VALUES ('Live Writer', 'live@example.com')")
			if err := <-done; !errors.As(err, new(*source.TimeoutError)) {
				t.Fatalf("the long read: %v, want the timeout", err)
			}
			if c.writerWins != (werr == nil) {
				t.Fatalf("journal %s: the write during the read: %v", c.journal, werr)
			}
			if !c.writerWins {
				return
			}
			res, err := db.Query(t.Context(), "SELECT count(*) FROM customers WHERE name = 'Live Writer'", 0)
			if err != nil || res.Rows[0][0] != int64(1) {
				t.Errorf("after the commit: %v %v, want the new row", res, err)
			}
		})
	}
}

// TestSQLiteReplacedFile: a new export renamed over the file sqlmcp reads
// is noticed at the next call and read from then on.
func TestSQLiteReplacedFile(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	db := dbtest.Open(t, path, nil)
	count := func() any {
		t.Helper()
		res, err := db.Query(t.Context(), "SELECT count(*) FROM customers", 0)
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0]
	}
	before := count()
	next := dbtest.SQLiteFile(t)
	w := sqliteWriter(t, next, "delete")
	if _, err := w.Exec("INSERT INTO customers (name) VALUES ('New Export')"); err != nil {
		t.Fatal(err)
	}
	var want int64
	w.QueryRow("SELECT count(*) FROM customers").Scan(&want)
	w.Close()
	if want == before.(int64) {
		t.Fatalf("the new export has as many rows as the old (%d)", want)
	}
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != want {
		t.Errorf("after the replacement: %v customers, want the new file's %d", got, want)
	}
}
