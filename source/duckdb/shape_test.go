package duckdb_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
)

// TestGuardBoundsParseAndBind: shapes whose parse or bind DuckDB cannot
// be stopped in (a few kilobytes held a core for a minute or more) are
// refused by the guard, naming the bound; statements of the same kinds at
// real sizes still run.
func TestGuardBoundsParseAndBind(t *testing.T) {
	dir, _ := fixture(t)
	b := open(t, dir, duckdb.Engine{})
	rep := strings.Repeat
	for _, c := range []struct{ name, sql, want string }{
		{"4,000 plus signs", "SELECT " + rep("+", 4000) + "1", "operator characters"},
		{"nested comment starts", "SELECT 1" + rep("/**/", 16_000), "operator characters"},
		{"a chain of 100,000 ANDs", "SELECT true" + rep(" AND true", 100_000), "AND or OR"},
		{"a megabyte of list items", "SELECT [" + rep("1,", 500_000) + "1]", "words, numbers and symbols"},
		{"30 nested subqueries", "SELECT " + rep("(SELECT ", 30) + "1" + rep(")", 30), "nests queries"},
		{"24 nested lambdas", "SELECT " + rep("list_transform([1], x -> ", 24) + "x" + rep(")", 24), "nests lambdas"},
		{"800 nested lists", "SELECT " + rep("[", 800) + "1" + rep("]", 800), "nests function calls"},
		{"600 nested additions", "SELECT " + rep("(1 + ", 600) + "1" + rep(")", 600), "nests operators"},
		{"a chain of 600 additions", "SELECT " + rep("1 + ", 600) + "1", "nests operators"},
		{"a chain of 200 concatenations", "SELECT " + rep("'a' || ", 200) + "'a'", "nests operators"},
		{"operators inside calls", "SELECT " + rep("abs(1 + ", 40) + "1" + rep(")", 40), "nests operators"},
		{"8,000 select items", "SELECT " + rep("1, ", 8000) + "1", "select list"},
		{"200 stars", "SELECT " + rep("*, ", 200) + "1 FROM people", "select list"},
	} {
		_, _, err := run(t.Context(), b, source.Statement{SQL: c.sql})
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Reason, c.want) {
			t.Errorf("%s: got %.200v, want a refusal naming %q", c.name, err, c.want)
		}
	}
	for name, sql := range map[string]string{
		"8 nested subqueries": "SELECT " + rep("(SELECT ", 8) + "1" + rep(")", 8),
		"nested lambdas":      "SELECT list_transform([[1, 2]], x -> list_transform(x, y -> y + 1))",
		"1,000 select items":  "SELECT " + rep("1, ", 999) + "1",
		"an AND chain of 500": "SELECT count(*) FROM people WHERE true" + rep(" AND id > 0", 500),
		"a banner comment":    "-- " + rep("-", 300) + "\nSELECT 1 /* " + rep("*", 300) + " */",
		"a sum of 60 terms":   "SELECT " + rep("id + ", 59) + "id FROM nested",
		"a sum of a list":     "SELECT list_sum([" + rep("id, ", 599) + "id]) FROM nested",
		"a long concat":       "SELECT concat(" + rep("label, ", 599) + "label) FROM nested",
	} {
		if _, _, err := run(t.Context(), b, source.Statement{SQL: sql}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
