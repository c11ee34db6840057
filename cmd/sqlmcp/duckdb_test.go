//go:build !noduckdb

package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp/demo"
)

// TestCheckDuckDBViews: a DuckDB source whose views the configuration
// names, with its own budgets; check shows the views, and the sandbox as
// DuckDB holds it once locked; a view whose file is missing stops check
// as a mistake in the file.
func TestCheckDuckDBViews(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "exports"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "exports", "sales_2024.csv"), []byte("id,amount\n1,10\n2,20\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "exports", "sales_2025.csv"), []byte("id,amount\n3,30\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "people.csv"), []byte("id,name\n1,Ada\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "unserved.csv"), []byte("id\n1\n"), 0o644))
	file := filepath.Join(dir, "sqlmcp.yaml")
	must(os.WriteFile(file, []byte("sources:\n  - name: files\n    views: {sales: \"exports/sales_*.csv\", people: people.csv}\n    memory_limit: 256MB\n    threads: 1\n"), 0o600))
	out, err := runCheck(t, nil, "--config", file)
	if err != nil {
		t.Fatalf("check: %v\n%s", err, out)
	}
	for _, want := range []string{
		"    memory_limit: 256MB\n    threads: 1\n    views: {sales: " + filepath.Join(dir, "exports", "sales_*.csv") + ", people: " + filepath.Join(dir, "people.csv") + "}\n",
		"database files (duckdb, ",
		"  parser: duckdb parser (json_serialize_sql)",
		"  sandbox: enable_external_access=false, lock_configuration=true, access_mode=read_only, memory_limit=244.1 MiB (256MB), threads=1, temp_directory=",
		"max_temp_directory_size=953.6 MiB (1GB)",
		"  files: 3 served, the only paths DuckDB may open beside sqlmcp's own catalog and spill folder; ",
		"  found: 2 tables and views in schemas main\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check's output lacks %q:\n%s", want, out)
		}
	}

	must(os.WriteFile(file, []byte("sources:\n  - name: files\n    views: {sales: exports/missing.csv}\n"), 0o600))
	out, err = runCheck(t, nil, "--config", file)
	if err == nil || !strings.Contains(err.Error(), "view sales: "+filepath.Join(dir, "exports", "missing.csv")+": no such file or directory") {
		t.Errorf("check with a missing view file: err = %v; want the file named\n%s", err, out)
	}
}

// TestDuckDBFlags: --duckdb-memory-limit and --duckdb-threads set a single
// database's budgets.
func TestDuckDBFlags(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "people.csv"), []byte("id,name\n1,Ada\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCheck(t, nil, "--db", dir, "--duckdb-memory-limit", "300MB", "--duckdb-threads", "1")
	if err != nil {
		t.Fatalf("check: %v\n%s", err, out)
	}
	if want := "memory_limit=286.1 MiB (300MB), threads=1,"; !strings.Contains(out, want) {
		t.Errorf("check's output lacks %q:\n%s", want, out)
	}
	if _, err := runCheck(t, nil, "--db", dir, "--duckdb-threads", "-1"); err == nil || !strings.Contains(err.Error(), "--duckdb-threads") {
		t.Errorf("--duckdb-threads -1: err = %v; want it refused", err)
	}
	if _, err := runCheck(t, nil, "--db", dir, "--duckdb-memory-limit", "lots"); err == nil || !strings.Contains(err.Error(), `--duckdb-memory-limit "lots" is not a size`) {
		t.Errorf("--duckdb-memory-limit lots: err = %v; want it refused", err)
	}
}

// TestDemoParquet: sqlmcp demo --parquet writes every table and view of
// the demo as a Parquet file holding the same rows, described in its
// metadata, and the folder serves as a DuckDB source.
func TestDemoParquet(t *testing.T) {
	cache, out := t.TempDir(), filepath.Join(t.TempDir(), "school")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"demo", "--parquet", out, "--cache-dir", cache}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }); err != nil {
		t.Fatalf("demo --parquet: %v\n%s", err, stderr.String())
	}
	if want := "wrote 13 Parquet files to " + out; !strings.Contains(stdout.String(), want) {
		t.Errorf("demo --parquet said %q; want %q", stdout.String(), want)
	}
	path, err := demo.Open(cache)
	if err != nil {
		t.Fatal(err)
	}
	lite, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	duck, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	for _, name := range []string{"schools", "students", "attendance", "order", "student_roster"} {
		var want, got int64
		if err := lite.QueryRow(`SELECT count(*) FROM "` + name + `"`).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if err := duck.QueryRow("SELECT count(*) FROM read_parquet(?)", filepath.Join(out, name+".parquet")).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want || got == 0 {
			t.Errorf("%s: %d rows in Parquet, %d in the demo", name, got, want)
		}
	}
	var opened, about string
	if err := duck.QueryRow("SELECT CAST(max(opened_on) AS VARCHAR) FROM read_parquet(?)", filepath.Join(out, "schools.parquet")).Scan(&opened); err != nil {
		t.Errorf("schools.opened_on is not a date in Parquet: %v", err)
	}
	if err := duck.QueryRow("SELECT decode(value) FROM parquet_kv_metadata(?) WHERE decode(key) = 'description:CDSCode'", filepath.Join(out, "schools.parquet")).Scan(&about); err != nil || !strings.Contains(about, "County-District-School") {
		t.Errorf("schools.CDSCode's description in the Parquet metadata: %q, %v", about, err)
	}
	report, err := runCheck(t, nil, "--db", out)
	if err != nil || !strings.Contains(report, "found: 13 tables and views") {
		t.Errorf("check --db %s: %v\n%s", out, err, report)
	}
	if err := run(t.Context(), []string{"demo", "--parquet", out, "--cache-dir", cache}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("demo --parquet into a full folder: %v; want it refused", err)
	}
}

// TestDuckDBRunawayOverStdio: through sqlmcp serve and the go-sdk client,
// a value built past DuckDB's memory_limit and a call DuckDB does not stop
// when asked each come back as a tool error within the time limit and the
// worker's grace, and the next call answers.
func TestDuckDBRunawayOverStdio(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "people.csv"), []byte("id,name\n1,Ada\n2,Linus\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cs := startStdio(t, &stderr, "serve", "--db", dir, "--timeout", "1s", "--duckdb-memory-limit", "256MB")
	for sql, want := range map[string]string{
		"SELECT length(repeat('x', 2000000000))":                          "needs more memory than DuckDB may use here",
		"SELECT levenshtein(repeat('a', 60000), repeat('b', 60000)) AS d": "ran longer than the 1s timeout",
	} {
		start := time.Now()
		text, isErr := callText(t, cs, "run_query", map[string]any{"sql": sql})
		if !isErr || !strings.Contains(text, want) {
			t.Errorf("%s: %q (error %v), want %q", sql, text, isErr, want)
		}
		if took := time.Since(start); took > 6*time.Second {
			t.Errorf("%s: took %v", sql, took)
		}
		text, isErr = callText(t, cs, "run_query", map[string]any{"sql": "SELECT count(*) AS n FROM people"})
		if isErr || !strings.Contains(text, "2") {
			t.Errorf("the next call: %q (error %v)", text, isErr)
		}
	}
}
