//go:build !nomysql

package eval

import (
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// demoMySQL builds the demo and loads it into a new database on the
// server SQLMCP_TEST_MYSQL names (dropped when the test ends); it returns
// the SQLite file and the database's URL.
func demoMySQL(t *testing.T) (path, dsn string) {
	t.Helper()
	path, err := demo.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := demo.MySQLScript(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	// A few statements a round trip, each round under the server's
	// smallest max_allowed_packet.
	var chunks []string
	var b strings.Builder
	for _, s := range stmts {
		if b.Len() > 0 && b.Len()+len(s) > 2<<20 {
			chunks = append(chunks, b.String())
			b.Reset()
		}
		b.WriteString(s + ";\n")
	}
	chunks = append(chunks, b.String())
	return path, dbtest.MySQLDSN(t, chunks...)
}

// TestDemoQuestionsMySQL: on the demo loaded into MariaDB (or MySQL), each
// question's MySQL gold SQL returns the rows SQLite's gold SQL returns on
// SQLite, numbers equal to within MySQL's four decimal places of
// division; a question has its own MySQL gold SQL only when SQLite's
// fails there or returns other rows.
func TestDemoQuestionsMySQL(t *testing.T) {
	path, dsn := demoMySQL(t)
	qs, err := ParseQuestions(demo.Questions)
	if err != nil {
		t.Fatal(err)
	}
	lite, err := OpenDB(t.Context(), path, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	my, err := OpenDB(t.Context(), dsn, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	if my.Dialect() != sqlmcp.MySQL {
		t.Fatalf("the scorer opened %s as %s", dsn, my.Dialect())
	}
	compareDialect(t, qs, lite, my, sqlmcp.MySQL)

	// The keys and descriptions came along: SQLite's 13 foreign keys, and
	// a comment on every table and column.
	var fks, bare int
	conn := dbtest.MySQLConn(t, dsn)
	err = conn.QueryRowContext(t.Context(), `SELECT
	  (SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()),
	  (SELECT COUNT(*) FROM information_schema.COLUMNS c JOIN information_schema.TABLES t USING (TABLE_SCHEMA, TABLE_NAME)
	    WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE' AND (c.COLUMN_COMMENT = '' OR t.TABLE_COMMENT = ''))`).Scan(&fks, &bare)
	if err != nil || fks != 13 || bare != 0 {
		t.Errorf("got %d foreign keys and %d columns without a description (%v), want 13 and 0", fks, bare, err)
	}
}

// compareDialect checks each question's gold SQL for dialect d on other
// against SQLite's gold SQL on lite, and that an SQL_<d> is needed.
func compareDialect(t *testing.T, qs []Question, lite, other *source.DB, d sqlmcp.Dialect) {
	t.Helper()
	overrides := 0
	for _, q := range qs {
		want, err := lite.Query(t.Context(), q.SQL, scoreLimits.MaxRowsLimit)
		if err != nil {
			t.Fatalf("question %d: SQLite: %v", q.ID, err)
		}
		gold := q.Gold(d)
		got, err := other.Query(t.Context(), gold, scoreLimits.MaxRowsLimit)
		if err != nil {
			t.Errorf("question %d: the %s gold SQL failed: %v\n%s", q.ID, d, err, gold)
			continue
		}
		if diff := dbtest.SameRows(want.Rows, got.Rows); diff != "" {
			t.Errorf("question %d: the %s gold SQL returns other rows than SQLite's: %s\n%s", q.ID, d, diff, gold)
		}
		if ok, err := Score(t.Context(), other, gold, gold); !ok || err != nil {
			t.Errorf("question %d: the %s gold SQL does not score right against itself: %v", q.ID, d, err)
		}
		if _, own := q.Dialects[d]; own {
			overrides++
			plain, err := other.Query(t.Context(), q.SQL, scoreLimits.MaxRowsLimit)
			if err == nil && dbtest.SameRows(want.Rows, plain.Rows) == "" {
				t.Errorf("question %d: SQL_%s is not needed: SQLite's gold SQL returns the same rows there", q.ID, d)
			}
		}
	}
	if overrides == 0 {
		t.Errorf("no question has SQL_%s", d)
	}
}
