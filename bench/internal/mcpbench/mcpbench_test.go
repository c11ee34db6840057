package mcpbench

import (
	"context"
	"database/sql"
	"math"
	"path/filepath"
	"testing"

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
