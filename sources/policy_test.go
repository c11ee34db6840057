package sources_test

import (
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/policy"
	"github.com/sqlmcp/sqlmcp/sources"
)

// TestPolicyFailsClosed: a policy naming what the database lacks stops the
// source at start, as does one on an engine whose guard cannot enforce it
// (MySQL); neither is taken for a database that is down.
func TestPolicyFailsClosed(t *testing.T) {
	cases := map[string]struct {
		dsn  string
		spec *policy.Spec
		want string
	}{
		"unknown table":  {dbtest.SQLiteFile(t), &policy.Spec{DenyTables: []string{"nosuch"}}, `no table or view named "nosuch"`},
		"unknown column": {dbtest.SQLiteFile(t), &policy.Spec{DenyColumns: []string{"customers.nosuch"}}, `has no column named "nosuch"`},
		"mysql":          {dbtest.MySQLDSN(t, "CREATE TABLE customers (id int PRIMARY KEY)"), &policy.Spec{DenyTables: []string{"customers"}}, "cannot be enforced on mysql"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := config.FromURLs([]string{"db=" + c.dsn}, config.Settings{Policy: c.spec})
			if err != nil {
				t.Fatal(err)
			}
			db, _, r := sources.Open(t.Context(), f.Sources[0], nil)
			if db != nil {
				db.Close()
			}
			if r.Unavailable != "" || r.Err() == nil || !strings.Contains(r.Err().Error(), c.want) {
				t.Errorf("report: unavailable %q, err %v; want a fatal problem with %q", r.Unavailable, r.Err(), c.want)
			}
		})
	}
}
