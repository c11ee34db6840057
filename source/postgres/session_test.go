package postgres_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/postgres"
)

// pgLexProbe is a string and a comment when backslashes are plain
// characters in '...' (standard_conforming_strings on, as the guard
// reads it), and a call to pg_advisory_lock when they escape.
const pgLexProbe = `SELECT 'a\' -- ', pg_advisory_lock(4400) --`

// pgAdvisoryLocks lists the advisory locks held in database name, as
// "objid/mode", seen from admin's own session.
func pgAdvisoryLocks(t *testing.T, dsn string) []string {
	t.Helper()
	admin := dbtest.PostgresConn(t, dsn)
	return pgAdminQuery(t, admin, `SELECT l.objid || '/' || l.mode FROM pg_locks l JOIN pg_database d ON d.oid = l.database
		WHERE l.locktype = 'advisory' AND d.datname = $1 ORDER BY 1`, pgDatabase(t, dsn))
}

// TestPostgresLexesAsGuard: whatever the role, the database or the URL
// ask for, every connection has standard_conforming_strings on, so the
// server reads the probe as the guard does: one string, no lock taken.
func TestPostgresLexesAsGuard(t *testing.T) {
	base := dbtest.PostgresDSN(t)
	name := pgDatabase(t, base)
	_, roleDSN := pgRole(t, base, `CREATE ROLE {{role}} LOGIN; ALTER ROLE {{role}} SET standard_conforming_strings = off;
		ALTER ROLE {{role}} SET backslash_quote = off`)
	withOptions := func(dsn string) string {
		return dsn + "&options=-c%20standard_conforming_strings%3Doff%20-c%20backslash_quote%3Don"
	}
	tests := []struct {
		name, dsn, setup string
	}{
		{"role setting", roleDSN, ""},
		{"database setting", base, "ALTER DATABASE " + name + " SET standard_conforming_strings = off"},
		{"URL options", withOptions(base), ""},
		{"URL options and role setting", withOptions(roleDSN), ""},
		{"URL parameter", base + "&standard_conforming_strings=off", ""},
		{"URL client encoding", base + "&client_encoding=SJIS&options=-c%20client_encoding%3DBIG5", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != "" {
				dbtest.PostgresExec(t, base, tt.setup)
				t.Cleanup(func() { dbtest.PostgresExec(t, base, "ALTER DATABASE "+name+" RESET ALL") })
			}
			db := dbtest.Open(t, tt.dsn, &source.Options{MaxConns: 1})
			res, err := db.Query(t.Context(), pgLexProbe, 0)
			if err != nil {
				t.Fatalf("the probe: %v", err)
			}
			if got := res.Rows; !cmp.Equal(got, [][]any{{`a\`}}) {
				t.Errorf("the probe returned %v, want the one string a\\", got)
			}
			if got := pgAdvisoryLocks(t, base); len(got) != 0 {
				t.Errorf("advisory locks held: %v", got)
			}
			res, err = db.Query(t.Context(), `SELECT current_setting('standard_conforming_strings'), current_setting('backslash_quote')`, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.Rows, [][]any{{"on", "safe_encoding"}}; !cmp.Equal(got, want) {
				t.Errorf("settings %v, want %v", got, want)
			}
		})
	}
}

// TestPostgresLexingChangedMidLife: a connection whose server reports
// standard_conforming_strings off is refused and closed, and the next
// call gets a fresh one.
func TestPostgresLexingChangedMidLife(t *testing.T) {
	db := dbtest.Postgres(t, &source.Options{MaxConns: 1})
	if err := postgres.ConnExec(t.Context(), db, "SET standard_conforming_strings = off"); err != nil {
		t.Fatal(err)
	}
	_, err := db.Query(t.Context(), pgLexProbe, 0)
	if err == nil || !strings.Contains(err.Error(), "refusing the call: the server reports standard_conforming_strings = off") {
		t.Fatalf("got %v, want the call refused", err)
	}
	res, err := db.Query(t.Context(), pgLexProbe, 0)
	if err != nil || !cmp.Equal(res.Rows, [][]any{{`a\`}}) {
		t.Fatalf("the next call: %v, %v", res, err)
	}
}

// TestPostgresRefusesOtherEncodings: a database in another encoding than
// UTF8 would fold and cut names differently from the guard: Open refuses
// it and says why.
func TestPostgresRefusesOtherEncodings(t *testing.T) {
	base := dbtest.PostgresDSN(t)
	name := pgDatabase(t, base) + "_latin1"
	dbtest.PostgresExec(t, base, "CREATE DATABASE "+name+" ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
	t.Cleanup(func() { dbtest.PostgresExec(t, base, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	u, _ := url.Parse(base)
	u.Path = "/" + name
	db, err := source.Open(t.Context(), u.String(), dbtest.Options(nil))
	if err == nil {
		db.Close()
		t.Fatal("Open accepted a LATIN1 database")
	}
	for _, want := range []string{"refusing to start", "server_encoding = LATIN1", "ENCODING 'UTF8'"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %q, want it to say %q", err, want)
		}
	}
}

// TestPostgresNothingSurvivesACall: session state a statement leaves
// behind, through every route there is (with the guard switched off, so
// the engine wall and the reset stand alone), is gone before the next call
// on the same pooled connection, whether the call succeeded, failed, timed
// out or was cancelled; the startup parameters survive the reset.
func TestPostgresNothingSurvivesACall(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	role, _ := pgRole(t, dsn, `CREATE ROLE {{role}} NOLOGIN`)
	db := dbtest.Open(t, dsn, &source.Options{MaxConns: 1, Limits: sqlmcp.Limits{Timeout: time.Second}})
	admin := dbtest.PostgresConn(t, dsn)
	name := pgDatabase(t, dsn)
	// state reads, on the next call, what any route could have left.
	const state = `SELECT (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()),
		(SELECT count(*) FROM pg_listening_channels()),
		(SELECT count(*) FROM pg_prepared_statements),
		(SELECT count(*) FROM pg_cursors),
		(SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema()),
		current_user = session_user,
		current_setting('work_mem'),
		current_setting('search_path'),
		current_setting('TimeZone'),
		current_setting('standard_conforming_strings'),
		current_setting('application_name')`
	fresh, err := postgres.RunEngineOnly(t.Context(), db, state, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fresh[0][8] != "UTC" || fresh[0][9] != "on" || fresh[0][10] != "sqlmcp" {
		t.Fatalf("a fresh connection: %v", fresh)
	}
	tests := []struct {
		name, sql string
		cancel    bool // the caller gives up after 200ms
	}{
		{"session advisory lock", "SELECT pg_advisory_lock(4501)", false},
		{"shared session advisory lock", "SELECT pg_advisory_lock_shared(4502)", false},
		{"transaction advisory lock", "SELECT pg_advisory_xact_lock(4503)", false},
		{"lock then an error", "SELECT pg_advisory_lock(4504), 1 / (length(version()) - length(version()))", false},
		{"lock then an error after rows", "SELECT pg_advisory_lock(4505 + x), 1 / (x - 2) FROM generate_series(1, 3) AS x", false},
		{"lock then the timeout", "SELECT pg_advisory_lock(4510), pg_sleep(5)", false},
		{"lock then a cancel", "SELECT pg_advisory_lock(4511), pg_sleep(5)", true},
		{"LISTEN", "LISTEN sqlmcp_channel", false},
		{"PREPARE", "PREPARE sqlmcp_p AS SELECT 1", false},
		{"cursor WITH HOLD", "DECLARE sqlmcp_c CURSOR WITH HOLD FOR SELECT 1", false},
		{"temporary table", "CREATE TEMP TABLE sqlmcp_t AS SELECT 1 AS x", false},
		{"session settings", "SELECT set_config('work_mem', '1234kB', false), set_config('search_path', 'pg_temp', false), set_config('TimeZone', 'Asia/Tokyo', false)", false},
		{"standard_conforming_strings off", "SELECT set_config('standard_conforming_strings', 'off', false)", false},
		{"SET ROLE", "SELECT set_config('role', '" + role + "', false)", false},
		{"SET SESSION AUTHORIZATION", "SELECT set_config('session_authorization', '" + role + "', false)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.cancel {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 200*time.Millisecond)
				defer cancel()
			}
			_, err := postgres.RunEngineOnly(ctx, db, tt.sql, 0)
			t.Logf("the call: %v", err)
			if got := pgAdvisoryLocks(t, dsn); len(got) != 0 {
				t.Errorf("advisory locks held after the call: %v", got)
			}
			if got := pgAdminQuery(t, admin, `SELECT state FROM pg_stat_activity WHERE application_name = 'sqlmcp' AND datname = $1`, name); !cmp.Equal(got, []string{"idle"}) {
				t.Errorf("sqlmcp's backends are %v, want one idle", got)
			}
			got, err := postgres.RunEngineOnly(t.Context(), db, state, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fresh, got); diff != "" {
				t.Errorf("the next call's session differs from a fresh one (-fresh +got):\n%s", diff)
			}
		})
	}
}
