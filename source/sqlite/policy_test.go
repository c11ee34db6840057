package sqlite_test

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// policySchema is a database with a denied table (secrets), a denied
// column (users.password), a masked one (users.email) and views over them.
const policySchema = `
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT, password TEXT);
CREATE INDEX users_name ON users (name);
CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INT, total REAL);
CREATE TABLE secrets (k TEXT, v TEXT);
CREATE TABLE notes (body TEXT);
CREATE VIRTUAL TABLE docs USING fts4(body);
INSERT INTO docs VALUES ('a searchable text');
CREATE VIRTUAL TABLE private_docs USING fts4(title, body);
INSERT INTO private_docs VALUES ('memo', 'launchJh5 plans');
INSERT INTO users VALUES (1, 'ann', 'ann@example.com', 'pwKq7Wz9'), (2, 'bob', 'bob@example.com', 'pwXr4Lm2');
INSERT INTO orders (user_id, total) VALUES (1, 10.5), (2, 20), (1, 7);
INSERT INTO secrets VALUES ('launchJh5', 'code4242Yt8Vn');
INSERT INTO notes VALUES ('hello');
CREATE VIEW user_names AS SELECT id, name FROM users;
CREATE VIEW user_passwords AS SELECT id, password FROM users;
CREATE VIEW secret_count AS SELECT count(*) AS n FROM secrets;
CREATE VIEW names_via_passwords AS SELECT id FROM user_passwords;
CREATE VIEW names_of_names AS SELECT name FROM user_names;
CREATE VIEW password_lengths AS SELECT name, length(password) AS len FROM users;
CREATE VIEW user_emails AS SELECT id, email FROM users;
CREATE VIEW lengths_via_passwords AS SELECT id, length(password) AS len FROM user_passwords;
CREATE VIEW secret_rows AS SELECT 1 AS one FROM secrets;
CREATE VIEW order_ones AS SELECT 1 AS one FROM orders;
CREATE VIEW broken AS SELECT nosuch FROM users;
CREATE VIEW order_totals AS SELECT u.name, o.total FROM users u JOIN orders o ON o.user_id = u.id;
ANALYZE;
`

// policy is a PolicyCatalog for tests: the relations a query may read, by
// folded name.
type policy map[string]guard.PolicyRelation

func (p policy) Relation(schema, name string) (guard.PolicyRelation, bool) {
	if schema != "" {
		return guard.PolicyRelation{}, false
	}
	r, ok := p[strings.ToLower(name)]
	return r, ok
}

// relation is a PolicyRelation with every column Allowed but those listed.
func relation(name string, cols []string, access map[string]guard.Access) guard.PolicyRelation {
	r := guard.PolicyRelation{Name: name}
	for _, c := range cols {
		r.Columns = append(r.Columns, guard.PolicyColumn{Name: c, Access: access[c]})
	}
	return r
}

// testPolicy denies secrets and users.password, masks users.email, and
// lets queries read the views whose reads are harmless (user_names,
// names_of_names, order_totals) and one the operator allowed explicitly
// (password_lengths); user_passwords, secret_count, names_via_passwords
// and user_emails it does not return.
var testPolicy = policy{
	"users":            relation("users", []string{"id", "name", "email", "password"}, map[string]guard.Access{"email": guard.Masked, "password": guard.Denied}),
	"orders":           relation("orders", []string{"id", "user_id", "total"}, nil),
	"notes":            relation("notes", []string{"body"}, nil),
	"docs":             relation("docs", []string{"body"}, nil),
	"private_docs":     relation("private_docs", []string{"title", "body"}, map[string]guard.Access{"body": guard.Denied}),
	"user_names":       relation("user_names", []string{"id", "name"}, nil),
	"names_of_names":   relation("names_of_names", []string{"name"}, nil),
	"order_totals":     relation("order_totals", []string{"name", "total"}, nil),
	"password_lengths": relation("password_lengths", []string{"name", "len"}, nil),
	// Allowed explicitly too, over a view and a table it denies.
	"lengths_via_passwords": relation("lengths_via_passwords", []string{"id", "len"}, nil),
	"secret_rows":           relation("secret_rows", []string{"one"}, nil),
}

// policyFile builds policySchema into a new file and returns its path.
func policyFile(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec(policySchema); err != nil {
		t.Fatal(err)
	}
	return path
}

// openPolicy opens path through source with testPolicy set.
func openPolicy(t *testing.T, path string) *source.DB {
	t.Helper()
	db := dbtest.Open(t, path, nil)
	pe, ok := db.Backend().(source.PolicyEnforcer)
	if !ok {
		t.Fatal("the SQLite backend is no source.PolicyEnforcer")
	}
	pe.SetPolicy(testPolicy)
	return db
}

// secretValues are values no refused query may show, in its result or its
// error.
var secretValues = []string{"Kq7Wz9", "Xr4Lm2", "4242Yt8Vn", "launchJh5"}

// leaks returns the secret values (or their hex) that s shows, less
// those sql itself spells.
func leaks(s, sql string) []string {
	var found []string
	for _, v := range secretValues {
		for _, form := range []string{v, fmt.Sprintf("%X", v), fmt.Sprintf("%x", v)} {
			if strings.Contains(s, form) && !strings.Contains(sql, form) {
				found = append(found, v)
			}
		}
	}
	return found
}

// TestPolicyRefuses tries every route to a denied table or column, and
// every use of a masked column other than returning it, through
// source.DB.Query: each is refused with a *guard.Error in the words the
// policy's refusals use, and no denied value shows.
func TestPolicyRefuses(t *testing.T) {
	path := policyFile(t)
	before := dbtest.Fingerprint(t, path)
	db := openPolicy(t, path)
	noPassword := "no column named password that you may read in users"
	noSecrets := "no table named secrets that you may read"
	star := "users.* would read columns of users that you may not read"
	masked := "the column email of users is masked"
	cases := []struct{ name, sql, want string }{
		// The denied column, named.
		{"bare", "SELECT password FROM users", noPassword},
		{"qualified", "SELECT u.password FROM users u", noPassword},
		{"other case", "SELECT PassWord FROM Users", "no column named PassWord that you may read in Users"},
		{"quoted", `SELECT "password" FROM "users"`, noPassword},
		{"main qualified", "SELECT main.users.password FROM main.users", noPassword},
		{"where", "SELECT id FROM users WHERE password = 'x'", noPassword},
		{"where like", "SELECT id FROM users WHERE password LIKE 'pw-a%'", noPassword},
		{"order by", "SELECT id FROM users ORDER BY password", noPassword},
		{"order by collate", "SELECT id FROM users ORDER BY password COLLATE NOCASE", noPassword},
		{"group by", "SELECT count(*) FROM users GROUP BY password", noPassword},
		{"having", "SELECT id FROM users GROUP BY id HAVING max(password) > ''", noPassword},
		{"join on", "SELECT o.id FROM orders o JOIN users u ON length(u.password) = o.id", noPassword},
		{"function", "SELECT length(password) FROM users", noPassword},
		{"case", "SELECT CASE WHEN password > 'p' THEN 1 END FROM users", noPassword},
		{"cast", "SELECT CAST(password AS BLOB) FROM users", noPassword},
		{"row value", "SELECT (id, password) = (1, 'x') FROM users", noPassword},
		{"window", "SELECT row_number() OVER (PARTITION BY password) FROM users", noPassword},
		{"aggregate order by", "SELECT group_concat(name ORDER BY password) FROM users", noPassword},
		{"filter", "SELECT count(*) FILTER (WHERE password > 'a') FROM users", noPassword},
		{"scalar subquery", "SELECT (SELECT password FROM users LIMIT 1)", noPassword},
		{"in subquery", "SELECT id FROM users WHERE id IN (SELECT length(password) FROM users)", noPassword},
		{"exists", "SELECT 1 WHERE EXISTS (SELECT 1 FROM users WHERE password = 'x')", noPassword},
		{"correlated", "SELECT (SELECT u.password FROM users u WHERE u.id = o.user_id) FROM orders o", noPassword},
		{"from subquery", "SELECT p FROM (SELECT password AS p FROM users)", noPassword},
		{"cte", "WITH c AS (SELECT password FROM users) SELECT c.password FROM c", noPassword},
		{"cte with star", "WITH c AS (SELECT password FROM users) SELECT * FROM c", star},
		{"recursive cte", "WITH RECURSIVE c(n, p) AS (SELECT 1, (SELECT password FROM users LIMIT 1) UNION ALL SELECT n + 1, p FROM c WHERE n < 2) SELECT n FROM c", noPassword},
		{"cte named as an allowed view", "WITH user_names AS (SELECT id, password AS name FROM users) SELECT name FROM user_names", noPassword},
		{"quoted cte named as an allowed view", `WITH "USER_NAMES" (id, name) AS MATERIALIZED (SELECT id, password FROM users) SELECT name FROM user_names`, noPassword},
		{"cte named as an allowed table", "WITH orders AS (SELECT password AS total FROM users) SELECT total FROM orders", noPassword},
		{"union", "SELECT name FROM users UNION SELECT password FROM users", noPassword},
		{"union all", "SELECT 1 UNION ALL SELECT password FROM users", noPassword},
		{"limit", "SELECT id FROM orders LIMIT (SELECT length(password) FROM users LIMIT 1)", "no column named password that you may read"},
		{"json_each", "SELECT value FROM users, json_each(json_array(users.password))", noPassword},
		{"rowid side", "SELECT name FROM users WHERE rowid IN (SELECT rowid FROM users WHERE password LIKE 'p%')", noPassword},
		// The denied column, through * and joins.
		{"star", "SELECT * FROM users", star},
		{"table star", "SELECT u.* FROM users u", star},
		{"star of a subquery", "SELECT * FROM (SELECT * FROM users)", star},
		{"star aliased as the column", "SELECT * FROM users AS password", star},
		{"star and the column", "SELECT password, * FROM users", star},
		{"in a table", "SELECT 1 WHERE 'x' IN users", star},
		{"star in a cte", "WITH c AS (SELECT * FROM users) SELECT id FROM c", star},
		{"using", "SELECT 1 FROM users a JOIN users b USING (password)", "no column named password that you may read"},
		{"natural join", "SELECT a.id FROM users a NATURAL JOIN users b", "NATURAL JOIN cannot be checked"},
		{"natural join of another table", "SELECT 1 FROM users NATURAL JOIN orders", "NATURAL JOIN cannot be checked"},
		// The denied table.
		{"table", "SELECT * FROM secrets", noSecrets},
		{"table column", "SELECT v FROM secrets", noSecrets},
		{"table count", "SELECT count(*) FROM secrets", noSecrets},
		{"table one", "SELECT 1 FROM secrets", noSecrets},
		{"table other case", "SELECT k FROM SECRETS", "no table named SECRETS that you may read"},
		{"table main qualified", "SELECT k FROM main.secrets", noSecrets},
		{"table exists", "SELECT name FROM users WHERE EXISTS (SELECT 1 FROM secrets)", noSecrets},
		{"table in", "SELECT name FROM users WHERE name IN (SELECT k FROM secrets)", noSecrets},
		{"table limit", "SELECT name FROM users LIMIT (SELECT count(*) FROM secrets)", noSecrets},
		{"table cte", "WITH s AS (SELECT 1 FROM secrets) SELECT count(*) FROM s", noSecrets},
		{"table materialized cte", "WITH s AS MATERIALIZED (SELECT 1 FROM secrets) SELECT count(*) FROM s", noSecrets},
		{"cte named as the table", "WITH secrets AS (SELECT 1 AS k) SELECT count(*) FROM main.secrets", noSecrets},
		{"table join", "SELECT u.name FROM users u JOIN secrets s ON s.k = u.name", noSecrets},
		{"table union", "SELECT name FROM users UNION SELECT k FROM secrets", noSecrets},
		{"table natural join", "SELECT body FROM notes NATURAL JOIN secrets", noSecrets},
		{"table using", "SELECT 1 FROM secrets a JOIN secrets b USING (k)", noSecrets},
		{"table using a missing column", "SELECT o.total FROM orders o JOIN secrets s USING (id)", noSecrets},
		{"table in a comment-split name", "SELECT k FROM main . /* x */ secrets", noSecrets},
		// Views that read them.
		{"view of the column", "SELECT password FROM user_passwords", "no table named user_passwords that you may read"},
		{"view of the column, star", "SELECT * FROM user_passwords", "no table named user_passwords that you may read"},
		{"view of the column, count", "SELECT count(*) FROM user_passwords", "no table named user_passwords that you may read"},
		{"view of the table", "SELECT n FROM secret_count", "no table named secret_count that you may read"},
		{"view of the table, count", "SELECT count(*) FROM secret_count", "no table named secret_count that you may read"},
		{"view over a view", "SELECT * FROM names_via_passwords", "no table named names_via_passwords that you may read"},
		{"view of the masked column", "SELECT email FROM user_emails", "no table named user_emails that you may read"},
		{"view read for its rows only", "SELECT count(*) FROM order_ones", "no table named order_ones that you may read"},
		{"view read for its rows only, joined", "SELECT count(*) FROM orders, order_ones", "no table named order_ones that you may read"},
		{"view read for its rows only, comma", "SELECT count(*) FROM orders o JOIN users u ON u.id = o.user_id, main.order_ones", "no table named order_ones that you may read"},
		{"view read for its rows only, beside a cte of its name", "WITH order_ones AS (SELECT 1) SELECT count(*) FROM main.order_ones", "no table named order_ones that you may read"},
		{"view in a subquery", "SELECT 1 WHERE EXISTS (SELECT 1 FROM user_passwords)", "no table named user_passwords that you may read"},
		{"view in a cte", "WITH c AS (SELECT id FROM user_passwords) SELECT id FROM c", "no table named user_passwords that you may read"},
		{"allowed view beside the denied view it reads", "SELECT l.len FROM lengths_via_passwords l, user_passwords p WHERE p.id = l.id", "no table named user_passwords that you may read"},
		{"allowed view beside a cte named as the denied view", "WITH user_passwords AS (SELECT 1 AS id) SELECT len FROM lengths_via_passwords", "through a view, data that you may not read"},
		// A virtual table with a denied column, whose module reads it.
		{"fts match on an allowed column", "SELECT title FROM private_docs WHERE title MATCH 'body:launchJh5'", "the virtual table private_docs has columns you may not read"},
		{"fts count", "SELECT count(*) FROM private_docs", "the virtual table private_docs has columns you may not read"},
		{"fts denied column", "SELECT body FROM private_docs", "the virtual table private_docs has columns you may not read"},
		// Side doors.
		{"sqlite_schema", "SELECT sql FROM sqlite_schema", "no table named sqlite_schema that you may read"},
		{"sqlite_master", "SELECT name FROM sqlite_master", "no table named sqlite_master that you may read"},
		{"main.sqlite_master", "SELECT count(*) FROM main.sqlite_master", "no table named sqlite_master that you may read"},
		{"sqlite_temp_master", "SELECT name FROM sqlite_temp_master", "no table named sqlite_temp_master that you may read"},
		{"sqlite_stat1", "SELECT * FROM sqlite_stat1", "no table named sqlite_stat1 that you may read"},
		{"sqlite_sequence", "SELECT seq FROM sqlite_sequence", "no table named sqlite_sequence that you may read"},
		{"pragma_table_info", "SELECT name FROM pragma_table_info('secrets')", "no table named pragma_table_info that you may read"},
		{"pragma_table_xinfo", "SELECT name FROM pragma_table_xinfo('users')", "no table named pragma_table_xinfo that you may read"},
		{"pragma_table_list", "SELECT name FROM pragma_table_list", "no table named pragma_table_list that you may read"},
		{"pragma_index_list", "SELECT * FROM pragma_index_list('users')", "no table named pragma_index_list that you may read"},
		{"pragma_index_info", "SELECT * FROM pragma_index_info('users_name')", "no table named pragma_index_info that you may read"},
		{"pragma_foreign_key_list", "SELECT * FROM pragma_foreign_key_list('secrets')", "no table named pragma_foreign_key_list that you may read"},
		{"pragma function in a subquery", "SELECT 1 WHERE EXISTS (SELECT 1 FROM pragma_table_info('secrets'))", "no table named pragma_table_info that you may read"},
		{"explain", "EXPLAIN SELECT id FROM user_names", "EXPLAIN is not allowed"},
		{"explain query plan", "EXPLAIN QUERY PLAN SELECT id FROM user_names", "EXPLAIN is not allowed"},
		// The masked column used for more than returning it.
		{"masked where", "SELECT email FROM users WHERE email = 'ann@example.com'", masked},
		{"masked where only", "SELECT id FROM users WHERE email LIKE 'a%'", masked},
		{"masked function", "SELECT upper(email) FROM users", masked},
		{"masked count", "SELECT count(email) FROM users", masked},
		{"masked order by", "SELECT email FROM users ORDER BY email", masked},
		{"masked order by alias", "SELECT email AS e FROM users ORDER BY e", masked},
		{"masked order by position", "SELECT email FROM users ORDER BY 1", masked},
		{"masked group by position", "SELECT email FROM users GROUP BY 1", masked},
		{"masked distinct", "SELECT DISTINCT email FROM users", masked},
		{"masked union", "SELECT email FROM users UNION ALL SELECT name FROM users", masked},
		{"masked join", "SELECT u.id FROM users u JOIN users v ON u.email = v.email", masked},
		{"masked using", "SELECT 1 FROM users a JOIN users b USING (email)", masked},
		{"masked collate", "SELECT email COLLATE NOCASE FROM users", masked},
		{"masked cast", "SELECT CAST(email AS BLOB) FROM users", masked},
		{"masked in a subquery's where", "SELECT e FROM (SELECT email AS e FROM users WHERE email > 'b')", masked},
		{"masked json_each", "SELECT value FROM users, json_each(json_array(users.email))", masked},
		{"masked sqlite syntax", "SELECT email FROM users WHERE email GLOB '*a*'", masked},
		{"masked bracket quoting", "SELECT [email] FROM [users] WHERE [email] > ''", "read differently in the grammar the check of masked columns uses"},
		{"masked filtered behind a comment PostgreSQL would nest", "SELECT /* /* */ id, name FROM users WHERE email LIKE 'a%' -- */ email, id FROM users", masked},
		// SQLite names an expression by its text, not as PostgreSQL would
		// (after the type of a cast), so s.email is the masked column, not
		// the cast.
		{"masked behind a cast named like it", "SELECT s.*, s.email || '' AS leaked FROM (SELECT id, CAST(1 AS email), email FROM users) s", masked},
		{"masked behind a cast, in where", "SELECT s.id FROM (SELECT id, CAST(1 AS email), email FROM users) s WHERE s.email > 'b'", masked},
		// What does not exist is worded as what is denied.
		{"missing table", "SELECT * FROM nosuch", "no table named nosuch that you may read"},
		{"missing column", "SELECT nosuch FROM users", "no column named nosuch that you may read in users"},
		{"missing qualified column", "SELECT u.nosuch FROM users u", "no column named nosuch that you may read in users"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := db.Query(t.Context(), c.sql, 0)
			if err == nil {
				t.Fatalf("%s: ran, want refused (%q); rows %v", c.sql, c.want, res.Rows)
			}
			var ge *guard.Error
			if !errors.As(err, &ge) {
				t.Fatalf("%s: %T %v, want a *guard.Error", c.sql, err, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s:\n got %q\nwant %q", c.sql, err, c.want)
			}
			if l := leaks(err.Error(), c.sql); l != nil {
				t.Errorf("%s: the error %q shows %q", c.sql, err, l)
			}
		})
	}
	if after := dbtest.Fingerprint(t, path); after != before {
		t.Error("the database file changed")
	}
}

// TestPolicyDenialLooksMissing: a denied table or column and one that does
// not exist are refused in the same words.
func TestPolicyDenialLooksMissing(t *testing.T) {
	db := openPolicy(t, policyFile(t))
	for _, pair := range [][2]string{
		{"SELECT * FROM secrets", "SELECT * FROM secretz"},
		{"SELECT k FROM secrets WHERE v = 1", "SELECT k FROM secretz WHERE v = 1"},
		{"SELECT password FROM users", "SELECT passwort FROM users"},
		{"SELECT u.password FROM users u", "SELECT u.passwort FROM users u"},
		{"SELECT password FROM users, orders", "SELECT passwort FROM users, orders"},
		// The table is looked up before anything else can fail.
		{"SELECT nosuch FROM secrets", "SELECT nosuch FROM secretz"},
		{"SELECT k, nosuch FROM secrets", "SELECT k, nosuch FROM secretz"},
		{"SELECT u.name FROM users u, main.secrets s WHERE s.nosuch = 1", "SELECT u.name FROM users u, main.secretz s WHERE s.nosuch = 1"},
		{"SELECT edit(k) FROM secrets", "SELECT edit(k) FROM secretz"},
		{"SELECT nosuchfn(1) FROM users JOIN secrets ON 1", "SELECT nosuchfn(1) FROM users JOIN secretz ON 1"},
		{"SELECT k FROM secrets; SELECT 1", "SELECT k FROM secretz; SELECT 1"},
		{"SELECT k FROM secrets s, secrets s", "SELECT k FROM secretz s, secretz s"},
		{"DELETE FROM secrets", "DELETE FROM secretz"},
		{"INSERT INTO secrets VALUES (1, 2)", "INSERT INTO secretz VALUES (1, 2)"},
		{"UPDATE secrets SET k = 1", "UPDATE secretz SET k = 1"},
		{"DROP TABLE secrets", "DROP TABLE secretz"},
		{"SELECT password, nosuch FROM users", "SELECT passwort, nosuch FROM users"},
		{"SELECT nosuch FROM users WHERE password = 1", "SELECT nosuch FROM users WHERE passwort = 1"},
		// With * in the statement, the words do not depend on which column
		// is named.
		{"SELECT password, * FROM users", "SELECT passwort, * FROM users"},
		{"SELECT * FROM users AS password", "SELECT * FROM users AS passwort"},
		{"SELECT u.password, o.* FROM users u, orders o", "SELECT u.passwort, o.* FROM users u, orders o"},
	} {
		var msgs [2]string
		for i, q := range pair {
			_, err := db.Query(t.Context(), q, 0)
			if err == nil {
				t.Fatalf("%s ran", q)
			}
			msgs[i] = strings.NewReplacer("secrets", "X", "secretz", "X", "password", "X", "passwort", "X").Replace(err.Error())
		}
		if msgs[0] != msgs[1] {
			t.Errorf("%s and %s are refused differently:\n%s\n%s", pair[0], pair[1], msgs[0], msgs[1])
		}
	}
}

// TestPolicyAllows: what the policy lets a query read still runs, with
// the masked column's result positions marked.
func TestPolicyAllows(t *testing.T) {
	path := policyFile(t)
	before := dbtest.Fingerprint(t, path)
	db := openPolicy(t, path)
	emailMask := func(pos int) *guard.MaskedColumn {
		return &guard.MaskedColumn{Position: pos, Table: "users", Column: "email"}
	}
	cases := []struct {
		name, sql string
		rows      int
		masks     []*guard.MaskedColumn // per result column
	}{
		{"allowed columns", "SELECT id, name FROM users ORDER BY id", 2, nil},
		{"where, group, order", "SELECT name, count(*) FROM users WHERE id > 0 GROUP BY name HAVING count(*) > 0 ORDER BY name", 2, nil},
		{"count star", "SELECT count(*) FROM users", 1, nil},
		// An index on allowed columns may order the rows.
		{"index on an allowed column", "SELECT name FROM users INDEXED BY users_name WHERE name > ''", 2, nil},
		{"rowid", "SELECT rowid, name FROM users", 2, nil},
		{"join", "SELECT u.name, o.total FROM users u JOIN orders o ON o.user_id = u.id", 3, nil},
		{"join using allowed", "SELECT o.total FROM users u JOIN orders o ON o.user_id = u.id JOIN user_names n USING (id)", 3, nil},
		{"subquery", "SELECT name FROM users WHERE id IN (SELECT user_id FROM orders)", 2, nil},
		{"cte", "WITH c AS (SELECT user_id, sum(total) AS s FROM orders GROUP BY user_id) SELECT s FROM c", 2, nil},
		{"row value", "SELECT (id, name) = (1, 'ann') FROM users", 2, nil},
		{"window", "SELECT row_number() OVER (PARTITION BY name ORDER BY id) FROM users", 2, nil},
		{"allowed view", "SELECT * FROM user_names", 2, nil},
		{"allowed view count", "SELECT count(*) FROM order_totals", 1, nil},
		{"allowed view over a view", "SELECT name FROM names_of_names", 2, nil},
		{"explicitly allowed view", "SELECT name, len FROM password_lengths", 2, nil},
		{"explicitly allowed view star", "SELECT * FROM password_lengths WHERE len > 3", 2, nil},
		{"explicitly allowed view over a denied view", "SELECT len FROM lengths_via_passwords ORDER BY id", 2, nil},
		{"explicitly allowed view over a denied view, count", "SELECT count(*) FROM lengths_via_passwords", 1, nil},
		{"explicitly allowed view over a denied table, count", "SELECT count(*) FROM secret_rows", 1, nil},
		{"explicitly allowed view over a denied table", "SELECT one FROM secret_rows", 1, nil},
		{"json_each", "SELECT value FROM json_each('[1, 2]')", 2, nil},
		{"a virtual table, which reads its shadow tables", "SELECT body FROM docs", 1, nil},
		{"full-text search", "SELECT docid, snippet(docs) FROM docs WHERE docs MATCH 'searchable'", 1, nil},
		{"values", "VALUES (1), (2)", 2, nil},
		{"table named like the view in a cte", "WITH c AS (SELECT name FROM user_names) SELECT name FROM c", 2, nil},
		{"masked bare", "SELECT id, email FROM users", 2, []*guard.MaskedColumn{nil, emailMask(1)}},
		{"masked star", "SELECT * FROM notes, (SELECT id, name, email FROM users)", 2, []*guard.MaskedColumn{nil, nil, nil, emailMask(3)}},
		{"masked twice", "SELECT email, name, email FROM users WHERE id > 0 ORDER BY name", 2, []*guard.MaskedColumn{emailMask(0), nil, emailMask(2)}},
		{"masked through a cte", "WITH c AS (SELECT id, email FROM users) SELECT email FROM c", 2, []*guard.MaskedColumn{emailMask(0)}},
		// PostgreSQL's grammar nests /* */, SQLite's does not: the check
		// reads the text as SQLite does, and masks what SQLite returns.
		{"masked after a comment PostgreSQL would nest", "SELECT /* /* */ name, email -- */ email, name\nFROM users", 2, []*guard.MaskedColumn{nil, emailMask(1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := db.Query(t.Context(), c.sql, 0)
			if err != nil {
				t.Fatalf("%s: %v", c.sql, err)
			}
			if len(res.Rows) != c.rows {
				t.Errorf("%s: %d rows, want %d", c.sql, len(res.Rows), c.rows)
			}
			var masks []*guard.MaskedColumn
			for _, col := range res.Columns {
				masks = append(masks, col.Mask)
			}
			if c.masks == nil {
				c.masks = make([]*guard.MaskedColumn, len(res.Columns))
			}
			if diff := cmp.Diff(c.masks, masks); diff != "" {
				t.Errorf("%s: masks (-want +got):\n%s", c.sql, diff)
			}
			for _, row := range res.Rows {
				for i, cell := range row {
					if l := leaks(fmt.Sprint(cell), c.sql); l != nil {
						t.Errorf("%s: column %d shows %q", c.sql, i, l)
					}
				}
			}
		})
	}
	// sqlmcp's own statements are not judged by the policy.
	if _, err := db.Catalog(t.Context(), "SELECT name FROM pragma_table_list"); err != nil {
		t.Errorf("an own statement under a policy: %v", err)
	}
	// Without a policy, the denied column reads again.
	db.Backend().(source.PolicyEnforcer).SetPolicy(nil)
	if _, err := db.Query(t.Context(), "SELECT password FROM users", 0); err != nil {
		t.Errorf("with the policy removed: %v", err)
	}
	if after := dbtest.Fingerprint(t, path); after != before {
		t.Error("the database file changed")
	}
}

// TestPolicyViewReads: ReadTables reports what each view reads, as SQLite
// resolves it, through the views it reads.
func TestPolicyViewReads(t *testing.T) {
	db := openPolicy(t, policyFile(t))
	defs, err := db.ReadTables(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]source.ColumnRead{}
	for _, d := range defs {
		got[d.Name] = d.Reads
	}
	cr := func(table, column string) source.ColumnRead { return source.ColumnRead{Table: table, Column: column} }
	want := map[string][]source.ColumnRead{
		"users":                 nil,
		"orders":                nil,
		"secrets":               nil,
		"notes":                 nil,
		"docs":                  nil,
		"private_docs":          nil,
		"user_names":            {cr("users", "id"), cr("users", "name")},
		"user_passwords":        {cr("users", "id"), cr("users", "password")},
		"secret_count":          {cr("secrets", "")},
		"names_via_passwords":   {cr("users", "id"), cr("users", "password"), cr("user_passwords", "id"), cr("users", "")},
		"names_of_names":        {cr("users", "id"), cr("users", "name"), cr("user_names", "name")},
		"password_lengths":      {cr("users", "name"), cr("users", "password")},
		"user_emails":           {cr("users", "id"), cr("users", "email")},
		"order_totals":          {cr("users", "name"), cr("orders", "total"), cr("orders", "user_id"), cr("users", "id")},
		"lengths_via_passwords": {cr("users", "id"), cr("users", "password"), cr("user_passwords", "id"), cr("user_passwords", "password")},
		"secret_rows":           {cr("secrets", "")},
		"broken":                nil, // the engine cannot tell
		"order_ones":            {cr("orders", "")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reads (-want +got):\n%s", diff)
	}
}

// FuzzPolicy runs statements under testPolicy: whatever runs shows no
// denied value, and every column showing a masked value carries its Mask.
func FuzzPolicy(f *testing.F) {
	for _, seed := range []string{
		"SELECT id, name FROM users", "SELECT email FROM users", "SELECT * FROM user_names",
		"WITH c AS (SELECT id, email FROM users) SELECT email FROM c", "SELECT count(*) FROM order_totals",
		"SELECT password FROM users", "SELECT * FROM secrets", "SELECT name FROM password_lengths",
		"WITH user_names AS (SELECT password AS name FROM users) SELECT name FROM user_names",
		"SELECT u.name FROM users u JOIN orders o USING (id)", "SELECT * FROM users NATURAL JOIN orders",
		"SELECT value FROM json_each('[1]')", "SELECT name FROM pragma_table_info('users')",
		"SELECT 1 WHERE 'x' IN notes", "SELECT e FROM (SELECT email AS e FROM users) ORDER BY 1",
	} {
		f.Add(seed)
	}
	path := policyFile(f)
	db, err := source.Open(f.Context(), path, dbtest.Options(nil))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	db.Backend().(source.PolicyEnforcer).SetPolicy(testPolicy)
	f.Fuzz(func(t *testing.T, q string) {
		res, err := db.Query(t.Context(), q, 0)
		if err != nil {
			if l := leaks(err.Error(), q); l != nil {
				t.Errorf("%q: the error %q shows %q", q, err, l)
			}
			return
		}
		for _, row := range res.Rows {
			for i, cell := range row {
				text := fmt.Sprint(cell)
				if l := leaks(text, q); l != nil {
					t.Errorf("%q: column %d shows %q", q, i, l)
				}
				if strings.Contains(text, "@example.com") && !strings.Contains(q, "@example.com") && res.Columns[i].Mask == nil {
					t.Errorf("%q: column %d shows an email without its mask", q, i)
				}
			}
		}
	})
}

// TestPolicyKeyOrder: a table whose INTEGER PRIMARY KEY (its rowid) is
// masked or denied keeps its rows in that column's order, so every scan
// shows it: reading its rows is refused, through the table or an index
// (whose last key is the rowid), and counting them is not.
func TestPolicyKeyOrder(t *testing.T) {
	for _, acc := range []guard.Access{guard.Masked, guard.Denied} {
		p := policy{
			"users":  relation("users", []string{"id", "name", "email", "password"}, map[string]guard.Access{"id": acc}),
			"orders": relation("orders", []string{"id", "user_id", "total"}, nil),
		}
		db := dbtest.Open(t, policyFile(t), nil)
		db.Backend().(source.PolicyEnforcer).SetPolicy(p)
		for _, q := range []string{
			"SELECT name FROM users",
			"SELECT name FROM users LIMIT 1",
			"SELECT group_concat(name) FROM users",
			"SELECT name FROM users INDEXED BY users_name",
		} {
			var ge *guard.Error
			if _, err := db.Query(t.Context(), q, 10); !errors.As(err, &ge) {
				t.Errorf("id %v: %s: %v, want a refusal", acc, q, err)
			}
		}
		for _, q := range []string{"SELECT count(*) FROM users", "SELECT total FROM orders"} {
			if _, err := db.Query(t.Context(), q, 10); err != nil {
				t.Errorf("id %v: %s: %v", acc, q, err)
			}
		}
	}
}

// TestPolicyLongestText: a statement of the longest text allowed is judged
// like any other under a policy (the check of its index order compiles it
// again, longer).
func TestPolicyLongestText(t *testing.T) {
	db := openPolicy(t, policyFile(t))
	sql := "SELECT id, name FROM users ORDER BY id -- "
	sql += strings.Repeat("x", guard.MaxSQLBytes-len(sql))
	if _, err := db.Query(t.Context(), sql, 0); err != nil {
		t.Fatalf("%d bytes: %v", len(sql), err)
	}
}
