package tools_test

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// TestSampleValuesSpread: a sample shows a column's range, from its
// smallest value to its largest, not its smallest values alone.
func TestSampleValuesSpread(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`CREATE TABLE readings (v INTEGER);
		WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100) INSERT INTO readings SELECT x FROM n`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	cs := serve(t, dbtest.Open(t, path, nil), zerolog.Nop())
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "sample_values",
		Arguments: map[string]any{"table": "readings", "column": "v", "limit": 5}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	got := fmt.Sprint(res.StructuredContent.(map[string]any)["values"])
	if diff := cmp.Diff("[1 25 50 75 100]", got); diff != "" {
		t.Errorf("sample (-want +got):\n%s", diff)
	}
}
