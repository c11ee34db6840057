package guard_test

import (
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
)

// TestSQLiteForPostgres: the text PostgreSQL's parser reads for a SQLite
// statement has SQLite's comments blanked in place, and a text the two
// grammars split apart (a comment, a string or a quoted name that one
// sees and the other does not) is not handed on.
func TestSQLiteForPostgres(t *testing.T) {
	for _, c := range []struct {
		sql, want string
		ok        bool
	}{
		{"SELECT email FROM users", "SELECT email FROM users", true},
		{"SELECT /* a */ email -- b\nFROM users", "SELECT         email     \nFROM users", true},
		{`SELECT "e""x", 'it''s' FROM "users"`, `SELECT "e""x", 'it''s' FROM "users"`, true},
		{"SELECT '/* not a comment */', email FROM users", "SELECT '/* not a comment */', email FROM users", true},
		// PostgreSQL nests block comments, SQLite does not: blanked as
		// SQLite reads them, the text reads alike to both.
		{"SELECT /* /* */ region, email -- */ email, region\nFROM customers", "SELECT          region, email                    \nFROM customers", true},
		{"SELECT [/*], email, [*/] FROM users", "", false},
		// Strings and names only one of them reads as such.
		{"SELECT $a$, email, $a$ FROM users", "", false},
		{`SELECT E'\'', email FROM users`, "", false},
		{"SELECT [email] FROM users", "", false},
		{"SELECT `email` FROM users", "", false},
		{"SELECT X'00', email FROM users", "", false},
	} {
		got, ok := guard.SQLiteForPostgres(c.sql)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("SQLiteForPostgres(%q) = %q, %v; want %q, %v", c.sql, got, ok, c.want, c.ok)
		}
	}
}
