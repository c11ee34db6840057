//go:build !noduckdb

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
}
