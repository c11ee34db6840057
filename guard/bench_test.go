package guard_test

import (
	"testing"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// BenchmarkPrepare measures the guard's whole decision on a typical model
// query: compiling under the authorizer and judging the statement.
func BenchmarkPrepare(b *testing.B) {
	query := dbtest.JoinQuery
	dc, err := (&sqlite3.SQLiteDriver{}).Open("file:" + dbtest.SQLiteFile(b) + "?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	conn := dc.(*sqlite3.SQLiteConn)
	defer conn.Close()
	g, err := guard.NewSQLite(conn)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		st, err := g.Prepare(query)
		if err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}
