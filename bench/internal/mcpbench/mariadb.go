package mcpbench

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MariaDBServer is MariaDB's server binary; SQLMCP_MARIADBD overrides it.
const MariaDBServer = "/usr/sbin/mariadbd"

// MariaDB is a throwaway MariaDB server of our own: a data folder under
// Base, a port of its own on 127.0.0.1 and a socket in Base (never the
// system's server on 3306), small buffers, no durability, and a root
// account without a password on 127.0.0.1. As root it runs as the system
// user mysql when there is one. Remove stops it and deletes Base.
type MariaDB struct {
	Base   string // the folder holding the data folder, the socket, the pid file and the log
	Data   string
	Socket string
	Port   int
	Bin    string // the server binary
	user   string
	cmd    *exec.Cmd
	exited chan struct{}
}

// NewMariaDB runs mariadb-install-db (or mysql_install_db) in a new folder
// under parent ("" for the system's temporary folder) and starts the
// server with conf added to its options (e.g. "--max-connections=100"). On
// an error, what was made is removed.
func NewMariaDB(parent string, conf ...string) (m *MariaDB, err error) {
	m = &MariaDB{Bin: MariaDBServer}
	if b := os.Getenv("SQLMCP_MARIADBD"); b != "" {
		m.Bin = b
	}
	if _, err := os.Stat(m.Bin); err != nil {
		return nil, fmt.Errorf("MariaDB's server (set SQLMCP_MARIADBD): %w", err)
	}
	install, err := exec.LookPath("mariadb-install-db")
	if err != nil {
		if install, err = exec.LookPath("mysql_install_db"); err != nil {
			return nil, fmt.Errorf("neither mariadb-install-db nor mysql_install_db is on PATH")
		}
	}
	if m.Base, err = os.MkdirTemp(parent, "sqlmcp-bench-mariadb-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			m.Remove()
			m = nil
		}
	}()
	if os.Geteuid() == 0 {
		// The server will not run as root unless told to: it runs as mysql.
		found, err := giveTo(m.Base, "mysql")
		if err != nil {
			return m, err
		}
		m.user = "root"
		if found {
			m.user = "mysql"
		}
	}
	m.Data = filepath.Join(m.Base, "data")
	m.Socket = filepath.Join(m.Base, "mariadbd.sock")
	if m.Port, err = FreePort(); err != nil {
		return m, err
	}
	// The InnoDB sizes are given at install time too, so that it does not
	// write the default 96 MiB redo log first.
	small := []string{"--innodb-buffer-pool-size=32M", "--innodb-log-file-size=8M"}
	args := append([]string{"--no-defaults", "--datadir=" + m.Data, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve", "--force"}, small...)
	if m.user != "" {
		args = append(args, "--user="+m.user)
	}
	cmd := exec.Command(install, args...)
	cmd.SysProcAttr = setpgid()
	if out, err := cmd.CombinedOutput(); err != nil {
		return m, fmt.Errorf("%s: %v: %s", filepath.Base(install), err, errorLines(string(out)))
	}
	return m, m.start(conf)
}

// start starts the server and waits until root can connect over TCP.
func (m *MariaDB) start(conf []string) error {
	args := append([]string{"--no-defaults",
		"--datadir=" + m.Data,
		"--port=" + strconv.Itoa(m.Port),
		"--bind-address=127.0.0.1",
		"--socket=" + m.Socket,
		"--pid-file=" + filepath.Join(m.Base, "mariadbd.pid"),
		"--log-error=" + filepath.Join(m.Base, "server.log"),
		"--skip-name-resolve",
		"--character-set-server=utf8mb4",
		"--collation-server=utf8mb4_general_ci",
		"--innodb-buffer-pool-size=32M",
		"--innodb-log-file-size=8M",
		"--innodb-flush-log-at-trx-commit=0",
		"--innodb-doublewrite=0",
		"--skip-log-bin",
	}, conf...)
	if m.user != "" {
		args = append(args, "--user="+m.user)
	}
	m.cmd = exec.Command(m.Bin, args...)
	// Its own process group: a Ctrl-C in the terminal reaches us, and we
	// stop the server ourselves. (No parent-death signal: the server
	// changes its user, which clears it; bench/driver.sh stops a server
	// left behind by its pid file.)
	m.cmd.SysProcAttr = setpgid()
	if err := m.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", m.Bin, err)
	}
	m.exited = make(chan struct{})
	go func() { m.cmd.Wait(); close(m.exited) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := Exec(ctx, "mysql", m.URL("root", ""), "SELECT 1")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-m.exited:
			return fmt.Errorf("mariadbd exited: %s", errorLines(m.Log()))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("mariadbd not ready after 60s: %v", err)
		}
	}
}

// URL is the mysql:// URL of database db (none: "") as user, with no
// password, as sqlmcp and DBHub take it.
func (m *MariaDB) URL(user, db string) string {
	return fmt.Sprintf("mysql://%s@127.0.0.1:%d/%s", user, m.Port, db)
}

// Remove stops the server, if it runs (SIGTERM, then SIGKILL after 30 s),
// and deletes its folder.
func (m *MariaDB) Remove() {
	if m.cmd != nil && m.cmd.Process != nil {
		select {
		case <-m.exited:
		default:
			m.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-m.exited:
			case <-time.After(30 * time.Second):
				m.cmd.Process.Kill()
				<-m.exited
			}
		}
	}
	if m.Base != "" {
		os.RemoveAll(m.Base)
	}
}

// Log is what the server wrote to its error log so far.
func (m *MariaDB) Log() string {
	b, _ := os.ReadFile(filepath.Join(m.Base, "server.log"))
	return string(b)
}

// errorLines are the lines of a MariaDB tool's output that say what went
// wrong (the last five when none does).
func errorLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var out []string
	for _, l := range lines {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "Can't") || strings.Contains(l, "failed") {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		out = lines[max(0, len(lines)-5):]
	}
	return strings.Join(out, "\n")
}

// MySQLConfig is the driver's configuration for a mysql:// URL
// (mysql://user[:password]@host:port/db): TCP, one statement a call, no
// client-side interpolation, as the driver's defaults are.
func MySQLConfig(rawURL string) (*mysql.Config, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "mysql" && u.Scheme != "mariadb" {
		return nil, fmt.Errorf("not a mysql:// URL: %q", rawURL)
	}
	c := mysql.NewConfig()
	c.Net, c.Addr, c.DBName = "tcp", u.Host, strings.TrimPrefix(u.Path, "/")
	if u.User != nil {
		c.User = u.User.Username()
		c.Passwd, _ = u.User.Password()
	}
	return c, nil
}

// execMySQL runs text, which may hold several statements, on the mysql://
// URL db.
func execMySQL(ctx context.Context, db, text string) error {
	c, err := MySQLConfig(db)
	if err != nil {
		return err
	}
	c.MultiStatements = true
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return err
	}
	d := sql.OpenDB(conn)
	defer d.Close()
	_, err = d.ExecContext(ctx, text)
	return err
}
