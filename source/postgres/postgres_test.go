package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/postgres"
)

// pgDatabase returns the database a postgres:// URL names.
func pgDatabase(t testing.TB, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// pgAdminQuery runs sql on conn, outside sqlmcp, and returns the first
// column of every row as text.
func pgAdminQuery(t testing.TB, conn *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var out []string
	for rows.Next() {
		var v any
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(v))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func TestPostgresValues(t *testing.T) {
	db := dbtest.Postgres(t, nil)
	res, err := db.Query(t.Context(), "SELECT * FROM types", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]source.Column{}
	cells := map[string]any{}
	for i, c := range res.Columns {
		got[c.Name] = c
		cells[c.Name] = res.Rows[0][i]
	}
	blobTS := "2024-01-05T10:00:00Z"
	tests := []struct {
		col, typ string
		want     any
	}{
		{"i2", "smallint", int64(-32768)},
		{"i4", "integer", int64(2147483647)},
		{"i8", "bigint", int64(-9223372036854775808)}, // past 2^53: whole (JSON output spells it as text)
		{"i8_big", "bigint", int64(9007199254740993)}, // 2^53 + 1
		{"o", "oid", int64(4294967295)},
		{"f4", "real", 1.5},
		{"f8", "double precision", 0.1},
		{"f8_nan", "double precision", "NaN"},
		{"f8_inf", "double precision", "Infinity"},
		{"f8_ninf", "double precision", "-Infinity"},
		{"num", "numeric", json.Number("12.50")},
		{"num_long", "numeric", json.Number("123456789012345678901234567890.123456789")}, // every digit
		{"num_nan", "numeric", "NaN"},
		{"num_inf", "numeric", "Infinity"},
		{"bool_t", "boolean", true},
		{"bool_f", "boolean", false},
		{"js", "json", json.RawMessage(`{"b": [1, 2.50], "a": null}`)},
		{"jsb", "jsonb", json.RawMessage(`{"a": null, "b": [1, 2.50]}`)},
		{"u", "uuid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"t", "text", "naïve text"},
		{"vc", "character varying", "short"},
		{"ch", "character", "ab "},
		{"nm", "name", "pg_name"},
		{"e", "mood", "happy"},
		{"ip", "inet", "192.168.0.1/24"},
		{"net", "cidr", "10.0.0.0/8"},
		{"mac", "macaddr", "08:00:2b:01:02:03"},
		{"iv", "interval", "1 day 02:03:04.5"},
		{"r", "int4range", "[1,10)"},
		{"pt", "point", "(1.5,2)"},
		{"bx", "box", "(1,1),(0,0)"},
		{"m", "money", "$12.50"},
		{"x", "xml", "<a>x</a>"},
		{"bits", "bit", "1010"},
		{"vbits", "bit varying", "101"},
		{"by", "bytea", "<blob 3 bytes: x'0001ff'>"},
		{"by_long", "bytea", "<blob 40 bytes: x'abababababababababababababababab'…>"},
		{"d", "date", "2024-01-05"},
		{"ts", "timestamp without time zone", "2024-01-05T10:00:00"},
		{"ts_frac", "timestamp without time zone", "2024-01-05T10:00:00.25"},
		{"tstz", "timestamp with time zone", blobTS},
		{"ts_inf", "timestamp without time zone", "infinity"},
		{"tm", "time without time zone", "10:00:00"},
		{"tmtz", "time with time zone", "10:00:00+02"},
		{"a_int", "integer[]", []any{int64(1), int64(2), nil}},
		{"a_text", "text[]", []any{"plain", "with space", `quote"and\back`, nil, "NULL", ""}},
		{"a_num", "numeric[]", []any{json.Number("1.10"), "NaN"}},
		{"a_2d", "integer[]", []any{[]any{int64(1), int64(2)}, []any{int64(3), int64(4)}}},
		{"a_bool", "boolean[]", []any{true, false}},
		{"a_tstz", "timestamp with time zone[]", []any{blobTS}},
		{"a_jsonb", "jsonb[]", []any{json.RawMessage(`{"k": 1}`)}},
		{"a_bytea", "bytea[]", []any{"<blob 2 bytes: x'01ff'>"}},
		{"a_uuid", "uuid[]", []any{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}},
		{"a_mood", "mood[]", []any{"sad", "happy"}},
		{"a_box", "box[]", "{(1,1),(0,0);(3,3),(2,2)}"}, // ';' between elements: kept as text
		{"a_empty", "integer[]", []any{}},
		{"a_bounds", "integer[]", "[0:1]={7,8}"}, // bounds: kept as text
		{"comp", "pair", `(1,"x y")`},
		{"dom", "integer", int64(5)}, // PostgreSQL reports a domain's base type
		{"nothing", "text", nil},
	}
	for _, tt := range tests {
		t.Run(tt.col, func(t *testing.T) {
			c, ok := got[tt.col]
			if !ok {
				t.Fatalf("no column %s", tt.col)
			}
			if c.Type != tt.typ {
				t.Errorf("type %q, want %q", c.Type, tt.typ)
			}
			if diff := cmp.Diff(tt.want, cells[tt.col]); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
		})
	}
	if len(tests) != len(res.Columns)-1 {
		t.Errorf("%d cases for %d columns: test every column of types", len(tests), len(res.Columns)-1)
	}
	// Every cell must marshal: no NaN floats, no byte arrays as numbers.
	if _, err := json.Marshal(res.Rows); err != nil {
		t.Errorf("the rows are not JSON-safe: %v", err)
	}
}

// TestPostgresCuts: long text, JSON and arrays are cut inside the cell,
// with a marker. (Cuts by rows and bytes: TestQueryCuts, on both engines.)
func TestPostgresCuts(t *testing.T) {
	db := dbtest.Postgres(t, &source.Options{Limits: sqlmcp.Limits{MaxCellBytes: 12}})
	res, err := db.Query(t.Context(), `SELECT repeat('é', 20) AS t, '{"k": "0123456789"}'::json AS j, ARRAY[1, 2, 3, 4, 5, 6] AS a`, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"éééééé…[cut: 40 bytes in all]", `{"k": "01234…[cut: 19 bytes in all]`, []any{int64(1), int64(2), int64(3), int64(4), int64(5), "…[cut: 5 of 6 elements shown]"}}
	if diff := cmp.Diff(want, res.Rows[0]); diff != "" {
		t.Errorf("cut cells (-want +got):\n%s", diff)
	}
}

func TestPostgresOpen(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	u, _ := url.Parse(dsn)
	name := pgDatabase(t, dsn)

	t.Run("name hides the password", func(t *testing.T) {
		withPW := *u
		withPW.User = url.UserPassword(u.User.Username(), "s3cret-pw")
		db := dbtest.Open(t, withPW.String(), nil)
		if strings.Contains(db.Name(), "s3cret") {
			t.Errorf("Name() = %q holds the password", db.Name())
		}
		if want := "postgres://" + u.User.Username() + "@" + u.Host + "/" + name; db.Name() != want {
			t.Errorf("Name() = %q, want %q", db.Name(), want)
		}
		if db.Dialect() != sqlmcp.Postgres || db.Path() != "" {
			t.Errorf("Dialect() = %q, Path() = %q", db.Dialect(), db.Path())
		}
	})
	t.Run("postgresql scheme", func(t *testing.T) {
		alt := *u
		alt.Scheme = "postgresql"
		dbtest.Open(t, alt.String(), nil)
	})
	t.Run("PG environment fills the URL", func(t *testing.T) {
		host, port, _ := net.SplitHostPort(u.Host)
		t.Setenv("PGHOST", host)
		t.Setenv("PGPORT", port)
		t.Setenv("PGUSER", u.User.Username())
		t.Setenv("PGDATABASE", name)
		db := dbtest.Open(t, "postgres://", nil)
		if !strings.HasSuffix(db.Name(), "/"+name) {
			t.Errorf("Name() = %q, want the database from PGDATABASE", db.Name())
		}
	})
	t.Run("errors", func(t *testing.T) {
		closed, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		deadAddr := closed.Addr().String()
		closed.Close()
		missing := *u
		missing.Path = "/no_such_database_here"
		tests := []struct{ dsn, want string }{
			{"postgres://someone:s3cret-pw@" + deadAddr + "/shop", "cannot connect to PostgreSQL postgres://someone@" + deadAddr + "/shop: "},
			{missing.String(), `database "no_such_database_here" does not exist`},
			{"postgres://someone:s3cret-pw@127.0.0.1:notaport/shop", "reading the PostgreSQL URL"},
		}
		for _, tt := range tests {
			_, err := source.Open(t.Context(), tt.dsn, dbtest.Options(nil))
			switch {
			case err == nil:
				t.Errorf("Open(%q) worked", tt.dsn)
			case !strings.Contains(err.Error(), tt.want):
				t.Errorf("Open(%q) = %v, want %q", tt.dsn, err, tt.want)
			case strings.Contains(err.Error(), "s3cret"), strings.Contains(err.Error(), "\n"):
				t.Errorf("Open(%q) = %q: want one line without the password", tt.dsn, err)
			}
		}
	})
}

// TestPostgresEngineWallAlone bypasses the guard: the READ ONLY
// transaction on the extended protocol must stop every write by itself.
func TestPostgresEngineWallAlone(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, &source.Options{MaxConns: 1})
	admin := dbtest.PostgresConn(t, dsn)
	count := func() string {
		return strings.Join(pgAdminQuery(t, admin, `SELECT (SELECT count(*) FROM customers) || '/' ||
			(SELECT count(*) FROM pg_class) || '/' || (SELECT last_value FROM invoice_no)`), "")
	}
	before := count()
	tests := []struct {
		name, sql string
		limited   bool
		code      string
	}{
		{"stacked delete", "SELECT 1; DELETE FROM customers", false, "42601"},
		{"commit then drop", "COMMIT; DROP TABLE customers", false, "42601"},
		{"rollback then delete", "ROLLBACK; DELETE FROM customers", false, "42601"},
		{"stacked delete in the limit", "SELECT 1; DELETE FROM customers", true, "42601"},
		{"delete", "DELETE FROM customers", false, "25006"},
		{"insert", "INSERT INTO customers (id, name) VALUES (9, 'x')", false, "25006"},
		{"update", "UPDATE customers SET name = 'x'", false, "25006"},
		{"drop table", "DROP TABLE customers", false, "25006"},
		{"create table", "CREATE TABLE x (a int)", false, "25006"},
		{"create temp table", "CREATE TEMP TABLE x (a int)", false, "25006"},
		{"cte around delete", "WITH d AS (DELETE FROM customers RETURNING id) SELECT count(*) FROM d", false, "25006"},
		{"cte around delete in the limit", "WITH d AS (DELETE FROM customers RETURNING id) SELECT count(*) FROM d", true, "0A000"},
		{"nextval", "SELECT nextval('invoice_no')", false, "25006"},
		{"set transaction read write", "SET TRANSACTION READ WRITE", false, "25001"},
		// A SELECT runs under its own snapshot, with no query before it:
		// it cannot make the transaction read-write either.
		{"select read write", "SELECT set_config('transaction_read_only', 'off', true)", false, "25001"},
		{"select read write in the limit", "SELECT set_config('transaction_read_only', 'off', false)", true, "25001"},
		{"cte read write", "WITH w AS (SELECT set_config('transaction_read_only', 'off', true)) SELECT * FROM w", true, "25001"},
		{"select into", "SELECT 1 AS a INTO x", false, "25006"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := 0
			if tt.limited {
				limit = 10
			}
			_, err := postgres.RunEngineOnly(t.Context(), db, tt.sql, limit)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != tt.code {
				t.Errorf("got %v, want SQLSTATE %s", err, tt.code)
			}
			if tt.code == "42601" && !tt.limited && !strings.Contains(err.Error(), "cannot insert multiple commands into a prepared statement") {
				t.Errorf("got %v, want the extended protocol's refusal of two commands", err)
			}
		})
	}
	// Session settings changed inside the transaction go with the
	// rollback.
	if _, err := postgres.RunEngineOnly(t.Context(), db, "SELECT set_config('search_path', 'evil', false)", 0); err != nil {
		t.Fatal(err)
	}
	rows, err := postgres.RunEngineOnly(t.Context(), db, "SELECT current_setting('search_path')", 0)
	if err != nil || len(rows) != 1 || rows[0][0] == "evil" {
		t.Errorf("search_path after a rolled-back set_config: %v, %v", rows, err)
	}
	if got := count(); got != before {
		t.Errorf("customers/relations/sequence: %s, want %s", got, before)
	}
}

// pgRunaway is work the guard accepts that would run for hours: a
// ten-billion-row cross join.
const pgRunaway = "SELECT count(*) FROM generate_series(1, 100000) AS a, generate_series(1, 100000) AS b"

// assertNothingRunning waits a moment for the server to show no statement
// of sqlmcp's still running or holding a transaction in database name.
func assertNothingRunning(t *testing.T, admin *pgx.Conn, name string) {
	t.Helper()
	var busy []string
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		busy = pgAdminQuery(t, admin, `SELECT state || ': ' || query FROM pg_stat_activity
			WHERE application_name = 'sqlmcp' AND datname = $1 AND state <> 'idle'`, name)
		if len(busy) == 0 {
			return
		}
	}
	t.Errorf("still running on the server: %q", busy)
}

// TestPostgresStillRunning: the backends the count of statements left
// running asks about are at work while they run a statement, and not
// once they wait for their client or are gone, read through the guard
// that refuses pg_stat_activity.
func TestPostgresStillRunning(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, nil)
	busy, idle := dbtest.PostgresConn(t, dsn), dbtest.PostgresConn(t, dsn)
	pidOf := func(c *pgx.Conn) uint64 { return uint64(c.PgConn().PID()) }
	done := make(chan error, 1)
	go func() {
		_, err := busy.Exec(context.Background(), "SELECT pg_sleep(3)")
		done <- err
	}()
	const gone = 1 << 30 // no backend has it
	var running map[uint64]bool
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var err error
		if running, err = postgres.StillRunning(db, pidOf(busy), pidOf(idle), gone); err != nil {
			t.Fatal(err)
		}
		if running[pidOf(busy)] {
			break
		}
	}
	if !running[pidOf(busy)] || running[pidOf(idle)] || running[gone] || len(running) != 1 {
		t.Errorf("running %v, want only %d of %d (busy), %d (idle), %d (gone)", running, pidOf(busy), pidOf(busy), pidOf(idle), gone)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if running, err := postgres.StillRunning(db, pidOf(busy)); err != nil || len(running) != 0 {
		t.Errorf("after the statement: running %v, %v; want none", running, err)
	}
}

func TestPostgresTimeoutStopsTheServer(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, &source.Options{MaxConns: 1, Limits: sqlmcp.Limits{Timeout: time.Second}})
	admin := dbtest.PostgresConn(t, dsn)
	name := pgDatabase(t, dsn)
	if _, err := db.Query(t.Context(), "SELECT 1", 0); err != nil {
		t.Fatal(err)
	}
	pid := pgAdminQuery(t, admin, "SELECT pid FROM pg_stat_activity WHERE application_name = 'sqlmcp' AND datname = $1", name)
	start := time.Now()
	_, err := db.Query(t.Context(), pgRunaway, 0)
	elapsed := time.Since(start)
	var te *source.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a *TimeoutError", err)
	}
	if elapsed < 900*time.Millisecond || elapsed > 2500*time.Millisecond {
		t.Errorf("stopped after %v, want about a second", elapsed)
	}
	assertNothingRunning(t, admin, name)
	res, err := db.Query(t.Context(), "SELECT count(*) FROM customers", 0)
	if err != nil || res.Rows[0][0] != int64(4) {
		t.Fatalf("the next call: %v, %v", res, err)
	}
	// statement_timeout left the connection usable: the pool kept it.
	if got := pgAdminQuery(t, admin, "SELECT pid FROM pg_stat_activity WHERE application_name = 'sqlmcp' AND datname = $1", name); !cmp.Equal(got, pid) {
		t.Errorf("backends %v after the timeout, want the same %v", got, pid)
	}
}

func TestPostgresCancelStopsTheServer(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, &source.Options{MaxConns: 1, Limits: sqlmcp.Limits{Timeout: 30 * time.Second}})
	admin := dbtest.PostgresConn(t, dsn)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := db.Query(ctx, pgRunaway, 0)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "query cancelled") {
		t.Fatalf("got %v, want query cancelled", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("returned after %v, want soon after the cancel", elapsed)
	}
	assertNothingRunning(t, admin, pgDatabase(t, dsn))
	if _, err := db.Query(t.Context(), "SELECT 1", 0); err != nil {
		t.Fatalf("the next call: %v", err)
	}
}

func TestPostgresErrorLeavesConnectionClean(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, &source.Options{MaxConns: 1})
	admin := dbtest.PostgresConn(t, dsn)
	name := pgDatabase(t, dsn)
	for _, sql := range []string{
		"SELECT 1 / (x - 3) FROM generate_series(1, 5) AS x", // fails after rows were sent
		"SELECT no_such_column FROM customers",
		"SELECT * FROM no_such_table",
	} {
		if _, err := db.Query(t.Context(), sql, 0); err == nil {
			t.Errorf("%s: no error", sql)
		}
		res, err := db.Query(t.Context(), "SELECT count(*) FROM customers", 0)
		if err != nil || res.Rows[0][0] != int64(4) {
			t.Fatalf("after %q: %v, %v", sql, res, err)
		}
		if got := pgBackendStates(t, admin, name, []string{"idle"}); !cmp.Equal(got, []string{"idle"}) {
			t.Errorf("after %q: backends in states %v, want one idle", sql, got)
		}
	}
}

// pgBackendStates returns the states of sqlmcp's backends in database
// name once they are want, or as they are after a few seconds: a
// connection the pool closed (the one Open kept for the function catalog)
// leaves pg_stat_activity only when its backend has exited.
func pgBackendStates(t *testing.T, admin *pgx.Conn, name string, want []string) []string {
	t.Helper()
	var got []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got = pgAdminQuery(t, admin, `SELECT state FROM pg_stat_activity WHERE application_name = 'sqlmcp' AND datname = $1`, name)
		if cmp.Equal(got, want) || time.Now().After(deadline) {
			return got
		}
	}
}

// TestPostgresLongError: an error quoting a 1 MB value comes back with
// its text cut, and the next call works.
func TestPostgresLongError(t *testing.T) {
	db := dbtest.Postgres(t, nil)
	_, err := db.Query(t.Context(), "SELECT repeat('x', 1000000)::int", 0)
	var ee *source.EngineError
	if !errors.As(err, &ee) || !strings.Contains(ee.Message, "invalid input syntax") || len(ee.Message) > 5000 {
		t.Fatalf("got %.300v, want the engine's error, cut", err)
	}
	if _, err := db.Query(t.Context(), "SELECT 1", 0); err != nil {
		t.Fatalf("the next call: %v", err)
	}
}

// TestPostgresRowCapStopsTheTransfer counts the bytes the server sends: a
// query capped at 100 rows over a million must not transfer the rest.
func TestPostgresRowCapStopsTheTransfer(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresBigTable(t, dsn, 1_000_000)
	u, _ := url.Parse(dsn)
	proxy, sent := dbtest.CountingProxy(t, u.Host)
	u.Host = proxy
	db := dbtest.Open(t, u.String(), &source.Options{MaxConns: 1})
	for _, sql := range []string{
		"SELECT * FROM big",
		"SELECT * FROM big ORDER BY score DESC, id",
		"SELECT a.id, b.name FROM big AS a JOIN big AS b ON b.id = a.id",
	} {
		before := sent.Load()
		res, err := db.Query(t.Context(), sql, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 100 || res.TruncatedBy != "rows" {
			t.Errorf("%s: %d rows, truncated by %q; want 100 by rows", sql, len(res.Rows), res.TruncatedBy)
		}
		// 101 rows of about 40 bytes, and the round trips around them;
		// the whole table is over 30 MB.
		if n := sent.Load() - before; n > 64<<10 {
			t.Errorf("%s: the server sent %d bytes for 100 rows", sql, n)
		}
	}
}

func TestPostgresCatalog(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, nil)
	rows, err := db.Catalog(t.Context(), `SELECT c.id, p.name, p.price, p.photo FROM customers AS c JOIN products AS p ON p.id = c.id
		WHERE c.city = $1 AND c.id > $2 ORDER BY c.id`, "London", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{int64(1), "SQL for Mortals", json.Number("29.50"), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08")},
		{int64(3), "Robot", json.Number("42.25"), nil},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("catalog rows (-want +got):\n%s", diff)
	}
	// Arguments reach the query inside the LIMIT wrapper too.
	res, err := db.Query(t.Context(), "SELECT name FROM customers WHERE city = $1 AND id > $2 ORDER BY id", 0, "London", 1)
	if err != nil || !cmp.Equal(res.Rows, [][]any{{"Alan Turing"}}) {
		t.Errorf("Query with arguments: %v, %v", res, err)
	}

	// Types and functions made after Open: looked up when first met.
	dbtest.PostgresExec(t, dsn, `CREATE TYPE size AS ENUM ('s', 'm', 'l');
		CREATE TABLE shirts (id int, sizes size[]);
		INSERT INTO shirts VALUES (1, '{s,l}');
		CREATE FUNCTION twice(integer) RETURNS integer IMMUTABLE LANGUAGE sql AS 'SELECT $1 * 2'`)
	res, err = db.Query(t.Context(), "SELECT s.sizes, s, 21 * 2 AS twice FROM shirts AS s", 0)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []source.Column{{Name: "sizes", Type: "size[]"}, {Name: "s", Type: "shirts"}, {Name: "twice", Type: "integer"}}
	if diff := cmp.Diff(wantCols, res.Columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]any{{[]any{"s", "l"}, `(1,"{s,l}")`, int64(42)}}, res.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	// A function made later is known too, and refused as the database's
	// own, whatever its label.
	var ge *guard.Error
	if _, err := db.Query(t.Context(), "SELECT twice(21)", 0); !errors.As(err, &ge) || !strings.Contains(err.Error(), "defined in this database") {
		t.Errorf("SELECT twice(21): got %v, want the guard's refusal of a user's function", err)
	}
	if _, err := db.Query(t.Context(), "SELECT no_such_function(1)", 0); err == nil {
		t.Error("SELECT no_such_function(1) ran")
	}
}

// TestBothEngines runs one behaviour over every engine dbtest has.
func TestBothEngines(t *testing.T) {
	for _, e := range dbtest.All(t, nil) {
		t.Run(e.Name, func(t *testing.T) {
			res, err := e.DB.Query(t.Context(), `SELECT c.name, count(*) AS n FROM customers AS c
				JOIN "order" AS o ON o.customer_id = c.id GROUP BY c.name ORDER BY n DESC, c.name`, 2)
			if err != nil {
				t.Fatal(err)
			}
			want := [][]any{{"Ada Lovelace", int64(2)}, {"Edsger Dijkstra", int64(1)}}
			if diff := cmp.Diff(want, res.Rows); diff != "" || res.TruncatedBy != "rows" {
				t.Errorf("rows (-want +got), truncated by %q:\n%s", res.TruncatedBy, diff)
			}
			if _, err := e.DB.Query(t.Context(), "DELETE FROM customers", 0); err == nil {
				t.Error("DELETE ran")
			}
		})
	}
	if os.Getenv(dbtest.PostgresEnv) == "" {
		t.Log(dbtest.PostgresEnv + " is not set: SQLite only")
	}
}
