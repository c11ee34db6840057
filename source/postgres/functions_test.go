package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// pgHostileSetup installs the extensions whose functions run SQL given as
// text or reach outside the session, and user objects that each reach a
// lock, a write or a file by a route the guard cannot read in the text:
// labels that lie, operators, domain checks, casts, look-alikes of
// SQL/JSON syntax and of built-ins. Each leaves a trace the test looks for
// from another session: an advisory lock, a row in victim, a file.
const pgHostileSetup = `
CREATE EXTENSION tablefunc; CREATE EXTENSION xml2; CREATE EXTENSION dblink; CREATE EXTENSION adminpack;
CREATE EXTENSION dict_int;
CREATE TEXT SEARCH CONFIGURATION intcfg (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION intcfg ALTER MAPPING FOR int, uint WITH intdict;
CREATE EXTENSION pg_trgm;
CREATE TABLE victim (id int);
CREATE TABLE pairs (r text, c text, v text); INSERT INTO pairs VALUES ('r', 'c', 'v');
CREATE TABLE tree (id text, parent text); INSERT INTO tree VALUES ('a', NULL), ('b', 'a');
CREATE FUNCTION lock_immutable(int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock($1); RETURN $1; END$$;
CREATE FUNCTION lock_stable(int) RETURNS int STABLE LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock($1); RETURN $1; END$$;
CREATE FUNCTION write_immutable() RETURNS text IMMUTABLE LANGUAGE sql AS
  $$SELECT dblink_exec('dbname=' || current_database(), 'INSERT INTO victim VALUES (1)')$$;
CREATE FUNCTION lock_op(int, int) RETURNS bool IMMUTABLE LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock($1); RETURN true; END$$;
CREATE OPERATOR ==> (FUNCTION = lock_op, LEFTARG = int, RIGHTARG = int);
CREATE FUNCTION lock_check(text) RETURNS bool LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock(4501); RETURN true; END$$;
CREATE DOMAIN locked_text AS text CHECK (lock_check(VALUE));
CREATE DOMAIN locked_deeper AS locked_text;
CREATE TYPE holder AS (a int, b locked_text);
CREATE TABLE holders (h holder, l locked_text);
CREATE DOMAIN checked_builtin AS bigint CHECK (pg_advisory_lock(VALUE) IS NOT NULL);
CREATE TYPE feeling AS ENUM ('sad', 'happy');
CREATE TYPE colour AS ENUM ('red', 'blue');
CREATE DOMAIN small_positive AS int CHECK (VALUE > 0 AND length(VALUE::text) < 10);
CREATE FUNCTION feeling_to_int(feeling) RETURNS int LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock(4502); RETURN 1; END$$;
CREATE CAST (feeling AS int) WITH FUNCTION feeling_to_int(feeling);
CREATE FUNCTION json_value(text, text) RETURNS text LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock(4503); RETURN $1; END$$;
CREATE FUNCTION json_scalar(int) RETURNS text LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock(4504); RETURN ''; END$$;
CREATE FUNCTION json_object(int) RETURNS text LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock(4505); RETURN ''; END$$;
CREATE FUNCTION json(text) RETURNS text LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock(4506); RETURN ''; END$$;
CREATE FUNCTION merge_action() RETURNS text LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock(4508); RETURN ''; END$$;
CREATE FUNCTION upper(int) RETURNS text LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock(4507); RETURN ''; END$$;
CREATE FUNCTION twice(int) RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT $1 * 2';
CREATE TYPE humour AS ENUM ('sad', 'ok', 'happy');
CREATE FUNCTION humour_cmp(humour, humour) RETURNS int IMMUTABLE LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock(4520); RETURN CASE WHEN $1::text < $2::text THEN -1 WHEN $1::text > $2::text THEN 1 ELSE 0 END; END$$;
CREATE FUNCTION humour_lt(humour, humour) RETURNS bool IMMUTABLE LANGUAGE sql AS 'SELECT humour_cmp($1, $2) < 0';
CREATE FUNCTION humour_le(humour, humour) RETURNS bool IMMUTABLE LANGUAGE sql AS 'SELECT humour_cmp($1, $2) <= 0';
CREATE FUNCTION humour_eq(humour, humour) RETURNS bool IMMUTABLE LANGUAGE sql AS 'SELECT humour_cmp($1, $2) = 0';
CREATE FUNCTION humour_ge(humour, humour) RETURNS bool IMMUTABLE LANGUAGE sql AS 'SELECT humour_cmp($1, $2) >= 0';
CREATE FUNCTION humour_gt(humour, humour) RETURNS bool IMMUTABLE LANGUAGE sql AS 'SELECT humour_cmp($1, $2) > 0';
CREATE OPERATOR <<< (FUNCTION = humour_lt, LEFTARG = humour, RIGHTARG = humour);
CREATE OPERATOR <<= (FUNCTION = humour_le, LEFTARG = humour, RIGHTARG = humour);
CREATE OPERATOR === (FUNCTION = humour_eq, LEFTARG = humour, RIGHTARG = humour);
CREATE OPERATOR >>= (FUNCTION = humour_ge, LEFTARG = humour, RIGHTARG = humour);
CREATE OPERATOR >>> (FUNCTION = humour_gt, LEFTARG = humour, RIGHTARG = humour);
CREATE OPERATOR CLASS humour_ops DEFAULT FOR TYPE humour USING btree AS
  OPERATOR 1 <<<, OPERATOR 2 <<=, OPERATOR 3 ===, OPERATOR 4 >>=, OPERATOR 5 >>>, FUNCTION 1 humour_cmp(humour, humour);
CREATE TABLE humours (id int, m humour);
INSERT INTO humours VALUES (1, 'ok'), (2, 'sad');
CREATE VIEW humour_view AS SELECT m FROM humours;
CREATE TYPE tone AS ENUM ('low', 'high');
CREATE FUNCTION tone_json(tone) RETURNS json LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock(4521); RETURN '1'; END$$;
CREATE CAST (tone AS json) WITH FUNCTION tone_json(tone);
CREATE TABLE tones (t tone);
INSERT INTO tones VALUES ('low');
INSERT INTO holders VALUES (NULL, NULL);
CREATE TABLE colours (c colour);
INSERT INTO colours VALUES ('red'), ('blue');
CREATE SCHEMA hidden;
CREATE FUNCTION hidden.lower(int) RETURNS text LANGUAGE sql AS 'SELECT ''x''';
CREATE TYPE floatrange AS RANGE (subtype = float8, subtype_diff = float8mi);
CREATE FUNCTION lock_diff(float8, float8) RETURNS float8 IMMUTABLE LANGUAGE plpgsql AS
  $$BEGIN PERFORM pg_advisory_lock(4522); RETURN $1 - $2; END$$;
CREATE TYPE lockrange AS RANGE (subtype = float8, subtype_diff = lock_diff);
CREATE TABLE spans (f floatrange, l lockrange);
INSERT INTO spans SELECT floatrange(g, g + 1), lockrange(g, g + 1) FROM generate_series(1, 300) g;
ANALYZE spans;
CREATE TABLE fspans AS SELECT f FROM spans;
CREATE TABLE feelings (f feeling); INSERT INTO feelings VALUES ('sad');
CREATE TABLE checked (id int, l locked_text); INSERT INTO checked VALUES (1, NULL);
CREATE TABLE builtin_checked (v checked_builtin);
`

// pgHostileRoutes are statements that reached a lock, a write, a file or
// other session state through a function the text does not show, on
// PostgreSQL 15 with the guard and the READ ONLY transaction in place. Each
// must now be refused before it runs. {{tmp}} is a fresh directory.
var pgHostileRoutes = []struct{ name, sql string }{
	{"crosstab(text)", `SELECT * FROM crosstab($$SELECT 'r'::text, 'c'::text, pg_advisory_lock(4300)::text$$) AS ct(row_name text, v text)`},
	{"crosstab(text, text)", `SELECT * FROM crosstab($$SELECT r, c, v FROM pairs$$, $$SELECT pg_advisory_lock(4301)::text$$) AS ct(r text, v text)`},
	{"crosstab2", `SELECT * FROM crosstab2($$SELECT r, c, pg_advisory_lock(4302)::text FROM pairs$$)`},
	{"crosstab3 qualified", `SELECT * FROM public.crosstab3($$SELECT r, c, pg_advisory_lock(4303)::text FROM pairs$$)`},
	{"CROSSTAB4 upper case, quoted", `SELECT * FROM "crosstab4"($$SELECT r, c, pg_advisory_lock(4304)::text FROM pairs$$)`},
	{"connectby", `SELECT * FROM connectby('tree', 'id', 'parent', 'a', 0) AS t(id text, parent text, level int) WHERE pg_advisory_lock(4305) IS NULL`},
	{"connectby with a lock in its table text", `SELECT * FROM connectby('(SELECT id, parent FROM tree WHERE pg_advisory_lock(4306) IS NOT NULL) AS x', 'id', 'parent', 'a', 0) AS t(id text, parent text, level int)`},
	{"xpath_table", `SELECT * FROM xpath_table('id', 'parent', '(SELECT id, ''<a/>'' AS parent FROM tree WHERE pg_advisory_lock(4307) IS NOT NULL) AS x', '/a', 'true') AS t(id text, v text)`},
	{"xml2 not vetted", `SELECT xpath_string('<a>1</a>', '/a')`},
	{"tablefunc not vetted", `SELECT * FROM normal_rand(1, 0, 1)`},
	{"adminpack writes a file", `SELECT pg_file_write('{{tmp}}/written', 'x', false)`},
	{"dblink_exec", `SELECT dblink_exec('dbname=' || current_database(), 'INSERT INTO victim VALUES (1)')`},
	{"query_to_xml", `SELECT query_to_xml('SELECT pg_advisory_lock(4308)', true, false, '')`},
	{"table_to_xml", `SELECT table_to_xml('victim', true, false, '')`},
	{"ts_stat", `SELECT * FROM ts_stat('SELECT to_tsvector(pg_advisory_lock(4309)::text)')`},
	{"ts_rewrite with a query", `SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery WHERE pg_advisory_lock(4310) IS NOT NULL')`},
	{"IMMUTABLE label on a lock", `SELECT lock_immutable(4311)`},
	{"STABLE label on a lock", `SELECT lock_stable(4312)`},
	{"IMMUTABLE label on a write", `SELECT write_immutable()`},
	{"attribute notation", `SELECT (4313).lock_stable`},
	{"operator over a lock", `SELECT 4314 ==> 1`},
	{"OPERATOR() qualified", `SELECT 4315 OPERATOR(public.==>) 1`},
	{"domain CHECK through a cast", `SELECT 'x'::locked_text`},
	{"domain over a checked domain", `SELECT CAST('x' AS locked_deeper)`},
	{"domain CHECK with a built-in lock", `SELECT 4316::checked_builtin`},
	{"domain in a typed literal", `SELECT locked_text 'x'`},
	{"domain array", `SELECT '{x}'::locked_text[]`},
	{"domain array type by name", `SELECT '{x}'::_locked_text`},
	{"domain inside a composite", `SELECT '(1,x)'::holder`},
	{"domain inside a table's row type", `SELECT jsonb_populate_record(NULL::holders, '{"l": "x"}')`},
	{"cast through a user function", `SELECT 'sad'::feeling::int`},
	{"a type whose cast runs a user function", `SELECT 'sad'::feeling`},
	{"json_value on 15 is a call", `SELECT json_value('{"a": 1}', '$.a')`},
	{"json_scalar on 15 is a call", `SELECT json_scalar(1)`},
	{"json_object(1) reaches the user's overload", `SELECT json_object(1)`},
	{"json(...) on 15 is a call", `SELECT json('{}')`},
	{"MERGE_ACTION() on 15 is a call", `SELECT merge_action()`},
	{"password hashes", `SELECT rolname, rolpassword FROM pg_authid`},
	{"the server's files", `SELECT * FROM pg_hba_file_rules`},
	{"postgresql.conf's lines", `SELECT * FROM pg_catalog.pg_file_settings`},
	{"stored passwords of user mappings", `SELECT umoptions FROM information_schema._pg_user_mappings`},
	{"the server's build paths", `SELECT * FROM pg_config()`},
	{"a built-in's name, a user's overload", `SELECT upper(4317)`},
	// Without the arguments' types the guard cannot tell which overload the
	// server picks, so a name a user has overloaded is refused, with a hint
	// to qualify the built-in.
	{"a built-in's name, overloaded, called with text", `SELECT upper('x')`},
	{"user function in a subquery", `SELECT * FROM (SELECT twice(id) FROM victim) s`},
	// A column's type can run a function of the database's where the text
	// names no type: a default operator class's support function (ORDER BY,
	// DISTINCT, GROUP BY), a cast to json (to_json). The relation is
	// refused.
	{"ORDER BY a type whose operator class is a user's", `SELECT id FROM humours ORDER BY m`},
	{"DISTINCT over it", `SELECT DISTINCT m FROM humours`},
	{"through a view", `SELECT m FROM humour_view ORDER BY 1`},
	{"to_json of a type with a user's cast to json", `SELECT to_json(t) FROM tones`},
	// A text search configuration runs its parser's and dictionaries'
	// functions, here an extension's not vetted.
	{"a configuration named by text", `SELECT to_tsvector('intcfg', '123456 abc')`},
	{"a configuration cast", `SELECT to_tsquery('public.intcfg'::regconfig, '123456')`},
	{"a configuration computed", `SELECT to_tsvector(lower('INTCFG')::regconfig, '123456')`},
	{"a dictionary", `SELECT ts_lexize('intdict', '123456')`},
	// A populate function makes a value of its first argument's type: a
	// whole row's, or a composite column's, whose domain CHECKs then run.
	{"a whole row made into a record", `SELECT jsonb_populate_record(h, '{"l": "x"}') FROM holders h`},
	{"a composite column made into a record", `SELECT json_populate_record(h, '{"b": "x"}') FROM holders`},
	// The planner runs a range's subtype_diff to estimate an operator on a
	// constant of the type, which its constructor makes.
	{"a range constructor whose subtype_diff is a user's", `SELECT count(*) FROM spans WHERE l && lockrange(1, 2)`},
	{"its multirange's constructor", `SELECT lockmultirange()`},
	// A query makes values of its columns' types without naming them: an
	// untyped literal beside a column becomes one, running the type's
	// input, its domains' CHECKs, a range's subtype_diff in the planner;
	// and a cast from a column's type names only the type cast to. A table
	// with such a column type is refused.
	{"a literal made into a column's composite type, running a field's domain CHECK", `SELECT COALESCE(h, '(1,x)') FROM holders`},
	{"a literal made into a table's row type, running a column's domain CHECK", `SELECT COALESCE(c, '(1,x)') FROM (SELECT 1) AS s LEFT JOIN checked AS c ON true`},
	{"a literal made into a range column's type, whose subtype_diff is a user's", `SELECT count(*) FROM spans WHERE l = '[1,2)'`},
	{"a literal made into a table's row type, running a column's domain CHECK of built-ins", `SELECT COALESCE(b, '(4509)') FROM (SELECT 1) AS s LEFT JOIN builtin_checked AS b ON true`},
	{"a column cast through a user's explicit cast", `SELECT f::int FROM feelings`},
	{"reading a table whose column's domain CHECK is a user's", `SELECT h, l FROM holders ORDER BY l`},
}

// pgAllowedRoutes still run with the hostile objects installed.
var pgAllowedRoutes = []string{
	`SELECT lower('Y'), length('abc')`,
	`SELECT pg_catalog.upper('x'), "pg_catalog".upper('y')`,
	`SELECT similarity('word', 'words'), 'word' % 'words'`,
	`SELECT 'red'::colour, 'blue'::colour > 'red'::colour, 5::small_positive`,
	`SELECT jsonb_build_object('a', 1) ->> 'a', '{"a": [1, 2]}'::jsonb @> '{"a": [1]}'`,
	`SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY g), to_char(now(), 'YYYY') FROM generate_series(1, 10) g`,
	`SELECT date_trunc('month', now()), regexp_replace('abc', 'b', 'x'), row_number() OVER ()`,
	`SELECT '2024-01-01'::date + 1, CAST('12' AS int), '1 day'::interval, 'x'::text COLLATE "C"`,
	`SELECT rolname FROM pg_roles`,
	`SELECT c FROM colours ORDER BY c`,
	`SELECT to_tsvector('simple', 'a b'), to_tsvector('english', 'cats'), 'a b'::tsvector @@ 'a'::tsquery, ts_lexize('english_stem', 'cats')`,
	// The constructors CREATE TYPE ... AS RANGE makes are built-in code.
	`SELECT count(*), floatrange(1, 2) * floatrange(1.5, 3), floatmultirange(), floatmultirange(floatrange(1, 2)) FROM fspans WHERE f && floatrange(1, 2)`,
	`SELECT f FROM fspans WHERE f = '[1,2)' ORDER BY f LIMIT 2`,
	`SELECT hidden.lower(1) IS NULL OR true`, // allowed below by name, not reachable unqualified
}

// TestPostgresFunctionsByWhatTheyAre: every route above is refused, as a
// superuser and as a SELECT-only role, and nothing of theirs is left on the
// server: no advisory lock, no row in victim, no file, no replication slot.
func TestPostgresFunctionsByWhatTheyAre(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, pgHostileSetup)
	_, roleDSN := pgRole(t, dsn, `CREATE ROLE {{role}} LOGIN;
		GRANT SELECT ON ALL TABLES IN SCHEMA public TO {{role}}; GRANT USAGE ON SCHEMA hidden TO {{role}}`)
	admin := dbtest.PostgresConn(t, dsn)
	tmp := t.TempDir()
	os.Chmod(tmp, 0o777)
	for _, who := range []struct{ name, dsn string }{{"superuser", dsn}, {"select-only role", roleDSN}} {
		t.Run(who.name, func(t *testing.T) {
			db := dbtest.Open(t, who.dsn, &source.Options{AllowFunctions: []string{"hidden.lower"}})
			for _, r := range pgHostileRoutes {
				sql := strings.ReplaceAll(r.sql, "{{tmp}}", tmp)
				_, err := db.Query(t.Context(), sql, 0)
				var ge *guard.Error
				if !errors.As(err, &ge) {
					t.Errorf("%s: got %v, want the guard's refusal", r.name, err)
				}
			}
			for _, sql := range pgAllowedRoutes {
				if _, err := db.Query(t.Context(), sql, 0); err != nil {
					t.Errorf("%s: %v", sql, err)
				}
			}
			assertNoTrace(t, admin, tmp)
		})
	}
}

// TestPostgresImplicitUserCast: while the database casts between built-in
// types implicitly through a function of its own, which PostgreSQL may
// insert anywhere (isfinite(5) runs it as an int4 to date cast), no
// query of the model's runs; allowing the function lifts that.
func TestPostgresImplicitUserCast(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, `CREATE FUNCTION int_to_date(int4) RETURNS date LANGUAGE plpgsql AS
		$$BEGIN PERFORM pg_advisory_lock(4530); RETURN '2024-01-01'; END$$;
		CREATE CAST (int4 AS date) WITH FUNCTION int_to_date(int4) AS IMPLICIT;
		CREATE TABLE victim (id int);`)
	admin := dbtest.PostgresConn(t, dsn)
	db := dbtest.Open(t, dsn, nil)
	for _, sql := range []string{`SELECT isfinite(5)`, `SELECT 1`} {
		_, err := db.Query(t.Context(), sql, 0)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Error(), "int4 to date implicitly through public.int_to_date()") {
			t.Errorf("%s: got %v, want every query refused for the cast", sql, err)
		}
	}
	assertNoTrace(t, admin, t.TempDir())
	if tables, err := db.ReadTables(t.Context(), []string{"public"}); err != nil || len(tables) == 0 {
		t.Errorf("the catalog's reads: %v, %v; want them to work", tables, err)
	}
	allowed := dbtest.Open(t, dsn, &source.Options{AllowFunctions: []string{"public.int_to_date"}})
	if _, err := allowed.Query(t.Context(), `SELECT 1`, 0); err != nil {
		t.Errorf("with the function allowed: %v", err)
	}
}

// TestPostgresReloadOnOneConnection: with one connection, held by the
// call, a name the catalog lacks reads the catalog again on that
// connection: the answer is the guard's, not a wait for another
// connection until the timeout.
func TestPostgresReloadOnOneConnection(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, &source.Options{MaxConns: 1, Limits: sqlmcp.Limits{Timeout: time.Minute}})
	if _, err := db.Query(t.Context(), "SELECT 1", 0); err != nil {
		t.Fatal(err)
	}
	dbtest.PostgresExec(t, dsn, `CREATE FUNCTION made_later() RETURNS int LANGUAGE sql AS 'SELECT 1'`)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for sql, want := range map[string]string{"SELECT made_later()": "defined in this database", "SELECT no_such_function()": "no function named"} {
		_, err := db.Query(ctx, sql, 0)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Error(), want) {
			t.Errorf("%s: got %v, want the guard's refusal saying %q", sql, err, want)
		}
	}
}

// TestPostgresCatalogChangesAfterOpen: a function, or a domain's CHECK,
// made after the source opened and after a statement was accepted is
// judged by what it is within about a second: the same text, accepted
// before, is refused, its remembered verdict dropped with the catalog it
// was judged by; and nothing of the new objects ran.
func TestPostgresCatalogChangesAfterOpen(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, `CREATE TABLE victim (id int);
		CREATE TABLE vs (v varchar); INSERT INTO vs VALUES ('abc');
		CREATE DOMAIN later_checked AS text;`)
	admin := dbtest.PostgresConn(t, dsn)
	db := dbtest.Open(t, dsn, nil)
	routes := []struct{ name, sql, create string }{
		{"an overload that fits the argument better", `SELECT length(v) FROM vs`,
			`CREATE FUNCTION public.length(varchar) RETURNS int LANGUAGE plpgsql AS
			$$BEGIN PERFORM pg_advisory_lock(4600); RETURN 0; END$$`},
		{"a CHECK added to a domain", `SELECT 'x'::later_checked`,
			`CREATE FUNCTION lock_later(text) RETURNS bool LANGUAGE plpgsql AS
			$$BEGIN PERFORM pg_advisory_lock(4601); RETURN true; END$$;
			ALTER DOMAIN later_checked ADD CONSTRAINT c CHECK (lock_later(VALUE)) NOT VALID`},
	}
	for _, r := range routes {
		if _, err := db.Query(t.Context(), r.sql, 0); err != nil {
			t.Fatalf("%s: before: %v", r.name, err)
		}
	}
	for _, r := range routes {
		dbtest.PostgresExec(t, dsn, r.create)
	}
	for _, r := range routes {
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err := db.Query(t.Context(), r.sql, 0)
			var ge *guard.Error
			if errors.As(err, &ge) {
				break
			}
			if err != nil || time.Now().After(deadline) {
				t.Errorf("%s: after: got %v, want the guard's refusal", r.name, err)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	assertNoTrace(t, admin, t.TempDir())
}

// assertNoTrace fails the test if anything the hostile routes aim at is on
// the server: an advisory lock, a row in victim, a replication slot, a file.
func assertNoTrace(t *testing.T, admin *pgx.Conn, tmp string) {
	t.Helper()
	if n := pgAdminQuery(t, admin, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`); n[0] != "0" {
		t.Errorf("%s advisory locks are held", n[0])
	}
	if n := pgAdminQuery(t, admin, `SELECT count(*) FROM victim`); n[0] != "0" {
		t.Errorf("victim has %s rows", n[0])
	}
	if n := pgAdminQuery(t, admin, `SELECT count(*) FROM pg_replication_slots`); n[0] != "0" {
		t.Errorf("%s replication slots exist", n[0])
	}
	if files, _ := filepath.Glob(filepath.Join(tmp, "*")); len(files) > 0 {
		t.Errorf("files were written: %v", files)
	}
}

// TestPostgresAllowList: an operator can allow an extension or a user's
// function by name, and Open refuses what does not exist and what can never
// be allowed.
func TestPostgresAllowList(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, pgHostileSetup)
	db := dbtest.Open(t, dsn, &source.Options{AllowExtensions: []string{"xml2"}, AllowFunctions: []string{"public.twice"}})
	res, err := db.Query(t.Context(), `SELECT twice(21), xpath_string('<a>1</a>', '/a')`, 0)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(42) {
		t.Errorf("allowed functions: %v, %v", res, err)
	}
	// Allowing xml2 does not allow xpath_table, which runs SQL text, nor
	// what twice's neighbours do.
	for _, sql := range []string{
		`SELECT * FROM xpath_table('id', 'parent', 'tree', '/a', 'true') AS t(id text, v text)`,
		`SELECT lock_stable(4400)`,
	} {
		var ge *guard.Error
		if _, err := db.Query(t.Context(), sql, 0); !errors.As(err, &ge) {
			t.Errorf("%s: got %v, want the guard's refusal", sql, err)
		}
	}
	for _, bad := range []struct {
		opts source.Options
		want string
	}{
		{source.Options{AllowExtensions: []string{"postgis"}}, "no such extension"},
		{source.Options{AllowFunctions: []string{"public.no_such"}}, "no such function"},
		{source.Options{AllowFunctions: []string{"twice"}}, "schema.name"},
		{source.Options{AllowFunctions: []string{"public.crosstab"}}, "can never be allowed"},
		{source.Options{AllowFunctions: []string{"pg_catalog.pg_advisory_lock"}}, "can never be allowed"},
	} {
		_, err := source.Open(t.Context(), dsn, dbtest.Options(&bad.opts))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Open with %+v: got %v, want %q", bad.opts, err, bad.want)
		}
	}
}

// TestPostgresReservedSettings: the settings PostgreSQL shows only to a
// superuser or a member of pg_read_all_settings (primary_conninfo with the
// replication password, ssl_passphrase_command, the server's file paths)
// are refused to such a role however they are read; a plain role, from
// which the server hides them, still reads pg_settings, but not an
// application's secret set on the database.
func TestPostgresReservedSettings(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	plain, plainDSN := pgRole(t, dsn, `CREATE ROLE {{role}} LOGIN`)
	_, readerDSN := pgRole(t, dsn, `CREATE ROLE {{role}} LOGIN; GRANT pg_read_all_settings TO {{role}}`)
	reads := []string{
		`SELECT name, setting FROM pg_settings WHERE name = 'data_directory'`,
		`SELECT setting FROM pg_catalog.pg_settings`,
		`SELECT s.setting FROM pg_show_all_settings() AS s WHERE s.name = 'primary_conninfo'`,
		`SELECT current_setting(n) FROM (VALUES ('hba_file')) AS v (n)`,
		`SELECT current_setting('primary_conninfo')`,
		`SELECT current_setting('Data_Directory', true)`,
	}
	for who, d := range map[string]string{"superuser": dsn, "pg_read_all_settings member": readerDSN} {
		t.Run(who, func(t *testing.T) {
			db := dbtest.Open(t, d, nil)
			for _, sql := range reads {
				_, err := db.Query(t.Context(), sql, 0)
				var ge *guard.Error
				if !errors.As(err, &ge) {
					t.Errorf("%s: got %v, want the guard's refusal", sql, err)
				}
			}
			if _, err := db.Query(t.Context(), `SELECT current_setting('work_mem')`, 0); err != nil {
				t.Errorf("an ordinary setting: %v", err)
			}
		})
	}
	t.Run("plain role", func(t *testing.T) {
		// An application's secret set on the database, which every role
		// reads.
		dbtest.PostgresExec(t, dsn, `DO $$BEGIN EXECUTE format('ALTER DATABASE %I SET app.jwt_secret = %L', current_database(), 'jwt-4711'); END$$;
			ALTER ROLE "`+plain+`" SET app.api_token = 'tok-4712'`)
		db := dbtest.Open(t, plainDSN, nil)
		for _, sql := range []string{
			`SELECT current_setting('app.jwt_secret')`,
			`SELECT current_setting('app.jwt_' || 'secret')`,
			`SELECT unnest(setconfig) FROM pg_db_role_setting`,
			`SELECT rolname, rolconfig FROM pg_roles`,
			`SELECT to_json(u) FROM pg_user AS u`,
		} {
			_, err := db.Query(t.Context(), sql, 0)
			var ge *guard.Error
			if !errors.As(err, &ge) {
				t.Errorf("%s: got %v, want the guard's refusal", sql, err)
			}
		}
		res, err := db.Query(t.Context(), `SELECT count(*) FROM pg_settings WHERE name IN ('data_directory', 'primary_conninfo', 'work_mem')`, 0)
		if err != nil {
			t.Fatalf("pg_settings: %v", err)
		}
		if got := fmt.Sprint(res.Rows[0][0]); got != "1" {
			t.Errorf("pg_settings shows %s of data_directory, primary_conninfo and work_mem to a plain role, want 1", got)
		}
	})
}

// TestPostgresExtensionRelations: a view or table an extension made shows
// what the extension's code makes (pg_stat_statements every session's
// statements, pg_buffercache the server's shared memory), so reading one is
// refused like the extension's functions, unless the extension is allowed.
func TestPostgresExtensionRelations(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, `CREATE EXTENSION pg_buffercache; CREATE EXTENSION pg_stat_statements;`)
	db := dbtest.Open(t, dsn, nil)
	for _, sql := range []string{
		`SELECT count(*) FROM pg_buffercache`,
		`SELECT b.relfilenode FROM public.pg_buffercache AS b LIMIT 1`,
		`SELECT query FROM pg_stat_statements`,
		`WITH s AS (SELECT * FROM pg_stat_statements_info) SELECT count(*) FROM s`,
		`SELECT (SELECT count(*) FROM pg_buffercache)`,
	} {
		_, err := db.Query(t.Context(), sql, 0)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Error(), "belongs to the extension") {
			t.Errorf("%s: got %v, want the guard's refusal", sql, err)
		}
	}
	allowed := dbtest.Open(t, dsn, &source.Options{AllowExtensions: []string{"pg_buffercache"}})
	if _, err := allowed.Query(t.Context(), `SELECT count(*) FROM pg_buffercache`, 0); err != nil {
		t.Errorf("with the extension allowed: %v", err)
	}
	if _, err := db.Query(t.Context(), `SELECT count(*) FROM customers`, 0); err != nil {
		t.Errorf("a table of the database's own: %v", err)
	}
}

// TestPostgresReservedSettingsGranted: a role granted pg_read_all_settings
// after sqlmcp started is judged as one that may read the reserved
// settings within about a second: pg_settings, allowed before, is refused.
func TestPostgresReservedSettingsGranted(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	role, roleDSN := pgRole(t, dsn, `CREATE ROLE {{role}} LOGIN`)
	db := dbtest.Open(t, roleDSN, nil)
	const sql = `SELECT count(*) FROM pg_settings`
	if _, err := db.Query(t.Context(), sql, 0); err != nil {
		t.Fatalf("before the grant: %v", err)
	}
	dbtest.PostgresExec(t, dsn, `GRANT pg_read_all_settings TO "`+role+`"`)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, err := db.Query(t.Context(), sql, 0)
		var ge *guard.Error
		if errors.As(err, &ge) {
			break
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("after the grant: got %v, want the guard's refusal", err)
		}
	}
}
