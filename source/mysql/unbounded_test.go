//go:build !nomysql

package mysql_test

import (
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// TestMariaDBUnboundedRefused: what the guard refuses on MariaDB for want
// of a bound is unbounded on the server itself, and sqlmcp refuses it.
//
//   - A regular expression whose backtracking takes about a second
//     answers, under a max_statement_time of a tenth of that, instead of
//     failing with the limit's error: PCRE's matching never looks at the
//     kill flag (twenty alternations instead of twelve run for minutes).
//   - JSON_OBJECTAGG builds an object past group_concat_max_len, which
//     GROUP_CONCAT and JSON_ARRAYAGG keep to.
//   - JSON_MERGE_PRESERVE, JSON_QUOTE and JSON_EXTRACT of two paths
//     build values past max_allowed_packet, where CONCAT answers NULL,
//     and JSON_EXTRACT of a ** path many times its document.
func TestMariaDBUnboundedRefused(t *testing.T) {
	db, dsn := open(t, sqlmcp.Limits{Timeout: 5 * time.Second})
	admin := dbtest.MySQLConn(t, dsn)
	admin.SetMaxOpenConns(1)
	var version string
	mustScan(t, admin, "SELECT VERSION()", &version)
	if !strings.Contains(version, "MariaDB") {
		t.Skip("measured on MariaDB")
	}
	bomb := "SELECT REPEAT('a', 2000) REGEXP '" + strings.Repeat("(a|a)", 12) + "b|c'"
	if _, err := admin.Exec("SET SESSION max_statement_time = 0.1"); err != nil {
		t.Fatal(err)
	}
	var matched int
	err := admin.QueryRow(bomb).Scan(&matched)
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1969 {
		t.Fatalf("the server stopped the regular expression at its limit: the guard's refusal may not be needed any more")
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("SET SESSION max_statement_time = 0, SESSION group_concat_max_len = 1024"); err != nil {
		t.Fatal(err)
	}
	var object, array, concat int
	mustScan(t, admin, `SELECT LENGTH(JSON_OBJECTAGG(seq, REPEAT('x', 100))), LENGTH(JSON_ARRAYAGG(REPEAT('x', 100))),
		LENGTH(GROUP_CONCAT(REPEAT('x', 100))) FROM seq_1_to_1000`, &object, &array, &concat)
	if object <= 1024*50 || array > 1024+2 || concat > 1024 {
		t.Fatalf("JSON_OBJECTAGG %d, JSON_ARRAYAGG %d, GROUP_CONCAT %d bytes under group_concat_max_len = 1024", object, array, concat)
	}
	// Past max_allowed_packet, CONCAT answers NULL; these answer more.
	var packet int64
	mustScan(t, admin, "SELECT @@max_allowed_packet", &packet)
	half := strconv.FormatInt(packet/2+1, 10)
	var concat2 sql.NullInt64
	mustScan(t, admin, "SELECT LENGTH(CONCAT(REPEAT('x', "+half+"), REPEAT('x', "+half+")))", &concat2)
	if concat2.Valid {
		t.Fatalf("CONCAT built %d bytes past max_allowed_packet = %d", concat2.Int64, packet)
	}
	grown := []string{
		"SELECT LENGTH(JSON_MERGE_PRESERVE(JSON_ARRAY(REPEAT('x', " + half + ")), JSON_ARRAY(REPEAT('x', " + half + "))))",
		"SELECT LENGTH(JSON_QUOTE(JSON_QUOTE(REPEAT('\"', " + strconv.FormatInt(packet/4+1, 10) + "))))",
		"SELECT LENGTH(JSON_EXTRACT(JSON_ARRAY(REPEAT('x', " + half + ")), '$', '$'))",
	}
	for _, q := range grown {
		var n sql.NullInt64
		mustScan(t, admin, q, &n)
		if !n.Valid || n.Int64 <= packet {
			t.Errorf("%.60s...: %v bytes, not past max_allowed_packet = %d: the guard's refusal may not be needed any more", q, n, packet)
		}
	}
	// A ** path returns a value nested 30 deep 30 times over.
	deep := `SELECT LENGTH(JSON_EXTRACT(CONCAT(REPEAT('[', 30), '"', REPEAT('x', 100000), '"', REPEAT(']', 30)), '$**[*]'))`
	var deepLen int
	mustScan(t, admin, deep, &deepLen)
	if deepLen < 20*100000 {
		t.Errorf("JSON_EXTRACT with $**[*] made %d bytes of a 100 KB value nested 30 deep: the guard's refusal may not be needed any more", deepLen)
	}
	for _, text := range append(grown, deep,
		bomb,
		"SELECT REGEXP_REPLACE(REPEAT('a', 2000), '"+strings.Repeat("(a|a)", 12)+"b|a', 'x')",
		"SELECT JSON_OBJECTAGG(seq, REPEAT('x', 1000000)) FROM seq_1_to_100",
	) {
		_, err := db.Query(t.Context(), text, 0)
		var ge *guard.Error
		if !errors.As(err, &ge) || !strings.Contains(ge.Reason, "not allowed on MariaDB") {
			t.Errorf("%.60s...: %v, want the guard's refusal", text, err)
		}
	}
}
