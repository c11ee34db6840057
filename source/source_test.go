package source_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

func TestDoorRefusesHostile(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	want := dbtest.Fingerprint(t, path)
	db := dbtest.Open(t, path, nil)
	dir := t.TempDir()
	for _, c := range dbtest.HostileSQLite {
		t.Run(c.Name, func(t *testing.T) {
			if _, err := db.Query(t.Context(), c.Expand(dir), 0); err == nil {
				t.Errorf("ran %.80q", c.SQL)
			}
		})
	}
	if got := dbtest.Fingerprint(t, path); got != want {
		t.Error("the database file changed")
	}
	dbtest.AssertEmptyDir(t, dir)
}

func TestDoorRunsReads(t *testing.T) {
	db := dbtest.SQLite(t, nil)
	for _, c := range dbtest.AllowedSQLite {
		t.Run(c.Name, func(t *testing.T) {
			if _, err := db.Query(t.Context(), c.SQL, 0); err != nil {
				t.Errorf("%q: %v", c.SQL, err)
			}
		})
	}
}

func TestQueryValues(t *testing.T) {
	db := dbtest.SQLite(t, &source.Options{Limits: sqlmcp.Limits{MaxCellBytes: 8}})
	res, err := db.Query(t.Context(), `SELECT c.id, c.joined, p.price, p.photo, p.name, NULL AS none_here
		FROM customers c JOIN products p ON p.id = c.id WHERE c.id IN (1, 3) ORDER BY c.id`, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []source.Column{{Name: "id", Type: "INTEGER"}, {Name: "joined", Type: "DATE"}, {Name: "price", Type: "DECIMAL(10,2)"}, {Name: "photo", Type: "BLOB"}, {Name: "name", Type: "TEXT"}, {Name: "none_here", Type: ""}}
	if diff := cmp.Diff(wantCols, res.Columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	want := [][]any{
		{int64(1), "2021-03-…[cut: 10 bytes in all]", 29.5, "<blob 25 bytes: x'89504e470d0a1a0a0000000d49484452'…>", "SQL for …[cut: 15 bytes in all]", nil},
		{int64(3), "N/A", 42.25, nil, "Robot", nil},
	}
	if diff := cmp.Diff(want, res.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if res.Truncated {
		t.Error("truncated, want whole")
	}
}

// TestQueryColumnNamesCut: a column named by 100 KB of the query's
// text (an expression's name is its text on SQLite, an alias anywhere)
// comes cut, with the marker, as a long text cell does.
func TestQueryColumnNamesCut(t *testing.T) {
	long := strings.Repeat("a", 100_000) // PostgreSQL keeps 63 bytes of a name itself
	for _, e := range dbtest.All(t, nil) {
		t.Run(e.Name, func(t *testing.T) {
			res, err := e.DB.Query(t.Context(), `SELECT 1 AS "`+long+`", 2 AS short`, 0)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(res.Columns[0].Name); n > 300 || n > 63 && !strings.Contains(res.Columns[0].Name, "cut") {
				t.Errorf("the long name came as %d bytes: %.80q", n, res.Columns[0].Name)
			}
			if res.Columns[1].Name != "short" {
				t.Errorf("the short name came as %q", res.Columns[1].Name)
			}
		})
	}
}

// TestQueryCuts: on both engines, a result is cut by rows or by bytes,
// exactly, and the cut keeps the query's order.
func TestQueryCuts(t *testing.T) {
	const ten = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 10) SELECT x, 'abcdef' FROM n"
	tests := []struct {
		name    string
		sql     string
		maxRows int
		rows    int
		by      string
	}{
		{"cut by bytes", ten, 10, 4, "bytes"},
		{"exactly the cap", "SELECT 1 UNION ALL SELECT 2", 2, 2, ""},
		{"one past the cap", "SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3", 2, 2, "rows"},
		{"rows before bytes", ten, 3, 3, "rows"},
	}
	for _, e := range dbtest.All(t, &source.Options{Limits: sqlmcp.Limits{MaxBytes: 60}}) {
		t.Run(e.Name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					res, err := e.DB.Query(t.Context(), tt.sql, tt.maxRows)
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Rows) != tt.rows || res.TruncatedBy != tt.by || res.Truncated != (tt.by != "") {
						t.Errorf("got %d rows, truncated %v by %q; want %d rows by %q", len(res.Rows), res.Truncated, res.TruncatedBy, tt.rows, tt.by)
					}
				})
			}
			res, err := e.DB.Query(t.Context(), ten+" ORDER BY x DESC", 2)
			if err != nil || len(res.Rows) == 0 || res.Rows[0][0] != int64(10) {
				t.Errorf("ORDER BY kept through the cut: got %v, %v; want 10 first", res, err)
			}
			if _, err := e.DB.Query(t.Context(), "SELECT 1", 5000); err == nil || !strings.Contains(err.Error(), "more than this server allows") {
				t.Errorf("max_rows over the limit: got %v", err)
			}
		})
	}
}

func TestQueryTimeoutStopsTheEngine(t *testing.T) {
	db := dbtest.SQLite(t, &source.Options{Limits: sqlmcp.Limits{Timeout: 200 * time.Millisecond}})
	_, err := db.Query(t.Context(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1e12) SELECT count(*) FROM c", 0)
	var te *source.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a timeout", err)
	}
	// The connection is still good afterwards.
	if _, err := db.Query(t.Context(), "SELECT 1", 0); err != nil {
		t.Fatal(err)
	}
}

func TestQueryCancel(t *testing.T) {
	db := dbtest.SQLite(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := db.Query(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want cancelled", err)
	}
}

func TestQueryRefusalIsGuardError(t *testing.T) {
	db := dbtest.SQLite(t, nil)
	_, err := db.Query(t.Context(), "DELETE FROM customers", 0)
	var ge *guard.Error
	if !errors.As(err, &ge) {
		t.Fatalf("got %T %v, want *guard.Error", err, err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := dir + "/notes.txt"
	if err := writeFile(notDB, "hello, this is not a database"); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ dsn, want string }{
		{dir + "/missing.db", "no such database file"},
		{notDB, "is not a SQLite database"},
		{dir, "is a directory"},
		{"file:" + dir + "/x.db?mode=rw", `parameter "mode" is not supported`},
		{"", "no database given"},
		// A URL no engine reads names the engines there are and the
		// forms --db takes.
		{"sqlserver://sa:pw@127.0.0.1:1433/test", "--db sqlserver://sa@127.0.0.1:1433/test is a sqlserver:// URL, which no engine of this build reads: this build serves postgres, mysql, sqlite; --db takes:\n  postgres://USER"},
		// A mysql:// URL is the MySQL engine's: a wrong password says so,
		// without the password.
		{"mysql://root:pw-not-shown@127.0.0.1:3306/test", "access denied"},
		{"redis://127.0.0.1:6379", "PATH, sqlite:PATH or file:PATH?mode=ro"},
	}
	for _, tt := range tests {
		_, err := source.Open(t.Context(), tt.dsn, dbtest.Options(nil))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%q) = %v, want %q", tt.dsn, err, tt.want)
		}
	}
	path := dbtest.SQLiteFile(t)
	for _, dsn := range []string{"sqlite:" + path, "sqlite://" + path, "file:" + path, "file:" + path + "?mode=ro"} {
		db, err := source.Open(t.Context(), dsn, dbtest.Options(nil))
		if err != nil {
			t.Errorf("Open(%q): %v", dsn, err)
			continue
		}
		db.Close()
	}
}
