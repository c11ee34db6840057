package mcpbench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// PostgresBin is where PostgreSQL's server binaries are; SQLMCP_PG_BIN
// overrides it.
const PostgresBin = "/usr/lib/postgresql/15/bin"

// Cluster is a throwaway PostgreSQL server of our own: a data folder under
// Base, a port of its own on 127.0.0.1, trust authentication for the
// superuser postgres, small shared buffers. As root it runs as the system
// user postgres (initdb refuses root). Remove stops it and deletes Base.
type Cluster struct {
	Base string // the folder holding the data folder, the socket and the log
	Data string
	Port int
	DSN  string // the postgres database, as postgres
	bin  string
	user string
}

// NewCluster runs initdb in a new folder under parent ("" for the system's
// temporary folder), writes the settings and conf, and starts the server.
// On an error, what was made is removed.
func NewCluster(parent string, conf ...string) (c *Cluster, err error) {
	c = &Cluster{bin: PostgresBin}
	if b := os.Getenv("SQLMCP_PG_BIN"); b != "" {
		c.bin = b
	}
	if _, err := os.Stat(filepath.Join(c.bin, "initdb")); err != nil {
		return nil, fmt.Errorf("PostgreSQL's server binaries (set SQLMCP_PG_BIN): %w", err)
	}
	if c.Base, err = os.MkdirTemp(parent, "sqlmcp-bench-pg-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.Remove()
			c = nil
		}
	}()
	if os.Geteuid() == 0 {
		found, err := giveTo(c.Base, "postgres")
		switch {
		case err != nil:
			return c, err
		case !found:
			return c, errors.New("initdb cannot run as root and there is no postgres user")
		}
		c.user = "postgres"
	}
	c.Data = filepath.Join(c.Base, "data")
	if c.Port, err = FreePort(); err != nil {
		return c, err
	}
	c.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.Port)
	if err := c.run("initdb", "-D", c.Data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		return c, err
	}
	settings := append([]string{
		"port = " + strconv.Itoa(c.Port),
		"listen_addresses = '127.0.0.1'",
		"unix_socket_directories = '" + c.Base + "'",
		"shared_buffers = 16MB",
		"fsync = off",
		"max_connections = 60",
	}, conf...)
	f, err := os.OpenFile(filepath.Join(c.Data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return c, err
	}
	_, err = f.WriteString("\n" + strings.Join(settings, "\n") + "\n")
	f.Close()
	if err != nil {
		return c, err
	}
	return c, c.Start()
}

// DSNFor is the URL of database db as user (with no password: trust).
func (c *Cluster) DSNFor(user, db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", user, c.Port, db)
}

// Start starts the stopped server and waits until it takes connections.
func (c *Cluster) Start() error {
	return c.run("pg_ctl", "-D", c.Data, "-l", filepath.Join(c.Base, "server.log"), "-w", "-t", "60", "start")
}

// Stop stops the server in mode (fast: backends are told to end and the
// server checkpoints; immediate: as in a crash).
func (c *Cluster) Stop(mode string) error {
	return c.run("pg_ctl", "-D", c.Data, "-m", mode, "-w", "-t", "60", "stop")
}

// Remove stops the server, if it runs, and deletes its folder.
func (c *Cluster) Remove() {
	if c.Data != "" {
		if _, err := os.Stat(filepath.Join(c.Data, "postmaster.pid")); err == nil {
			c.Stop("immediate")
		}
	}
	if c.Base != "" {
		os.RemoveAll(c.Base)
	}
}

// Log is what the server wrote to its log so far.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.Base, "server.log"))
	return string(b)
}

func (c *Cluster) run(name string, args ...string) error {
	path := filepath.Join(c.bin, name)
	cmd := exec.Command(path, args...)
	if c.user != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.user, "--", path}, args...)...)
	}
	// Its own process group: a Ctrl-C in the terminal reaches us, and we
	// stop the server ourselves, in order.
	cmd.SysProcAttr = setpgid()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", name, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// giveTo makes dir belong to the system user name, for a server that will
// not run as root; found is false when there is no such user.
func giveTo(dir, name string) (found bool, err error) {
	u, err := user.Lookup(name)
	if err != nil {
		return false, nil
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return true, os.Chown(dir, uid, gid)
}
