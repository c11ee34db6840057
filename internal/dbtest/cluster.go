package dbtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// PostgresBin is where the PostgreSQL server binaries the throwaway
// clusters run are installed; SQLMCP_TEST_PG_BIN overrides it.
const PostgresBin = "/usr/lib/postgresql/15/bin"

// Cluster is a throwaway PostgreSQL server a test starts itself: its own
// data folder in a temporary directory, its own port on 127.0.0.1, 16MB of
// shared buffers, trust authentication for the superuser postgres. It is
// stopped (immediately) and removed when the test ends, whatever happened.
type Cluster struct {
	Dir  string // the data folder
	Port int
	// DSN connects to its postgres database as the superuser.
	DSN  string
	bin  string
	user string // the system user the server runs as ("" for the current one)
}

// NewCluster creates and starts a cluster, with conf (lines for
// postgresql.conf) added to the settings above. A missing binary fails
// the test: clusters are what the fault tests run on. As root, the server
// runs as the system user postgres (initdb refuses root).
func NewCluster(t testing.TB, conf ...string) *Cluster {
	t.Helper()
	c, dir := newCluster(t)
	c.run(t, "initdb", "-D", c.Dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	c.settle(t, dir, conf)
	return c
}

// NewReplica makes a streaming replica of the running cluster c, a hot
// standby (pg_basebackup into a data folder of its own), with conf added
// to its settings, starts it, and stops it when the test ends.
func (c *Cluster) NewReplica(t testing.TB, conf ...string) *Cluster {
	t.Helper()
	r, dir := newCluster(t)
	c.run(t, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.Port), "-U", "postgres",
		"-D", r.Dir, "-R", "-X", "stream", "-c", "fast", "--no-sync")
	r.settle(t, dir, append([]string{"hot_standby = on"}, conf...))
	return r
}

// newCluster picks the binaries, the user, a folder and a port for a
// cluster; dir holds the data folder and the socket.
func newCluster(t testing.TB) (*Cluster, string) {
	t.Helper()
	c := &Cluster{bin: PostgresBin}
	if b := os.Getenv("SQLMCP_TEST_PG_BIN"); b != "" {
		c.bin = b
	}
	if _, err := os.Stat(filepath.Join(c.bin, "initdb")); err != nil {
		t.Fatalf("the fault tests need PostgreSQL's server binaries: %v", err)
	}
	// A folder the server's user owns; t.TempDir's parents are root's alone.
	dir, err := os.MkdirTemp("", "sqlmcp-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("initdb cannot run as root and there is no postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		c.user = "postgres"
	}
	c.Dir = filepath.Join(dir, "data")
	c.Port = freePort(t)
	c.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.Port)
	return c, dir
}

// settle writes the cluster's settings, then conf, starts it, and stops it
// when the test ends.
func (c *Cluster) settle(t testing.TB, dir string, conf []string) {
	t.Helper()
	c.Configure(t, append([]string{
		"port = " + strconv.Itoa(c.Port),
		"listen_addresses = '127.0.0.1'",
		"unix_socket_directories = '" + dir + "'",
		"shared_buffers = 16MB",
		"fsync = off",
		"max_connections = 30",
	}, conf...)...)
	t.Cleanup(func() { c.stop(t, false) })
	c.Start(t)
}

// Configure adds lines to the cluster's postgresql.conf; they take effect
// at the next start.
func (c *Cluster) Configure(t testing.TB, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(c.Dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n" + strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
}

// Start starts the stopped cluster and waits until it takes connections.
func (c *Cluster) Start(t testing.TB) {
	t.Helper()
	c.run(t, "pg_ctl", "-D", c.Dir, "-l", filepath.Join(c.Dir, "server.log"), "-w", "-t", "30", "start")
}

// Stop stops the cluster at once (mode immediate): every backend ends
// without a goodbye, as in a crash or a killed container.
func (c *Cluster) Stop(t testing.TB) {
	t.Helper()
	c.stop(t, true)
}

func (c *Cluster) stop(t testing.TB, must bool) {
	cmd := c.command("pg_ctl", "-D", c.Dir, "-m", "immediate", "-w", "stop")
	if out, err := cmd.CombinedOutput(); err != nil && must {
		t.Fatalf("pg_ctl stop: %v: %s", err, out)
	}
}

// Log returns what the server wrote to its log so far.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.Dir, "server.log"))
	return string(b)
}

func (c *Cluster) run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := c.command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s\n%s", name, err, out, c.Log())
	}
}

// command runs one of the server's binaries as the server's user.
func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(c.bin, name)
	if c.user != "" {
		return exec.Command("runuser", append([]string{"-u", c.user, "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

// freePort returns a TCP port on 127.0.0.1 nobody listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// LoadFixture loads testdata/postgres's schema and seed into the
// cluster's postgres database and returns the DSN.
func (c *Cluster) LoadFixture(t testing.TB) string {
	t.Helper()
	for _, file := range []string{"schema.sql", "seed.sql"} {
		text, err := os.ReadFile(filepath.Join(Root(), "testdata", "postgres", file))
		if err != nil {
			t.Fatal(err)
		}
		PostgresExec(t, c.DSN, string(text))
	}
	return c.DSN
}

// Freeze stops the server and every process of it with SIGSTOP, as a
// server that no longer answers (a hung host, a network partition): its
// sockets stay open, and nothing comes back. Thaw (also at the test's
// end) lets it go on.
func (c *Cluster) Freeze(t testing.TB) {
	t.Helper()
	c.signalAll(t, syscall.SIGSTOP)
	t.Cleanup(func() { c.signalAll(t, syscall.SIGCONT) })
}

// Thaw undoes Freeze.
func (c *Cluster) Thaw(t testing.TB) {
	t.Helper()
	c.signalAll(t, syscall.SIGCONT)
}

// signalAll sends sig to the postmaster and its children.
func (c *Cluster) signalAll(t testing.TB, sig syscall.Signal) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Dir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pm, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	pids := []int{pm}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		s, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// The parent's pid is the second field after the command's name.
		f := strings.Fields(string(s[strings.LastIndexByte(string(s), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pm) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		syscall.Kill(pid, sig)
	}
}
