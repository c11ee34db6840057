//go:build !nomysql

package mysql_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source/mysql"
)

// TestMySQLOtherSessionsHidden: while another session runs a statement
// holding a secret, none of the ways to read other sessions' statements or
// the server's credentials reaches the server: each is the guard's
// refusal. sqlmcp's own reads of the catalog, of mysql.func and of the
// time zone tables still answer.
func TestMySQLOtherSessionsHidden(t *testing.T) {
	db, dsn := open(t, sqlmcp.Limits{Timeout: 5 * time.Second})
	other := dbtest.MySQLConn(t, dsn)
	done := make(chan error, 1)
	go func() {
		_, err := other.ExecContext(t.Context(), "DO SLEEP(2), 'other-session-secret 5500-0000-0000-0004'")
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	for _, sql := range []string{
		"SELECT ID, INFO FROM information_schema.PROCESSLIST WHERE INFO LIKE '%other-session-secret%'",
		"SELECT trx_query FROM information_schema.INNODB_TRX",
		"SELECT * FROM information_schema.INNODB_LOCK_WAITS",
		"SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME = 'REPORT_PASSWORD'",
		"SELECT @@report_password",
		"SELECT @@global.wsrep_sst_auth",
		"SELECT argument FROM mysql.general_log",
		"SELECT CONVERT(body USING utf8mb4) FROM mysql.proc",
		"SELECT * FROM mysql.user",
		"SELECT * FROM performance_schema.events_statements_current",
		"SELECT * FROM sys.processlist",
	} {
		_, err := db.Query(t.Context(), sql, 0)
		var ge *guard.Error
		if !errors.As(err, &ge) {
			t.Errorf("%s: %v, want the guard's refusal", sql, err)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("the other session: %v", err)
	}
	for _, sql := range []string{
		"SELECT COUNT(*) FROM mysql.func",
		"SELECT COUNT(*) FROM mysql.time_zone_name",
		"SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()",
		"SELECT @@version, @@max_statement_time IS NOT NULL",
	} {
		if res, err := db.Query(t.Context(), sql, 0); err != nil || len(res.Rows) != 1 {
			t.Errorf("%s: %v", sql, err)
		}
	}
	if tables, err := db.ReadTables(t.Context(), nil); err != nil || len(tables) == 0 {
		t.Errorf("the catalog: %d tables, %v", len(tables), err)
	}
}

// TestMySQLProcessWarning: an account that holds PROCESS, granted alone or
// within ALL PRIVILEGES on *.*, is warned about at start; one that holds
// it nowhere, or privileges on one database only, is not.
func TestMySQLProcessWarning(t *testing.T) {
	for g, want := range map[string]bool{
		"GRANT PROCESS ON *.* TO `ro`@`%`":                                    true,
		"GRANT SELECT, PROCESS, REPLICATION CLIENT ON *.* TO `ro`@`%`":        true,
		"GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION": true,
		"GRANT USAGE ON *.* TO `ro`@`%` IDENTIFIED BY PASSWORD '*0123'":       false,
		"GRANT SELECT, SHOW VIEW ON `shop`.* TO `ro`@`%`":                     false,
		"GRANT ALL PRIVILEGES ON `shop`.* TO `ro`@`%`":                        false,
		"GRANT `reader` TO `ro`@`%`":                                          false,
		"GRANT SELECT (`PROCESS`) ON `shop`.`t` TO `ro`@`%`":                  false,
	} {
		if got := mysql.ProcessGrant(g); got != want {
			t.Errorf("ProcessGrant(%q) = %v, want %v", g, got, want)
		}
	}
	db, dsn := open(t, sqlmcp.Limits{})
	var process int
	mustScan(t, dbtest.MySQLConn(t, dsn), `SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES
		WHERE PRIVILEGE_TYPE = 'PROCESS' AND GRANTEE = CONCAT("'", REPLACE(CURRENT_USER(), '@', "'@'"), "'")`, &process)
	w := db.Warnings()
	got := len(w) == 1 && w[0].Event == "role" && strings.Contains(w[0].Message, "holds PROCESS") &&
		strings.Contains(w[0].Message, "every session's statements")
	if got != (process == 1) || process == 0 && len(w) > 0 {
		t.Errorf("the account holds PROCESS: %v; its warnings: %+v", process == 1, w)
	}
}
