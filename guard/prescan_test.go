package guard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
)

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
