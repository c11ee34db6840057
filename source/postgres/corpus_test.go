package postgres_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/postgres"
)

// pgState is what a hostile statement could have changed.
type pgState struct {
	Rows      string // row counts of the fixture's tables
	Objects   string // relations, functions, types, roles, databases
	Sequences string
	Locks     []string // held by sqlmcp's backends
	Advisory  string
	Busy      []string // sqlmcp's backends not idle
	Session   string   // settings, prepared statements, cursors, LISTEN on sqlmcp's connection
}

// pgSnapshot reads the state from the admin connection, and the session's
// through db itself: the next call on the same pooled connection.
func pgSnapshot(t *testing.T, db *source.DB, admin *pgx.Conn, name string) pgState {
	t.Helper()
	one := func(sql string, args ...any) string { return strings.Join(pgAdminQuery(t, admin, sql, args...), "\n") }
	// pg_settings is refused to a superuser's statements (the reserved
	// settings); a view of the test's own reads the session's through the
	// same connection, since the guard leaves views to their owner.
	pgAdminQuery(t, admin, `CREATE OR REPLACE VIEW sqlmcp_session_settings AS
		SELECT name, setting, source FROM pg_catalog.pg_settings`)
	var s pgState
	s.Rows = one(`SELECT concat_ws(' ', (SELECT count(*) FROM customers), (SELECT count(*) FROM products),
		(SELECT count(*) FROM "order"), (SELECT count(*) FROM "Order Items"), (SELECT count(*) FROM drop_log),
		(SELECT count(*) FROM "SchoolStats"), (SELECT count(*) FROM types),
		(SELECT string_agg(name, ',' ORDER BY id) FROM customers))`)
	s.Objects = one(`SELECT concat_ws(' ', (SELECT count(*) FROM pg_class), (SELECT count(*) FROM pg_proc),
		(SELECT count(*) FROM pg_type),
		-- Other test packages create and drop their own databases and roles
		-- on the same server at the same time: count the rest.
		(SELECT count(*) FROM pg_roles WHERE rolname NOT LIKE 'sqlmcp\_ro\_%'),
		(SELECT count(*) FROM pg_database WHERE datname NOT LIKE 'sqlmcp\_test\_%'),
		(SELECT count(*) FROM pg_namespace), (SELECT count(*) FROM pg_largeobject_metadata))`)
	s.Sequences = one(`SELECT string_agg(sequencename || '=' || coalesce(last_value::text, 'unused'), ' ' ORDER BY sequencename) FROM pg_sequences`)
	s.Locks = pgAdminQuery(t, admin, `SELECT l.locktype || ' ' || l.mode FROM pg_locks AS l
		JOIN pg_stat_activity AS a ON a.pid = l.pid
		WHERE a.application_name = 'sqlmcp' AND a.datname = $1 AND l.locktype <> 'virtualxid'`, name)
	s.Advisory = one(`SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'`)
	var busy []string
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		busy = pgAdminQuery(t, admin, `SELECT state || ': ' || query FROM pg_stat_activity
			WHERE application_name = 'sqlmcp' AND datname = $1 AND state <> 'idle'`, name)
		if len(busy) == 0 || time.Now().After(deadline) {
			break
		}
	}
	s.Busy = busy
	rows, err := db.Catalog(t.Context(), `SELECT concat_ws(' ',
		current_setting('default_transaction_read_only'), current_setting('search_path'),
		current_setting('role'), current_user, session_user,
		(SELECT string_agg(name || '=' || setting, ',' ORDER BY name) FROM sqlmcp_session_settings
			WHERE source NOT IN ('default', 'override', 'configuration file')
				AND name NOT IN ('statement_timeout', 'idle_in_transaction_session_timeout',
					'DateStyle', 'IntervalStyle', 'bytea_output', 'extra_float_digits', 'transaction_read_only')),
		(SELECT count(*) FROM pg_prepared_statements), (SELECT count(*) FROM pg_cursors),
		(SELECT count(*) FROM pg_listening_channels() AS c))`)
	if err != nil {
		t.Fatalf("the next call on the same connection: %v", err)
	}
	s.Session, _ = rows[0][0].(string)
	return s
}

// TestPostgresDoorRefusesHostile runs every hostile statement through the
// door on one pooled connection; after each, that connection's next call
// and the server must show nothing changed.
func TestPostgresDoorRefusesHostile(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, &source.Options{MaxConns: 1, Limits: sqlmcp.Limits{Timeout: 5 * time.Second}})
	admin := dbtest.PostgresConn(t, dsn)
	name := pgDatabase(t, dsn)
	dir := t.TempDir()
	// With dblink there, a second connection could write whatever the
	// first one's transaction says: the guard must stop it.
	pgTryExtension(t, admin, "dblink")
	files := pgServerFiles(t)
	want := pgSnapshot(t, db, admin, name)
	if len(want.Busy) != 0 || len(want.Locks) != 0 || want.Advisory != "0" {
		t.Fatalf("not clean to start with: %+v", want)
	}
	for _, c := range dbtest.HostilePostgres {
		t.Run(c.Name, func(t *testing.T) {
			if _, err := db.Query(t.Context(), c.Expand(dir), 0); err == nil {
				t.Errorf("ran %.80q", c.SQL)
			}
			if diff := cmp.Diff(want, pgSnapshot(t, db, admin, name)); diff != "" {
				t.Errorf("after %.80q (-before +after):\n%s", c.SQL, diff)
			}
		})
	}
	dbtest.AssertEmptyDir(t, dir)
	if got := pgServerFiles(t); !cmp.Equal(got, files) {
		t.Errorf("files the corpus names changed on the server's host: %v, were %v", got, files)
	}
}

// pgTryExtension installs extension in the database conn is on, and
// reports whether it could.
func pgTryExtension(t *testing.T, conn *pgx.Conn, extension string) bool {
	t.Helper()
	_, err := conn.Exec(t.Context(), "CREATE EXTENSION IF NOT EXISTS "+extension)
	if err != nil {
		t.Logf("no %s here: %v", extension, err)
	}
	return err == nil
}

// pgServerFiles reports which of the files the hostile corpus names exist,
// when the server runs on this host.
func pgServerFiles(t *testing.T) map[string]bool {
	t.Helper()
	found := map[string]bool{}
	for _, c := range dbtest.HostilePostgres {
		for _, part := range strings.Split(c.SQL, "'")[1:] {
			if strings.HasPrefix(part, "/tmp/") {
				_, err := os.Stat(part)
				found[part] = err == nil
			}
		}
	}
	return found
}

// TestPostgresDoorRunsReads runs every allowed statement; those named
// "pg17:" need PostgreSQL 17, and "pg_trgm:" that extension.
func TestPostgresDoorRunsReads(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, nil)
	rows, err := db.Catalog(t.Context(), "SELECT current_setting('server_version_num')::integer")
	if err != nil {
		t.Fatal(err)
	}
	version, _ := rows[0][0].(int64)
	trgm := pgTryExtension(t, dbtest.PostgresConn(t, dsn), "pg_trgm")
	for _, c := range dbtest.AllowedPostgres {
		t.Run(c.Name, func(t *testing.T) {
			if strings.HasPrefix(c.Name, "pg17:") && version < 170000 {
				t.Skipf("needs PostgreSQL 17; the server is %d", version)
			}
			if strings.HasPrefix(c.Name, "pg_trgm:") && !trgm {
				t.Skip("needs the pg_trgm extension")
			}
			if _, err := db.Query(t.Context(), c.SQL, 0); err != nil {
				t.Errorf("%q: %v", c.SQL, err)
			}
		})
	}
}

// TestPostgresSnapshotSeesChanges checks the checker: an advisory lock
// taken on sqlmcp's pooled connection outside the door (which would
// discard it after the call) must show in the snapshot.
func TestPostgresSnapshotSeesChanges(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, &source.Options{MaxConns: 1})
	admin := dbtest.PostgresConn(t, dsn)
	name := pgDatabase(t, dsn)
	before := pgSnapshot(t, db, admin, name)
	if err := postgres.ConnExec(t.Context(), db, "SELECT pg_advisory_lock(42)"); err != nil {
		t.Fatal(err)
	}
	after := pgSnapshot(t, db, admin, name)
	if after.Advisory != "1" || len(after.Locks) != 1 || cmp.Equal(before, after) {
		t.Errorf("the snapshot missed a session advisory lock: %+v", after)
	}
	if err := postgres.ConnExec(t.Context(), db, "SELECT pg_advisory_unlock(42)"); err != nil {
		t.Fatal(err)
	}
	dbtest.PostgresExec(t, dsn, "INSERT INTO drop_log VALUES (3, 'x', NULL)")
	if got := pgSnapshot(t, db, admin, name); got.Rows == before.Rows {
		t.Errorf("the snapshot missed a new row: %+v", got)
	}
}

// TestPostgresEngineWallAloneCorpus runs every hostile statement that
// would write, with the guard bypassed, as the read-only role
// ReadOnlyRoleSQL creates: the READ ONLY transaction on the extended
// protocol, and the role for files and other servers, must stop each one.
func TestPostgresEngineWallAloneCorpus(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	admin := dbtest.PostgresConn(t, dsn)
	name := pgDatabase(t, dsn)
	pgTryExtension(t, admin, "dblink")
	sql := postgres.ReadOnlyRoleSQL("{{role}}", name, "public")
	_, roleDSN := pgRole(t, dsn, strings.ReplaceAll(sql, `"{{role}}"`, "{{role}}"))
	db := dbtest.Open(t, roleDSN, &source.Options{MaxConns: 1, Limits: sqlmcp.Limits{Timeout: 5 * time.Second}})
	dir := t.TempDir()
	files := pgServerFiles(t)
	want := pgSnapshot(t, db, admin, name)
	// Statements the engine runs, to no lasting effect: the snapshot
	// after the loop still must not change.
	rolledBack := map[string]string{
		"analyze": "ANALYZE is allowed in a READ ONLY transaction (a non-owner gets a warning); statistics go with the rollback",
	}
	for _, c := range dbtest.HostilePostgres {
		if c.Harmless {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			_, err := postgres.RunEngineOnly(t.Context(), db, c.Expand(dir), 0)
			switch why, ok := rolledBack[c.Name]; {
			case err == nil && ok:
				t.Log(why)
			case err == nil:
				t.Errorf("the engine ran a write attempt: %.80q", c.SQL)
			}
		})
	}
	if diff := cmp.Diff(want, pgSnapshot(t, db, admin, name)); diff != "" {
		t.Errorf("(-before +after):\n%s", diff)
	}
	dbtest.AssertEmptyDir(t, dir)
	if got := pgServerFiles(t); !cmp.Equal(got, files) {
		t.Errorf("files the corpus names changed on the server's host: %v, were %v", got, files)
	}
}
