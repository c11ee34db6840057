package guard_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// fakeCatalog is a PostgresCatalog from maps of "schema.name" to
// volatility and to origin (absent: built in), answering as source's
// does: every function of a name, in one schema or in any.
type fakeCatalog struct {
	funcs, ops          map[string]byte   // "schema.name"
	origins             map[string]string // "schema.name" of a function not built in
	types               map[string]guard.PostgresType
	named               map[string]bool // "schema.name" allowed by name
	version             int             // 0: PostgreSQL 17
	everythingImmutable bool            // answer 'i' for every name
	plainRole           bool            // the role may not read the reserved settings
}

func (c *fakeCatalog) ReadsReservedSettings() bool { return !c.plainRole }

func newFakeCatalog(funcs, ops map[string]byte) *fakeCatalog {
	return &fakeCatalog{funcs: funcs, ops: ops, origins: map[string]string{}}
}

// with returns a copy of c that also holds funcs, with their origins.
func (c *fakeCatalog) with(funcs map[string]byte, origins map[string]string) *fakeCatalog {
	n := *c
	n.funcs, n.origins = maps.Clone(c.funcs), maps.Clone(c.origins)
	maps.Copy(n.funcs, funcs)
	maps.Copy(n.origins, origins)
	return &n
}

func (c *fakeCatalog) Functions(schema, name string) []guard.PostgresFunction {
	return c.lookup(c.funcs, schema, name)
}

func (c *fakeCatalog) Operators(schema, name string) []guard.PostgresFunction {
	return c.lookup(c.ops, schema, name)
}

func (c *fakeCatalog) lookup(m map[string]byte, schema, name string) []guard.PostgresFunction {
	if c.everythingImmutable {
		return []guard.PostgresFunction{{Schema: "pg_catalog", Name: name, Volatility: 'i'}}
	}
	var fns []guard.PostgresFunction
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s, n, _ := strings.Cut(k, ".")
		// The search path: pg_catalog, public.
		if n == name && (s == schema || schema == "" && (s == "pg_catalog" || s == "public")) {
			fns = append(fns, guard.PostgresFunction{Schema: s, Name: n, Volatility: m[k], Origin: c.origins[k], Named: c.named[k], Allowed: c.named[k]})
		}
	}
	return fns
}

func (c *fakeCatalog) Type(schema, name string) (guard.PostgresType, bool) {
	if t, ok := c.types[name]; ok {
		return t, true
	}
	return guard.PostgresType{}, true // built in
}

func (c *fakeCatalog) ServerVersion() int {
	if c.version == 0 {
		return 170000
	}
	return c.version
}

// testCatalog holds the functions and operators the corpora use, with
// their volatility in PostgreSQL 17's pg_proc (the strictest overload),
// plus an extension's, a user's and a look-alike's.
var testCatalog = newFakeCatalog(map[string]byte{
	// Aggregates and window functions.
	"pg_catalog.count": 'i', "pg_catalog.sum": 'i', "pg_catalog.avg": 'i', "pg_catalog.min": 'i',
	"pg_catalog.max": 'i', "pg_catalog.string_agg": 'i', "pg_catalog.percentile_cont": 'i',
	"pg_catalog.row_number": 'i', "pg_catalog.rank": 'i',
	// Scalars.
	"pg_catalog.upper": 'i', "pg_catalog.lower": 'i', "pg_catalog.length": 'i', "pg_catalog.substring": 'i',
	"pg_catalog.btrim": 'i', "pg_catalog.abs": 'i', "pg_catalog.name": 'i', "pg_catalog.similar_to_escape": 'i',
	"pg_catalog.generate_series": 's', "pg_catalog.jsonb_build_object": 's', "pg_catalog.jsonb_path_query": 'i',
	"pg_catalog.to_char": 's', "pg_catalog.date_trunc": 's', "pg_catalog.extract": 's', "pg_catalog.timezone": 's',
	"pg_catalog.now": 's', "pg_catalog.current_setting": 's', "pg_catalog.statement_timestamp": 's',
	"pg_catalog.pg_size_pretty": 'i', "pg_catalog.to_tsvector": 's', "pg_catalog.pg_backend_pid": 's',
	"pg_catalog.format_type": 's', "pg_catalog.obj_description": 's',
	// Volatile but harmless.
	"pg_catalog.random": 'v', "pg_catalog.clock_timestamp": 'v', "pg_catalog.timeofday": 'v',
	"pg_catalog.gen_random_uuid": 'v', "pg_catalog.pg_total_relation_size": 'v', "public.uuid_generate_v4": 'v',
	// An extension's stable function, a user's volatile one, a look-alike.
	"public.similarity": 's', "public.refresh_stats": 'v', "evil.random": 'v',
	// Denied, whatever their volatility: some are stable or immutable.
	"pg_catalog.pg_sleep": 'v', "pg_catalog.pg_sleep_for": 'v', "pg_catalog.pg_sleep_until": 'v',
	"pg_catalog.set_config": 'v', "pg_catalog.pg_read_file": 'v', "pg_catalog.pg_read_binary_file": 'v',
	"pg_catalog.pg_ls_dir": 'v', "pg_catalog.pg_ls_waldir": 'v', "pg_catalog.pg_stat_file": 'v',
	"public.dblink": 'v', "public.dblink_exec": 'v',
	"pg_catalog.nextval": 'v', "pg_catalog.setval": 'v', "pg_catalog.currval": 'v', "pg_catalog.lastval": 'v',
	"pg_catalog.lo_import": 'v', "pg_catalog.lo_export": 'v', "pg_catalog.lo_unlink": 'v', "pg_catalog.lo_get": 'v',
	"pg_catalog.pg_advisory_lock": 'v', "pg_catalog.pg_try_advisory_xact_lock": 'v',
	"pg_catalog.txid_current": 's', "pg_catalog.pg_current_xact_id": 'v',
	"pg_catalog.query_to_xml": 's', "pg_catalog.cursor_to_xml": 'v', "pg_catalog.ts_stat": 'v',
	"pg_catalog.pg_notify": 'v', "pg_catalog.pg_terminate_backend": 'v', "pg_catalog.pg_cancel_backend": 'v',
	"pg_catalog.pg_reload_conf": 'v', "pg_catalog.pg_stat_reset": 'v', "pg_catalog.pg_logical_emit_message": 'v',
	"pg_catalog.setseed": 'v',
}, map[string]byte{
	"pg_catalog.+": 'i', "pg_catalog.-": 'i', "pg_catalog.*": 'i', "pg_catalog./": 'i',
	"pg_catalog.=": 'i', "pg_catalog.<>": 'i', "pg_catalog.<": 'i', "pg_catalog.>": 'i',
	"pg_catalog.<=": 'i', "pg_catalog.>=": 'i', "pg_catalog.~~": 'i', "pg_catalog.!~~": 'i',
	"pg_catalog.~~*": 'i', "pg_catalog.~": 'i', "pg_catalog.@>": 'i', "pg_catalog.->>": 'i',
	"pg_catalog.->": 'i', "pg_catalog.||": 'i',
	"public.###": 'v', // a user's operator over a volatile function
}).with(nil, map[string]string{
	"public.similarity": "pg_trgm", "public.uuid_generate_v4": "uuid-ossp", "public.refresh_stats": guard.OriginUser,
	"evil.random": guard.OriginUser, "public.dblink": "dblink", "public.dblink_exec": "dblink",
})

// refusal returns err's text, failing the test unless err is an *Error
// or a *guard.SyntaxError (a refusal, not a fault).
func refusal(t *testing.T, sql string, err error) string {
	t.Helper()
	var ge *guard.Error
	var se *guard.SyntaxError
	if !errors.As(err, &ge) && !errors.As(err, &se) {
		t.Fatalf("CheckPostgres(%.80q) = %v (%T), want an *Error or a *SyntaxError", sql, err, err)
	}
	return err.Error()
}

func TestCheckPostgresRefusesHostile(t *testing.T) {
	for _, c := range dbtest.HostilePostgres {
		t.Run(c.Name, func(t *testing.T) {
			err := guard.CheckPostgres(c.SQL, testCatalog)
			if err == nil {
				t.Fatalf("accepted %.80q", c.SQL)
			}
			msg := refusal(t, c.SQL, err)
			// The catalog knows every function the corpus calls, so each
			// is refused for what it does, not for being unknown.
			if strings.HasPrefix(msg, "no function named") || strings.HasPrefix(msg, "no operator named") {
				t.Errorf("refused %.80q for the wrong reason: %s", c.SQL, msg)
			}
			if _, err := guard.PostgresLimit(c.SQL, 101, testCatalog); err == nil {
				t.Errorf("PostgresLimit accepted %.80q", c.SQL)
			}
		})
	}
}

func TestCheckPostgresAllowsReads(t *testing.T) {
	for _, c := range dbtest.AllowedPostgres {
		t.Run(c.Name, func(t *testing.T) {
			if err := guard.CheckPostgres(c.SQL, testCatalog); err != nil {
				t.Fatalf("refused %.80q: %v", c.SQL, err)
			}
			q, err := guard.PostgresLimit(c.SQL, 101, testCatalog)
			if err != nil {
				t.Fatalf("PostgresLimit refused %.80q: %v", c.SQL, err)
			}
			if want := strings.HasPrefix(c.SQL, "EXPLAIN"); q.Explain != want {
				t.Errorf("PostgresLimit(%.80q) explain = %v, want %v", c.SQL, q.Explain, want)
			}
			if !q.Explain && (!strings.HasPrefix(q.Text, "SELECT * FROM (\n") || !strings.HasSuffix(q.Text, "\n) AS sqlmcp_q LIMIT 101")) {
				t.Errorf("PostgresLimit(%.80q) = %.80q, want the query wrapped in a LIMIT", c.SQL, q.Text)
			}
		})
	}
}

func TestCheckPostgresMessages(t *testing.T) {
	const readOnly = "This server only reads: send one SELECT statement (WITH ... SELECT, UNION and EXPLAIN are fine)"
	tests := []struct{ name, sql, want string }{
		{"delete", "DELETE FROM customers", `DELETE from table "customers" is not allowed. ` + readOnly},
		{"insert into a qualified table", "INSERT INTO public.drop_log VALUES (1)", `INSERT into table "public.drop_log" is not allowed. ` + readOnly},
		{"stacked", "SELECT 1; DROP TABLE customers", `found more than one statement; the second begins "DROP TABLE customers". Send exactly one statement per call`},
		{"commit escape", "COMMIT; DROP TABLE customers", `found more than one statement; the second begins "DROP TABLE customers". Send exactly one statement per call`},
		{"commit", "COMMIT", "COMMIT (transaction control) is not allowed. Every statement already runs on its own: send it without BEGIN, COMMIT or SAVEPOINT"},
		{"end", "END", "COMMIT (transaction control) is not allowed. Every statement already runs on its own: send it without BEGIN, COMMIT or SAVEPOINT"},
		{"create table", "CREATE TABLE x(a int)", "CREATE TABLE would change the database and is not allowed. " + readOnly},
		{"alter table", "ALTER TABLE customers ADD COLUMN x int", "ALTER TABLE would change the database and is not allowed. " + readOnly},
		{"vacuum", "VACUUM", "VACUUM would change the database and is not allowed. " + readOnly},
		{"show", "SHOW ALL", "SHOW is not allowed. Read a setting with SELECT current_setting('name'), or all of them with SELECT name, setting FROM pg_settings"},
		{"set", "SET search_path = evil", "SET is not allowed. Settings cannot be changed here; read one with SELECT current_setting('name')"},
		{"set transaction", "SET TRANSACTION READ WRITE", "SET TRANSACTION is not allowed. Settings cannot be changed here; read one with SELECT current_setting('name')"},
		{"reset", "RESET ALL", "RESET is not allowed. Settings cannot be changed here; read one with SELECT current_setting('name')"},
		{"copy", "COPY customers TO '/tmp/x'", "COPY is not allowed. Send the SELECT alone; its rows come back as the result"},
		{"do", "DO $$ BEGIN DELETE FROM customers; END $$", "DO is not allowed. Code blocks and procedures can write; send one SELECT statement"},
		{"prepare", "PREPARE x AS DELETE FROM customers", "PREPARE is not allowed. Send the query itself, with its values written in"},
		{"declare", "DECLARE c CURSOR FOR SELECT 1", "DECLARE is not allowed. Send the query itself; the server pages its rows"},
		{"lock", "LOCK TABLE customers", "LOCK is not allowed. Reading needs no locks: send the SELECT alone"},
		{"pg_sleep", "SELECT pg_sleep(1)", "the function pg_sleep() is not allowed. Waiting is not allowed; write the query without it"},
		{"pg_read_file in from", "SELECT * FROM pg_read_file('/etc/passwd')", "the function pg_read_file() is not allowed. Files and large objects on the server are off limits; query tables instead"},
		{"set_config", "SELECT set_config('default_transaction_read_only', 'off', false)", "the function set_config() is not allowed. Settings cannot be changed; read one with current_setting('name')"},
		{"nextval", "SELECT nextval('invoice_no')", "the function nextval() is not allowed. Sequence functions are not allowed; read a sequence's state with SELECT last_value FROM the_sequence"},
		{"dblink", "SELECT dblink_exec('dbname=x', 'DELETE FROM t')", "the function dblink_exec() is not allowed. This server reads only the database it was started with; query its tables directly"},
		{"query_to_xml", "SELECT query_to_xml('DELETE FROM t', true, true, '')", "the function query_to_xml() is not allowed. That function runs SQL given as text; send that SQL as the query instead"},
		{"unknown function", "SELECT no_such_fn(1)", "no function named no_such_fn(). Check the spelling and the schema; pg_proc lists the functions this database has"},
		{"unknown qualified function", "SELECT evil.upper('x')", "no function named evil.upper(). Check the spelling and the schema; pg_proc lists the functions this database has"},
		{"user function", "SELECT refresh_stats()", "refresh_stats() calls public.refresh_stats(), which is defined in this database, not built in: its body cannot be checked, so it is not allowed. Write the query with built-in functions. An operator can allow it with --allow-function public.refresh_stats"},
		{"look-alike", "SELECT evil.random()", "random() calls evil.random(), which is defined in this database, not built in: its body cannot be checked, so it is not allowed. Write the query with built-in functions. An operator can allow it with --allow-function evil.random"},
		{"volatile operator", "SELECT 1 ### 2", "the operator ### can reach public.###(), which is volatile, and is not allowed. Only functions that cannot change anything (immutable or stable ones) may be called; write the query without it"},
		{"extension not vetted", "SELECT dblink_connect_u('x')", "the function dblink_connect_u() is not allowed. This server reads only the database it was started with; query its tables directly"},
		{"unknown operator", "SELECT 1 OPERATOR(evil.+) 2", "no operator named OPERATOR(evil.+). Check the operator; pg_operator lists the operators this database has"},
		{"attribute notation", "SELECT c.pg_sleep FROM customers c", "c.pg_sleep can call the function pg_sleep() and is not allowed. If pg_sleep is a column, select it without the table name; otherwise write the query without pg_sleep()"},
		{"attribute notation on a row", "SELECT (c).refresh_stats FROM customers c", "(...).refresh_stats can call the function refresh_stats() and is not allowed. If refresh_stats is a column, select it without the table name; otherwise write the query without refresh_stats()"},
		{"for update", "SELECT * FROM customers FOR UPDATE", "FOR UPDATE locks rows and is not allowed. Send the SELECT without FOR UPDATE; reading needs no row locks"},
		{"for share", "SELECT * FROM customers FOR SHARE SKIP LOCKED", "FOR SHARE locks rows and is not allowed. Send the SELECT without FOR SHARE; reading needs no row locks"},
		{"with delete", "WITH d AS (DELETE FROM customers RETURNING *) SELECT * FROM d", "a data-modifying WITH (DELETE) is not allowed. Every query in a WITH must be a SELECT: this server only reads"},
		{"with insert", "WITH i AS (INSERT INTO drop_log(id) VALUES (1) RETURNING id) SELECT * FROM i", "a data-modifying WITH (INSERT) is not allowed. Every query in a WITH must be a SELECT: this server only reads"},
		{"select into", "SELECT * INTO newt FROM customers", "SELECT INTO creates a table and is not allowed. Send the SELECT without INTO; its rows come back as the result"},
		{"explain analyze", "EXPLAIN ANALYZE DELETE FROM customers", "EXPLAIN ANALYZE runs the statement and is not allowed. Send EXPLAIN without ANALYZE to see the plan without running it"},
		{"explain analyze true", "EXPLAIN (ANALYZE true) SELECT 1", "EXPLAIN ANALYZE runs the statement and is not allowed. Send EXPLAIN without ANALYZE to see the plan without running it"},
		{"explain delete", "EXPLAIN DELETE FROM customers", "EXPLAIN DELETE is not allowed. Only a query can be explained: send EXPLAIN SELECT ..."},
		{"tablesample method", "SELECT * FROM customers TABLESAMPLE evil (1)", "the TABLESAMPLE method evil is not allowed. Use TABLESAMPLE SYSTEM (percent) or BERNOULLI (percent)"},
		{"syntax error", "SELEC 1", `syntax error at or near "SELEC" (at character 1)`},
		{"syntax error after multibyte", "SELECT 'é' FROM ,", `syntax error at or near "," (at character 17)`},
		{"unterminated string", "SELECT 'x", `unterminated quoted string at or near "'x" (at character 8)`},
		{"empty", "  -- nothing", "no SQL statement found. Send one SELECT statement"},
		{"nested comment only", "/* /* */ */", "no SQL statement found. Send one SELECT statement"},
		{"nul", "SELECT 1\x00; DELETE FROM customers", "the SQL contains a NUL byte. Remove the NUL (\\x00) character"},
		{"invalid utf-8", "SELECT '\xff'", "the SQL is not valid UTF-8. Send the statement as UTF-8 text"},
		{"deep brackets", "SELECT " + strings.Repeat("(", 1001) + "1" + strings.Repeat(")", 1001), "the SQL nests brackets more than 1000 levels deep. Nest less: a WITH clause can name a subquery instead of nesting it"},
		{"long chain", "SELECT " + strings.Repeat("1+", 3000) + "1", "the SQL chains or nests expressions up to 3001 levels deep; the limit is 3000. Break up long chains such as a + b + c + ..., long CASE expressions or UNION chains (IN (...), a VALUES list or a WITH clause can replace them), and nest fewer subqueries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := guard.CheckPostgres(tt.sql, testCatalog)
			if err == nil || err.Error() != tt.want {
				t.Errorf("CheckPostgres(%.80q)\n got: %v\nwant: %s", tt.sql, err, tt.want)
			}
		})
	}
}

func TestCheckPostgresSyntaxError(t *testing.T) {
	err := guard.CheckPostgres("SELECT * FROM customers WHERE", testCatalog)
	var se *guard.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("got %v (%T), want a *SyntaxError", err, err)
	}
	if want := (guard.SyntaxError{Message: "syntax error at end of input", Position: 30}); *se != want {
		t.Errorf("got %+v, want %+v", *se, want)
	}
}

// TestCheckPostgresSecretRelations: the catalogs that show credentials or
// the server's files are refused however they are named or nested; the
// catalogs that describe roles and settings without them are not.
func TestCheckPostgresSecretRelations(t *testing.T) {
	lenient := &fakeCatalog{everythingImmutable: true}
	for shows, sqls := range map[string][]string{
		"credentials or the server's files": {
			"SELECT rolname, rolpassword FROM pg_authid",
			"SELECT * FROM pg_catalog.pg_authid",
			`SELECT passwd FROM "pg_catalog"."pg_shadow"`,
			"SELECT * FROM test.pg_catalog.pg_shadow",
			"TABLE pg_hba_file_rules",
			"SELECT * FROM (SELECT * FROM pg_file_settings) s",
			"WITH c AS (SELECT * FROM pg_config) SELECT * FROM c",
			"SELECT (SELECT count(*) FROM pg_largeobject)",
			"SELECT 1 WHERE EXISTS (SELECT 1 FROM pg_ident_file_mappings)",
			"SELECT r.rolname FROM pg_roles r JOIN pg_user_mappings m ON m.umuser = r.oid",
			"SELECT umoptions FROM pg_user_mapping",
			"SELECT subconninfo FROM pg_subscription",
			"SELECT option_value FROM information_schema.user_mapping_options",
			"SELECT umoptions FROM information_schema._pg_user_mappings",
			"SELECT unnest(setconfig) FROM pg_db_role_setting",
		},
		"other sessions' statements": {
			"SELECT query FROM pg_stat_activity",
			"SELECT * FROM pg_catalog.pg_stat_activity WHERE pid <> pg_backend_pid()",
			"SELECT to_json(a) FROM (TABLE pg_stat_activity) a",
			"SELECT count(*) FROM pg_stat_activity",
		},
	} {
		for _, sql := range sqls {
			err := guard.CheckPostgres(sql, lenient)
			if err == nil || !strings.Contains(err.Error(), shows) {
				t.Errorf("CheckPostgres(%q) = %v, want the catalog refused as showing %s", sql, err, shows)
			}
		}
	}
	for _, sql := range []string{
		"SELECT rolname, rolpassword FROM pg_roles",
		"SELECT usename FROM pg_user",
		"SELECT relname FROM pg_class",
		"SELECT * FROM public.pg_config", // a table of the database's own, not the catalog
		"SELECT * FROM information_schema.foreign_servers",
		"SELECT * FROM public.pg_stat_activity",
		"SELECT datname, numbackends FROM pg_stat_database",
		"SELECT current_query()", // this statement's own text
	} {
		if err := guard.CheckPostgres(sql, lenient); err != nil {
			t.Errorf("CheckPostgres(%q) = %v, want it allowed", sql, err)
		}
	}
}

// TestCheckPostgresPopulate: the functions and the operator that make a
// value of a row type from JSON or hstore must be given the type named.
func TestCheckPostgresPopulate(t *testing.T) {
	lenient := &fakeCatalog{everythingImmutable: true}
	for _, sql := range []string{
		`SELECT jsonb_populate_record(t, '{}') FROM t`,
		`SELECT json_populate_recordset(c, '[]') FROM t`,
		`SELECT * FROM pg_catalog.jsonb_populate_record(t.*, '{}')`,
		`SELECT populate_record(t, 'a=>1') FROM t`,
		`SELECT t #= 'a=>1'::hstore FROM t`,
	} {
		if err := guard.CheckPostgres(sql, lenient); err == nil || !strings.Contains(err.Error(), "does not name that type") {
			t.Errorf("CheckPostgres(%q) = %v, want it refused", sql, err)
		}
	}
	for _, sql := range []string{
		`SELECT jsonb_populate_record(NULL::t, '{}')`,
		`SELECT * FROM json_populate_recordset(NULL::t, '[]')`,
		`SELECT NULL::t #= 'a=>1'::hstore`,
	} {
		if err := guard.CheckPostgres(sql, lenient); err != nil {
			t.Errorf("CheckPostgres(%q) = %v, want it allowed", sql, err)
		}
	}
}

func TestCheckPostgresFunctionNames(t *testing.T) {
	// Every spelling of a denied name is refused, and the deny list holds
	// even when the catalog calls the function immutable.
	spellings := []string{
		"set_config('a', 'b', false)",
		"pg_catalog.set_config('a', 'b', false)",
		`"pg_catalog"."set_config"('a', 'b', false)`,
		"SET_CONFIG('a', 'b', false)",
		`"SET_CONFIG"('a', 'b', false)`,
		"evil.set_config('a', 'b', false)",
		"mydb.pg_catalog.set_config('a', 'b', false)",
	}
	denied := []string{
		"pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_ls_logdir", "pg_ls_tmpdir", "pg_stat_file",
		"lo_import", "lo_export", "lo_get", "lo_put", "lo_open", "loread", "lowrite", "lo_creat", "lo_create", "lo_unlink",
		"pg_file_write", "pg_file_unlink", "pg_logdir_ls",
		"dblink", "dblink_exec", "dblink_connect", "dblink_send_query",
		"pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile", "pg_promote",
		"pg_switch_wal", "pg_create_restore_point", "pg_backup_start", "pg_backup_stop", "pg_start_backup",
		"pg_stop_backup", "pg_log_backend_memory_contexts", "pg_stat_reset", "pg_stat_reset_shared",
		"pg_advisory_lock", "pg_advisory_xact_lock_shared", "pg_try_advisory_lock", "pg_advisory_unlock_all",
		"set_config", "nextval", "setval", "currval", "lastval",
		"pg_sleep", "pg_sleep_for", "pg_sleep_until",
		"txid_current", "pg_current_xact_id", "pg_logical_emit_message", "pg_logical_slot_get_changes",
		"pg_replication_origin_create", "pg_create_logical_replication_slot", "pg_create_physical_replication_slot",
		"pg_drop_replication_slot", "pg_copy_logical_replication_slot", "pg_replication_slot_advance",
		"pg_notify", "query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml",
		"setseed", "pg_import_system_collations", "ts_stat",
	}
	lenient := &fakeCatalog{everythingImmutable: true}
	for _, s := range spellings {
		t.Run(s, func(t *testing.T) {
			err := guard.CheckPostgres("SELECT "+s, lenient)
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), "set_config() is not allowed") {
				t.Errorf("CheckPostgres(SELECT %s) = %v, want set_config refused", s, err)
			}
		})
	}
	for _, name := range denied {
		t.Run(name, func(t *testing.T) {
			for _, sql := range []string{"SELECT " + name + "()", "SELECT * FROM " + name + "()", "SELECT 1 FROM customers c WHERE c." + name + " IS NULL"} {
				if err := guard.CheckPostgres(sql, lenient); err == nil {
					t.Errorf("accepted %q", sql)
				}
			}
		})
	}
	allowed := []string{
		"random()", "pg_catalog.random()", "clock_timestamp()", "timeofday()", "gen_random_uuid()",
		"uuid_generate_v4()", "public.uuid_generate_v4()", "statement_timestamp()", "pg_total_relation_size('customers')",
		"similarity('a', 'b')", "public.similarity('a', 'b')", "now()", "lower('A')",
		// Names that merely begin like denied ones.
		"lower('x')", "length(pg_size_pretty(1::bigint))",
	}
	for _, s := range allowed {
		t.Run(s, func(t *testing.T) {
			if err := guard.CheckPostgres("SELECT "+s, testCatalog); err != nil {
				t.Errorf("CheckPostgres(SELECT %s) = %v, want nil", s, err)
			}
		})
	}
}

func TestCheckPostgresExplainOptions(t *testing.T) {
	tests := []struct {
		options string
		ok      bool
	}{
		{"ANALYZE", false}, {"ANALYSE", false}, {"analyze true", false}, {"ANALYZE 1", false},
		{"ANALYZE on", false}, {"ANALYZE yes", false}, {"ANALYZE '1'", false}, {"ANALYZE 2", false},
		{"ANALYZE 0.0", false}, {`"analyze"`, false}, {"ANALYZE false, ANALYZE true", false},
		{"ANALYZE false", true}, {"ANALYZE off", true}, {"ANALYZE 0", true}, {"ANALYZE no", true},
		{"ANALYZE 'false'", true}, {"VERBOSE, COSTS off", true}, {"FORMAT JSON, SETTINGS, BUFFERS", true},
		{"GENERIC_PLAN", true}, {"SUMMARY true, TIMING false", true},
	}
	for _, tt := range tests {
		t.Run(tt.options, func(t *testing.T) {
			sql := "EXPLAIN (" + tt.options + ") SELECT * FROM customers"
			if err := guard.CheckPostgres(sql, testCatalog); (err == nil) != tt.ok {
				t.Errorf("CheckPostgres(%q) = %v, want accepted %v", sql, err, tt.ok)
			}
		})
	}
}

func TestCheckPostgresLimits(t *testing.T) {
	chain := func(n int) string { return "SELECT " + strings.Repeat("1+", n) + "1" }
	// grown is head followed by n copies of tail, {i} in each the copy's
	// number.
	grown := func(head string, n int, tail string) string {
		var b strings.Builder
		b.WriteString(head)
		for i := range n {
			b.WriteString(strings.ReplaceAll(tail, "{i}", fmt.Sprint(i)))
		}
		return b.String()
	}
	joins := func(n int, item string) string { return grown("SELECT 1 FROM t", n, " "+item) }
	ors := func(n int, cond string) string { return grown("SELECT x FROM t WHERE x > 0", n, cond) }
	ctes := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("a%d AS (SELECT %d)", i, i)
		}
		return strings.Join(parts, ", ")
	}
	tests := []struct {
		name, sql string
		ok        bool
	}{
		{"1000 nested parentheses", "SELECT " + strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000), true},
		{"1001 nested parentheses", "SELECT " + strings.Repeat("(", 1001) + "1" + strings.Repeat(")", 1001), false},
		{"100k nested parentheses", "SELECT " + strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000), false},
		{"3000-level chain", chain(2999), true},
		{"3001-level chain", chain(3000), false},
		{"200k-term chain", chain(200_000), false},
		{"100k NOT", "SELECT " + strings.Repeat("NOT ", 100_000) + "true", false},
		{"5k nested subqueries", strings.Repeat("SELECT * FROM (", 5_000) + "SELECT 1" + strings.Repeat(") s", 5_000), false},
		{"500 nested subqueries", strings.Repeat("SELECT * FROM (", 500) + "SELECT 1" + strings.Repeat(") s", 500), true},
		{"50k-element IN list", "SELECT 1 WHERE 1 IN (" + strings.Repeat("1,", 50_000) + "1)", true},
		{"3000 columns of sums", "SELECT " + strings.Repeat("1+1, ", 3000) + "1", true},
		{"2000 CASE branches", "SELECT CASE " + strings.Repeat("WHEN random() < 0.5 THEN 1 ", 2000) + "END", false},
		{"500 CASE branches", "SELECT CASE " + strings.Repeat("WHEN random() < 0.5 THEN 1 ", 500) + "END", true},
		{"1000 WITH queries", "WITH " + ctes(1000) + " SELECT 1", true},
		{"1001 WITH queries", "WITH " + ctes(1001) + " SELECT 1", false},
		{"45k WITH queries", "WITH " + ctes(45_000) + " SELECT 1", false},
		{"1000 WITH queries twice", "WITH " + ctes(1000) + " SELECT * FROM (WITH " + ctes(1000) + " SELECT 1) s", true},
		{"100 relations joined", joins(99, "JOIN (SELECT 1) a{i} ON true"), true},
		{"101 relations joined", joins(100, "JOIN (SELECT 1) a{i} ON true"), false},
		{"101 relations in a FROM list", joins(100, ", t a{i}"), false},
		{"101 relations through subqueries", joins(50, ", (SELECT 1 FROM t x{i}, t y{i}) a{i}"), false},
		{"101 relations through EXISTS", joins(50, "JOIN t a{i} ON EXISTS (SELECT 1 FROM t b{i} WHERE b{i}.x = a{i}.x)"), false},
		{"101 relations through a WITH query read once", "WITH w AS (" + joins(60, ", t a{i}") + ") " + joins(40, ", t b{i}") + ", w", false},
		{"101 relations with the WITH query materialized", "WITH w AS MATERIALIZED (" + joins(60, ", t a{i}") + ") " + joins(40, ", t b{i}") + ", w", true},
		{"1000 relations planned", "SELECT * FROM (VALUES ((SELECT x FROM t))" + strings.Repeat(", ((SELECT x FROM t))", 998) + ") v", true},
		{"1001 relations planned", "SELECT * FROM (VALUES ((SELECT x FROM t))" + strings.Repeat(", ((SELECT x FROM t))", 999) + ") v", false},
		{"1001 relations in subqueries", "SELECT 1 FROM t WHERE x IN (SELECT 1 FROM t" + strings.Repeat(" UNION ALL SELECT 1 FROM t, t u", 500) + ")", false},
		{"two UNION ALL arms of 60", joins(59, ", t a{i}") + " UNION ALL " + joins(59, ", t b{i}"), true},
		{"100 ORs of columns", ors(100, " AND (y > {i} OR z > {i})"), true},
		{"101 ORs of columns", ors(101, " AND (y > {i} OR z > {i})"), false},
		{"101 NOT (... AND ...)", ors(101, " AND NOT (y <= {i} AND z <= {i})"), false},
		{"101 ORs through a subquery", ors(60, " AND (y > {i} OR z > {i})") + " AND x IN (" + ors(41, " AND (y > {i} OR z > {i})") + ")", false},
		{"101 IN lists of columns", ors(101, " AND x IN (y + {i}, z)"), false},
		{"100 IN lists of a column and constants", ors(100, " AND x IN (y + {i}, 1, 2, 3)"), true},
		{"101 IN lists of constants", ors(101, " AND x IN ({i}, 1, 2, 3)"), true},
		{"101 row comparisons", ors(101, " AND (y, z) <> ({i}, x)"), false},
		{"101 negated row equalities", ors(101, " AND NOT (y, z) = ({i}, x)"), false},
		{"101 rows IS DISTINCT FROM", ors(101, " AND (y, z) IS DISTINCT FROM ({i}, x)"), false},
		{"101 row equalities", ors(101, " AND (y, z) = ({i}, x)"), true},
		{"ORs in two UNION ALL arms", ors(60, " AND (y > {i} OR z > {i})") + " UNION ALL " + ors(60, " AND (y > {i} OR z > {i})"), true},
		{"ORs of 3939 columns", "SELECT x FROM t WHERE x = 0" + strings.Repeat(" OR (x = 1"+strings.Repeat(" OR x = 1", 99)+")", 39), true},
		{"ORs of 4141 columns", "SELECT x FROM t WHERE x = 0" + strings.Repeat(" OR (x = 1"+strings.Repeat(" OR x = 1", 99)+")", 41), false},
		{"ORs of constants", "SELECT x FROM t WHERE x > 0" + strings.Repeat(" AND (1 > 2 OR 2 > 3)", 500), true},
		{"20k-term OR", "SELECT 1 WHERE " + strings.Repeat("true OR ", 20_000) + "true", true},
		{"1 MiB of SQL", "SELECT " + strings.Repeat("1,", (guard.MaxSQLBytes-8)/2) + "1", true},
		{"1 MiB + 1", "SELECT " + strings.Repeat("1,", guard.MaxSQLBytes/2) + "1", false},
		{"invalid UTF-8", "SELECT '\xc3\x28'", false},
		{"NUL", "SELECT '\x00'", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := guard.CheckPostgres(tt.sql, testCatalog)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckPostgres(%.60q...) = %v, want accepted %v", tt.sql, err, tt.ok)
			}
			if err != nil {
				refusal(t, tt.sql, err)
			}
		})
	}
}

func TestCheckPostgresConcurrent(t *testing.T) {
	// source judges every call's SQL on its own goroutine; libpg_query
	// keeps its state per thread, so verdicts must not mix.
	var cases []dbtest.Case
	for _, c := range append(append([]dbtest.Case{}, dbtest.HostilePostgres...), dbtest.AllowedPostgres...) {
		if len(c.SQL) < 10_000 {
			cases = append(cases, c)
		}
	}
	want := make([]string, len(cases))
	for i, c := range cases {
		want[i] = fmt.Sprint(guard.CheckPostgres(c.SQL, testCatalog))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 20 {
				i := (g*7 + k*13) % len(cases)
				for j := range cases {
					c := cases[(i+j)%len(cases)]
					if got := fmt.Sprint(guard.CheckPostgres(c.SQL, testCatalog)); got != want[(i+j)%len(cases)] {
						t.Errorf("%s: got %s concurrently, %s alone", c.Name, got, want[(i+j)%len(cases)])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestPostgresLimitCases(t *testing.T) {
	tests := []struct {
		name, sql, text string
		explain         bool
	}{
		{"select", "SELECT 1", "SELECT * FROM (\nSELECT 1\n) AS sqlmcp_q LIMIT 101", false},
		{"comments and semicolon", "/* c */ SELECT 1; -- done", "SELECT * FROM (\n/* c */ SELECT 1\n) AS sqlmcp_q LIMIT 101", false},
		{"values", "VALUES (1)", "SELECT * FROM (\nVALUES (1)\n) AS sqlmcp_q LIMIT 101", false},
		{"explain", "EXPLAIN SELECT 1", "EXPLAIN SELECT 1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := guard.PostgresLimit(tt.sql, 101, testCatalog)
			if err != nil || q.Text != tt.text || q.Explain != tt.explain {
				t.Errorf("PostgresLimit(%q) = %q, %v, %v; want %q, %v, nil", tt.sql, q.Text, q.Explain, err, tt.text, tt.explain)
			}
		})
	}
	t.Run("refusal", func(t *testing.T) {
		_, err := guard.PostgresLimit("DELETE FROM customers", 101, testCatalog)
		var ge *guard.Error
		if !errors.As(err, &ge) {
			t.Errorf("got %v, want an *Error", err)
		}
	})
}

func ExampleCheckPostgres() {
	// source builds the catalog from pg_proc and pg_operator.
	cat := newFakeCatalog(
		map[string]byte{"pg_catalog.count": 'i', "pg_catalog.pg_sleep": 'v'},
		map[string]byte{"pg_catalog.=": 'i'},
	)
	fmt.Println(guard.CheckPostgres(`SELECT count(*) FROM "order" WHERE status = 'new'`, cat))

	err := guard.CheckPostgres("UPDATE customers SET name = 'x'", cat)
	var refused *guard.Error
	if errors.As(err, &refused) {
		fmt.Println("refused:", refused.Reason)
		fmt.Println("hint:", refused.Hint)
	}
	// Output:
	// <nil>
	// refused: UPDATE of table "customers" is not allowed
	// hint: This server only reads: send one SELECT statement (WITH ... SELECT, UNION and EXPLAIN are fine)
}

// BenchmarkCheckPostgres measures the guard's whole decision on a typical
// model query: scanning, parsing and walking the tree.
func BenchmarkCheckPostgres(b *testing.B) {
	query := dbtest.JoinQuery
	b.ReportAllocs()
	for b.Loop() {
		if err := guard.CheckPostgres(query, testCatalog); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPostgresLimit: the wrapper leaves out what surrounds the statement,
// survives a trailing line comment, and maps the server's positions back.
func TestPostgresLimit(t *testing.T) {
	tests := []struct{ sql, want string }{
		{"SELECT 1", "SELECT * FROM (\nSELECT 1\n) AS sqlmcp_q LIMIT 5"},
		{"SELECT 1;", "SELECT * FROM (\nSELECT 1\n) AS sqlmcp_q LIMIT 5"},
		{";; SELECT 1 ; -- done", "SELECT * FROM (\n SELECT 1 \n) AS sqlmcp_q LIMIT 5"},
		{"SELECT 1 -- a comment", "SELECT * FROM (\nSELECT 1 -- a comment\n) AS sqlmcp_q LIMIT 5"},
		{"SELECT name FROM customers ORDER BY id", "SELECT * FROM (\nSELECT name FROM customers ORDER BY id\n) AS sqlmcp_q LIMIT 5"},
	}
	for _, tt := range tests {
		q, err := guard.PostgresLimit(tt.sql, 5, testCatalog)
		if err != nil || q.Text != tt.want {
			t.Errorf("PostgresLimit(%q) = %q, %v; want %q", tt.sql, q.Text, err, tt.want)
		}
	}
	q, err := guard.PostgresLimit(";; SELECT nme FROM customers", 5, testCatalog)
	if err != nil {
		t.Fatal(err)
	}
	// The server would report "nme" at character 24 of the wrapped text.
	if got, want := q.Position(strings.Index(q.Text, "nme")+1), strings.Index(";; SELECT nme FROM customers", "nme")+1; got != want {
		t.Errorf("Position maps to %d, want %d", got, want)
	}
}

// TestCheckPostgresByWhatTheyAre: functions, operators and types are judged
// by what they are: built in, from a vetted or allowed extension, or the
// database's own, whatever their volatility label says; SQL/JSON syntax
// is judged as the connected server's grammar reads it.
func TestCheckPostgresByWhatTheyAre(t *testing.T) {
	cat := testCatalog.with(map[string]byte{
		"public.lying_immutable": 'i', "public.xpath_string": 'i', "public.crosstab": 's',
		"public.json_value": 'i', "public.json_scalar": 'i', "public.json_object": 'v', "pg_catalog.json_object": 's',
		"public.merge_action": 'v', "public.allowed_one": 'v', "public.hstore_to_json": 'i',
	}, map[string]string{
		"public.lying_immutable": guard.OriginUser, "public.xpath_string": "xml2", "public.crosstab": "tablefunc",
		"public.json_value": guard.OriginUser, "public.json_scalar": guard.OriginUser, "public.json_object": guard.OriginUser,
		"public.merge_action": guard.OriginUser, "public.allowed_one": guard.OriginUser, "public.hstore_to_json": "hstore",
	})
	cat.ops = maps.Clone(cat.ops)
	cat.ops["public.==>"] = 'i'
	cat.origins["public.==>"] = guard.OriginUser
	cat.types = map[string]guard.PostgresType{
		"locked":     {Origin: guard.OriginUser, Checks: []string{"CHECK ((pg_advisory_lock((VALUE)::bigint) IS NOT NULL))"}},
		"positive":   {Origin: guard.OriginUser, Checks: []string{"CHECK ((VALUE > 0))"}},
		"via_user":   {Origin: guard.OriginUser, Calls: []guard.PostgresFunction{{Schema: "public", Name: "f", Volatility: 'i', Origin: guard.OriginUser}}},
		"hstore":     {Origin: "hstore"},
		"xml2_thing": {Origin: "xml2"},
		"unreadable": {Origin: guard.OriginUser, Checks: []string{"CHECK (((("}},
	}
	// Domains whose CHECK casts VALUE to the one before, three times: a
	// cast to the last reaches 3⁶ CHECKs, each judged once. One chain ends
	// in a plain CHECK, the other in a lock.
	for _, end := range []string{"plain", "locking"} {
		check := "CHECK ((VALUE > 0))"
		if end == "locking" {
			check = "CHECK ((pg_advisory_lock((VALUE)::bigint) IS NOT NULL))"
		}
		cat.types[end+"0"] = guard.PostgresType{Origin: guard.OriginUser, Checks: []string{check}}
		for i := 1; i <= 6; i++ {
			prev := fmt.Sprintf("%s%d", end, i-1)
			cat.types[fmt.Sprintf("%s%d", end, i)] = guard.PostgresType{Origin: guard.OriginUser, Checks: []string{
				fmt.Sprintf("CHECK ((((VALUE)::%[1]s > 0) AND ((VALUE)::%[1]s > 1) AND ((VALUE)::%[1]s < 9)))", prev)}}
		}
	}
	pg15 := *cat
	pg15.version = 150020
	bare15 := *testCatalog
	bare15.version = 150020
	shadowed := cat.with(nil, nil)
	shadowed.ops = maps.Clone(cat.ops)
	shadowed.ops["public.="] = 'i'
	shadowed.origins["public.="] = guard.OriginUser
	for _, tt := range []struct {
		name string
		cat  guard.PostgresCatalog
		sql  string
		want string // "" to accept; else a part of the refusal
	}{
		{"user function labelled immutable", cat, "SELECT lying_immutable()", "defined in this database"},
		{"extension not vetted", cat, "SELECT xpath_string('<a/>', '/a')", "from the extension xml2"},
		{"vetted extension", cat, "SELECT similarity('a', 'b')", ""},
		{"run-SQL-text, whatever its origin", cat, "SELECT * FROM crosstab('SELECT 1') AS t(a int)", "runs SQL given as text"},
		{"user operator", cat, "SELECT 1 ==> 2", "defined in this database"},
		{"user operator qualified", cat, "SELECT 1 OPERATOR(public.==>) 2", "defined in this database"},
		{"domain with a locking CHECK", cat, "SELECT 1::locked", "CHECK constraint is not allowed"},
		{"domain CHECK in a typed literal", cat, "SELECT locked '1'", "CHECK constraint is not allowed"},
		{"domain array", cat, "SELECT '{1}'::locked[]", "CHECK constraint is not allowed"},
		{"domain in XMLTABLE columns", cat, "SELECT * FROM XMLTABLE('/a' PASSING xmlparse(document '<a/>') COLUMNS v locked PATH '.')", "CHECK constraint is not allowed"},
		{"domain with a plain CHECK", cat, "SELECT 5::positive", ""},
		{"type whose input runs a user function", cat, "SELECT 'x'::via_user", "defined in this database"},
		{"type from a vetted extension", cat, "SELECT 'a=>1'::hstore", ""},
		{"type from an extension not vetted", cat, "SELECT 'x'::xml2_thing", "from the extension xml2"},
		{"CHECK the guard cannot read", cat, "SELECT 1::unreadable", "cannot read"},
		{"domains whose CHECKs cast to domains", cat, "SELECT 1::plain6, 2::plain6, 3::plain5", ""},
		{"the same with a lock at the end", cat, "SELECT 1::plain6, 2::locking6", "CHECK constraint is not allowed"},
		{"a user's = on the search path", shadowed, "SELECT 1 = 2", "defined in this database"},
		{"CASE x WHEN runs =", shadowed, "SELECT CASE 1 WHEN 2 THEN 'a' END", "defined in this database"},
		{"IN (SELECT ...) runs =", shadowed, "SELECT 1 IN (SELECT 2)", "defined in this database"},
		{"IN (list) runs =", shadowed, "SELECT 1 IN (2, 3)", "defined in this database"},
		{"NULLIF runs =", shadowed, "SELECT NULLIF(1, 2)", "defined in this database"},
		{"IS DISTINCT FROM runs =", shadowed, "SELECT 1 IS DISTINCT FROM 2", "defined in this database"},
		{"searched CASE runs no =", shadowed, "SELECT CASE WHEN true THEN 1 END", ""},
		{"pg17: JSON_VALUE is syntax", cat, `SELECT JSON_VALUE('{"a": 1}', '$.a')`, ""},
		{"pg15: JSON_VALUE calls a user's json_value", &pg15, `SELECT JSON_VALUE('{"a": 1}', '$.a')`, "public.json_value()"},
		{"pg15: JSON_SCALAR calls a user's json_scalar", &pg15, `SELECT json_scalar(1)`, "public.json_scalar()"},
		{"pg15: JSON_EXISTS, with no function of that name", &pg15, `SELECT json_exists('{"a": 1}', '$.a')`, "has none"},
		{"pg15: JSON_OBJECT(k: v) calls json_object", &pg15, `SELECT json_object('a': 1)`, "public.json_object()"},
		{"pg15: json_object(1) reaches the user's overload", &pg15, `SELECT json_object(1)`, "public.json_object()"},
		{"pg17: json_object written qualified is the built-in", cat, `SELECT pg_catalog.json_object('{a,b}')`, ""},
		{"pg15: MERGE_ACTION() calls a user's merge_action", &pg15, `SELECT merge_action()`, "public.merge_action()"},
		{"pg15: MERGE_ACTION(), with no function of that name", &bare15, `SELECT merge_action()`, "has none"},
		{"pg17: MERGE_ACTION() is syntax the server refuses outside MERGE", cat, `SELECT merge_action()`, ""},
		{"pg15: IS JSON", &pg15, `SELECT '{}' IS JSON`, "not understood"},
		{"pg15: JSON_TABLE", &pg15, `SELECT * FROM JSON_TABLE('[]'::jsonb, '$' COLUMNS (a int PATH '$'))`, "has none"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := guard.CheckPostgres(tt.sql, tt.cat)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused %q: %v", tt.sql, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckPostgres(%q) = %v, want a refusal saying %q", tt.sql, err, tt.want)
			}
		})
	}
	// Allowed by name, a user's volatile function runs; nothing allows
	// what runs SQL text.
	named := cat.with(nil, nil)
	named.named = map[string]bool{"public.allowed_one": true, "public.crosstab": true}
	if err := guard.CheckPostgres("SELECT allowed_one()", named); err != nil {
		t.Errorf("a function allowed by name: %v", err)
	}
	if err := guard.CheckPostgres("SELECT * FROM crosstab('SELECT 1') AS t(a int)", named); err == nil {
		t.Error("crosstab was allowed by name")
	}
}

// textSearchCatalog is a catalog whose default text search configuration
// runs a function of an extension not vetted.
type textSearchCatalog struct{ *fakeCatalog }

func (textSearchCatalog) TextSearch(schema, name string) []guard.PostgresFunction {
	if name == "" || name == "*" || name == "intcfg" {
		return []guard.PostgresFunction{{Schema: "public", Name: "dintdict_lexize", Volatility: 'i', Origin: "dict_int"}}
	}
	return nil
}

func (c textSearchCatalog) TextSearchDictionary(schema, name string) []guard.PostgresFunction {
	if name == "*" || name == "intdict" {
		return c.TextSearch("", "intcfg")
	}
	return nil
}

// TestCheckPostgresTextSearch: parsing text by the default configuration
// (one-argument calls, text @@ text) judges that configuration's
// functions, as a named or computed one is judged.
func TestCheckPostgresTextSearch(t *testing.T) {
	cat := textSearchCatalog{&fakeCatalog{everythingImmutable: true}}
	for _, sql := range []string{
		`SELECT to_tsvector('a b')`,
		`SELECT 'a b' @@ 'a'`,
		`SELECT plainto_tsquery('intcfg', 'a')`,
		`SELECT ts_headline(c, 'a', 'a'::tsquery) FROM t`,
		`SELECT ts_lexize('intdict', '123456')`,
		`SELECT ts_lexize(d::regdictionary, '1') FROM t`,
	} {
		if err := guard.CheckPostgres(sql, cat); err == nil || !strings.Contains(err.Error(), "dict_int") {
			t.Errorf("CheckPostgres(%q) = %v, want the configuration refused", sql, err)
		}
	}
	if err := guard.CheckPostgres(`SELECT to_tsvector('a b')`, &fakeCatalog{everythingImmutable: true}); err != nil {
		t.Errorf("without configurations to judge: %v", err)
	}
}

// TestCheckPostgresReservedSettings: the settings PostgreSQL shows only to
// superusers (the replication password, the server's files) are refused
// however they are read: by name, by a name the query computes, through
// pg_settings or the function behind it, when the role may read them.
func TestCheckPostgresReservedSettings(t *testing.T) {
	privileged := &fakeCatalog{everythingImmutable: true}
	plain := &fakeCatalog{everythingImmutable: true, plainRole: true}
	for _, sql := range []string{
		"SELECT current_setting('primary_conninfo')",
		"SELECT pg_catalog.current_setting('SSL_PASSPHRASE_COMMAND'::text, true)",
		"SELECT (SELECT current_setting('hba_file'))",
		"SELECT current_setting(CAST('data_directory' AS text))",
	} {
		for who, cat := range map[string]*fakeCatalog{"privileged": privileged, "plain": plain} {
			err := guard.CheckPostgres(sql, cat)
			if err == nil || !strings.Contains(err.Error(), "reserves it for superusers") {
				t.Errorf("%s: CheckPostgres(%q) = %v, want the reserved setting refused", who, sql, err)
			}
		}
	}
	for _, sql := range []string{
		"SELECT current_setting('primary_' || 'conninfo')",
		"SELECT name, current_setting(name) FROM (VALUES ('work_mem')) v(name)",
		"SELECT current_setting(lower('APP.JWT_SECRET'), true)",
		"SELECT current_setting('app.jwt_secret')",
		"SELECT current_setting('myapp.settings.API_Token', true)",
		"SELECT current_setting('crm.db_password')",
	} {
		for who, cat := range map[string]*fakeCatalog{"privileged": privileged, "plain": plain} {
			err := guard.CheckPostgres(sql, cat)
			if err == nil || !strings.Contains(err.Error(), "is not shown") && !strings.Contains(err.Error(), "computes") {
				t.Errorf("%s: CheckPostgres(%q) = %v, want the setting refused", who, sql, err)
			}
		}
	}
	computed := []string{
		"SELECT name, setting FROM pg_settings",
		"SELECT * FROM pg_catalog.pg_settings WHERE name = 'work_mem'",
		"WITH s AS (TABLE pg_settings) SELECT count(*) FROM s",
		"SELECT * FROM pg_show_all_settings()",
		"SELECT (pg_catalog.pg_show_all_settings()).setting",
	}
	for _, sql := range computed {
		err := guard.CheckPostgres(sql, privileged)
		if err == nil || !strings.Contains(err.Error(), "reserves for superusers") {
			t.Errorf("privileged: CheckPostgres(%q) = %v, want it refused", sql, err)
		}
		if err := guard.CheckPostgres(sql, plain); err != nil {
			t.Errorf("plain role: CheckPostgres(%q) = %v, want it allowed: the server hides the reserved settings", sql, err)
		}
	}
	for _, sql := range []string{
		"SELECT current_setting('work_mem'), current_setting('server_version_num')::int",
		"SELECT current_setting('ssl_key_file', true)", // shown to every role
		"SELECT current_setting('pg_trgm.similarity_threshold')",
		"SELECT * FROM public.pg_settings", // a table of the database's own
	} {
		if err := guard.CheckPostgres(sql, privileged); err != nil {
			t.Errorf("privileged: CheckPostgres(%q) = %v, want it allowed", sql, err)
		}
	}
}

// TestCheckPostgresRoleSettings: the settings column of pg_roles and
// pg_user (ALTER ROLE ... SET, an application's secret among them) is
// refused however it could be read; their other columns are not.
func TestCheckPostgresRoleSettings(t *testing.T) {
	lenient := &fakeCatalog{everythingImmutable: true, plainRole: true}
	for _, sql := range []string{
		"SELECT rolname, rolconfig FROM pg_roles",
		"SELECT unnest(r.rolconfig) FROM pg_catalog.pg_roles AS r",
		"SELECT * FROM pg_roles",
		"TABLE pg_user",
		"SELECT u.* FROM pg_user u",
		"SELECT to_jsonb(r) FROM pg_roles r",
		"SELECT row_to_json(pg_roles) FROM pg_roles",
		"SELECT (r).* FROM (SELECT pg_roles AS r FROM pg_roles) s",
		"SELECT x13 FROM pg_roles AS r(x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13)",
		"SELECT c FROM (SELECT useconfig AS c FROM pg_user) s",
		"WITH r AS (SELECT * FROM pg_roles) SELECT rolname FROM r",
	} {
		err := guard.CheckPostgres(sql, lenient)
		if err == nil || !strings.Contains(err.Error(), "settings of roles") {
			t.Errorf("CheckPostgres(%q) = %v, want the settings column refused", sql, err)
		}
	}
	for _, sql := range []string{
		"SELECT rolname, rolsuper, rolcanlogin FROM pg_roles",
		"SELECT r.rolname FROM pg_roles r JOIN pg_user u ON u.usename = r.rolname",
		"SELECT count(*) FROM pg_roles",
		"SELECT * FROM pg_namespace",
	} {
		if err := guard.CheckPostgres(sql, lenient); err != nil {
			t.Errorf("CheckPostgres(%q) = %v, want it allowed", sql, err)
		}
	}
}

// TestCheckPostgresSecretRelationFunctions: the functions behind the
// catalogs refused in TestCheckPostgresSecretRelations are refused too, in
// FROM or as values.
func TestCheckPostgresSecretRelationFunctions(t *testing.T) {
	lenient := &fakeCatalog{everythingImmutable: true}
	for _, sql := range []string{
		"SELECT * FROM pg_config()",
		"SELECT (pg_catalog.pg_config()).setting",
		"SELECT * FROM pg_hba_file_rules()",
		"SELECT * FROM pg_ident_file_mappings()",
		"SELECT * FROM pg_show_all_file_settings()",
		"SELECT * FROM pg_stat_get_activity(NULL)",
	} {
		if err := guard.CheckPostgres(sql, lenient); err == nil || !strings.Contains(err.Error(), "is not allowed") {
			t.Errorf("CheckPostgres(%q) = %v, want the function refused", sql, err)
		}
	}
}
