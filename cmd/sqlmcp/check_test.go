package main

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// readOnlyRole makes a role that may read the fixture's public schema and
// nothing else, on a fresh PostgreSQL database, and returns its URL and
// the admin's.
func readOnlyRole(t *testing.T) (roleDSN, adminDSN string) {
	t.Helper()
	adminDSN = dbtest.PostgresDSN(t)
	_, roleDSN = dbtest.PostgresRole(t, adminDSN, `GRANT USAGE ON SCHEMA public TO {{role}};
		GRANT SELECT ON ALL TABLES IN SCHEMA public TO {{role}}; ALTER ROLE {{role}} SET default_transaction_read_only = on;
		REVOKE TEMPORARY ON DATABASE `+dbName(adminDSN)+` FROM PUBLIC`)
	return roleDSN, adminDSN
}

func dbName(dsn string) string {
	path := dsn[strings.LastIndex(dsn, "/")+1:]
	name, _, _ := strings.Cut(path, "?")
	return name
}

// runCheck runs sqlmcp check with args and returns its output and error.
func runCheck(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), append([]string{"check"}, args...), strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] })
	return stdout.String(), err
}

// TestCheckGood: a SQLite and a PostgreSQL source, both sound, with the
// password of the PostgreSQL one from the environment: check prints the
// effective configuration and each guard layer, and passes.
func TestCheckGood(t *testing.T) {
	roleDSN, _ := readOnlyRole(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "sqlmcp.yaml")
	text := "log_level: warn\nsources:\n" +
		"  - name: shop\n    url: " + dbtest.SQLiteFile(t) + "\n    description: The shop, in SQLite.\n    max_rows: 20\n" +
		"  - name: shop_pg\n    url: " + strings.Replace(roleDSN, "@", ":${SHOP_PASSWORD}@", 1) + "\n    description: The shop, in PostgreSQL.\n    require_readonly_role: true\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runCheck(t, map[string]string{"SHOP_PASSWORD": "not-needed-under-trust", "SQLMCP_CONFIG": file})
	if err != nil {
		t.Fatalf("check: %v\n%s", err, out)
	}
	for _, want := range []string{
		"log_level: warn\n",
		"max_rows: 20\n",
		":${SHOP_PASSWORD}@",
		"database shop (sqlite, ",
		"  parser: sqlite compiler and authorizer: one read-only statement\n",
		"  engine: read-only open, query_only, no ATTACH\n",
		"  limits: timeout 15s, max_rows 20, max_rows_limit 1000, max_bytes 262144, max_cell_bytes 2048, max_concurrency 8\n",
		"  found: 7 tables and views\n",
		"database shop_pg (postgres, ",
		"  parser: postgresql parser (pg_query): one SELECT, safe functions only\n",
		"  engine: READ ONLY transaction, extended protocol, rolled back\n",
		"  role: read-only\n",
		"  found: 8 tables and views in schemas public\n",
		"\n2 databases, 0 errors, ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not-needed") {
		t.Errorf("check printed the password:\n%s", out)
	}
}

// TestCheckBad: every problem of every source is listed, and check exits 1.
func TestCheckBad(t *testing.T) {
	roleDSN, admin := readOnlyRole(t)
	dbtest.PostgresExec(t, admin, `CREATE SCHEMA sales; CREATE TABLE sales.orders (id int)`)
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.yaml")
	os.WriteFile(notes, []byte("tables:\n  customerz: {description: x}\n"), 0o600)
	file := filepath.Join(dir, "sqlmcp.yaml")
	text := "sources:\n" +
		"  - name: shop\n    url: " + dbtest.SQLiteFile(t) + "\n    annotations: notes.yaml\n" +
		"  - name: shop_pg\n    url: " + roleDSN + "\n    schemas: [public, sales, salse]\n" +
		"  - name: down\n    url: postgres://nobody@127.0.0.1:1/x?sslmode=disable&connect_timeout=2\n"
	os.WriteFile(file, []byte(text), 0o600)
	out, err := runCheck(t, nil, "--config", file)
	if err == nil || !strings.HasPrefix(err.Error(), "check: 4 errors and ") {
		t.Errorf("check: %v, want 4 errors", err)
	}
	out = strings.ReplaceAll(out, dir, "DIR")
	out = regexp.MustCompile(`sqlmcp_ro_[0-9a-f]+`).ReplaceAllString(out, "ROLE")
	for _, want := range []string{
		`  error: annotations DIR/notes.yaml:2: no table "customerz" in the database; did you mean customers?` + "\n",
		`  error: DIR/sqlmcp.yaml:7: schema "salse": no such schema; did you mean sales?` + "\n",
		`  error: DIR/sqlmcp.yaml:7: the role may not use schema sales, so none of its tables and views can be read (sales.orders); as its owner run: GRANT USAGE ON SCHEMA sales TO ROLE; GRANT SELECT ON ALL TABLES IN SCHEMA sales TO ROLE; ALTER DEFAULT PRIVILEGES IN SCHEMA sales GRANT SELECT ON TABLES TO ROLE` + "\n",
		"database down:\n  error: unavailable: cannot connect to PostgreSQL postgres://nobody@127.0.0.1:1/x",
		"\n3 databases, 4 errors, ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check's output lacks %q:\n%s", want, out)
		}
	}

	// A mistake in the file itself: exit status 2, at its line.
	os.WriteFile(file, []byte("sources:\n  - name: shop\n    url: x.db\n    max_row: 5\n"), 0o600)
	_, err = runCheck(t, nil, "--config", file)
	var ue usageError
	if want := file + `:4: unknown key "max_row" (in a source) (did you mean max_rows?)`; err == nil || !strings.Contains(err.Error(), want) || !errors.As(err, &ue) {
		t.Errorf("check of a bad file: %v, want a usage error %q", err, want)
	}

	// check --db URL: one database from the command line.
	out, err = runCheck(t, nil, "--db", dbtest.SQLiteFile(t))
	if err != nil || !strings.Contains(out, "1 database, 0 errors") {
		t.Errorf("check --db: %v\n%s", err, out)
	}
}

// TestCheckSuggestsPolicy: check prints, per database, the columns that
// look like personal or secret data as a policy block, by name and by
// sampled values, never the values themselves.
func TestCheckSuggestsPolicy(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec(`CREATE TABLE logins (id INTEGER PRIMARY KEY, password TEXT, tokens_used INTEGER, contact TEXT);
		INSERT INTO logins VALUES (1, 'hunter2', 10, 'kay@example.com'), (2, 'letmein', 20, 'lee@example.org')`); err != nil {
		t.Fatal(err)
	}
	out, err := runCheck(t, nil, "--db", path)
	if err != nil {
		t.Fatalf("check: %v\n%s", err, out)
	}
	for _, want := range []string{
		"  policy: 3 columns look like personal or secret data; a policy to start from, to check and paste into the source's block:\n" +
			"    policy:\n      deny_columns:\n        - logins.password # a secret: the name says password\n" +
			"      mask_columns:\n        customers.email: hash # personal: the name says e-mail\n" +
			"        logins.contact: hash # personal: 2 of 2 sampled values look like e-mail addresses\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check's output lacks %q:\n%s", want, out)
		}
	}
	for _, v := range []string{"hunter2", "letmein", "kay@example.com", "lee@example.org", "ada@example.com", "tokens_used"} {
		if strings.Contains(out, v) {
			t.Errorf("check's output holds %q:\n%s", v, out)
		}
	}
}

// TestCheckPolicy: check prints a source's effective policy, a line per
// relation it hides or restricts, and the policy in the effective
// configuration; --policy gives one to a single database.
func TestCheckPolicy(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.yaml")
	os.WriteFile(pol, []byte("deny_tables: [drop_log]\ndeny_columns: [products.photo]\nmask_columns: {customers.email: hash}\n"), 0o600)
	// The annotations may describe what the policy hides: they are the
	// operator's, and no error.
	os.WriteFile(filepath.Join(dir, "notes.yaml"), []byte("tables:\n  drop_log: {description: Deleted rows}\n  products:\n    columns:\n      photo: {description: A JPEG}\n"), 0o600)
	file := filepath.Join(dir, "sqlmcp.yaml")
	os.WriteFile(file, []byte("sources:\n  - name: shop\n    url: "+dbtest.SQLiteFile(t)+"\n    policy: policy.yaml\n    annotations: notes.yaml\n"), 0o600)
	for _, args := range [][]string{{"--config", file}, {"--db", dbtest.SQLiteFile(t), "--policy", pol}} {
		out, err := runCheck(t, nil, args...)
		if err != nil {
			t.Fatalf("check %v: %v\n%s", args, err, out)
		}
		for _, want := range []string{
			"  policy: customers: masked columns: email (hash)\n",
			"  policy: drop_log: hidden: denied by deny_tables\n",
			"  policy: products: denied columns: photo\n",
			"deny_tables: [drop_log]",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("check %v lacks %q:\n%s", args, want, out)
			}
		}
		if strings.Contains(out, "customers.email") && strings.Contains(out, "suggest") && strings.Contains(out, "mask_columns:\n    customers.email") {
			t.Errorf("check %v suggests masking a column the policy masks:\n%s", args, out)
		}
	}
	os.WriteFile(pol, []byte("deny_tables: [nosuch]\n"), 0o600)
	if out, err := runCheck(t, nil, "--config", file); err == nil || !strings.Contains(out, `no table or view named "nosuch"`) {
		t.Errorf("check with a policy naming an unknown table: %v\n%s", err, out)
	}
}
