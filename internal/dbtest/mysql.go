package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlmcp/sqlmcp/source"
)

// MySQLEnv names the variable holding a mysql:// URL whose account may
// CREATE DATABASE, e.g. mysql://root@127.0.0.1:3306/test. Tests that need
// MySQL or MariaDB skip when it is unset; CI sets it.
const MySQLEnv = "SQLMCP_TEST_MYSQL"

// MySQLDSN creates a fresh database on the server SQLMCP_TEST_MYSQL names,
// runs each of setup in it, and returns its mysql:// URL, with the same
// account. The database is dropped when the test ends. It skips the test
// when the variable is unset.
func MySQLDSN(t testing.TB, setup ...string) string {
	t.Helper()
	admin := os.Getenv(MySQLEnv)
	if admin == "" {
		t.Skip(MySQLEnv + " is not set: skipping the MySQL test")
	}
	u, err := url.Parse(admin)
	if err != nil || u.Scheme != "mysql" && u.Scheme != "mariadb" {
		t.Fatalf("%s must be a mysql:// URL", MySQLEnv)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "sqlmcp_test_" + hex.EncodeToString(b)
	MySQLExec(t, admin, "CREATE DATABASE "+name)
	t.Cleanup(func() { MySQLExec(t, admin, "DROP DATABASE IF EXISTS "+name) })
	u.Path = "/" + name
	dsn := u.String()
	for _, s := range setup {
		MySQLExec(t, dsn, s)
	}
	return dsn
}

// MySQL opens a fresh copy of the MySQL fixture, testdata/mysql's
// schema.sql and seed.sql (see MySQLDSN), through source, and closes it
// when the test ends.
func MySQL(t testing.TB, opts *source.Options) *source.DB {
	t.Helper()
	var setup []string
	for _, file := range []string{"schema.sql", "seed.sql"} {
		text, err := os.ReadFile(filepath.Join(Root(), "testdata", "mysql", file))
		if err != nil {
			t.Fatal(err)
		}
		setup = append(setup, string(text))
	}
	return Open(t, MySQLDSN(t, setup...), opts)
}

// MySQLConn connects to the mysql:// URL dsn with the driver, outside
// sqlmcp's walls and with several statements a call allowed, for tests
// that set up or inspect the server; it closes when the test ends.
func MySQLConn(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	c := mysql.NewConfig()
	c.Net, c.Addr, c.DBName = "tcp", u.Host, u.Path[1:]
	if u.User != nil {
		c.User = u.User.Username()
		c.Passwd, _ = u.User.Password()
	}
	c.MultiStatements = true
	conn, err := mysql.NewConnector(c)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

// MySQLExec runs sql, which may hold several statements, on dsn, outside
// sqlmcp's walls, and fails the test on error.
func MySQLExec(t testing.TB, dsn, sql string) {
	t.Helper()
	db := MySQLConn(t, dsn)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := db.ExecContext(ctx, sql); err != nil {
		t.Fatalf("%.60q: %v", sql, err)
	}
	db.Close()
}
