package guard_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// fuzzPostgresSeeds are hostile inputs beyond the shared corpus, small
// enough for the fuzzer to mutate.
var fuzzPostgresSeeds = []string{
	"SELECT 1 /* /* */ ; DELETE FROM customers */",
	"SELECT 1 /* /* */ */ ; DELETE FROM customers",
	"SELECT $a$ $$ $a$; DELETE FROM customers",
	"SELECT $_$;$_$, $1",
	"SELECT e'\\\\''; DELETE FROM customers",
	"SELECT U&\"\\0061\" FROM customers",
	"SELECT * FROM customers c WHERE c.setseed IS NULL",
	"SELECT (c).nextval FROM customers c",
	"SELECT 1 OPERATOR(public.###) 2",
	"SELECT name FROM customers ORDER BY name USING OPERATOR(public.###)",
	"SELECT 1 = ANY (SELECT 1) AND 1 ### ALL (SELECT 2)",
	"SELECT 'a' SIMILAR TO 'b' ESCAPE '#'",
	"SELECT * FROM customers TABLESAMPLE system_rows (1)",
	"WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n FROM t FOR UPDATE) SELECT 1",
	"EXPLAIN (ANALYZE f) SELECT 1",
	"EXPLAIN (ANALYZE tru) SELECT 1",
	"DECLARE sqlmcp_rows NO SCROLL CURSOR FOR SELECT 1",
	"SELECT 1 FOR READ ONLY",
	"SELECT 1 INTO STRICT x",
	"SELECT (SELECT 1 FROM customers FOR KEY SHARE)",
	"SELECT count(*) FILTER (WHERE nextval('invoice_no') > 0) OVER () FROM customers",
	"SELECT xmlelement(name a, pg_read_file('x'))",
	"SELECT * FROM json_table('[]', '$' COLUMNS (a int PATH '$', NESTED PATH '$[*]' COLUMNS (b text PATH '$')))",
	"SELECT ((((((((((1))))))))))",
	"SELECT 1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1",
	"SELECT NOT NOT NOT NOT NOT true",
}

// addPostgresSeeds seeds f with the corpora, the plan bombs and
// fuzzPostgresSeeds (the huge ones are TestCheckPostgresLimits's).
func addPostgresSeeds(f *testing.F) {
	for _, cases := range [][]dbtest.Case{dbtest.HostilePostgres, dbtest.AllowedPostgres} {
		for _, c := range cases {
			if len(c.SQL) <= 4096 {
				f.Add(c.SQL)
			}
		}
	}
	for _, c := range planBombs {
		if len(c.sql) <= 4096 {
			f.Add(c.sql)
		}
	}
	for _, s := range fuzzPostgresSeeds {
		f.Add(s)
	}
}

// FuzzCheckPostgres holds CheckPostgres and PostgresLimit to their
// promise: they never panic or crash, answer the same twice, and whatever
// they accept is, on a second look by other means (pg_query's summary and
// a deparse round trip), a query that writes, locks and calls nothing it
// should not.
// fuzzMemo is testCatalog with the operator memo, for every input.
var fuzzMemo = newMemoCatalog(testCatalog)

func FuzzCheckPostgres(f *testing.F) {
	addPostgresSeeds(f)
	f.Fuzz(func(t *testing.T, sql string) {
		err := guard.CheckPostgres(sql, testCatalog)
		if len(sql) <= guard.PrescanFree {
			// The parse skips the prescan for sql: it must not refuse it.
			if perr := guard.PrescanPostgres(sql, 0); perr != nil && !isSyntaxError(perr) {
				t.Fatalf("the prescan refused %.200q, %d bytes, which the parse reads without it: %v", sql, len(sql), perr)
			}
		}
		if again := guard.CheckPostgres(sql, testCatalog); !sameVerdict(err, again) {
			t.Fatalf("CheckPostgres(%.200q) answered differently when asked twice:\n first: %v\nsecond: %v", sql, err, again)
		}
		// The operator memo, kept across the inputs, changes no verdict.
		if memo := guard.CheckPostgres(sql, fuzzMemo); !sameVerdict(err, memo) {
			t.Fatalf("CheckPostgres(%.200q) answered differently with the operator memo:\nwithout: %v\n   with: %v", sql, err, memo)
		}
		q, cerr := guard.PostgresLimit(sql, 101, testCatalog)
		if err != nil {
			if cerr == nil {
				t.Fatalf("PostgresLimit accepted %.200q, which CheckPostgres refused: %v", sql, err)
			}
			return
		}
		if cerr != nil {
			t.Fatalf("PostgresLimit refused %.200q, which CheckPostgres accepted: %v", sql, cerr)
		}
		if !q.Explain {
			assertReadOnly(t, q.Text)
		}
		assertReadOnly(t, sql)
		// A deparse round trip says the same.
		tree, perr := pg.Parse(sql)
		if perr != nil {
			t.Fatalf("accepted %.200q, which does not parse: %v", sql, perr)
		}
		if again, derr := pg.Deparse(tree); derr == nil {
			// pg_query's deparser loses a few rare forms (a typed literal
			// as a type modifier: 0::a(a'')), so its output may not parse;
			// if it does, the guard must accept it too.
			var se *guard.SyntaxError
			if err := guard.CheckPostgres(again, testCatalog); err != nil && !errors.As(err, &se) {
				t.Fatalf("accepted %.200q but refused its deparsed form %.200q: %v", sql, again, err)
			}
		}
	})
}

func sameVerdict(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// assertReadOnly checks accepted text independently of the guard's walk:
// pg_query's summary must see only a query (or an EXPLAIN of one, or with
// cursor the DECLARE around one) reading tables and calling harmless
// functions, and its JSON parse tree (a serializer apart from the
// protobuf the guard reads) no write, SELECT INTO, row lock or EXPLAIN
// ANALYZE.
func assertReadOnly(t *testing.T, sql string) {
	t.Helper()
	sum, err := pg.Summary(sql, -1)
	if err != nil {
		t.Fatalf("accepted %.200q, which pg_query cannot summarise: %v", sql, err)
	}
	for _, st := range sum.StatementTypes {
		if st != "SelectStmt" && st != "ExplainStmt" {
			t.Fatalf("accepted %.200q, which holds a %s", sql, st)
		}
	}
	for _, tb := range sum.Tables {
		if tb.Context != pg.SummaryResult_Select && tb.Context != pg.SummaryResult_None {
			t.Fatalf("accepted %.200q, which uses table %s for %s", sql, tb.Name, tb.Context)
		}
	}
	for _, fn := range sum.Functions {
		name := strings.ToLower(fn.FunctionName)
		if fuzzDenied(name) {
			t.Fatalf("accepted %.200q, which calls %s", sql, fn.Name)
		}
		fns := testCatalog.Functions(fn.SchemaName, fn.FunctionName)
		if len(fns) == 0 {
			t.Fatalf("accepted %.200q, which calls %s, unknown", sql, fn.Name)
		}
		for _, f := range fns {
			if f.Origin == guard.OriginUser || f.Volatility == 'v' && !slices.Contains([]string{"random", "clock_timestamp", "timeofday", "gen_random_uuid", "uuid_generate_v4", "pg_total_relation_size"}, name) {
				t.Fatalf("accepted %.200q, which calls %s (volatility %q, origin %q)", sql, fn.Name, f.Volatility, f.Origin)
			}
		}
	}
	js, err := pg.ParseToJSON(sql)
	if err != nil {
		t.Fatalf("accepted %.200q, which does not parse to JSON: %v", sql, err)
	}
	var tree any
	if err := json.Unmarshal([]byte(js), &tree); err != nil {
		t.Fatalf("pg_query's JSON for %.200q does not decode: %v", sql, err)
	}
	if what := jsonWrites(tree); what != "" {
		t.Fatalf("accepted %.200q, whose JSON tree holds %s", sql, what)
	}
}

// jsonWrites returns the first thing in a JSON parse tree that writes,
// locks or runs a statement, or "".
func jsonWrites(v any) string {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			switch k {
			case "InsertStmt", "UpdateStmt", "DeleteStmt", "MergeStmt", "LockingClause", "intoClause":
				return k
			case "ExplainStmt":
				opts, _ := child.(map[string]any)["options"].([]any)
				for _, o := range opts {
					d, _ := o.(map[string]any)["DefElem"].(map[string]any)
					if d["defname"] == "analyze" && !jsonFalse(d["arg"]) {
						return "EXPLAIN ANALYZE"
					}
				}
			}
			if w := jsonWrites(child); w != "" {
				return w
			}
		}
	case []any:
		for _, child := range v {
			if w := jsonWrites(child); w != "" {
				return w
			}
		}
	}
	return ""
}

// jsonFalse reports whether an EXPLAIN option's JSON argument is off.
func jsonFalse(arg any) bool {
	a, _ := arg.(map[string]any)
	if s, ok := a["String"].(map[string]any); ok {
		sval, _ := s["sval"].(string)
		return slices.Contains([]string{"false", "off", "no", "0", "f", "n", "of", "fa", "fal", "fals"}, strings.ToLower(sval))
	}
	if i, ok := a["Integer"].(map[string]any); ok {
		_, has := i["ival"] // omitted when 0
		return !has
	}
	return false
}

// fuzzDenied is the brief's deny list, written apart from the guard's.
func fuzzDenied(name string) bool {
	for _, p := range []string{"pg_read_", "pg_ls_", "pg_stat_file", "lo_", "loread", "lowrite", "pg_file_", "dblink",
		"pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile", "pg_promote", "pg_switch_wal",
		"pg_create_", "pg_backup_", "pg_start_backup", "pg_stop_backup", "pg_log_backend", "pg_stat_reset",
		"pg_advisory_", "pg_try_advisory_", "set_config", "nextval", "setval", "currval", "lastval", "pg_sleep",
		"txid_current", "pg_current_xact_id", "pg_logical_", "pg_replication_", "pg_drop_replication_slot",
		"pg_copy_", "pg_notify", "query_to_xml", "cursor_to_xml", "setseed", "pg_import_system_collations", "ts_stat"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
