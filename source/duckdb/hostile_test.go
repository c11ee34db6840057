package duckdb_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
)

// hostile is one statement written to reach past the sandbox. In SQL,
// {served} is the served folder, {outside} a file beside it that is not
// served, {out} an empty folder nothing may write to.
type hostile struct {
	name, sql string
	// files marks a statement the guard must refuse by saying the files
	// are already there as views.
	files bool
	// contained marks what DuckDB's settings alone let run because it
	// reaches no file, URL or setting: an in-memory attach, a temporary
	// object, a read of the served files' own metadata. The guard and the
	// engine's statement check refuse it.
	contained bool
	// query marks a query that reads only what is served or says what
	// the settings are: the engine's statement check runs it, and only the
	// guard refuses it.
	query bool
	// writesServed marks a write to a served file: DuckDB's allowed_paths
	// grant writing as well as reading, so the settings alone do not stop
	// it, and it is not run against them; the guard and the engine's
	// statement check do.
	writesServed bool
}

var hostileCorpus = []hostile{
	{name: "COPY TO a new file", sql: "COPY (SELECT 1) TO '{out}/x.csv'", files: true},
	{name: "COPY a view TO parquet", sql: "COPY people TO '{out}/people.parquet' (FORMAT parquet)", files: true},
	{name: "COPY over a served file", sql: "COPY (SELECT 'pwned' AS a) TO '{served}/people.csv' (USE_TMP_FILE false)", files: true, writesServed: true},
	{name: "COPY FROM outside", sql: "COPY people FROM '{outside}'", files: true},
	{name: "EXPORT DATABASE", sql: "EXPORT DATABASE '{out}/exp'", files: true},
	{name: "ATTACH a file outside", sql: "ATTACH '{outside}' AS o", files: true},
	{name: "ATTACH a new database", sql: "ATTACH '{out}/new.duckdb' AS n", files: true},
	{name: "ATTACH in memory", sql: "ATTACH ':memory:' AS m", files: true, contained: true},
	{name: "INSTALL", sql: "INSTALL httpfs"},
	{name: "INSTALL from a URL", sql: "INSTALL httpfs FROM 'http://127.0.0.1:1/'"},
	{name: "FORCE INSTALL", sql: "FORCE INSTALL httpfs"},
	{name: "LOAD", sql: "LOAD httpfs"},
	{name: "LOAD a path", sql: "LOAD '{out}/evil.duckdb_extension'"},
	{name: "SET external access back on", sql: "SET enable_external_access = true"},
	{name: "SET lock off", sql: "SET lock_configuration = false"},
	{name: "SET allowed paths", sql: "SET allowed_paths = ['{outside}']"},
	{name: "SET threads", sql: "SET threads = 64"},
	{name: "RESET memory_limit", sql: "RESET memory_limit"},
	{name: "profiling to a file", sql: "SET profiling_output = '{out}/profile.txt'; SET enable_profiling = 'json'; SELECT 1", contained: true},
	{name: "PRAGMA listing", sql: "PRAGMA database_list", contained: true},
	{name: "read_csv of /etc/passwd", sql: "SELECT * FROM read_csv('/etc/passwd')", files: true},
	{name: "read_csv outside", sql: "SELECT * FROM read_csv('{outside}')", files: true},
	{name: "read_text", sql: "SELECT * FROM read_text('/etc/passwd')", files: true},
	{name: "read_blob", sql: "SELECT * FROM read_blob('{outside}')", files: true},
	{name: "read_csv of a served file", query: true, sql: "SELECT * FROM read_csv('{served}/people.csv')", files: true, contained: true},
	{name: "parquet_metadata of a served file", query: true, sql: "SELECT * FROM parquet_metadata('{served}/nested.parquet')", files: true, contained: true},
	{name: "sniff_csv", sql: "SELECT * FROM sniff_csv('{outside}')", files: true},
	{name: "glob of /", sql: "SELECT * FROM glob('/*')", files: true},
	{name: "glob in a subquery", sql: "SELECT (SELECT count(*) FROM glob('{served}/../*'))", files: true},
	{name: "getenv", sql: "SELECT getenv('HOME')"},
	{name: "current_setting", query: true, sql: "SELECT current_setting('temp_directory')", contained: true},
	{name: "duckdb_settings", query: true, sql: "SELECT * FROM duckdb_settings()", contained: true},
	{name: "bare duckdb_settings", query: true, sql: "FROM duckdb_settings", contained: true},
	{name: "pg_settings", query: true, sql: "SELECT * FROM pg_settings", contained: true},
	{name: "duckdb_databases", query: true, sql: "SELECT path FROM duckdb_databases()", contained: true},
	{name: "histogram over pg_settings", query: true, sql: "FROM histogram(pg_settings, name || '=' || setting)", contained: true},
	{name: "histogram_values over duckdb_databases", query: true, sql: "FROM histogram_values(duckdb_databases, path)", contained: true},
	{name: "a macro over the settings", query: true, sql: "FROM duckdb_profiling_settings()", contained: true},
	{name: "a scalar macro reading a pragma", query: true, sql: "SELECT get_block_size('data')", contained: true},
	{name: "a path as the schema, served", query: true, sql: `SELECT * FROM "{served}/people".csv`, files: true, contained: true},
	{name: "a path as the schema, outside", query: true, sql: `SELECT * FROM "{served}/../secret".csv`, files: true},
	{name: "a path as the catalog", query: true, sql: `SELECT * FROM "{served}".people.csv`, files: true, contained: true},
	{name: "https URL", sql: "SELECT * FROM read_csv('https://example.com/a.csv')", files: true},
	{name: "https replacement scan", sql: "SELECT * FROM 'https://example.com/a.parquet'", files: true},
	{name: "s3 URL", sql: "SELECT * FROM read_parquet('s3://bucket/a.parquet')", files: true},
	{name: "replacement scan of /etc/passwd", sql: "SELECT * FROM '/etc/passwd'", files: true},
	{name: "replacement scan outside", sql: "FROM '{outside}'", files: true},
	{name: "replacement scan in a CTE", sql: "WITH s AS (FROM '{outside}') SELECT * FROM s", files: true},
	{name: "query() of a file", sql: "SELECT * FROM query('SELECT * FROM read_csv(''{outside}'')')"},
	{name: "serialized SQL", sql: "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT * FROM read_csv(''{outside}'')'))"},
	{name: "stacked COPY", sql: "SELECT 1; COPY (SELECT 1) TO '{out}/s.csv'", files: true},
	{name: "stacked SET", sql: "SELECT 1; SET enable_external_access = true"},
	{name: "stacked read", sql: "SELECT 1; SELECT * FROM read_csv('{outside}')", files: true},
	{name: "CREATE TABLE", sql: "CREATE TABLE t (a INTEGER)"},
	{name: "CREATE VIEW", sql: "CREATE VIEW v AS SELECT * FROM read_csv('{outside}')"},
	{name: "CREATE MACRO", sql: "CREATE MACRO m(a) AS a"},
	{name: "CREATE SEQUENCE", sql: "CREATE SEQUENCE s"},
	{name: "CREATE SECRET", sql: "CREATE SECRET (TYPE s3, KEY_ID 'a', SECRET 'b')"},
	{name: "CREATE PERSISTENT SECRET", sql: "CREATE PERSISTENT SECRET (TYPE s3, KEY_ID 'a', SECRET 'b')"},
	{name: "CREATE TEMP TABLE", sql: "CREATE TEMP TABLE t AS SELECT 1 AS a", contained: true},
	{name: "SET VARIABLE", sql: "SET VARIABLE x = 1", contained: true},
	{name: "CHECKPOINT", sql: "CHECKPOINT", contained: true},
	{name: "VACUUM", sql: "VACUUM", contained: true},
	{name: "DETACH", sql: "DETACH data"},
	{name: "INSERT into a view", sql: "INSERT INTO people VALUES (9, 'x', 'y', 'z')"},
	{name: "nextval", sql: "SELECT nextval('s')"},
	{name: "EXPLAIN ANALYZE COPY", sql: "EXPLAIN ANALYZE COPY (SELECT 1) TO '{out}/e.csv'"},
	{name: "EXPLAIN COPY", sql: "EXPLAIN COPY (SELECT 1) TO '{out}/e.csv'", files: true},
	{name: "simplified PIVOT", sql: "PIVOT people ON id USING count(*)", contained: true},
}

func (h hostile) expand(served, outside, out string) string {
	return strings.NewReplacer("{served}", served, "{outside}", outside, "{out}", out).Replace(h.sql)
}

// TestHostileGuard sends the corpus through the door: the guard refuses
// each, and names the views when the statement reaches for files.
func TestHostileGuard(t *testing.T) {
	dir, outside := fixture(t)
	out := t.TempDir()
	before, secretBefore := fingerprint(t, dir), fingerprint(t, filepath.Dir(outside))
	b := open(t, dir, duckdb.Engine{})
	for _, h := range hostileCorpus {
		t.Run(h.name, func(t *testing.T) {
			_, rows, err := run(t.Context(), b, source.Statement{SQL: h.expand(dir, outside, out)})
			var ge *guard.Error
			var se *guard.SyntaxError
			switch {
			case errors.As(err, &ge):
				if h.files && !strings.Contains(ge.Error(), "views") && !strings.Contains(ge.Error(), "statements") {
					t.Errorf("refusal does not point at the views: %v", ge)
				}
			case errors.As(err, &se):
			default:
				t.Errorf("the guard let it through: err = %v, rows = %v", err, rows)
			}
			if contains(rows, secret) {
				t.Error("an answer holds the outside file's text")
			}
		})
	}
	assertUnchanged(t, dir, before, filepath.Dir(outside), secretBefore, out)
}

// TestHostileGuardOff sends the corpus with the guard off: through the
// engine's own statement check, which refuses each, and straight to the
// locked instance, where DuckDB's settings refuse whatever reaches a file
// outside the served set, a URL, an extension or a setting.
func TestHostileGuardOff(t *testing.T) {
	dir, outside := fixture(t)
	out := t.TempDir()
	before, secretBefore := fingerprint(t, dir), fingerprint(t, filepath.Dir(outside))
	b := open(t, dir, duckdb.Engine{})
	for _, h := range hostileCorpus {
		t.Run(h.name, func(t *testing.T) {
			sql := h.expand(dir, outside, out)
			rows, err := duckdb.RunUnguarded(t.Context(), b, sql)
			if err == nil && !h.query {
				t.Errorf("the engine check let it through: rows = %v", rows)
			}
			if contains(rows, secret) {
				t.Error("an answer holds the outside file's text")
			}
			if h.writesServed {
				return
			}
			rows, err = duckdb.RawQuery(t.Context(), b, sql)
			if err == nil && !h.contained {
				t.Errorf("the sandbox let it through: rows = %.200v", rows)
			}
			if contains(rows, secret) {
				t.Error("an answer holds the outside file's text")
			}
		})
	}
	assertUnchanged(t, dir, before, filepath.Dir(outside), secretBefore, out)
}

// assertUnchanged checks that the served files and the outside one are
// byte for byte what they were, and that nothing was written to out.
func assertUnchanged(t *testing.T, dir string, before map[string]string, outsideDir string, outsideBefore map[string]string, out string) {
	t.Helper()
	if got := fingerprint(t, dir); !equal(got, before) {
		t.Errorf("the served files changed: %v, was %v", got, before)
	}
	if got := fingerprint(t, outsideDir); !equal(got, outsideBefore) {
		t.Errorf("the files beside the served folder changed: %v, was %v", got, outsideBefore)
	}
	entries, err := os.ReadDir(out)
	must(t, err)
	if len(entries) > 0 {
		t.Errorf("a statement wrote %s", entries[0].Name())
	}
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
