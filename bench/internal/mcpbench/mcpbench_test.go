package mcpbench

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

func TestQuantiles(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	if got := Quantile(xs, 0.5); got != 3 {
		t.Errorf("p50 = %v, want 3", got)
	}
	if got := Quantile(xs, 0.99); got != 5 {
		t.Errorf("p99 = %v, want 5", got)
	}
	if got := Median([]float64{4, math.NaN(), 1, 3, 2}); got != 2.5 {
		t.Errorf("median = %v, want 2.5 (NaN left out)", got)
	}
	if lo, hi := Range([]float64{math.Inf(1), 2, 7, math.NaN()}); lo != 2 || hi != 7 {
		t.Errorf("range = %v..%v, want 2..7", lo, hi)
	}
	if !math.IsNaN(Quantile(nil, 0.5)) || !math.IsNaN(Median(nil)) {
		t.Error("no values must give NaN")
	}
}

// The datasets load on both engines with the rows and the rare column the
// benchmark relies on.
func TestDatasetsSQLite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "d.db")
	if err := Exec(ctx, "sqlite", path, ShopSQL("sqlite", 1000)); err != nil {
		t.Fatal(err)
	}
	if err := Exec(ctx, "sqlite", path, ScaleSQL("sqlite", 250)); err != nil {
		t.Fatal(err)
	}
	d, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	check := func(q string, want int) {
		t.Helper()
		var n int
		if err := d.QueryRow(q).Scan(&n); err != nil || n != want {
			t.Errorf("%s = %d (%v), want %d", q, n, err, want)
		}
	}
	check("SELECT count(*) FROM customers", 1000)
	check("SELECT count(*) FROM orders", 2000)
	check("SELECT count(DISTINCT status) FROM orders", 5)
	check("SELECT count(*) FROM orders WHERE customer_id NOT BETWEEN 1 AND 1000", 0)
	check("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 't%'", 250)
	check("SELECT count(*) FROM t0250", 3)
	check("SELECT count(*) FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'zebra_code'", 1)
}

func TestDatasetsPostgres(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	ctx := context.Background()
	// A schema of its own: the fixture has tables of the same names.
	pre := "CREATE SCHEMA benchdata; SET search_path = benchdata;\n"
	if err := Exec(ctx, "pg", dsn, pre+ShopSQL("pg", 1000)); err != nil {
		t.Fatal(err)
	}
	// 250 tables: three transactions of up to 100.
	if err := Exec(ctx, "pg", dsn, "SET search_path = benchdata;\n"+ScaleSQL("pg", 250)); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	check := func(q string, want int) {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, q).Scan(&n); err != nil || n != want {
			t.Errorf("%s = %d (%v), want %d", q, n, err, want)
		}
	}
	check("SELECT count(*) FROM benchdata.customers", 1000)
	check("SELECT count(*) FROM benchdata.orders", 2000)
	check("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'benchdata' AND table_name LIKE 't%'", 250)
	check("SELECT count(*) FROM information_schema.columns WHERE table_schema = 'benchdata' AND column_name = 'zebra_code'", 1)
}

// The datasets load in MySQL's dialect too, on the server the MySQL tests
// use, in a database of their own.
func TestDatasetsMySQL(t *testing.T) {
	dsn := dbtest.MySQLDSN(t)
	ctx := context.Background()
	if err := Exec(ctx, "mysql", dsn, ShopSQL("mysql", 1000)); err != nil {
		t.Fatal(err)
	}
	if err := Exec(ctx, "mysql", dsn, ScaleSQL("mysql", 120)); err != nil {
		t.Fatal(err)
	}
	d := openMySQL(t, dsn)
	check := func(q string, want int) {
		t.Helper()
		var n int
		if err := d.QueryRow(q).Scan(&n); err != nil || n != want {
			t.Errorf("%s = %d (%v), want %d", q, n, err, want)
		}
	}
	check("SELECT count(*) FROM customers", 1000)
	check("SELECT count(DISTINCT id) FROM customers WHERE id BETWEEN 1 AND 1000", 1000)
	check("SELECT count(*) FROM orders", 2000)
	check("SELECT count(DISTINCT status) FROM orders", 5)
	check("SELECT count(*) FROM customers WHERE name = 'customer 7' AND email = 'c7@example.com' AND city = 'Lyon'", 1)
	check("SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 't%'", 120)
	check("SELECT count(*) FROM t0120", 3)
	check("SELECT count(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND column_name = 'zebra_code'", 1)
	// The foreign keys are real ones, with the index the script names.
	check("SELECT count(*) FROM information_schema.referential_constraints WHERE constraint_schema = DATABASE()", 1+119)
	check("SELECT count(*) FROM information_schema.statistics WHERE table_schema = DATABASE() AND index_name = 't0050_ref'", 1)
	check("SELECT count(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND data_type IN ('text', 'timestamp')", 0)
}

// A throwaway MariaDB server: its own port and socket, root may create a
// read-only account, and Remove stops it and deletes its folder. It runs
// where the MySQL tests run (SQLMCP_TEST_MYSQL set), and fails when the
// server's binaries are missing there.
func TestMariaDB(t *testing.T) {
	if os.Getenv(dbtest.MySQLEnv) == "" {
		t.Skip(dbtest.MySQLEnv + " is not set: skipping the MySQL test")
	}
	m, err := NewMariaDB("") // the system's: the server's user must reach it
	if err != nil {
		t.Fatal(err)
	}
	removed := false
	defer func() {
		if !removed {
			m.Remove()
		}
	}()
	if m.Port == 3306 {
		t.Fatal("the throwaway server took the shared port 3306")
	}
	ctx := context.Background()
	if err := Exec(ctx, "mysql", m.URL("root", ""), "CREATE DATABASE shop; CREATE USER 'ro'@'127.0.0.1'; "+
		"GRANT SELECT ON shop.* TO 'ro'@'127.0.0.1'; CREATE TABLE shop.t (id integer PRIMARY KEY); INSERT INTO shop.t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	ro := openMySQL(t, m.URL("ro", "shop"))
	var n int
	if err := ro.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the read-only account reads %d rows (%v), want 1", n, err)
	}
	if _, err := ro.Exec("INSERT INTO t VALUES (2)"); err == nil || !strings.Contains(err.Error(), "denied") {
		t.Errorf("the read-only account wrote: %v", err)
	}
	if _, err := os.Stat(m.Socket); err != nil {
		t.Errorf("no socket of its own: %v", err)
	}
	m.Remove()
	removed = true
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", m.Port)); err == nil {
		c.Close()
		t.Error("the server still listens after Remove")
	}
	if _, err := os.Stat(m.Base); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", m.Base, err)
	}
}

func openMySQL(t *testing.T, url string) *sql.DB {
	t.Helper()
	c, err := MySQLConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mysql.NewConnector(c)
	if err != nil {
		t.Fatal(err)
	}
	d := sql.OpenDB(conn)
	t.Cleanup(func() { d.Close() })
	return d
}

func TestToolError(t *testing.T) {
	ok := Reply{Result: []byte(`{"content":[{"type":"text","text":"[]"}]}`)}
	if err := ok.ToolError(); err != nil {
		t.Errorf("a plain result: %v", err)
	}
	bad := Reply{Result: []byte(`{"content":[{"type":"text","text":"no such table"}],"isError":true}`)}
	if err := bad.ToolError(); err == nil || err.Error() != "no such table" || !IsToolError(err) {
		t.Errorf("an isError result: %v, want the tool's message", err)
	}
	rpc := Reply{Error: &RPCError{Code: -32602, Message: "invalid params"}}
	if err := rpc.ToolError(); err == nil || IsToolError(err) {
		t.Errorf("a JSON-RPC error: %v, want it, not a tool error", err)
	}
}
