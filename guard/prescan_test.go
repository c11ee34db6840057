package guard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
)

// TestPrescanFree shows that the prescan the parse skips for short texts
// could not have refused them: the shapes that pack the most depth, or the
// most brackets, into each byte pass it at PrescanFree bytes, and are
// refused when long enough, so the bound is met and not vacuous.
func TestPrescanFree(t *testing.T) {
	shapes := []struct {
		name        string
		head, cycle string
	}{
		{"open brackets", "SELECT ", "("},
		{"open brackets of arrays", "SELECT ", "["},
		{"minus signs", "SELECT ", "-+"},
		{"bracketed signs", "SELECT ", "(-"},
		{"ORs in brackets", "SELECT a ", "OR("},
		{"NOTs", "SELECT ", "NOT "},
		{"unions of brackets", "SELECT 1 ", "UNION("},
		{"operators", "SELECT 1", "*1"},
	}
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			text := func(n int) string {
				b := strings.Builder{}
				b.WriteString(s.head)
				for b.Len() < n {
					b.WriteString(s.cycle)
				}
				return b.String()[:n]
			}
			short := text(guard.PrescanFree)
			if err := guard.PrescanPostgres(short, 0); err != nil && !isSyntaxError(err) {
				t.Fatalf("the prescan refused %d bytes (%.40q...), which the parse reads without it: %v", len(short), short, err)
			}
			if err := guard.PrescanPostgres(text(40*guard.PrescanFree), 0); err == nil || isSyntaxError(err) {
				t.Fatalf("the prescan let %d bytes of %q through: %v", 40*guard.PrescanFree, s.cycle, err)
			}
		})
	}
}

func isSyntaxError(err error) bool {
	var se *guard.SyntaxError
	return errors.As(err, &se)
}

// TestCheckPostgresOperatorRuns: runs of operator characters, which
// PostgreSQL's scanner reads in time that grows with the square of their
// length, are refused before it sees them; the runs real queries hold pass.
func TestCheckPostgresOperatorRuns(t *testing.T) {
	for _, cycle := range []string{"+", "-+", "/*", "*/", "/**/", "/*+", "<-"} {
		sql := "SELECT 1 " + strings.Repeat(cycle, 64<<10/len(cycle))
		err := guard.CheckPostgres(sql, testCatalog)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Reason, "runs of operator characters") {
			t.Errorf("64 KiB of %q: got %v, want the refusal of operator runs", cycle, err)
		}
	}
	banner := strings.Repeat("-", 400)
	for _, sql := range []string{
		"SELECT '" + strings.Repeat("=", 1500) + "' AS line -- " + banner,
		"-- " + banner + "\nSELECT 1 /* " + strings.Repeat("*", 1000) + " */ +-+ 1 " + strings.Repeat("\n-- "+banner[:80], 20),
	} {
		if err := guard.CheckPostgres(sql, testCatalog); err != nil {
			t.Errorf("CheckPostgres(%.60q...): %v", sql, err)
		}
	}
}
