package dbtest

import "strings"

// Case is one statement of a corpus, named for its subtest. In SQL, the
// text {{dir}} stands for a fresh directory where a write would land.
type Case struct {
	Name string
	SQL  string
	// Harmless marks a hostile case that writes nothing to the database:
	// it attacks the parser, the process or the connection's settings. The
	// guard refuses it; the read-only engine alone may let it run.
	Harmless bool
}

// JoinQuery is a typical model query over the fixture, valid on both
// engines: three joins, a filter, GROUP BY and ORDER BY. Benchmarks of the
// guards measure it.
const JoinQuery = `SELECT c.name, p.category, count(DISTINCT o.id) AS orders, sum(i.quantity * p.price) AS spent
		FROM customers c
		JOIN "order" o ON o.customer_id = c.id
		JOIN "Order Items" i ON i.order_id = o.id
		JOIN products p ON p.id = i.product_id
		WHERE o.status <> 'cancelled'
		GROUP BY c.name, p.category
		ORDER BY spent DESC`

// HostileSQLite are statements that try to change the SQLite fixture, or
// the filesystem beside it, or to crash or hang the parser. Every one must
// fail, and leave the database file's bytes unchanged, whichever wall
// stops it.
var HostileSQLite = []Case{
	{"delete", "DELETE FROM customers", false},
	{"update", "UPDATE customers SET name = 'x'", false},
	{"insert", "INSERT INTO customers(name) VALUES ('x')", false},
	{"insert returning", "INSERT INTO customers(name) VALUES ('x') RETURNING id", false},
	{"delete returning", `DELETE FROM "order" WHERE 1 RETURNING *`, false},
	{"replace", "REPLACE INTO customers(id, name) VALUES (1, 'x')", false},
	{"upsert", "INSERT INTO customers(id, name) VALUES (1, 'x') ON CONFLICT(id) DO UPDATE SET name = 'y'", false},
	{"stacked delete", "SELECT 1; DELETE FROM customers", false},
	{"stacked without space", "SELECT 1;DELETE FROM customers;", false},
	{"stacked after comment", "SELECT 1 -- c\n; DROP TABLE customers", false},
	{"stacked after block comment", "/* DELETE */ SELECT 1; /* x */ DROP TABLE customers", false},
	{"stacked after string with semicolon", "SELECT '; DROP TABLE customers'; DROP TABLE customers", false},
	{"stacked union", "SELECT 1 UNION SELECT 2; DROP TABLE customers", false},
	{"stacked mixed case", "sElEcT 1; dElEtE FrOm customers", false},
	{"leading empty statements", ";;DELETE FROM customers", false},
	{"delete hiding select in comment", "DELETE FROM customers -- ; SELECT 1", false},
	{"cte around delete", "WITH d AS (SELECT 1) DELETE FROM customers", false},
	{"cte around insert", "WITH d AS (SELECT 1) INSERT INTO customers(name) SELECT 'x' FROM d", false},
	{"cte around update", "WITH d AS (SELECT 1) UPDATE customers SET name = 'x'", false},
	{"explain delete", "EXPLAIN DELETE FROM customers", true},
	{"drop table", "DROP TABLE customers", false},
	{"drop view", "DROP VIEW customer_totals", false},
	{"drop index", "DROP INDEX order_customer", false},
	{"alter add column", "ALTER TABLE customers ADD COLUMN x", false},
	{"alter rename", "ALTER TABLE customers RENAME TO c2", false},
	{"create table", "CREATE TABLE x(a)", false},
	{"create table as select", "CREATE TABLE IF NOT EXISTS x AS SELECT 1", false},
	{"create temp table", "CREATE TEMP TABLE x(a)", false},
	{"create temp view", "CREATE TEMP VIEW v AS SELECT 1", false},
	{"create index", "CREATE INDEX i ON customers(name)", false},
	{"create trigger", "CREATE TRIGGER tr AFTER INSERT ON customers BEGIN DELETE FROM customers; END", false},
	{"create virtual table", "CREATE VIRTUAL TABLE v USING fts5(x)", false},
	{"pragma query_only off", "PRAGMA query_only = 0", true},
	{"pragma query_only off then delete", "PRAGMA query_only=0; DELETE FROM customers", false},
	{"pragma journal_mode", "PRAGMA journal_mode = DELETE", true},
	{"pragma writable_schema", "PRAGMA writable_schema = ON", true},
	{"pragma user_version", "PRAGMA user_version = 7", false},
	{"pragma table_info", "PRAGMA table_info(customers)", true},
	{"update schema table", "UPDATE sqlite_schema SET sql = 'x' WHERE name = 'customers'", false},
	{"attach new file", "ATTACH DATABASE '{{dir}}/attached.db' AS x", false},
	{"attach memory", "ATTACH ':memory:' AS m", false},
	{"select then attach", "SELECT * FROM customers; ATTACH '{{dir}}/attached.db' AS y", false},
	{"detach", "DETACH main", false},
	{"vacuum", "VACUUM", false},
	{"vacuum into", "VACUUM INTO '{{dir}}/copy.db'", false},
	{"reindex", "REINDEX", false},
	{"analyze", "ANALYZE", false},
	{"begin immediate", "BEGIN IMMEDIATE", false},
	{"transaction around delete", "BEGIN; DELETE FROM customers; COMMIT", false},
	{"commit", "COMMIT", false},
	{"savepoint", "SAVEPOINT a", true},
	{"release", "RELEASE a", false},
	{"load_extension", "SELECT load_extension('{{dir}}/evil.so')", true},
	{"fts3_tokenizer", "SELECT fts3_tokenizer('simple')", true},
	{"writefile", "SELECT writefile('{{dir}}/out.txt', 'x')", true},
	{"nul byte hides a delete", "SELECT 1\x00; DELETE FROM customers", true},
	{"invalid utf-8", "SELECT '\xff\xfe'; DELETE FROM customers", false},
	{"very long input", "SELECT " + strings.Repeat("1+", 600_000) + "1", true},
	{"deep parentheses", "SELECT " + strings.Repeat("(", 100_000) + "1" + strings.Repeat(")", 100_000), true},
	{"deep subqueries", strings.Repeat("SELECT * FROM (", 5_000) + "SELECT 1" + strings.Repeat(")", 5_000), true},
	{"long expression", "SELECT " + strings.Repeat("1+", 200_000) + "1", true},
	{"zeroblob bomb", "SELECT zeroblob(1000000000)", true},
	{"empty", "", true},
	{"only a comment", "-- DELETE FROM customers", true},
}

// AllowedSQLite are read-only statements the guard must let through and
// the fixture must answer, including ones whose words look dangerous.
var AllowedSQLite = []Case{
	{"plain select", "SELECT name FROM customers ORDER BY id", false},
	{"keywords in a string", "SELECT 'DELETE FROM customers; DROP TABLE x' AS s", false},
	{"delete_flag column", "SELECT delete_flag FROM customers", false},
	{"table named drop_log", "SELECT * FROM drop_log", false},
	{"backtick identifiers", "SELECT `name` FROM `customers`", false},
	{"bracket identifiers", "SELECT [name] FROM [customers]", false},
	{"reserved word quoted", `SELECT "group" FROM drop_log`, false},
	{"table named order", `SELECT count(*) FROM "order"`, false},
	{"spaces in a table name", `SELECT * FROM "Order Items"`, false},
	{"parentheses in a column name", `SELECT "Free Meal Count (K-12)" FROM SchoolStats`, false},
	{"cte", "WITH c AS (SELECT * FROM customers) SELECT count(*) FROM c", false},
	{"recursive cte", "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 10) SELECT sum(x) FROM n", false},
	{"window function", "SELECT name, row_number() OVER (ORDER BY id) FROM customers", false},
	{"union", "SELECT name FROM customers UNION SELECT name FROM products", false},
	{"trailing semicolon", "SELECT 1;", false},
	{"trailing comment", "SELECT 1; -- done", false},
	{"leading comment", "/* lead */ SELECT 1", false},
	{"explain query plan", "EXPLAIN QUERY PLAN SELECT * FROM customers", false},
	{"table-valued pragma", "SELECT name, type FROM pragma_table_info('customers')", false},
	{"values", "VALUES (1, 'a'), (2, 'b')", false},
	{"view", "SELECT * FROM customer_totals", false},
	{"json and printf", "SELECT json_object('a', 1), printf('%05d', 3), upper('x')", false},
	{"dates", "SELECT date(placed_at), strftime('%Y', placed_at) FROM \"order\"", false},
	{"join", `SELECT c.name, p.name FROM "order" o JOIN customers c ON c.id = o.customer_id JOIN "Order Items" i ON i.order_id = o.id JOIN products p ON p.id = i.product_id`, false},
	{"sqlite_schema", "SELECT name FROM sqlite_schema WHERE type = 'table'", false},
}
