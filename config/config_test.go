package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// write puts text in dir/sqlmcp.yaml, beside an annotations file and a
// descriptions folder it may name.
func write(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"shop.yaml": "tables: {}\n", "school.db": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "desc"), 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sqlmcp.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const good = `# three databases
log_level: warn
allowed_hosts: [sqlmcp.internal, localhost]
defaults:
  timeout: 5s
  max_rows: 50
sources:
  - name: shop
    url: postgres://sqlmcp_ro:${PGPASSWORD_SHOP}@db.example.com:5432/shop?sslmode=disable
    description: Orders, customers and products of the web shop.
    annotations: shop.yaml
    schemas: [sales, hr]
    require_readonly_role: true
    hide_unreadable: true
    max_concurrency: 4
    tolerate: [grants]
  - name: school
    url: school.db
    description: >
      The school district's
      enrolment.
    descriptions: desc
    timeout: 30s
  - name: hr
    url: postgres://reader@db.example.com/hr
    max_rows: 10
    max_rows_limit: 20
`

func TestLoad(t *testing.T) {
	path := write(t, good)
	dir := filepath.Dir(path)
	base := config.Settings{Limits: sqlmcp.Limits{Timeout: 15 * time.Second, MaxBytes: 1000}, MaxConcurrency: 8}
	f, err := config.Load(path, base, env(map[string]string{"PGPASSWORD_SHOP": "p@ss/word"}))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Name, URL, Display, Description string
		Settings                        config.Settings
	}
	var have []got
	for _, s := range f.Sources {
		have = append(have, got{s.Name, s.URL, s.Display, s.Description, s.Settings})
	}
	want := []got{
		{"shop", "postgres://sqlmcp_ro:p%40ss%2Fword@db.example.com:5432/shop?sslmode=disable",
			"postgres://sqlmcp_ro:${PGPASSWORD_SHOP}@db.example.com:5432/shop?sslmode=disable",
			"Orders, customers and products of the web shop.",
			config.Settings{Annotations: filepath.Join(dir, "shop.yaml"), Schemas: []string{"sales", "hr"}, RequireReadonlyRole: true,
				HideUnreadable: true, MaxConcurrency: 4, Tolerate: []string{"grants"},
				Limits: sqlmcp.Limits{Timeout: 5 * time.Second, MaxRows: 50, MaxBytes: 1000}}},
		{"school", filepath.Join(dir, "school.db"), "school.db", "The school district's enrolment.",
			config.Settings{Descriptions: filepath.Join(dir, "desc"), MaxConcurrency: 8,
				Limits: sqlmcp.Limits{Timeout: 30 * time.Second, MaxRows: 50, MaxBytes: 1000}}},
		{"hr", "postgres://reader@db.example.com/hr", "postgres://reader@db.example.com/hr", "",
			config.Settings{MaxConcurrency: 8, Limits: sqlmcp.Limits{Timeout: 5 * time.Second, MaxRows: 10, MaxRowsLimit: 20, MaxBytes: 1000}}},
	}
	if d := cmp.Diff(want, have); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
	wantGlobal := []config.Global{{Key: "log_level", Flag: "log-level", Value: "warn", Line: 2},
		{Key: "allowed_hosts", Flag: "allowed-hosts", Value: "sqlmcp.internal,localhost", Line: 3}}
	if d := cmp.Diff(wantGlobal, f.Global); d != "" {
		t.Errorf("global (-want +got):\n%s", d)
	}
	if got := f.Sources[1].Where("descriptions"); got != path+":22" {
		t.Errorf("Where(descriptions) = %q, want %q", got, path+":22")
	}
	eff := f.Effective()
	for _, want := range []string{"log_level: warn", "url: postgres://sqlmcp_ro:${PGPASSWORD_SHOP}@db.example.com:5432/shop?sslmode=disable",
		"schemas: [sales, hr]", "timeout: 30s", "max_rows: 10", "max_rows_limit: 1000", "tolerate: [grants]"} {
		if !strings.Contains(eff, want) {
			t.Errorf("Effective() lacks %q:\n%s", want, eff)
		}
	}
	if strings.Contains(eff, "p@ss") || strings.Contains(eff, "%40") {
		t.Errorf("Effective() shows the password:\n%s", eff)
	}
}

// TestFailClosed: each mistake is an error at its line, with the fix.
func TestFailClosed(t *testing.T) {
	src := func(body string) string {
		return "sources:\n  - name: shop\n    url: postgres://ro@db/shop\n" + body
	}
	for _, tc := range []struct {
		name, text string
		want       []string // the errors, after the file name and a colon
	}{
		{"unknown top key", "sorces: []\n", []string{
			`1: unknown key "sorces" (a server-wide key) (did you mean sources?)`,
			`1: no sources: the file names no database (add sources: with a list of {name, url, description})`}},
		{"unknown source key", src("    anotations: shop.yaml\n"), []string{
			`4: unknown key "anotations" (in a source) (did you mean annotations?)`}},
		{"unknown default key", "defaults: {max_row: 5}\n" + src(""), []string{
			`1: unknown key "max_row" (in a default) (did you mean max_rows?)`}},
		{"duplicate names", src("  - name: shop\n    url: x.db\n"), []string{
			`4: source name "shop" is used twice (first on line 2) (give each source its own name)`}},
		{"bad name", "sources:\n  - name: Shop-DB\n    url: x.db\n", []string{
			`2: source name "Shop-DB" is not a plain name (a name is lower-case letters, digits and _, starting with a letter, at most 63 characters)`}},
		{"no name", "sources:\n  - url: x.db\n", []string{
			`2: this source has no name (add name: a plain name the model uses, such as shop)`}},
		{"no url", "sources:\n  - name: shop\n", []string{
			`2: source shop has no url (add url: a SQLite file, or postgres://user@host:5432/db with the password in ${VAR} or PGPASSWORD)`}},
		{"unset variable", "sources:\n  - name: shop\n    url: postgres://ro:${NOPE}@db/shop\n", []string{
			`3: source shop: url: ${NOPE} is not set in the environment (export the variable, or leave the password out of the URL and set PGPASSWORD)`}},
		{"bad duration", src("    timeout: 15\n"), []string{`4: source shop: timeout: "15" is not a positive duration (write 15s, 2m or 500ms)`}},
		{"bad number", src("    max_rows: lots\n"), []string{`4: source shop: max_rows: "lots" is not a whole number of at least 1`}},
		{"bad bool", src("    require_readonly_role: yes please\n"), []string{`4: source shop: require_readonly_role: "yes please" is not true or false`}},
		{"bad tolerate", src("    tolerate: [annotation]\n"), []string{`4: source shop: tolerate: "annotation" is not one of annotations, schemas, grants`}},
		{"rows over limit", src("    max_rows: 50\n    max_rows_limit: 10\n"), []string{`2: source shop: max_rows 50 is more than max_rows_limit 10`}},
		{"schemas on sqlite", "sources:\n  - name: school\n    url: school.db\n    schemas: [main]\n", []string{
			`2: source school: schemas are for PostgreSQL (its schemas) and MySQL (its databases); a file has one schema`}},
		{"missing annotations", src("    annotations: nope.yaml\n"), []string{
			`4: source shop: annotations: DIR/nope.yaml: no such file or directory (give the path of an existing YAML or JSON file, relative to this file)`}},
		{"duplicate key", src("    timeout: 1s\n    timeout: 2s\n"), []string{
			`5: timeout is given twice in this source (first on line 4) (keep one of them)`}},
		{"not a list", "sources: {shop: x.db}\n", []string{`1: sources must be a list, not a mapping`}},
		{"empty", "", []string{`1: the file is empty (list the databases under sources:)`}},
		{"bad yaml", "sources: [\n", []string{`1: not valid YAML: did not find expected node content`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, tc.text)
			_, err := config.Load(path, config.Settings{}, env(nil))
			if err == nil {
				t.Fatalf("Load succeeded; want %q", tc.want)
			}
			var got []string
			for _, line := range strings.Split(err.Error(), "\n") {
				line = strings.ReplaceAll(line, filepath.Dir(path), "DIR")
				got = append(got, strings.TrimPrefix(line, "DIR/sqlmcp.yaml:"))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestFromURLs(t *testing.T) {
	f, err := config.FromURLs([]string{"shop=postgres://ro@db/shop?sslmode=disable", "school=/data/school.db"}, config.Settings{MaxConcurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{f.Sources[0].Name, f.Sources[0].URL, f.Sources[1].Name, f.Sources[1].URL}; !cmp.Equal(got,
		[]string{"shop", "postgres://ro@db/shop?sslmode=disable", "school", "/data/school.db"}) {
		t.Errorf("sources = %q", got)
	}
	if f.Sources[1].MaxConcurrency != 3 {
		t.Errorf("MaxConcurrency = %d, want the base's 3", f.Sources[1].MaxConcurrency)
	}
	one, err := config.FromURLs([]string{"postgres://ro:secret@db/Shop-2024?sslmode=disable"}, config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if s := one.Sources[0]; s.Name != "shop_2024" || s.Display != "postgres://ro:xxxxx@db/Shop-2024?sslmode=disable" {
		t.Errorf("one unnamed source: name %q, display %q", s.Name, s.Display)
	}
	for _, tc := range []struct {
		specs []string
		want  string
	}{
		{[]string{"a.db", "b.db"}, `--db "a.db" has no name (with several databases write each as --db NAME=URL)`},
		{[]string{"a=x.db", "a=y.db"}, `--db a is given twice (give each database its own name)`},
		{[]string{"Shop=x.db"}, `--db Shop=...: "Shop" is not a plain name (` + "a name is lower-case letters, digits and _, starting with a letter, at most 63 characters)"},
	} {
		_, err := config.FromURLs(tc.specs, config.Settings{})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("FromURLs(%q) = %v, want %q", tc.specs, err, tc.want)
		}
	}
}

func TestNameFor(t *testing.T) {
	for in, want := range map[string]string{
		"/data/california_schools.sqlite": "california_schools", "postgres://u@h:5432/shop": "shop",
		"postgres://u@h/Big-Shop?sslmode=disable": "big_shop", "postgres://u@h": "db", "./2024.db": "db", "file:x.db?mode=ro": "x",
	} {
		if got := config.NameFor(in); got != want {
			t.Errorf("NameFor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestIdentities: identity rules are read in order and checked against the
// sources: unknown sources, roles on a non-PostgreSQL source, rules
// without match or sources are errors.
func TestIdentities(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		path := filepath.Join(dir, "sqlmcp.yaml")
		os.WriteFile(path, []byte("sources:\n  - name: shop\n    url: postgres://u@h/shop\n  - name: notes\n    url: notes.db\n"+body), 0o600)
		return path
	}
	f, err := config.Load(write("identities:\n  - name: analysts\n    match: {groups: [analysts], email_domain: example.com}\n    sources: [shop]\n    roles: {shop: analyst}\n  - match: {subject: ops}\n    sources: ['*']\n"), config.Settings{}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Identities) != 2 || f.Identities[0].Roles["shop"] != "analyst" || f.Identities[1].Name != "rule 2" ||
		f.Identities[0].Match.EmailDomains[0] != "example.com" {
		t.Errorf("identities: %+v", f.Identities)
	}
	for body, want := range map[string]string{
		"identities:\n  - match: {subject: a}\n    sources: [nosuch]\n":                       `no source named "nosuch"`,
		"identities:\n  - match: {subject: a}\n    sources: [notes]\n    roles: {notes: r}\n": "notes is not a PostgreSQL source",
		"identities:\n  - sources: [shop]\n":                                                  "has no match",
		"identities:\n  - match: {subject: a}\n":                                              "gives no source",
		"identities:\n  - match: {subjekt: a}\n    sources: [shop]\n":                         `unknown key "subjekt"`,
		"identities:\n  - match: {subject: a}\n    sources: [notes]\n    roles: {shop: r}\n":  "which it may not use",
	} {
		_, err := config.Load(write(body), config.Settings{}, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}

// TestMySQLSource: a MySQL or MariaDB URL in the file is a URL, not a path
// beside the file; its literal password is hidden, its name is the
// database's, and it may name schemas (MySQL's databases).
func TestMySQLSource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sqlmcp.yaml")
	os.WriteFile(path, []byte("sources:\n  - url: mysql://app:s3cret@db:3306/shop\n    name: shop\n    schemas: [shop, crm]\n  - name: maria\n    url: mariadb://app@db/crm\n"), 0o600)
	f, err := config.Load(path, config.Settings{}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if s := f.Sources[0]; s.URL != "mysql://app:s3cret@db:3306/shop" || strings.Contains(s.Display, "s3cret") || len(s.Schemas) != 2 {
		t.Errorf("mysql source: url %q, display %q, schemas %v", s.URL, s.Display, s.Schemas)
	}
	if s := f.Sources[1]; s.URL != "mariadb://app@db/crm" {
		t.Errorf("mariadb source: url %q", s.URL)
	}
	if got := config.NameFor("mysql://app@db:3306/shop?tls=true"); got != "shop" {
		t.Errorf("NameFor(mysql URL) = %q", got)
	}
}

func TestDuckDBViews(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"exports/sales_2023.parquet", "exports/sales_2024.parquet", "people.csv", "parts/year=2024/a.parquet"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "sqlmcp.yaml")
	text := "defaults: {threads: 1}\nsources:\n  - name: files\n    views: {sales: \"exports/sales_*.parquet\", people: people.csv, parts: parts}\n    memory_limit: 512MB\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(path, config.Settings{}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Sources[0]
	want := []config.View{{Name: "sales", Path: filepath.Join(dir, "exports/sales_*.parquet")},
		{Name: "people", Path: filepath.Join(dir, "people.csv")}, {Name: "parts", Path: filepath.Join(dir, "parts")}}
	if d := cmp.Diff(want, s.Views); d != "" {
		t.Errorf("views (-want +got):\n%s", d)
	}
	if s.URL != "duckdb:"+dir || s.DuckDBMemoryLimit != "512MB" || s.DuckDBThreads != 1 {
		t.Errorf("url %q, memory_limit %q, threads %d; want duckdb:%s, 512MB, 1", s.URL, s.DuckDBMemoryLimit, s.DuckDBThreads, dir)
	}
	eff := f.Effective()
	for _, line := range []string{"memory_limit: 512MB", "threads: 1", "views: {sales: " + filepath.Join(dir, "exports/sales_*.parquet")} {
		if !strings.Contains(eff, line) {
			t.Errorf("Effective lacks %q:\n%s", line, eff)
		}
	}

	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"missing file", "sources:\n  - name: files\n    views: {sales: nope.parquet}\n", []string{
			`3: source files: view sales: DIR/nope.parquet: no such file or directory (give an existing data file or folder of Parquet files, relative to this file)`}},
		{"glob matching nothing", "sources:\n  - name: files\n    views:\n      sales: exports/*.csv\n", []string{
			`4: source files: view sales: DIR/exports/*.csv matches no file (give a glob that matches at least one file, relative to this file)`}},
		{"bad view name", "sources:\n  - name: files\n    views: {\"my sales\": people.csv}\n", []string{
			`3: source files: view name "my sales" is not a plain name (a view's name is letters, digits and _, starting with a letter or _)`}},
		{"view twice", "sources:\n  - name: files\n    views: {people: people.csv, People: people.csv}\n", []string{
			`3: source files: view People is given twice (first on line 3) (give each view its own name)`}},
		{"views as a list", "sources:\n  - name: files\n    views: [people.csv]\n", []string{
			`3: views must be a mapping of keys, not a list`}},
		{"views beside a sqlite file", "sources:\n  - name: files\n    url: people.csv\n    views: {people: people.csv}\n", []string{
			`2: source files: views are served by DuckDB from the files they name: leave url out, or give a duckdb: URL or a folder`}},
		{"unknown key", "sources:\n  - name: files\n    views: {people: people.csv}\n    memory: 1GB\n", []string{
			`4: unknown key "memory" (in a source) (did you mean memory_limit?)`}},
		{"bad memory limit", "sources:\n  - name: files\n    views: {people: people.csv}\n    memory_limit: lots\n", []string{
			`4: source files: memory_limit: "lots" is not a size as DuckDB writes it (write 512MB, 1GB or 2GiB)`}},
		{"no threads", "sources:\n  - name: files\n    views: {people: people.csv}\n    threads: 0\n", []string{
			`4: source files: threads: "0" is not a whole number of at least 1`}},
		{"memory limit on postgres", "sources:\n  - name: shop\n    url: postgres://ro@db/shop\n    memory_limit: 1GB\n", []string{
			`2: source shop: memory_limit and threads are DuckDB's; a server's budgets are its own (pg_work_mem and pg_temp_file_limit on PostgreSQL)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := config.Load(path, config.Settings{}, env(nil))
			if err == nil {
				t.Fatalf("Load succeeded; want %q", tc.want)
			}
			var got []string
			for _, line := range strings.Split(err.Error(), "\n") {
				line = strings.ReplaceAll(line, dir, "DIR")
				got = append(got, strings.TrimPrefix(line, "DIR/sqlmcp.yaml:"))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}
