package dbtest

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
)

// PostgresRole creates a login role with a fresh name on the server of
// dsn, runs setup there with {{role}} standing for the role's quoted
// name, and returns the role and dsn for it. The role and what it owns
// are dropped when the test ends.
func PostgresRole(t testing.TB, dsn, setup string) (role, roleDSN string) {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	role = "sqlmcp_ro_" + hex.EncodeToString(b) // the prefix other tests leave out of their counts
	PostgresExec(t, dsn, `CREATE ROLE "`+role+`" LOGIN; `+strings.ReplaceAll(setup, "{{role}}", `"`+role+`"`))
	t.Cleanup(func() { PostgresExec(t, dsn, `DROP OWNED BY "`+role+`"; DROP ROLE "`+role+`"`) })
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return role, u.String()
}
