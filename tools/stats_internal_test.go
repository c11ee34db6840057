package tools

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/schema"
)

// TestDistinctFromStats: a table too big to count in time is answered from
// PostgreSQL's statistics, and sample_values samples it across its pages.
func TestDistinctFromStats(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, `CREATE TABLE big AS
		SELECT g AS id, (ARRAY['red', 'green', 'blue'])[1 + g % 3] AS colour FROM generate_series(1, 300000) AS g;
		ANALYZE big;`)
	db := dbtest.Open(t, dsn, nil)
	cat, err := schema.New(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{db: db, cat: cat, log: zerolog.Nop()}
	tbl, err := cat.Table(t.Context(), "big")
	if err != nil {
		t.Fatal(err)
	}
	est, big := tbl.Big()
	if !big {
		t.Fatalf("a table of %d estimated rows is not big", est)
	}
	col, _ := tbl.Column("colour")
	out, err := s.distinctFromStats(t.Context(), tbl, col, "E", 2, est)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Estimated || out.Distinct != 3 || len(out.Values) != 2 || !out.Truncated {
		t.Errorf("got %+v; want 2 of 3 estimated values containing e, cut", out)
	}
	for _, v := range out.Values {
		if s, _ := v.Value.(string); !strings.Contains(s, "e") || v.Count < 80000 || v.Count > 120000 {
			t.Errorf("value %+v: want red, green or blue with about 100000 rows", v)
		}
	}
	if !strings.Contains(out.text(), "estimated from the table's statistics") {
		t.Errorf("the text does not say the counts are estimates: %s", out.text())
	}

	sample, err := s.sampleValues(t.Context(), sampleValuesIn{columnIn: columnIn{Table: "big", Column: "colour"}})
	if err != nil || len(sample.Values) != 3 {
		t.Errorf("sample_values on a big table: %v %+v", err, sample)
	}
}
