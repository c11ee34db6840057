package postgres_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/builtin"
	"github.com/sqlmcp/sqlmcp/source/postgres"
)

// pgSpill sorts about 5 MB of rows: with work_mem at 64kB it spills to
// temporary files, past a temp_file_limit of 1MB; with work_mem at 64MB it
// sorts in memory.
const pgSpill = "SELECT max(s.g) FROM (SELECT g FROM generate_series(1, 200000) AS g ORDER BY g DESC OFFSET 0) AS s"

// pgSettingsSQL reads the budgets in force inside a call.
const pgSettingsSQL = `SELECT current_setting('work_mem'), current_setting('hash_mem_multiplier'),
	current_setting('max_parallel_workers_per_gather'), current_setting('jit'),
	current_setting('client_connection_check_interval'), current_setting('temp_file_limit')`

func TestPostgresBudgets(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	admin := dbtest.PostgresConn(t, dsn)
	name := pgDatabase(t, dsn)
	small := &source.Options{MaxConns: 2, Engines: builtin.Engines(&postgres.Engine{WorkMem: "64kB", TempFileLimit: "1MB"}),
		Limits: sqlmcp.Limits{Timeout: 10 * time.Second}}
	wantTempError := func(t *testing.T, db *source.DB) {
		t.Helper()
		_, err := db.Query(t.Context(), pgSpill, 0)
		if err == nil || !strings.Contains(err.Error(), "the query needed more than 1 MB of temporary disk space (temp_file_limit)") {
			t.Errorf("the spilling sort: %v, want the temp_file_limit error", err)
		}
		assertNothingRunning(t, admin, name)
	}
	settings := func(t *testing.T, db *source.DB) string {
		t.Helper()
		res, err := db.Query(t.Context(), pgSettingsSQL, 0)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(res.Rows[0]...)
	}

	t.Run("superuser sets every budget per call", func(t *testing.T) {
		db := dbtest.Open(t, dsn, small)
		if w := warning(db, "budget"); w != "" {
			t.Errorf("BudgetWarning() = %q, want none for a superuser", w)
		}
		if got, want := settings(t, db), "64kB12off1s1MB"; got != want {
			t.Errorf("settings in a call %q, want %q", got, want)
		}
		wantTempError(t, db)
		// work_mem is what made it spill: with more, the sort stays in
		// memory and the same limit holds nothing back.
		roomy := *small
		roomy.Engines = builtin.Engines(&postgres.Engine{WorkMem: "64MB", TempFileLimit: "1MB"})
		res, err := dbtest.Open(t, dsn, &roomy).Query(t.Context(), pgSpill, 0)
		if err != nil || fmt.Sprint(res.Rows) != "[[200000]]" {
			t.Errorf("with work_mem 64MB: %v, %v; want 200000", res, err)
		}
		// The connection is clean after the error: the next call runs.
		if _, err := db.Query(t.Context(), "SELECT 1", 0); err != nil {
			t.Errorf("the next call: %v", err)
		}
	})

	t.Run("a SELECT-only role", func(t *testing.T) {
		role, roleDSN := pgRole(t, dsn, `CREATE ROLE {{role}} LOGIN;
			GRANT CONNECT ON DATABASE `+name+` TO {{role}}; GRANT USAGE ON SCHEMA public TO {{role}};
			GRANT SELECT ON ALL TABLES IN SCHEMA public TO {{role}}`)
		db := dbtest.Open(t, roleDSN, small)
		w := warning(db, "budget")
		for _, want := range []string{
			`ALTER ROLE "` + role + `" SET temp_file_limit = '1MB';`,
			`GRANT SET ON PARAMETER temp_file_limit TO "` + role + `";`,
			`ALTER SYSTEM SET temp_file_limit = '1MB';`,
		} {
			if !strings.Contains(w, want) {
				t.Errorf("BudgetWarning() = %q, want it to say %s", w, want)
			}
		}
		// Everything but temp_file_limit is set; the sort runs unbounded on
		// disk, as the warning says.
		if got, want := settings(t, db), "64kB12off1s-1"; got != want {
			t.Errorf("settings in a call %q, want %q", got, want)
		}
		if _, err := db.Query(t.Context(), pgSpill, 0); err != nil {
			t.Errorf("the spilling sort without a temp_file_limit: %v", err)
		}

		// Each fix the warning names works.
		dbtest.PostgresExec(t, dsn, `GRANT SET ON PARAMETER temp_file_limit TO "`+role+`"`)
		db = dbtest.Open(t, roleDSN, small)
		if w := warning(db, "budget"); w != "" {
			t.Errorf("after GRANT SET: BudgetWarning() = %q, want none", w)
		}
		wantTempError(t, db)
		dbtest.PostgresExec(t, dsn, `REVOKE SET ON PARAMETER temp_file_limit FROM "`+role+`";
			ALTER ROLE "`+role+`" SET temp_file_limit = '1MB'`)
		db = dbtest.Open(t, roleDSN, small)
		if w := warning(db, "budget"); w != "" {
			t.Errorf("after ALTER ROLE: BudgetWarning() = %q, want none", w)
		}
		wantTempError(t, db)
	})

	t.Run("parallel workers never above the server's", func(t *testing.T) {
		dbtest.PostgresExec(t, dsn, "ALTER DATABASE "+name+" SET max_parallel_workers_per_gather = 1")
		if got, want := settings(t, dbtest.Open(t, dsn, small)), "64kB11off1s1MB"; got != want {
			t.Errorf("settings in a call %q, want %q", got, want)
		}
	})

	t.Run("the join search bounded whatever the database says", func(t *testing.T) {
		dbtest.PostgresExec(t, dsn, "ALTER DATABASE "+name+" SET geqo = off; ALTER DATABASE "+name+" SET geqo_threshold = 20")
		res, err := dbtest.Open(t, dsn, small).Query(t.Context(), "SELECT current_setting('geqo'), current_setting('geqo_threshold')", 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(res.Rows[0]...); got != "on9" {
			t.Errorf("geqo and geqo_threshold in a call: %q, want on9", got)
		}
	})

	t.Run("bad sizes fail Open", func(t *testing.T) {
		for _, e := range []*postgres.Engine{{WorkMem: "lots"}, {WorkMem: "1kB"}, {TempFileLimit: "1 GB"}} {
			o := source.Options{Engines: builtin.Engines(e)}
			if db, err := source.Open(t.Context(), dsn, &o); err == nil {
				db.Close()
				t.Errorf("Open with %+v: no error", o)
			}
		}
	})
}

// TestPostgresPlanBomb: the doubling WITH chain is refused before it
// reaches the server at any length that could hurt it; at a length the
// server plans in a few MB it runs, and so does the same chain
// MATERIALIZED at full length.
func TestPostgresPlanBomb(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, nil)
	admin := dbtest.PostgresConn(t, dsn)
	chain := func(n int, mat string) string {
		var b strings.Builder
		b.WriteString("WITH a0 AS (SELECT 1::bigint AS x)")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, ", a%d AS %s(SELECT x + x AS x FROM a%d)", i, mat, i-1)
		}
		fmt.Fprintf(&b, " SELECT x FROM a%d", n)
		return b.String()
	}
	for _, n := range []int{16, 19, 24, 40} {
		_, err := db.Query(t.Context(), chain(n, ""), 0)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Hint, "MATERIALIZED") {
			t.Errorf("%d levels: %v, want the guard's refusal", n, err)
		}
	}
	for _, tc := range []struct {
		n   int
		mat string
	}{{10, ""}, {40, "MATERIALIZED "}} {
		res, err := db.Query(t.Context(), chain(tc.n, tc.mat), 0)
		if err != nil || fmt.Sprint(res.Rows) != fmt.Sprintf("[[%d]]", int64(1)<<tc.n) {
			t.Errorf("%d levels %s: %v, %v; want 2^%d", tc.n, tc.mat, res, err, tc.n)
		}
	}
	assertNothingRunning(t, admin, pgDatabase(t, dsn))
}

// TestPostgresAggregateStopsAtTheTimeout: work_mem does not bound what
// array_agg holds, so the timeout is what stops it. 100M rows would be
// some 2 GB of backend memory; the one second it runs took 155 MB.
func TestPostgresAggregateStopsAtTheTimeout(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, &source.Options{Limits: sqlmcp.Limits{Timeout: time.Second}})
	admin := dbtest.PostgresConn(t, dsn)
	_, err := db.Query(t.Context(), "SELECT cardinality(array_agg(a.g + b.g)) FROM generate_series(1, 10000) AS a(g), generate_series(1, 10000) AS b(g)", 0)
	var te *source.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a *TimeoutError", err)
	}
	assertNothingRunning(t, admin, pgDatabase(t, dsn))
}

// warning is the message of db's start warning under event, or "".
func warning(db *source.DB, event string) string {
	for _, w := range db.Warnings() {
		if w.Event == event {
			return w.Message
		}
	}
	return ""
}
