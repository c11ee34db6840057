//go:build !nomysql

package guard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
)

// mysqlCatalog is a MySQLCatalog from a set of the database's own
// function names.
type mysqlCatalog struct {
	mariaDB bool
	user    map[string]bool
}

func (c mysqlCatalog) MariaDB() bool                 { return c.mariaDB }
func (c mysqlCatalog) UserFunction(name string) bool { return c.user[name] }

var mariaDB = mysqlCatalog{mariaDB: true, user: map[string]bool{"sys_exec": true, "my_fn": true}}

// withCount is a database that defines a stored function named count.
var withCount = mysqlCatalog{mariaDB: true, user: map[string]bool{"count": true}}

func TestCheckMySQLAccepts(t *testing.T) {
	for _, sql := range mysqlAllowed {
		t.Run(sql, func(t *testing.T) {
			if err := guard.CheckMySQL(sql, mariaDB); err != nil {
				t.Errorf("CheckMySQL(%q) = %v, want nil", sql, err)
			}
		})
	}
}

func TestCheckMySQLRefuses(t *testing.T) {
	for _, c := range mysqlRefused {
		t.Run(c.sql, func(t *testing.T) {
			err := guard.CheckMySQL(c.sql, mariaDB)
			if err == nil {
				t.Fatalf("CheckMySQL(%q) = nil, want a refusal mentioning %q", c.sql, c.want)
			}
			var ge *guard.Error
			var se *guard.SyntaxError
			if !errors.As(err, &ge) && !errors.As(err, &se) {
				t.Fatalf("CheckMySQL(%q) = %T %v, want *guard.Error or *guard.SyntaxError", c.sql, err, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("CheckMySQL(%q) = %q, want it to mention %q", c.sql, err, c.want)
			}
		})
	}
}

// inMySQLSchema is a connection whose current database is mysql.
type inMySQLSchema struct{ mysqlCatalog }

func (inMySQLSchema) Database() string { return "mysql" }

// TestCheckMySQLSecretTables: the mysql schema's tables of password hashes
// and stored credentials are refused however they are named or nested;
// a database's own table named user is not.
func TestCheckMySQLSecretTables(t *testing.T) {
	for _, sql := range []string{
		"SELECT User, authentication_string FROM mysql.user",
		"SELECT * FROM MYSQL.USER",
		"SELECT JSON_VALUE(Priv, '$.authentication_string') FROM `mysql`.`global_priv`",
		"SELECT Password FROM mysql.servers",
		"SELECT 1 FROM t WHERE EXISTS (SELECT 1 FROM mysql.password_history)",
		"WITH u AS (SELECT * FROM mysql.user) SELECT * FROM u",
		"SELECT * FROM t JOIN mysql.slave_master_info m ON 1 = 1",
	} {
		if err := guard.CheckMySQL(sql, mariaDB); err == nil || !strings.Contains(err.Error(), "password hashes or stored credentials") {
			t.Errorf("CheckMySQL(%q) = %v, want the table refused", sql, err)
		}
	}
	if err := guard.CheckMySQL("SELECT * FROM user", inMySQLSchema{mariaDB}); err == nil {
		t.Error("user, in the mysql database, was accepted")
	}
	for _, sql := range []string{"SELECT * FROM user", "SELECT * FROM app.user"} {
		if err := guard.CheckMySQL(sql, mariaDB); err != nil {
			t.Errorf("CheckMySQL(%q) = %v, want it allowed", sql, err)
		}
	}
}

// inSchema is a connection whose current database is the one named.
type inSchema struct {
	mysqlCatalog
	db string
}

func (c inSchema) Database() string { return c.db }

// TestCheckMySQLOtherSessions: what shows other sessions' statements,
// locks or activity, or the server's credentials, is refused by what it
// is: every relation of performance_schema and sys, the mysql schema but
// its vetted tables, information_schema's tables of sessions and of every
// variable, named with or without their database; the rest of
// information_schema, mysql's time zone, help, func and statistics
// tables, and a database's own tables of the same names are not.
func TestCheckMySQLOtherSessions(t *testing.T) {
	for _, c := range []struct {
		sql  string
		cat  guard.MySQLCatalog
		want string
	}{
		{"SELECT ID, USER, INFO FROM information_schema.PROCESSLIST WHERE INFO IS NOT NULL", mariaDB, "other sessions' statements"},
		{"SELECT * FROM INFORMATION_SCHEMA.processlist", mariaDB, "other sessions' statements"},
		{"SELECT * FROM `information_schema` . `ProcessList`", mariaDB, "other sessions' statements"},
		{"SELECT COUNT(*) FROM t WHERE EXISTS (SELECT 1 FROM information_schema.PROCESSLIST p WHERE p.INFO LIKE '%card%')", mariaDB, "other sessions' statements"},
		{"WITH p AS (SELECT INFO FROM information_schema.PROCESSLIST) SELECT * FROM p", mariaDB, "other sessions' statements"},
		{"SELECT * FROM t UNION SELECT trx_query FROM information_schema.INNODB_TRX", mariaDB, "other sessions' statements"},
		{"SELECT lock_data FROM information_schema.INNODB_LOCKS", mariaDB, "locks"},
		{"SELECT * FROM information_schema.INNODB_LOCK_WAITS", mariaDB, "locks"},
		{"SELECT * FROM information_schema.METADATA_LOCK_INFO", mariaDB, "locks"},
		{"SELECT STATEMENT_TEXT FROM information_schema.QUERY_CACHE_INFO", mariaDB, "statements"},
		{"SELECT QUERY FROM information_schema.OPTIMIZER_TRACE", mariaDB, "statements"},
		{"SELECT * FROM information_schema.USER_STATISTICS", mariaDB, "activity"},
		{"SELECT * FROM information_schema.CLIENT_STATISTICS", mariaDB, "activity"},
		{"SELECT * FROM PROCESSLIST", inSchema{mariaDB, "information_schema"}, "other sessions' statements"},
		{"SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME = 'REPORT_PASSWORD'", mariaDB, "passwords and keys"},
		{"SELECT * FROM information_schema.SESSION_VARIABLES", mariaDB, "passwords and keys"},
		{"SELECT GLOBAL_VALUE FROM information_schema.SYSTEM_VARIABLES", mariaDB, "passwords and keys"},
		{"SELECT SQL_TEXT FROM performance_schema.events_statements_history_long", mariaDB, "every session's statements"},
		{"SELECT * FROM performance_schema.threads", mariaDB, "every session's statements"},
		{"SELECT * FROM performance_schema.global_variables", mariaDB, "every session's statements"},
		{"SELECT current_statement FROM sys.session", mariaDB, "every session's statements"},
		{"SELECT * FROM sys.processlist", mariaDB, "every session's statements"},
		{"SELECT * FROM sys.x$processlist", mariaDB, "every session's statements"},
		{"SELECT * FROM processlist", inSchema{mariaDB, "sys"}, "every session's statements"},
		{"SELECT argument FROM mysql.general_log", mariaDB, "every session's statements"},
		{"SELECT sql_text FROM mysql.slow_log", mariaDB, "every session's statements"},
		{"SELECT CONVERT(body USING utf8mb4) FROM mysql.proc", mariaDB, "only its time zone and help tables"},
		{"SELECT * FROM mysql.db", mariaDB, "only its time zone and help tables"},
		{"SELECT min_value, max_value FROM mysql.column_stats", mariaDB, "only its time zone and help tables"},
		{"SELECT * FROM mysql.roles_mapping", mariaDB, "only its time zone and help tables"},
		{"SELECT * FROM proc", inMySQLSchema{mariaDB}, "only its time zone and help tables"},
		{"TABLE mysql.general_log", mysqlCatalog{}, "every session's statements"},
		{"TABLE performance_schema.events_statements_current", mysqlCatalog{}, "every session's statements"},
		{"EXPLAIN SELECT * FROM information_schema.PROCESSLIST", mariaDB, "other sessions' statements"},
	} {
		err := guard.CheckMySQL(c.sql, c.cat)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Reason, c.want) || ge.Hint == "" {
			t.Errorf("CheckMySQL(%q) = %v, want a refusal saying %q, with a hint", c.sql, err, c.want)
		}
	}
	for _, c := range []struct {
		sql string
		cat guard.MySQLCatalog
	}{
		{"SELECT TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()", mariaDB},
		{"SELECT * FROM information_schema.COLUMNS c JOIN information_schema.KEY_COLUMN_USAGE k USING (TABLE_SCHEMA, TABLE_NAME)", mariaDB},
		{"SELECT ROUTINE_NAME FROM information_schema.ROUTINES", mariaDB},
		{"SELECT * FROM information_schema.USER_PRIVILEGES", mariaDB},
		{"SELECT * FROM information_schema.GLOBAL_STATUS", mariaDB},
		{"SELECT * FROM TABLES", inSchema{mariaDB, "information_schema"}},
		{"SELECT LOWER(name) FROM mysql.func", mariaDB},
		{"SELECT * FROM mysql.time_zone_name", mariaDB},
		{"SELECT * FROM mysql.time_zone_transition_type", mariaDB},
		{"SELECT name FROM mysql.help_topic", mariaDB},
		{"SELECT * FROM mysql.innodb_table_stats", mariaDB},
		{"SELECT * FROM mysql.index_stats", mariaDB},
		{"SELECT * FROM help_topic", inMySQLSchema{mariaDB}},
		{"SELECT * FROM processlist", mariaDB},
		{"SELECT * FROM app.processlist JOIN app.general_log USING (id)", mariaDB},
		{"SELECT * FROM global_variables", inSchema{mariaDB, "app"}},
	} {
		if err := guard.CheckMySQL(c.sql, c.cat); err != nil {
			t.Errorf("CheckMySQL(%q) = %v, want it allowed", c.sql, err)
		}
	}
}

// TestCheckMySQLSecretVariables: a system variable that may hold a
// password, a key or a secret is refused in every spelling; other
// settings read as before.
func TestCheckMySQLSecretVariables(t *testing.T) {
	for _, sql := range []string{
		"SELECT @@report_password",
		"SELECT @@GLOBAL.report_password",
		"SELECT @@session.Report_Password",
		"SELECT @@`report_password`",
		"SELECT 1 FROM t WHERE @@global.wsrep_sst_auth <> ''",
		"SELECT @@file_key_management_filekey",
		"SELECT @@hashicorp_key_management_token",
		"SELECT @@keyring_hashicorp_secret_id",
		"SELECT @@authentication_ldap_simple_bind_root_pwd",
		"SELECT @@init_connect",
		"SELECT @@global.init_slave",
		"SELECT @@ssl_key",
		"SELECT (SELECT @@report_password)",
	} {
		err := guard.CheckMySQL(sql, mariaDB)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Reason, "password, a key or a secret") || ge.Hint == "" {
			t.Errorf("CheckMySQL(%q) = %v, want the setting refused", sql, err)
		}
	}
	for _, sql := range []string{
		"SELECT @@version, @@session.sql_mode, @@global.max_connections, @@max_statement_time",
		"SELECT @@key_buffer_size, @@default.key_buffer_size, @@foreign_key_checks, @@max_seeks_for_key",
		"SELECT @@time_zone, @@character_set_server, @@innodb_default_encryption_key_id, @@report_user",
		"SELECT @password, @secret",
	} {
		if err := guard.CheckMySQL(sql, mariaDB); err != nil {
			t.Errorf("CheckMySQL(%q) = %v, want it allowed", sql, err)
		}
	}
}

// TestCheckMySQLGeometryRunaways: the geometry computations whose time
// grows with the square of the points, and which the server does not stop
// at its time limit, are refused on both servers, in MariaDB's short
// spellings too, with a hint naming the linear MBR functions; those, and
// the predicates, which end at the limit, stay allowed.
func TestCheckMySQLGeometryRunaways(t *testing.T) {
	for _, f := range []string{
		"ST_Union(a, b)", "ST_Intersection(a, b)", "ST_Difference(a, b)", "ST_SymDifference(a, b)",
		"ST_Distance(a, b)", "ST_Distance_Sphere(a, b)", "ST_IsSimple(a)", "ST_IsRing(a)",
		"st_union (a, b)", "`ST_INTERSECTION`(a, b)",
	} {
		for name, cat := range map[string]guard.MySQLCatalog{"MariaDB": mariaDB, "MySQL": mysqlCatalog{}} {
			sql := "SELECT " + f + " FROM t"
			err := guard.CheckMySQL(sql, cat)
			var ge *guard.Error
			if !errors.As(err, &ge) || !strings.Contains(ge.Reason, "is not allowed") || !strings.Contains(ge.Hint, "the square of the points") {
				t.Errorf("on %s, CheckMySQL(%q) = %v, want the geometry computation refused", name, sql, err)
			}
		}
	}
	for _, f := range []string{"IsSimple(a)", "IsRing(a)"} {
		if err := guard.CheckMySQL("SELECT "+f+" FROM t", mariaDB); err == nil || !strings.Contains(err.Error(), "MBRIntersects") {
			t.Errorf("on MariaDB, %s: %v, want it refused with the MBR functions as the hint", f, err)
		}
	}
	for _, sql := range []string{
		"SELECT MBRContains(a, b), MBRIntersects(a, b), MBRWithin(a, b), ST_AsText(ST_Envelope(a)) FROM t",
		"SELECT ST_X(p), ST_Y(p), ST_Length(l), ST_Area(g), ST_NumPoints(l), ST_ConvexHull(g), ST_Centroid(g) FROM t",
		"SELECT ST_AsText(ST_GeomFromText('POINT(1 2)')), ST_AsGeoJSON(g) FROM t",
		// They end at the limit with its error on shapes a query reads.
		"SELECT ST_Contains(a, b), ST_Within(a, b), ST_Intersects(a, b), ST_Crosses(a, b), ST_Overlaps(a, b) FROM t",
		"SELECT ST_Touches(a, b), ST_Equals(a, b), ST_Disjoint(a, b), ST_Relate(a, b, 'T********'), MBRTouches(a, b) FROM t",
		"SELECT ST_AsText(ST_Buffer(a, 1)), Contains(a, b), Intersects(a, b), Buffer(a, 1) FROM t",
	} {
		if err := guard.CheckMySQL(sql, mariaDB); err != nil {
			t.Errorf("CheckMySQL(%q) = %v, want it allowed", sql, err)
		}
	}
}

// TestCheckMySQLUnboundedOnMariaDB: on MariaDB, the regular expressions
// (operators and functions), whose PCRE backtracking the server does not
// stop at its time limit, JSON_OBJECTAGG, which group_concat_max_len
// does not bound, and the functions whose result can outgrow
// max_allowed_packet many times over (JSON_EXTRACT of several paths
// among them) are refused wherever they sit, with a hint naming what to
// use instead; on MySQL, not measured, they stay allowed, and on both
// LIKE, JSON_ARRAYAGG, GROUP_CONCAT and the functions held to the packet
// size or grown by a fixed factor stay.
func TestCheckMySQLUnboundedOnMariaDB(t *testing.T) {
	for _, sql := range []string{
		"SELECT a REGEXP '(a|a)(a|a)b|c' FROM t",
		"SELECT * FROM t WHERE a RLIKE 'x'",
		"SELECT * FROM t WHERE a NOT REGEXP BINARY 'x'",
		"SELECT CASE WHEN (SELECT MAX(a) FROM u) REGEXP b THEN 1 END FROM t",
		"WITH w AS (SELECT REGEXP_REPLACE(a, 'x', 'y') AS r FROM t) SELECT r FROM w",
		"SELECT REGEXP_SUBSTR(a, 'x'), 1 FROM t",
		"SELECT `regexp_instr`(a, 'x') FROM t",
		"SELECT regexp_instr (a, 'x') FROM t",
		"SELECT b, JSON_OBJECTAGG(a, c) FROM t GROUP BY b",
		"SELECT JSON_SET(j, '$.a', j) FROM t",
		"SELECT JSON_INSERT(j, '$.a', 1), JSON_REPLACE(j, '$.a', 1) FROM t",
		"SELECT JSON_ARRAY_APPEND(j, '$', j) FROM t",
		"SELECT JSON_ARRAY_INSERT(j, '$[0]', j) FROM t",
		"SELECT JSON_MERGE(j, j), 1 FROM t",
		"SELECT JSON_MERGE_PRESERVE(JSON_MERGE_PRESERVE(j, j), j) FROM t",
		"SELECT LENGTH(JSON_MERGE_PATCH(j, j)) FROM t",
		"SELECT JSON_QUOTE(JSON_QUOTE(a)) FROM t",
		"SELECT JSON_DETAILED(j), JSON_PRETTY(j) FROM t",
		"SELECT JSON_SEARCH(j, 'all', 'x%') FROM t",
		"SELECT MAKE_SET(3, a, a) FROM t",
		"SELECT COLUMN_JSON(COLUMN_CREATE('x', a, 'y', a)) FROM t",
		"SELECT COLUMN_ADD(d, 'y', a) FROM t",
		"SELECT JSON_EXTRACT(j, '$', '$') FROM t",
		"SELECT * FROM t WHERE JSON_EXTRACT(j, '$.a', '$.b', '$.c') IS NOT NULL",
		"SELECT JSON_EXTRACT(j, '$**.a') FROM t",
		"SELECT JSON_EXTRACT(j, '$' '**[*]') FROM t",
		"SELECT JSON_EXTRACT(j, '$*\\*') FROM t",
		"SELECT JSON_EXTRACT(j, 0x242a2a) FROM t",
		"SELECT JSON_EXTRACT(j, CONCAT('$*', '*')) FROM t",
		"SELECT JSON_EXTRACT(j, a) FROM t",
		"SELECT JSON_EXTRACT(j, ?) FROM t",
	} {
		err := guard.CheckMySQL(sql, mariaDB)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Reason, "not allowed on MariaDB") ||
			!strings.Contains(ge.Hint, "LIKE") && !strings.Contains(ge.Hint, "JSON_") {
			t.Errorf("on MariaDB, CheckMySQL(%q) = %v, want it refused with what to use instead", sql, err)
		}
		if err := guard.CheckMySQL(sql, mysqlCatalog{}); err != nil && (!errors.As(err, &ge) || ge.MissingFunction == "") {
			t.Errorf("on MySQL, CheckMySQL(%q) = %v, want it allowed (or unknown there)", sql, err)
		}
	}
	for _, sql := range []string{
		"SELECT a LIKE '%x_y%', a NOT LIKE 'z%' ESCAPE '!' FROM t",
		"SELECT JSON_ARRAYAGG(JSON_OBJECT(a, c)), GROUP_CONCAT(a SEPARATOR ',') FROM t",
		"SELECT SUBSTRING_INDEX(a, '@', -1), LOCATE('x', a) FROM t",
		"SELECT JSON_EXTRACT(j, '$[*].a'), JSON_EXTRACT(j, '$.*'), JSON_VALUE(j, '$.b'), JSON_QUERY(j, '$.c'), JSON_CONTAINS(j, '1', '$.d') FROM t",
		"SELECT JSON_OBJECT('a', a), JSON_ARRAY(a, b), JSON_KEYS(j), JSON_REMOVE(j, '$.a', '$.b'), JSON_COMPACT(j) FROM t",
		"SELECT COLUMN_JSON(d), DATE_FORMAT(e, '%M %Y') FROM t",
	} {
		if err := guard.CheckMySQL(sql, mariaDB); err != nil {
			t.Errorf("on MariaDB, CheckMySQL(%q) = %v, want it allowed", sql, err)
		}
	}
}

func TestCheckMySQLOnMySQL(t *testing.T) {
	mysql := mysqlCatalog{}
	for _, sql := range []string{"TABLE t", "VALUES ROW(1, 2), ROW(3, 4)", "SELECT REGEXP_LIKE(a, 'x'), ANY_VALUE(b) FROM t GROUP BY c"} {
		if err := guard.CheckMySQL(sql, mysql); err != nil {
			t.Errorf("on MySQL, CheckMySQL(%q) = %v, want nil", sql, err)
		}
		if err := guard.CheckMySQL(sql, mariaDB); err == nil {
			t.Errorf("on MariaDB, CheckMySQL(%q) = nil, want a refusal", sql)
		}
	}
	if err := guard.CheckMySQL("SELECT NATURAL_SORT_KEY(a) FROM t", mysql); err == nil {
		t.Error("on MySQL, MariaDB's NATURAL_SORT_KEY was allowed")
	}
}

func TestCheckMySQLStoredFunctionNamedLikeABuiltin(t *testing.T) {
	// The server reads "count (a)" and `count`(a) as calls of a stored
	// function count when the database has one.
	for _, sql := range []string{"SELECT count (a) FROM t", "SELECT `COUNT`(a) FROM t", "SELECT COUNT(*) FROM t"} {
		if err := guard.CheckMySQL(sql, withCount); err == nil || !strings.Contains(err.Error(), "defined in the database") {
			t.Errorf("CheckMySQL(%q) = %v, want a refusal of the stored function", sql, err)
		}
		if err := guard.CheckMySQL(sql, mariaDB); !strings.Contains(sql, "`") && err != nil {
			t.Errorf("without a stored count, CheckMySQL(%q) = %v", sql, err)
		}
	}
}

func TestMySQLLimit(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT a FROM t", "SELECT a FROM t\nLIMIT 11"},
		{"SELECT a FROM t;  ", "SELECT a FROM t\nLIMIT 11"},
		{"SELECT a FROM t -- note", "SELECT a FROM t\nLIMIT 11"},
		{"SELECT a FROM t LIMIT 5", "SELECT a FROM t LIMIT 5"},
		{"SELECT a FROM t LIMIT 500", "SELECT a FROM t LIMIT 11"},
		{"SELECT a FROM t LIMIT 3, 500", "SELECT a FROM t LIMIT 3, 11"},
		{"SELECT a FROM t LIMIT 500 OFFSET 3", "SELECT a FROM t LIMIT 11 OFFSET 3"},
		{"SELECT a FROM (SELECT a FROM t LIMIT 500) x", "SELECT a FROM (SELECT a FROM t LIMIT 500) x\nLIMIT 11"},
		{"SELECT a FROM t UNION SELECT b FROM u LIMIT 20", "SELECT a FROM t UNION SELECT b FROM u LIMIT 11"},
		{"(SELECT a FROM t LIMIT 20)", "(SELECT a FROM t LIMIT 20)\nLIMIT 11"},
		{"WITH x AS (SELECT a FROM t LIMIT 50) SELECT * FROM x", "WITH x AS (SELECT a FROM t LIMIT 50) SELECT * FROM x\nLIMIT 11"},
		{"SELECT /* hint */ a FROM t", "SELECT            a FROM t\nLIMIT 11"},
		{"EXPLAIN SELECT a FROM t", "EXPLAIN SELECT a FROM t"},
	} {
		q, err := guard.MySQLLimit(c.sql, 11, mariaDB)
		if err != nil {
			t.Errorf("MySQLLimit(%q) = %v", c.sql, err)
			continue
		}
		if q.Text != c.want {
			t.Errorf("MySQLLimit(%q) = %q, want %q", c.sql, q.Text, c.want)
		}
		if q.Explain != strings.HasPrefix(c.sql, "EXPLAIN") {
			t.Errorf("MySQLLimit(%q).Explain = %v", c.sql, q.Explain)
		}
	}
}

func TestCheckMySQLDeep(t *testing.T) {
	for name, sql := range map[string]string{
		"brackets":      "SELECT " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000),
		"long chain":    "SELECT 1" + strings.Repeat(" + 1", 100000),
		"and chain":     "SELECT 1 FROM t WHERE a = 1" + strings.Repeat(" AND a = 1", 50000),
		"nested select": "SELECT " + strings.Repeat("(SELECT ", 900) + "1" + strings.Repeat(")", 900),
		"too long":      "SELECT '" + strings.Repeat("x", guard.MaxSQLBytes) + "'",
	} {
		t.Run(name, func(t *testing.T) {
			if err := guard.CheckMySQL(sql, mariaDB); err == nil {
				t.Errorf("CheckMySQL(%s) = nil, want a refusal", name)
			}
		})
	}
	// Long but flat is fine.
	in := "SELECT a FROM t WHERE a IN (" + strings.Repeat("1, ", 20000) + "1)"
	if err := guard.CheckMySQL(in, mariaDB); err != nil {
		t.Errorf("a 20,000-item IN list: %v", err)
	}
}

// mysqlAllowed are MariaDB 10.11 queries the guard accepts; source's tests
// run them against the server.
var mysqlAllowed = []string{
	"SELECT 1",
	"select 1;",
	"SELECT `a`.`id`, `b`.`name` FROM `frpm` AS `a` INNER JOIN `schools` `b` ON `a`.`CDSCode` = `b`.`CDSCode` WHERE `b`.`County` = 'Alameda' ORDER BY `a`.`id` DESC LIMIT 5",
	"SELECT a FROM t LIMIT 5, 10",
	"SELECT a FROM t LIMIT 10 OFFSET 5",
	"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 10) SELECT n FROM c",
	"WITH x AS (SELECT a, b FROM t), y AS (SELECT a FROM x) SELECT * FROM y",
	"SELECT a, ROW_NUMBER() OVER (PARTITION BY b ORDER BY c DESC) AS rn FROM t",
	"SELECT a, SUM(b) OVER w, LAG(b, 1) OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
	"SELECT a FROM t UNION SELECT a FROM u ORDER BY 1 LIMIT 3",
	"SELECT a FROM t INTERSECT SELECT a FROM u",
	"SELECT a FROM t EXCEPT SELECT a FROM u",
	"SELECT a FROM t EXCEPT ALL SELECT a FROM u",
	"(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT a FROM u ORDER BY a LIMIT 1)",
	"SELECT a FROM t WHERE a IN (SELECT a FROM u WHERE u.b = t.b)",
	"SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)",
	"SELECT DATE_FORMAT(d, '%Y-%m'), COUNT(*) FROM t GROUP BY 1 ORDER BY 1",
	"SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP",
	"SELECT CAST(a AS DECIMAL(10,2)), CAST(b AS CHAR(10)), CAST(c AS UNSIGNED), CAST(d AS SIGNED INTEGER), CAST(e AS DATE) FROM t",
	"SELECT CONVERT(a, CHAR), CONVERT('abc' USING utf8mb4) FROM t",
	"SELECT a DIV 2, a MOD 2, a % 2, a <=> b, a XOR b, a LIKE 'x%' FROM t",
	"SELECT 'a' LIKE 'b' ESCAPE '|', _utf8mb4'abc' COLLATE utf8mb4_bin, BINARY 'x', X'0A', b'101', 0x41, \"double\"",
	"SELECT TIMESTAMPDIFF(DAY, d, d), DATE_ADD(d, INTERVAL 1 MONTH), d + INTERVAL 2 DAY, EXTRACT(YEAR FROM d) FROM t",
	"SELECT IF(a > 1, 'x', 'y'), IFNULL(a, 0), COALESCE(a, b), NULLIF(a, b), CASE WHEN a = 1 THEN 'one' ELSE 'other' END FROM t",
	"SELECT GROUP_CONCAT(DISTINCT a ORDER BY a DESC SEPARATOR ';') FROM t",
	"SELECT SUBSTRING_INDEX(e, ',', 1), SUBSTRING(e, 2, 3), SUBSTRING(e FROM 2 FOR 3), TRIM(BOTH 'x' FROM e), POSITION('a' IN e), INSERT(e, 1, 2, 'z'), CHAR(65 USING utf8mb4) FROM t",
	"SELECT STRAIGHT_JOIN t.a FROM t JOIN u USING (a)",
	"SELECT SQL_NO_CACHE DISTINCT a FROM t",
	"SELECT HIGH_PRIORITY a FROM t",
	"SELECT a FROM t USE INDEX (PRIMARY) WHERE a > 1",
	"SELECT a FROM t FORCE INDEX (idx_a) IGNORE INDEX FOR ORDER BY (idx_b)",
	"SELECT * FROM t NATURAL JOIN u",
	"SELECT * FROM t LEFT OUTER JOIN u ON t.a = u.a RIGHT JOIN v ON v.a = u.a CROSS JOIN w",
	"SELECT 1 FROM DUAL",
	"SELECT DATE '2020-01-01', TIMESTAMP '2020-01-01 00:00:00', TIME '10:00:00'",
	"SELECT MATCH (e) AGAINST ('x' IN BOOLEAN MODE) FROM t",
	"SELECT @@version, @@session.sql_mode, @@global.max_connections, @unset",
	"SELECT NOW(), NOW(6), CURRENT_TIMESTAMP, CURRENT_DATE, CURDATE(), UTC_TIMESTAMP(), RAND(), UUID(), LAST_INSERT_ID()",
	"SELECT DATABASE(), VERSION(), CURRENT_USER(), USER(), CONNECTION_ID()",
	"SELECT JSON_EXTRACT(j, '$.a'), JSON_VALUE(j, '$.b'), JSON_OBJECT('a', 1), JSON_ARRAYAGG(a) FROM t",
	"SELECT * FROM seq_1_to_10",
	"SELECT NATURAL_SORT_KEY(e), SFORMAT('{}', a), SUBSTRING_INDEX(e, 'x', 1) FROM t",
	"SELECT a FROM tp PARTITION (p0)",
	"SELECT CAST(a AS DOUBLE), CAST(a AS FLOAT) FROM t",
	"SELECT 'a' 'b' 'c'",
	"SELECT a FROM t # hash comment",
	"SELECT a FROM t -- dash comment",
	"SELECT a FROM t --",
	"SELECT /* plain */ a FROM t",
	"SELECT /*+ MAX_EXECUTION_TIME(1) */ a FROM t",
	"SELECT 1 --1",
	"SELECT a FROM t WHERE d BETWEEN '2020-01-01' AND '2020-12-31' AND a NOT IN (1, 2, 3) AND b IS NOT NULL",
	"SELECT COUNT(DISTINCT a, b), AVG(c), STD(c), VARIANCE(c), BIT_AND(c), BIT_OR(c) FROM t",
	"SELECT NTILE(4) OVER (ORDER BY a), CUME_DIST() OVER (ORDER BY a), PERCENT_RANK() OVER (ORDER BY a), DENSE_RANK() OVER (ORDER BY a), FIRST_VALUE(a) OVER (ORDER BY a), NTH_VALUE(a, 2) OVER (ORDER BY a) FROM t",
	"SELECT t1.a FROM t t1 WHERE t1.a = ANY (SELECT a FROM u) AND t1.b > ALL (SELECT b FROM u)",
	"SELECT ROW(1, 2) = ROW(1, 2), (1, 2) IN ((1, 2))",
	"SELECT CHAR_LENGTH('x'), LENGTH('x'), CONCAT_WS(',', 'a', 'b'), LPAD('a', 3, '0'), FORMAT(1234.5, 2)",
	"SELECT STR_TO_DATE('01/02/2020', '%m/%d/%Y'), UNIX_TIMESTAMP('2020-01-01'), FROM_UNIXTIME(0), DAYNAME(d), WEEK(d, 3), YEARWEEK(d), LAST_DAY(d) FROM t",
	"SELECT INET_ATON('1.2.3.4'), INET6_NTOA(INET6_ATON('::1')), MD5('a'), SHA2('a', 256), CRC32('a'), HEX('a'), UNHEX('41'), TO_BASE64('a')",
	"SELECT e FROM t WHERE e LIKE 'x%' ORDER BY e COLLATE utf8mb4_general_ci",
	"SELECT a, b FROM t WHERE (a, b) > (1, 2)",
	"SELECT '/*!50000 , SLEEP(1) */', 'it''s', 'a\\'b', \"say \\\"hi\\\"\", `we``ird`",
	"SELECT '\\' , SLEEP(1) #'",
	"SELECT \"\\\" , SLEEP(1) #\"",
	"EXPLAIN SELECT a FROM t",
	"EXPLAIN FORMAT=JSON SELECT a FROM t",
	"EXPLAIN WITH x AS (SELECT 1) SELECT * FROM x",
	"DESCRIBE SELECT a FROM t",
}

// mysqlRefused are statements the guard refuses, each with a word its
// message must hold.
var mysqlRefused = []struct{ sql, want string }{
	{"", "no SQL statement"},
	{"-- only a comment", "no SQL statement"},
	{"SELECT 1; DROP TABLE t", "more than one statement"},
	{"SELECT 1;;SELECT 2", "more than one statement"},
	{"SELECT 1; -- fine\n SELECT 2", "more than one statement"},
	{"SELECT 1 /*!; DROP TABLE t */", "executable comments"},
	{"SELECT 1 /*!50000 , SLEEP(3) */", "executable comments"},
	{"SELECT 1 /*!99999 , SLEEP(3) */", "executable comments"},
	{"SELECT 1 /*M!100000 , SLEEP(3) */", "executable comments"},
	{"SELECT 1 /*! , SLEEP(3) */ FROM t", "executable comments"},
	{"SELECT 1 /* unterminated", "unterminated"},
	{"SELECT 'unterminated", "unterminated"},
	{"SELECT a FROM t INTO OUTFILE '/tmp/x'", "INTO"},
	{"SELECT a FROM t INTO DUMPFILE '/tmp/x'", "INTO"},
	{"SELECT a INTO @v FROM t", "INTO"},
	{"SELECT a FROM t INTO @v", "INTO"},
	{"SELECT * FROM t INTO OUTFILE '/tmp/x' FIELDS TERMINATED BY ','", "INTO"},
	{"SELECT 1 UNION SELECT a FROM t INTO OUTFILE '/tmp/x'", "INTO"},
	{"SELECT a FROM t ORDER BY a LIMIT 1 INTO @v", "INTO"},
	{"SELECT @x := 1", "assigning a variable"},
	{"SELECT a FROM t WHERE (@x := a) > 1", "assigning a variable"},
	{"SELECT a FROM t FOR UPDATE", "FOR UPDATE"},
	{"SELECT a FROM t FOR UPDATE NOWAIT", "locks rows"},
	{"SELECT a FROM t FOR UPDATE SKIP LOCKED", "locks rows"},
	{"SELECT a FROM t LOCK IN SHARE MODE", "locks rows"},
	{"SELECT a FROM t FOR SHARE", "locks rows"},
	{"SELECT (SELECT a FROM t FOR UPDATE)", "locks rows"},
	{"SELECT * FROM (SELECT a FROM t LOCK IN SHARE MODE) x", "locks rows"},
	{"SELECT SLEEP(1)", "SLEEP"},
	{"SELECT sleep (1)", "SLEEP"},
	{"SELECT `sleep`(1)", "SLEEP"},
	{"SELECT 1 FROM t WHERE a = 1 AND SLEEP(1)", "SLEEP"},
	{"SELECT BENCHMARK(10, MD5('a'))", "BENCHMARK"},
	{"SELECT GET_LOCK('a', 0)", "GET_LOCK"},
	{"SELECT RELEASE_LOCK('a')", "RELEASE_LOCK"},
	{"SELECT RELEASE_ALL_LOCKS()", "RELEASE_ALL_LOCKS"},
	{"SELECT IS_FREE_LOCK('a')", "IS_FREE_LOCK"},
	{"SELECT IS_USED_LOCK('a')", "IS_USED_LOCK"},
	{"SELECT * FROM t WHERE a = (SELECT GET_LOCK('a', 0))", "GET_LOCK"},
	{"SELECT LOAD_FILE('/etc/passwd')", "LOAD_FILE"},
	{"SELECT LAST_INSERT_ID(5)", "LAST_INSERT_ID(expr)"},
	{"SELECT UUID_SHORT()", "UUID_SHORT"},
	{"SELECT sys_exec('id')", "defined in the database"},
	{"SELECT my_fn(1)", "defined in the database"},
	{"SELECT test.f(1)", "stored function"},
	{"SELECT unknown_fn(1)", "not a built-in MariaDB function"},
	{"SELECT NEXTVAL(s)", "NEXTVAL"},
	{"SELECT SETVAL(s, 1)", "SETVAL"},
	{"SELECT NEXT VALUE FOR s", "NEXTVAL"},
	{"SELECT MASTER_POS_WAIT('f', 1)", "MASTER_POS_WAIT"},
	{"SELECT MASTER_GTID_WAIT('0-1-1')", "MASTER_GTID_WAIT"},
	{"SELECT 1 --SLEEP(1)", "SLEEP"},
	{"CREATE TEMPORARY TABLE x (a int)", "CREATE TEMPORARY TABLE"},
	{"CREATE TEMPORARY TABLE x SELECT 1", "CREATE TEMPORARY TABLE"},
	{"DROP TEMPORARY TABLE x", "DROP TABLE"},
	{"CREATE TABLE x (a int)", "CREATE TABLE"},
	{"DROP TABLE t", "DROP TABLE"},
	{"ALTER TABLE t ADD COLUMN z int", "ALTER TABLE"},
	{"TRUNCATE TABLE t", "TRUNCATE TABLE"},
	{"RENAME TABLE t TO t2", "RENAME TABLE"},
	{"CREATE INDEX i ON t (a)", "CREATE INDEX"},
	{"CREATE VIEW v2 AS SELECT 1", "CREATE VIEW"},
	{"SET @a = 1", "SET"},
	{"SET SESSION sql_mode = ''", "SET"},
	{"SET TRANSACTION READ WRITE", "SET"},
	{"SET STATEMENT max_statement_time=100 FOR SELECT 1", "SET"},
	{"START TRANSACTION", "START TRANSACTION"},
	{"BEGIN", "transaction control"},
	{"COMMIT", "COMMIT"},
	{"ROLLBACK", "ROLLBACK"},
	{"SAVEPOINT s", "transaction control"},
	{"DO SLEEP(1)", "DO"},
	{"CALL p()", "CALL"},
	{"HANDLER t OPEN", "HANDLER"},
	{"LOAD DATA INFILE '/etc/passwd' INTO TABLE t", "LOAD DATA"},
	{"ANALYZE TABLE t", "ANALYZE"},
	{"ANALYZE SELECT * FROM t", "ANALYZE runs"},
	{"ANALYZE FORMAT=JSON SELECT * FROM t", "ANALYZE runs"},
	{"EXPLAIN ANALYZE SELECT * FROM t", "EXPLAIN ANALYZE"},
	{"EXPLAIN DELETE FROM t", "EXPLAIN DELETE"},
	{"EXPLAIN t", "of a table"},
	{"DESCRIBE t", "of a table"},
	{"SHOW TABLES", "SHOW"},
	{"KILL 1", "KILL"},
	{"INSTALL SONAME 'ha_connect'", "INSTALL"},
	{"CREATE FUNCTION sys_exec RETURNS INT SONAME 'lib_mysqludf_sys.so'", "CREATE"},
	{"PREPARE s FROM 'SELECT 1'", "PREPARE"},
	{"EXECUTE s", "EXECUTE"},
	{"LOCK TABLES t READ", "LOCK TABLES"},
	{"UNLOCK TABLES", "UNLOCK TABLES"},
	{"FLUSH TABLES", "FLUSH"},
	{"OPTIMIZE TABLE t", "OPTIMIZE"},
	{"GRANT ALL ON *.* TO x", "GRANT"},
	{"INSERT INTO t VALUES (1)", "INSERT"},
	{"REPLACE INTO t VALUES (1)", "REPLACE"},
	{"UPDATE t SET a = 1", "UPDATE"},
	{"DELETE FROM t", "DELETE"},
	{"WITH x AS (SELECT 1) DELETE FROM t", "DELETE"},
	{"WITH x AS (SELECT 1) UPDATE t SET a = 1", "UPDATE"},
	{"XA START 'x'", "XA"},
	{"VALUES (1, 2), (3, 4)", "VALUES"},
	{"TABLE t", "TABLE t"},
	{"SELECT a FROM t ORDER BY a OFFSET 5 ROWS FETCH FIRST 10 ROWS ONLY", "LIMIT"},
	{"SELECT CAST(a AS INTEGER) FROM t", "SIGNED"},
	{"SELECT * FROM JSON_TABLE('[1,2]', '$[*]' COLUMNS (x INT PATH '$')) AS jt", "JSON_TABLE"},
	{"SELECT * FROM tv FOR SYSTEM_TIME AS OF TIMESTAMP '2020-01-01 00:00:00'", "SYSTEM_TIME"},
	{"SELEC 1", "syntax error"},
	{"SELECT char_func(65)", "not a built-in"},
	{"SELECT * FROM", "syntax error"},
	{"SELECT tidb_version()", "not a built-in"},
	{"SELECT char_func(65)", "not a built-in"},
	{"SELECT JSON_ARRAY(1) MEMBER OF ('[1]')", "not a built-in MariaDB"},
	{"SELECT 1\x00", "NUL"},
	{"SELECT '\xff'", "UTF-8"},
}

// TestCheckMySQLCostlyTokens: token shapes the parser reads in time or
// memory far past their length are refused before it reads them; the
// same kinds at real sizes pass.
func TestCheckMySQLCostlyTokens(t *testing.T) {
	rep := strings.Repeat
	for _, c := range []struct{ name, sql, want string }{
		{"10,000 adjacent string literals", "SELECT " + rep("'a' ", 10_000), "string literals in a row"},
		{"adjacent literals across comments", "SELECT " + rep("'a' /* x */ \"b\"\n", 5_000), "string literals in a row"},
		{"a dotted name of 30,000 parts", "SET CONFIG tikv a" + rep(".a", 30_000) + " = 1", "dotted name"},
		{"a megabyte of columns", "SELECT " + rep("a,", 500_000) + "a FROM t", "words, numbers, strings and symbols"},
	} {
		err := guard.CheckMySQL(c.sql, mariaDB)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Reason, c.want) {
			t.Errorf("%s: got %.200v, want a refusal naming %q", c.name, err, c.want)
		}
	}
	for name, sql := range map[string]string{
		"an IN list of 50,000":          "SELECT 1 FROM t WHERE a IN (" + rep("1,", 50_000) + "1)",
		"three-part names":              "SELECT s.t.c, t.c, 1.5, t.`c` FROM s.t",
		"a few adjacent literals":       "SELECT 'a' 'b' \"c\" 'd'",
		"a function of JSON path parts": "SELECT JSON_EXTRACT(j, '$.a.b.c.d.e.f.g.h.i') FROM t",
	} {
		if err := guard.CheckMySQL(sql, mariaDB); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
