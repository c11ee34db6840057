package sqlite_test

import (
	"context"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source/sqlite"
)

// TestEngineWallAlone runs every hostile statement with the guard off,
// through database/sql's Exec, which runs every statement in the string:
// the read-only engine must stop each write on its own.
func TestEngineWallAlone(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	want := dbtest.Fingerprint(t, path)
	dir := t.TempDir()
	for _, c := range dbtest.HostileSQLite {
		t.Run(c.Name, func(t *testing.T) {
			db, err := sqlite.OpenEngineOnly(path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			_, err = db.ExecContext(context.Background(), c.Expand(dir))
			if err == nil && !c.Harmless {
				t.Errorf("the engine ran a write attempt: %.80q", c.SQL)
			}
		})
	}
	if got := dbtest.Fingerprint(t, path); got != want {
		t.Error("the database file changed")
	}
	dbtest.AssertEmptyDir(t, dir)
}
