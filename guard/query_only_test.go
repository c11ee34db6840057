package guard_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// TestOnlyQueries: statements that are not queries are refused even when
// they compile to an empty program (nothing for the authorizer to deny),
// on a database with no indexes, triggers or statistics, and on a writable
// connection, so that the guard alone must hold.
func TestOnlyQueries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bare.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1); CREATE VIEW v AS SELECT x FROM t"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	before := dbtest.Fingerprint(t, path)
	refused := []string{
		"REINDEX", "REINDEX main", "REINDEX t", "REINDEX nocase", "REINDEX binary",
		"ANALYZE", "ANALYZE main", "ANALYZE t", "PRAGMA optimize",
		"VACUUM", "VACUUM main",
		"PRAGMA no_such_pragma", "PRAGMA no_such_pragma = 1", "PRAGMA main.no_such_pragma",
		"PRAGMA table_info(t)", "PRAGMA schema_version",
		"DETACH main", "DETACH no_such_db",
		"SAVEPOINT s", "RELEASE s", "RELEASE SAVEPOINT s", "ROLLBACK TO s", "ROLLBACK",
		"BEGIN", "BEGIN DEFERRED", "BEGIN IMMEDIATE", "BEGIN EXCLUSIVE TRANSACTION", "COMMIT", "END",
		"CREATE TABLE IF NOT EXISTS t(y)", "CREATE TABLE IF NOT EXISTS t AS SELECT 1",
		"CREATE VIEW IF NOT EXISTS v AS SELECT 1", "CREATE TEMP VIEW IF NOT EXISTS v AS SELECT 1",
		"CREATE TRIGGER IF NOT EXISTS v_tr INSTEAD OF INSERT ON v BEGIN SELECT 1; END",
		"CREATE INDEX IF NOT EXISTS i ON t(x)",
		"DROP TABLE IF EXISTS no_such_table", "DROP VIEW IF EXISTS no_such_view",
		"DROP INDEX IF EXISTS no_such_index", "DROP TRIGGER IF EXISTS no_such_trigger",
		"EXPLAIN REINDEX", "EXPLAIN QUERY PLAN REINDEX", "EXPLAIN VACUUM", "EXPLAIN ANALYZE",
		"EXPLAIN DROP TABLE IF EXISTS no_such_table", "EXPLAIN QUERY PLAN BEGIN", "EXPLAIN PRAGMA no_such_pragma",
		"DELETE FROM t WHERE 0", "UPDATE t SET x = x WHERE 0", "INSERT INTO t SELECT 1 WHERE 0",
		"WITH c AS (SELECT 1) DELETE FROM t WHERE 0",
		"ATTACH ':memory:' AS m",
	}
	accepted := []string{
		"SELECT 1", "VALUES (1), (2)", "SELECT x FROM t", "SELECT * FROM v",
		"WITH c(n) AS (SELECT 1) SELECT n FROM c", "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT n FROM c",
		"SELECT 1 UNION SELECT 2", "SELECT (SELECT max(x) FROM t)",
		"EXPLAIN SELECT x FROM t", "EXPLAIN QUERY PLAN SELECT x FROM t WHERE x = 1",
		"SELECT * FROM pragma_table_info('t')", "SELECT 1;",
	}
	withGuardOn(t, path, func(g *guard.SQLite, _ *sqlite3.SQLiteConn) {
		for _, q := range refused {
			t.Run("refused "+q, func(t *testing.T) {
				st, err := g.Prepare(q)
				if err == nil {
					st.Close()
					t.Fatalf("accepted %q", q)
				}
				// Either the guard refuses it, saying why, or the engine
				// cannot compile it at all (REINDEX main: no such object).
				var ge *guard.Error
				if errors.As(err, &ge) && !strings.Contains(ge.Reason, "not a query") && !strings.Contains(ge.Reason, "not allowed") {
					t.Errorf("reason %q does not say why", ge.Reason)
				}
			})
		}
		for _, q := range accepted {
			t.Run("accepted "+q, func(t *testing.T) {
				st, err := g.Prepare(q)
				if err != nil {
					t.Fatalf("refused %q: %v", q, err)
				}
				st.Close()
			})
		}
	})
	if dbtest.Fingerprint(t, path) != before {
		t.Error("the database file changed")
	}
}
