package source_test

import (
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestDistinctFromStats: a table too big to count in time is answered from
// PostgreSQL's statistics, and Sample samples it across its pages.
func TestDistinctFromStats(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, `CREATE TABLE big AS
		SELECT g AS id, (ARRAY['red', 'green', 'blue'])[1 + g % 3] AS colour FROM generate_series(1, 300000) AS g;
		ANALYZE big;`)
	db := dbtest.Open(t, dsn, nil)
	defs, err := db.ReadTables(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var big source.TableRef
	for _, d := range defs {
		if d.Name == "big" {
			big = source.TableRef{Schema: d.Schema, Name: d.Name, Kind: d.Kind, Estimate: d.Estimate}
		}
	}
	if big.Estimate < source.BigTable {
		t.Fatalf("a table of %d estimated rows is not big", big.Estimate)
	}
	out, err := db.DistinctFromStats(t.Context(), big, "colour", "E", 2)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Estimated || out.Count != 3 || len(out.Values) != 2 || !out.Truncated {
		t.Errorf("got %+v; want 2 of 3 estimated values containing e, cut", out)
	}
	for _, v := range out.Values {
		if s, _ := v.Value.(string); !strings.Contains(s, "e") || v.Count < 80000 || v.Count > 120000 {
			t.Errorf("value %+v: want red, green or blue with about 100000 rows", v)
		}
	}
	sample, err := db.Sample(t.Context(), big, "colour", 10)
	if err != nil || len(sample) != 3 {
		t.Errorf("Sample of a big table: %v %+v", err, sample)
	}
}
