//go:build !nomysql

package mysql_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/mysql"
)

// open makes a fresh fixture database and opens it through source.
func open(t *testing.T, limits sqlmcp.Limits) (*source.DB, string) {
	t.Helper()
	dsn := dbtest.MySQLDSN(t, dbtest.MySQLFixture...)
	return dbtest.Open(t, dsn, &source.Options{Limits: limits}), dsn
}

// state is what must not change: each table's checksum, the sequence's
// next value, the named lock, and the statements running on the server.
func state(t *testing.T, admin *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, table := range []string{"t", "u", "frpm", "schools", "tp"} {
		var name string
		var sum sql.NullInt64
		if err := admin.QueryRow("CHECKSUM TABLE "+table).Scan(&name, &sum); err != nil {
			t.Fatal(err)
		}
		b.WriteString(name + "=" + sqlString(sum) + " ")
	}
	var tables, seq, lock, running string
	mustScan(t, admin, "SELECT GROUP_CONCAT(TABLE_NAME ORDER BY TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()", &tables)
	mustScan(t, admin, "SELECT next_not_cached_value FROM s", &seq)
	mustScan(t, admin, "SELECT COALESCE(IS_USED_LOCK('sqlmcp_lock'), 'free')", &lock)
	mustScan(t, admin, `SELECT COUNT(*) FROM information_schema.PROCESSLIST
		WHERE ID <> CONNECTION_ID() AND DB = DATABASE() AND COMMAND <> 'Sleep'`, &running)
	b.WriteString("tables=" + tables + " seq=" + seq + " lock=" + lock + " running=" + running)
	return b.String()
}

func sqlString(n sql.NullInt64) string {
	if !n.Valid {
		return "NULL"
	}
	return strconv.FormatInt(n.Int64, 10)
}

func mustScan(t *testing.T, db *sql.DB, q string, dest ...any) {
	t.Helper()
	if err := db.QueryRow(q).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func TestMySQLRunsReads(t *testing.T) {
	db, _ := open(t, sqlmcp.Limits{})
	for _, c := range dbtest.ReadsMySQL {
		t.Run(c.Name, func(t *testing.T) {
			res, err := db.Query(t.Context(), c.SQL, 0)
			if err != nil {
				t.Fatalf("%s: %v", c.SQL, err)
			}
			if len(res.Rows) == 0 {
				t.Errorf("%s returned no rows", c.SQL)
			}
		})
	}
}

func TestMySQLRefusesHostile(t *testing.T) {
	db, dsn := open(t, sqlmcp.Limits{Timeout: 5 * time.Second})
	admin := dbtest.MySQLConn(t, dsn)
	admin.SetMaxOpenConns(1)
	before := state(t, admin)
	// The server writes files as its own user, where secure_file_priv
	// lets it: name a directory it could write and check it stays empty.
	dir := t.TempDir()
	os.Chmod(dir, 0o777)
	for _, c := range dbtest.HostileMySQL {
		t.Run(c.Name, func(t *testing.T) {
			start := time.Now()
			_, err := db.Query(t.Context(), c.Expand(dir), 0)
			var ge *guard.Error
			var se *guard.SyntaxError
			if !errors.As(err, &ge) && !errors.As(err, &se) {
				t.Fatalf("%.80s: got %v, want the guard's refusal", c.SQL, err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%.80s took %s to refuse", c.SQL, d)
			}
			if after := state(t, admin); after != before {
				t.Errorf("%.80s changed the database:\n before %s\n after  %s", c.SQL, before, after)
			}
		})
	}
	dbtest.AssertEmptyDir(t, dir)
}

// TestMySQLWallWithoutGuard shows the engine's own wall: a write sent
// straight into a READ ONLY transaction on the session sqlmcp sets up
// fails on the server.
func TestMySQLEngineWall(t *testing.T) {
	_, dsn := open(t, sqlmcp.Limits{})
	admin := dbtest.MySQLConn(t, dsn)
	ctx := t.Context()
	c, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range []string{"SET SESSION TRANSACTION READ ONLY", "START TRANSACTION READ ONLY"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.ExecContext(ctx, "DELETE FROM t"); err == nil || !strings.Contains(err.Error(), "READ ONLY") {
		t.Errorf("DELETE in a READ ONLY transaction: %v, want the server's refusal", err)
	}
	c.ExecContext(ctx, "ROLLBACK")
}

func TestMySQLRunawayTimeout(t *testing.T) {
	const timeout = 2 * time.Second
	db, dsn := open(t, sqlmcp.Limits{Timeout: timeout})
	admin := dbtest.MySQLConn(t, dsn)
	const runaway = "SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b WHERE a.seq + b.seq = 3"
	start := time.Now()
	_, err := db.Query(t.Context(), runaway, 0)
	elapsed := time.Since(start)
	var te *source.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("runaway query: %v, want a *source.TimeoutError", err)
	}
	t.Logf("the runaway query answered after %s (timeout %s)", elapsed, timeout)
	if elapsed > timeout+time.Second {
		t.Errorf("the runaway query answered after %s; want within %s + 1s", elapsed, timeout)
	}
	assertNotRunning(t, admin, "seq_1_to_100000 a")
}

func TestMySQLClientCancelKills(t *testing.T) {
	db, dsn := open(t, sqlmcp.Limits{Timeout: 60 * time.Second})
	admin := dbtest.MySQLConn(t, dsn)
	const runaway = "SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b WHERE a.seq + b.seq = 4"
	ctx, cancel := context.WithTimeout(t.Context(), 700*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := db.Query(ctx, runaway, 0)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled query: %v, want the context's error", err)
	}
	d := time.Since(start)
	t.Logf("the cancelled query answered after %s (cancelled at 700ms)", d)
	if d > 3*time.Second {
		t.Errorf("the cancelled query answered after %s", d)
	}
	assertNotRunning(t, admin, "seq_1_to_100000 a")
	// A cancel that may reach the server before the statement starts
	// (whose KILL QUERY the server would drop) stops it too.
	for _, after := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(t.Context(), after)
		db.Query(ctx, runaway, 0)
		cancel()
	}
	assertNotRunning(t, admin, "seq_1_to_100000 a")
	// The pool still serves.
	if _, err := db.Query(t.Context(), "SELECT 1", 0); err != nil {
		t.Errorf("after a cancel: %v", err)
	}
}

// assertNotRunning fails unless no statement holding text runs on the
// server within a moment.
func assertNotRunning(t *testing.T, admin *sql.DB, text string) {
	t.Helper()
	var n int
	for range 20 {
		mustScan(t, admin, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%"+text+"%' AND ID <> CONNECTION_ID() AND DB = DATABASE()", &n)
		if n == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%d statements holding %q still run on the server", n, text)
}

// TestMySQLLocksDoNotOutliveACall: a named lock a view's function takes
// (the guard cannot see into views) is released when the call ends.
func TestMySQLLocksDoNotOutliveACall(t *testing.T) {
	dsn := dbtest.MySQLDSN(t, append(slices.Clone(dbtest.MySQLFixture),
		`CREATE FUNCTION take_lock() RETURNS INT NOT DETERMINISTIC READS SQL DATA RETURN GET_LOCK('sqlmcp_view_lock', 0)`,
		`CREATE VIEW locking AS SELECT take_lock() AS got`)...)
	db := dbtest.Open(t, dsn, &source.Options{Limits: sqlmcp.Limits{Timeout: 5 * time.Second}, MaxConns: 1})
	admin := dbtest.MySQLConn(t, dsn)
	res, err := db.Query(t.Context(), "SELECT got FROM locking", 0)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(1) {
		t.Fatalf("the view: %v, %v; want the lock taken", res, err)
	}
	var holder sql.NullInt64
	mustScan(t, admin, "SELECT IS_USED_LOCK('sqlmcp_view_lock')", &holder)
	if holder.Valid {
		t.Errorf("connection %d still holds the view's lock after the call", holder.Int64)
	}
}

// TestMySQLNotStopped: a statement the server runs on after KILL (crypt()
// over many rounds, reached through a view) is answered as not stopped,
// counted by LeftRunning until it ends, and other calls go on.
func TestMySQLNotStopped(t *testing.T) {
	dsn := dbtest.MySQLDSN(t, append(slices.Clone(dbtest.MySQLFixture),
		`CREATE VIEW slow_hash AS SELECT ENCRYPT('a', '$6$rounds=20000000$salt') AS h`)...)
	db := dbtest.Open(t, dsn, &source.Options{Limits: sqlmcp.Limits{Timeout: 300 * time.Millisecond}})
	_, err := db.Query(t.Context(), "SELECT h FROM slow_hash", 0)
	var te *source.TimeoutError
	if !errors.As(err, &te) || !te.Running {
		t.Fatalf("err = %v, want a timeout the database did not stop", err)
	}
	if n, _ := db.LeftRunning(); n != 1 {
		t.Errorf("LeftRunning = %d while the server runs it, want 1", n)
	}
	if res, err := db.Query(t.Context(), "SELECT 1", 0); err != nil || len(res.Rows) != 1 {
		t.Errorf("beside it: %v", err)
	}
	if !dbtest.NoneLeftRunning(db, 2*time.Minute) {
		t.Fatal("still tracked two minutes on")
	}
}

func TestMySQLTypes(t *testing.T) {
	dsn := dbtest.MySQLDSN(t, `CREATE TABLE ty (
		d DECIMAL(30,10), u BIGINT UNSIGNED, i BIGINT, f DOUBLE, dt DATETIME(6), ts TIMESTAMP(3) NULL, tm TIME, y YEAR,
		b BIT(10), j JSON, en ENUM('red','green'), st SET('a','b','c'), vb VARBINARY(10), bl BLOB, tx TEXT, n INT)`,
		`INSERT INTO ty VALUES (12345678901234567890.0123456789, 18446744073709551615, -9007199254740993, 1.5,
		'2024-02-29 13:14:15.123456', '2024-01-01 00:00:00.500', '-838:59:59', 2024, b'1000000001', '{"k": [1, 2]}',
		'green', 'a,c', X'00FF', REPEAT('x', 5000), REPEAT('é', 3000), NULL)`)
	db := dbtest.Open(t, dsn, &source.Options{Limits: sqlmcp.Limits{MaxCellBytes: 100}})
	res, err := db.Query(t.Context(), "SELECT * FROM ty", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{json.Number("12345678901234567890.0123456789"), json.Number("18446744073709551615"), int64(-9007199254740993),
		1.5, "2024-02-29 13:14:15.123456", "2024-01-01 00:00:00.500", "-838:59:59", int64(2024), int64(513),
		`{"k": [1, 2]}`, "green", "a,c"}
	for i, w := range want {
		if got := res.Rows[0][i]; got != w {
			t.Errorf("column %s: got %#v, want %#v", res.Columns[i].Name, got, w)
		}
	}
	if s, ok := res.Rows[0][12].(string); !ok || !strings.Contains(s, "00ff") && !strings.Contains(s, "2 bytes") {
		t.Errorf("varbinary: got %#v, want a preview", res.Rows[0][12])
	}
	if s, ok := res.Rows[0][13].(string); !ok || !strings.Contains(s, "5000 bytes") || len(s) > 200 {
		t.Errorf("blob: got %.80q, want a preview", res.Rows[0][13])
	}
	if s, ok := res.Rows[0][14].(string); !ok || !strings.Contains(s, "cut: 6000 bytes") || len(s) > 200 {
		t.Errorf("long text: got %.80q, want a cut value", res.Rows[0][14])
	}
	if res.Rows[0][15] != nil {
		t.Errorf("NULL: got %#v", res.Rows[0][15])
	}
	if got := res.Columns[1].Type; got != "bigint unsigned" {
		t.Errorf("the unsigned column's type is %q", got)
	}
}

func TestMySQLRowCap(t *testing.T) {
	db, _ := open(t, sqlmcp.Limits{})
	res, err := db.Query(t.Context(), "SELECT seq FROM seq_1_to_100000", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 10 || !res.Truncated || res.TruncatedBy != "rows" {
		t.Errorf("got %d rows, truncated %v by %q; want 10, true, rows", len(res.Rows), res.Truncated, res.TruncatedBy)
	}
	res, err = db.Query(t.Context(), "SELECT seq FROM seq_1_to_100000 LIMIT 3", 10)
	if err != nil || len(res.Rows) != 3 || res.Truncated {
		t.Errorf("LIMIT 3: %v rows, truncated %v, err %v", len(res.Rows), res.Truncated, err)
	}
}

func TestMySQLCatalog(t *testing.T) {
	db, _ := open(t, sqlmcp.Limits{})
	tables, err := db.ReadTables(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]source.TableDef{}
	for _, td := range tables {
		byName[td.Name] = td
	}
	tt, ok := byName["t"]
	if !ok || tt.Description != "the main table" || tt.Kind != "table" || !tt.OnPath {
		t.Errorf("table t: %+v", tt)
	}
	if len(tt.Columns) == 0 || tt.Columns[0].Name != "id" || tt.Columns[0].PrimaryKey != 1 {
		t.Errorf("t's columns: %+v", tt.Columns)
	}
	f := byName["frpm"]
	if len(f.ForeignKeys) != 1 || f.ForeignKeys[0].RefName != "schools" || f.ForeignKeys[0].RefColumns[0] != "CDSCode" {
		t.Errorf("frpm's foreign keys: %+v", f.ForeignKeys)
	}
	if s := byName["schools"]; len(s.Columns) < 2 || s.Columns[1].Description != "the county" {
		t.Errorf("schools' columns: %+v", s.Columns)
	}
	var idx []string
	for _, ix := range tt.Indexes {
		idx = append(idx, ix.Name)
	}
	slices.Sort(idx)
	if strings.Join(idx, ",") != "PRIMARY,ft,idx_a" {
		t.Errorf("t's indexes: %v", idx)
	}
	vals, err := db.Sample(t.Context(), source.TableRef{Name: "t", Kind: "table"}, "e", 5)
	if err != nil || len(vals) != 3 {
		t.Errorf("sample: %v, %v", vals, err)
	}
	d, err := db.Distinct(t.Context(), source.TableRef{Name: "t", Kind: "table"}, "a", "", 10)
	if err != nil || len(d.Values) != 2 || d.Values[0].Count != 2 {
		t.Errorf("distinct: %+v, %v", d, err)
	}
	d, err = db.Distinct(t.Context(), source.TableRef{Name: "t", Kind: "table"}, "e", "HRE", 10)
	if err != nil || len(d.Values) != 1 || d.Values[0].Value != "three" {
		t.Errorf("distinct filtered: %+v, %v", d, err)
	}
}

func TestMySQLRoleCheck(t *testing.T) {
	db, _ := open(t, sqlmcp.Limits{})
	w, err := db.WriteAccess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(w) == 0 || !strings.Contains(strings.Join(w, ";"), "ALL PRIVILEGES") {
		t.Errorf("root's write access: %v, want ALL PRIVILEGES", w)
	}
	if sql := db.ReadOnlyRoleSQL("sqlmcp"); !strings.Contains(sql, "GRANT SELECT, SHOW VIEW ON `sqlmcp_test_") {
		t.Errorf("read-only account SQL: %s", sql)
	}
}

func TestMySQLConnectErrors(t *testing.T) {
	dsn := dbtest.MySQLDSN(t)
	u := strings.Replace(dsn, "mysql://", "", 1)
	at := strings.Index(u, "@")
	host := u[at+1 : strings.Index(u, "/")]
	for name, c := range map[string]struct{ dsn, want string }{
		"refused":          {"mysql://root@127.0.0.1:1/test", "connection refused"},
		"wrong password":   {"mysql://root:sekret-pw@" + host + "/test", "access denied"},
		"unknown database": {"mysql://root@" + host + "/no_such_db_sqlmcp", `unknown database "no_such_db_sqlmcp"`},
		"tls not offered":  {"mysql://root@" + host + "/test?tls=true", "TLS"},
		"no database":      {"mysql://root@" + host + "/", "names no database"},
		"unknown param":    {"mysql://root@" + host + "/test?multiStatements=true", "not one sqlmcp reads"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := source.Open(t.Context(), c.dsn, dbtest.Options(&source.Options{Limits: sqlmcp.Limits{Timeout: 5 * time.Second}}))
			if err == nil {
				t.Fatalf("opening %s succeeded", c.dsn)
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || strings.Contains(msg, "sekret-pw") || strings.Contains(msg, "\n") {
				t.Errorf("opening %s: %q, want one line saying %q without the password", c.dsn, msg, c.want)
			}
		})
	}
}

// TestMySQLBuiltinsAreBuiltIn prepares (never runs) a call of every
// function the guard allows on MariaDB: none may be missing from the
// server (error 1305), which would make the name resolve to a stored or
// loadable function instead.
func TestMySQLBuiltinsAreBuiltIn(t *testing.T) {
	dsn := dbtest.MySQLDSN(t)
	admin := dbtest.MySQLConn(t, dsn)
	var version string
	mustScan(t, admin, "SELECT VERSION()", &version)
	if !strings.Contains(version, "MariaDB") {
		t.Skip("the list is checked against MariaDB")
	}
	for _, name := range guard.MySQLBuiltins(true) {
		// The geometry constructors are grammar, with arguments only.
		var err error
		for _, args := range []string{"()", "(1, 2)", "(point(1, 2))"} {
			if _, err = admin.Exec("PREPARE s FROM 'SELECT " + name + args + "'"); err == nil || !strings.Contains(err.Error(), "Error 1305") {
				break
			}
		}
		if err != nil && strings.Contains(err.Error(), "Error 1305") {
			t.Errorf("%s is not a built-in function of %s: %v", name, version, err)
		}
	}
}

// TestMariaDBTempTableBound: on MariaDB, a statement whose temporary table
// grows on disk past the engine's bound (a recursive WITH whose rows
// double at every step) stops at once with an error that says so, long
// before its time limit; on MySQL the time limit stops it.
func TestMariaDBTempTableBound(t *testing.T) {
	dsn := dbtest.MySQLDSN(t, dbtest.MySQLFixture...)
	db := dbtest.Open(t, dsn, &source.Options{Limits: sqlmcp.Limits{Timeout: 20 * time.Second},
		Engines: []source.Engine{mysql.Engine{TempTableLimit: 32 << 20}}})
	doubling := "WITH RECURSIVE r(n, s) AS (SELECT 1, REPEAT('x', 1000) UNION ALL SELECT n + 1, s FROM r, (SELECT 1 AS a UNION ALL SELECT 2) x WHERE n < 100) SELECT COUNT(*) FROM r"
	start := time.Now()
	_, err := db.Query(t.Context(), doubling, 0)
	took := time.Since(start)
	if !strings.Contains(strings.Join(db.Guard(), "\n"), "tmp_disk_table_size") {
		var te *source.TimeoutError
		if !errors.As(err, &te) {
			t.Errorf("MySQL: %v, want the timeout", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), "temporary table of more than 32 MiB on disk") {
		t.Fatalf("err = %v, want the temporary table's bound", err)
	}
	if took > 10*time.Second {
		t.Errorf("took %v: the bound did not stop it before the time limit", took)
	}
	if res, err := db.Query(t.Context(), "SELECT COUNT(*) FROM t", 0); err != nil || len(res.Rows) != 1 {
		t.Errorf("the next call: %v", err)
	}
}

// TestMySQLRowBound: a row larger than the bound (three values of 15 MB,
// past 32 MiB) fails the call with a message saying so, before the
// driver holds it whole, and is not retried; a row within it answers,
// cut as any other, and the pool goes on.
func TestMySQLRowBound(t *testing.T) {
	db, _ := open(t, sqlmcp.Limits{Timeout: 20 * time.Second})
	wide := func(n int) string {
		cols := make([]string, n)
		for i := range cols {
			cols[i] = fmt.Sprintf("REPEAT('%c', 15000000) AS c%d", 'a'+i, i)
		}
		return "SELECT " + strings.Join(cols, ", ")
	}
	_, err := db.Query(t.Context(), wide(3), 0)
	if err == nil || !strings.Contains(err.Error(), "a row of the result is larger than 32 MiB") {
		t.Fatalf("a row of 45 MB: %v, want the row's bound", err)
	}
	res, err := db.Query(t.Context(), wide(2), 0)
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("a row of 30 MB: %v", err)
	}
	if v, ok := res.Rows[0][1].(string); !ok || !strings.HasPrefix(v, "bbb") || len(v) > 4096 {
		t.Errorf("its second value: %T of %d bytes, want the start of the b's, cut", res.Rows[0][1], len(fmt.Sprint(res.Rows[0][1])))
	}
	if res, err := db.Query(t.Context(), "SELECT 1", 0); err != nil || len(res.Rows) != 1 {
		t.Errorf("the next call: %v", err)
	}
}
