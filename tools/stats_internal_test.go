package tools

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/schema"
)

// TestBigTableValues: sample_values samples a big table across its pages
// (source's TestDistinctFromStats reads its statistics), and an answer
// from the statistics says it is an estimate.
func TestBigTableValues(t *testing.T) {
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
	out := distinctValuesOut{Table: "big", Column: "colour", Values: []valueCount{{Value: "red", Count: 100000}}, Distinct: 3, Truncated: true, Estimated: true}
	if !strings.Contains(out.text(newData()), "estimated from the table's statistics") {
		t.Errorf("the text does not say the counts are estimates: %s", out.text(newData()))
	}

	sample, err := s.sampleValues(t.Context(), sampleValuesIn{columnIn: columnIn{Table: "big", Column: "colour"}})
	if err != nil || len(sample.Values) != 3 {
		t.Errorf("sample_values on a big table: %v %+v", err, sample)
	}
}

// TestQuoting: run_query's description tells a server of MySQL databases
// to quote names in backticks, any other to use double quotes, and one of
// both kinds which is which.
func TestQuoting(t *testing.T) {
	for _, c := range []struct {
		dialects []sqlmcp.Dialect
		want     string
	}{
		{[]sqlmcp.Dialect{sqlmcp.SQLite}, quoteDouble},
		{[]sqlmcp.Dialect{sqlmcp.Postgres, sqlmcp.DuckDB}, quoteDouble},
		{[]sqlmcp.Dialect{sqlmcp.MySQL, sqlmcp.MySQL}, quoteBacktick},
		{[]sqlmcp.Dialect{sqlmcp.Postgres, sqlmcp.MySQL}, quoteEither},
	} {
		if got := quoting(c.dialects); got != c.want {
			t.Errorf("quoting(%v) = %q, want %q", c.dialects, got, c.want)
		}
	}
}
