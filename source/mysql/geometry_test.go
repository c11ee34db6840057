//go:build !nomysql

package mysql_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// geometryAliases are MariaDB's short names of geometry functions.
var geometryAliases = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`area asbinary astext aswkb aswkt boundary buffer centroid contains
		convexhull crosses dimension disjoint endpoint envelope equals exteriorring geomcollfromtext
		geometryn geometrytype geomfromtext geomfromwkb glength interiorringn intersects isclosed isempty
		isring issimple numgeometries numinteriorrings numpoints overlaps pointn srid startpoint touches
		within x y point linestring polygon multipoint multilinestring multipolygon geometrycollection`) {
		m[n] = true
	}
	return m
}()

// mariaDBOnly is a MariaDB database that defines no functions.
type mariaDBOnly struct{}

func (mariaDBOnly) MariaDB() bool            { return true }
func (mariaDBOnly) UserFunction(string) bool { return false }

// TestMariaDBGeometryStopsOnTime calls every geometry function the guard
// allows on MariaDB with shapes of 6,000 points that cross everywhere
// (the work of MariaDB's Gcalc grows with the square of the points), read
// from a table as a query reads them, under max_statement_time = 1, and
// fails for one that outlives the limit or answers at the limit without
// its error: the server stopped it and it answered a value computed from
// part of its input. Refused functions are not called; a function the
// guard allows again fails here.
func TestMariaDBGeometryStopsOnTime(t *testing.T) {
	// Two combs of lines spanning the same height, each tooth of one
	// crossing two of the other, and a comb-shaped polygon around them.
	const n = 6000
	comb := func(dx string) string {
		return fmt.Sprintf(`(SELECT ST_GeomFromText(CONCAT('LINESTRING(', GROUP_CONCAT(CONCAT(seq + %s, ' ', IF(seq %% 2, 0, 1000))
			ORDER BY seq), ')')) FROM seq_1_to_%d)`, dx, n)
	}
	polygon := fmt.Sprintf(`(SELECT ST_GeomFromText(CONCAT('POLYGON((', GROUP_CONCAT(CONCAT(seq, ' ', IF(seq %% 2, -1, 1001))
		ORDER BY seq), ', %d -10, 1 -10, 1 -1))')) FROM seq_1_to_%d)`, n, n)
	dsn := dbtest.MySQLDSN(t, "CREATE TABLE shapes (c GEOMETRY, d GEOMETRY, p GEOMETRY)",
		"SET SESSION group_concat_max_len = 16777216; INSERT INTO shapes VALUES ("+comb("0")+", "+comb("0.1")+", "+polygon+")")
	admin := dbtest.MySQLConn(t, dsn)
	var version string
	mustScan(t, admin, "SELECT VERSION()", &version)
	if !strings.Contains(version, "MariaDB") {
		t.Skip("measured on MariaDB")
	}
	mustScan(t, admin, "SELECT ST_NumPoints(c) FROM shapes", new(int))
	ctx := t.Context()
	c, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET SESSION max_statement_time = 1"); err != nil {
		t.Fatal(err)
	}
	const limit = time.Second
	tried := 0
	for _, name := range guard.MySQLBuiltins(true) {
		if !strings.HasPrefix(name, "st_") && !strings.HasPrefix(name, "mbr") && !geometryAliases[name] {
			continue
		}
		for _, args := range []string{"(c, d)", "(p, c)", "(c, p)", "(c)", "(p)", "(c, 1)", "(p, 1)"} {
			q := "SELECT " + name + args + " FROM shapes"
			if guard.CheckMySQL(q, mariaDBOnly{}) != nil {
				break
			}
			start := time.Now()
			err := c.QueryRowContext(ctx, q).Scan(new(any))
			took := time.Since(start)
			if err != nil && strings.Contains(err.Error(), "Error 1582") { // the wrong number of arguments
				continue
			}
			tried++
			switch {
			case took > limit+500*time.Millisecond:
				t.Errorf("%s ran %v, past the 1 s limit (%v)", q, took.Round(time.Millisecond), err)
			case took >= limit-50*time.Millisecond && err == nil:
				t.Errorf("%s answered at the 1 s limit (%v) without the limit's error", q, took.Round(time.Millisecond))
			}
		}
	}
	if tried < 50 {
		t.Errorf("only %d calls ran", tried)
	}
	t.Logf("%d calls of geometry functions the guard allows", tried)
}
