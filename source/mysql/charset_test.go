//go:build !nomysql

package mysql_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// throwawayMariaDB starts a MariaDB server of the test's own, in a
// temporary folder on a free port, with args added to its options, and
// returns the mysql:// URL of its database test as root. The server is
// killed when the test ends. Like every MySQL test it needs
// SQLMCP_TEST_MYSQL set; a missing server binary fails the test.
func throwawayMariaDB(t *testing.T, args ...string) string {
	t.Helper()
	if os.Getenv(dbtest.MySQLEnv) == "" {
		t.Skip(dbtest.MySQLEnv + " is not set: skipping the MySQL test")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	install := exec.Command("mariadb-install-db", "--no-defaults", "--datadir="+data, "--user=root",
		"--auth-root-authentication-method=normal", "--skip-test-db")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	server := exec.Command("mariadbd", append([]string{"--no-defaults", "--datadir=" + data, "--user=root",
		"--port=" + strconv.Itoa(port), "--bind-address=127.0.0.1", "--socket=" + filepath.Join(dir, "sock"),
		"--innodb-buffer-pool-size=8M", "--skip-log-bin", "--skip-name-resolve"}, args...)...)
	server.Stdout, server.Stderr = log, log
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		server.Process.Kill()
		server.Wait()
		log.Close()
	})
	root := "mysql://root@127.0.0.1:" + strconv.Itoa(port) + "/mysql"
	admin := dbtest.MySQLConn(t, root)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := admin.PingContext(ctx)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			text, _ := os.ReadFile(log.Name())
			t.Fatalf("the throwaway MariaDB did not start: %v\n%s", err, text)
		}
	}
	if _, err := admin.Exec("CREATE DATABASE test"); err != nil {
		t.Fatal(err)
	}
	return "mysql://root@127.0.0.1:" + strconv.Itoa(port) + "/test"
}

// TestMySQLSessionReadsUTF8: on a server that ignores the character set
// the client asks for and reads text as GBK, in which a backslash can be
// the second byte of a character, the session still reads the text as
// UTF-8, as the guard does: the string the guard saw is the string the
// server runs, and a guard-refused call hidden in what GBK would read as
// SQL after the string is never run. Both readers under a GBK session
// would split '中\' differently: the guard reads \' as a quote inside the
// string, GBK reads AD 5C as one character and ends the string there.
func TestMySQLSessionReadsUTF8(t *testing.T) {
	dsn := throwawayMariaDB(t, "--skip-character-set-client-handshake",
		"--character-set-server=gbk", "--collation-server=gbk_chinese_ci")
	db := dbtest.Open(t, dsn, &source.Options{Limits: sqlmcp.Limits{Timeout: 5 * time.Second}})
	res, err := db.Query(t.Context(), "SELECT '中\\' AS a, @@version -- '", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Columns) != 1 || len(res.Rows) != 1 || res.Rows[0][0] != "中' AS a, @@version -- " {
		t.Fatalf("columns %v, rows %v: the server did not read the string the guard read", res.Columns, res.Rows)
	}
	res, err = db.Query(t.Context(), "SELECT @@character_set_client, @@character_set_connection, @@character_set_results", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range res.Rows[0] {
		if v != "utf8mb4" {
			t.Errorf("%s = %v, want utf8mb4", res.Columns[i].Name, v)
		}
	}
}
