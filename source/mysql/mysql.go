//go:build !nomysql

// Package mysql is sqlmcp's MySQL and MariaDB engine: mysql:// and
// mariadb:// URLs, opened with github.com/go-sql-driver/mysql, every call
// guarded by guard.MySQLLimit, run in START TRANSACTION READ ONLY on a
// session set SESSION TRANSACTION READ ONLY, under the server's own
// statement time limit (max_statement_time on MariaDB, max_execution_time
// on MySQL), stopped with KILL QUERY from another connection when the
// caller gives up, and rolled back.
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/source"
)

const (
	// backstop is how long after Limits.Timeout the caller gives up: the
	// server's statement time limit stops the query first.
	backstop = time.Second
	// connectTimeout bounds a new connection.
	connectTimeout = 5 * time.Second
	// catalogAge is how long the names of the database's own functions
	// are trusted before they are read again.
	catalogAge = 10 * time.Second
)

// Engine opens MySQL and MariaDB databases by mysql:// and mariadb:// URL.
// Its zero value is ready to use; it is safe for concurrent use.
type Engine struct {
	// TempTableLimit bounds, on MariaDB, each internal temporary table a
	// statement writes to disk (tmp_disk_table_size, in bytes), so a
	// GROUP BY or recursive WITH that grows one stops with an error
	// instead of filling the server's tmpdir until the timeout. It
	// bounds each such table, not the statement: one that materializes
	// several gets it for each, and a sort's merge files are not bounded
	// at all. Default DefaultTempTableLimit; MySQL has no such session
	// setting.
	TempTableLimit int64
}

// DefaultTempTableLimit is Engine.TempTableLimit's default: PostgreSQL's
// default temp_file_limit.
const DefaultTempTableLimit = 1 << 30

// Dialect is sqlmcp.MySQL.
func (Engine) Dialect() sqlmcp.Dialect { return sqlmcp.MySQL }

// Claims takes mysql:// and mariadb:// URLs.
func (Engine) Claims(dsn string) bool {
	return strings.HasPrefix(dsn, "mysql://") || strings.HasPrefix(dsn, "mariadb://")
}

// Forms are the forms of --db a MySQL or MariaDB database takes.
func (Engine) Forms() []string {
	return []string{"mysql://USER[:PASSWORD]@HOST[:3306]/DATABASE[?tls=true|skip-verify|preferred] (MySQL or MariaDB; also mariadb://; the password may come from MYSQL_PWD)"}
}

// Open connects to the URL dsn, learns whether the server is MySQL or
// MariaDB, and reads the names of the database's own functions for the
// guard. A failure is one line naming the server and the reason (refused,
// wrong password, unknown database, TLS), never the password.
func (e Engine) Open(ctx context.Context, dsn string, cfg source.Config) (source.Backend, error) {
	if len(cfg.AllowExtensions)+len(cfg.AllowFunctions) > 0 {
		return nil, errors.New("--allow-extension and --allow-function apply to PostgreSQL only")
	}
	mc, name, err := parseURL(dsn)
	if err != nil {
		return nil, err
	}
	b := &backend{limits: cfg.Limits, cfg: mc, sessions: map[uint64]*session{}, tempTable: e.TempTableLimit}
	if b.tempTable <= 0 {
		b.tempTable = DefaultTempTableLimit
	}
	b.left = source.NewLeft(leftPoll, b.stillRunning)
	mc.DialFunc = b.bounds.dial(mc.TLSConfig != "" && mc.TLSConfig != "false")
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("reading the MySQL URL %s: %v", name, err)
	}
	b.db = sql.OpenDB(conn)
	b.db.SetMaxOpenConns(max(cfg.MaxConns, 1))
	b.db.SetMaxIdleConns(max(cfg.MaxConns, 1))
	b.db.SetConnMaxIdleTime(5 * time.Minute)
	// KILL QUERY goes out on connections of their own, so a stop never
	// waits for a connection of the pool the runaway query holds.
	b.kill = sql.OpenDB(conn)
	b.kill.SetMaxOpenConns(2)
	b.kill.SetMaxIdleConns(1)

	ctx, cancel := context.WithTimeout(ctx, cfg.Limits.Timeout+backstop)
	defer cancel()
	var version string
	var packet int64
	if err := b.kill.QueryRowContext(ctx, "SELECT VERSION(), DATABASE(), @@max_allowed_packet").Scan(&version, new(sql.NullString), &packet); err != nil {
		b.Close()
		return nil, fmt.Errorf("cannot connect to %s: %s", name, reason(err, mc))
	}
	// A row may hold one value of the largest size the server sends, and
	// a megabyte besides.
	b.bounds.limit.Store(packet + 1<<20)
	b.mariaDB = strings.Contains(strings.ToLower(version), "mariadb")
	server := "MySQL"
	if b.mariaDB {
		server = "MariaDB"
	}
	b.info = source.Info{
		Dialect: sqlmcp.MySQL, Name: name, Database: mc.DBName, Backstop: backstop, Retries: 1,
		Guard: []string{
			"mysql parser (TiDB's): one SELECT, built-in functions only, comments blanked, executable comments refused",
			"engine (" + server + " " + version + "): START TRANSACTION READ ONLY on a READ ONLY session, server-side time limit, KILL QUERY on cancel, rolled back",
		},
	}
	if b.mariaDB {
		b.info.Guard = append(b.info.Guard, fmt.Sprintf("engine: each temporary table on disk at most %d MiB (tmp_disk_table_size)", b.tempTable>>20))
	}
	b.cat.Store(&catalog{mariaDB: b.mariaDB, db: mc.DBName})
	if err := b.loadCatalog(ctx); err != nil {
		b.Close()
		return nil, fmt.Errorf("cannot connect to %s: %s", name, reason(err, mc))
	}
	return b, nil
}

// parseURL turns a mysql:// or mariadb:// URL into the driver's
// configuration, with sqlmcp's settings, and a name for messages without
// the password.
func parseURL(dsn string) (*mysql.Config, string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, "", fmt.Errorf("reading the MySQL URL: %v", redactErr(err))
	}
	mc := mysql.NewConfig()
	mc.Net = "tcp"
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "3306"
	}
	mc.Addr = net.JoinHostPort(host, port)
	if u.User != nil {
		mc.User = u.User.Username()
		mc.Passwd, _ = u.User.Password()
	}
	if mc.Passwd == "" {
		mc.Passwd = os.Getenv("MYSQL_PWD") // the client's convention
	}
	mc.DBName = strings.TrimPrefix(u.Path, "/")
	if mc.DBName == "" {
		return nil, "", fmt.Errorf("the MySQL URL %s names no database: add /DATABASE", redactURL(u))
	}
	// One statement per call, and values never spliced into the text.
	mc.MultiStatements = false
	mc.InterpolateParams = false
	mc.ParseTime = false
	mc.Timeout = connectTimeout
	// UTF-8 both ways, so the server splits the text into the tokens the
	// guard saw (no multi-byte character ends in a backslash).
	mc.Collation = "utf8mb4_general_ci"
	mc.AllowAllFiles = false
	mc.AllowCleartextPasswords = false
	mc.AllowOldPasswords = false
	for k, v := range u.Query() {
		switch k {
		case "tls":
			switch val := v[len(v)-1]; val {
			case "true", "skip-verify", "preferred", "false":
				mc.TLSConfig = val
			default:
				return nil, "", fmt.Errorf("the MySQL URL's tls=%s: use tls=true, skip-verify, preferred or false", val)
			}
		default:
			return nil, "", fmt.Errorf("the MySQL URL's parameter %q is not one sqlmcp reads: only tls is", k)
		}
	}
	if err := mc.Apply(); err != nil {
		return nil, "", fmt.Errorf("reading the MySQL URL %s: %v", redactURL(u), err)
	}
	return mc, redactURL(u), nil
}

// redactURL writes u without its password.
func redactURL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(c.User.Username())
	}
	c.RawQuery = ""
	return c.String()
}

func redactErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return "malformed URL"
}

// reason says on one line why a connection failed, without the password.
func reason(err error, mc *mysql.Config) string {
	var me *mysql.MySQLError
	var ne net.Error
	switch {
	case errors.As(err, &me):
		switch me.Number {
		case 1045:
			return "access denied (wrong user or password, or the account requires TLS): " + me.Message
		case 1049:
			return "unknown database " + strconv.Quote(mc.DBName)
		case 3159:
			return "the server requires TLS: add ?tls=true (or tls=skip-verify) to the URL"
		}
		return me.Message
	case errors.Is(err, mysql.ErrNoTLS):
		return "the URL asks for TLS but the server does not offer it"
	case strings.Contains(err.Error(), "connection refused"):
		return "connection refused (is the server running on " + mc.Addr + "?)"
	case errors.As(err, &ne) && ne.Timeout():
		return "the server did not answer in time"
	}
	msg := err.Error()
	if mc.Passwd != "" {
		msg = strings.ReplaceAll(msg, mc.Passwd, "xxxxx")
	}
	return strings.Join(strings.Fields(msg), " ")
}

// backend is one open MySQL or MariaDB database.
type backend struct {
	db, kill *sql.DB
	cfg      *mysql.Config
	limits   sqlmcp.Limits
	info     source.Info
	mariaDB  bool
	// tempTable is MariaDB's tmp_disk_table_size for every session.
	tempTable int64
	cat       atomic.Pointer[catalog]
	catMu     sync.Mutex // one reload at a time
	// sessions are the server connections whose session is set up (see
	// setup), by the server's connection id.
	mu       sync.Mutex
	sessions map[uint64]*session
	// left follows the statements killed but still running.
	left *source.Left
	// bounds are the connections, whose messages from the server are
	// bounded (rowbound.go).
	bounds boundedConns
}

// session is what sqlmcp set up on one server connection.
type session struct{ id uint64 }

func (b *backend) Info() source.Info { return b.info }

// PoolStats is database/sql's count of the calls' pool (not the one KILL
// QUERY uses).
func (b *backend) PoolStats() source.PoolStats {
	s := b.db.Stats()
	return source.PoolStats{Open: s.OpenConnections, InUse: s.InUse, Max: s.MaxOpenConnections}
}

// Close closes every connection.
func (b *backend) Close() error {
	b.left.Stop()
	b.kill.Close()
	return b.db.Close()
}

// Quote quotes an identifier with backticks, doubling any inside.
func (b *backend) Quote(name string) string { return quote(name) }

func quote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// Ready runs SELECT 1 through the door.
func (b *backend) Ready(ctx context.Context) error {
	_, err := source.Door(b, b.limits).Catalog(ctx, "SELECT 1")
	return err
}

// SchemaVersion: MySQL has no cheap schema version.
func (b *backend) SchemaVersion(context.Context, source.Reader) (int64, bool, error) {
	return 0, false, nil
}

// DataStamp: MySQL has no cheap data version.
func (b *backend) DataStamp() any { return nil }

// catalog is what the guard learns of the server: its flavour and the
// names of the database's own functions.
type catalog struct {
	mariaDB bool
	db      string // the connection's database
	user    map[string]bool
	read    time.Time
}

func (c *catalog) MariaDB() bool                 { return c.mariaDB }
func (c *catalog) UserFunction(name string) bool { return c.user[name] }
func (c *catalog) Database() string              { return c.db }

// loadCatalog reads the names of the current database's stored functions
// and of the server's loadable functions (mysql.func, when the account may
// read it: installing one takes rights over the mysql schema anyway).
func (b *backend) loadCatalog(ctx context.Context) error {
	r := source.Door(b, b.limits)
	rows, err := r.Catalog(ctx, `SELECT LOWER(ROUTINE_NAME) FROM information_schema.ROUTINES
		WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_TYPE = 'FUNCTION'`)
	if err != nil {
		return err
	}
	user := map[string]bool{}
	for _, row := range rows {
		user[str(row[0])] = true
	}
	if rows, err := r.Catalog(ctx, "SELECT LOWER(name) FROM mysql.func"); err == nil {
		for _, row := range rows {
			user[str(row[0])] = true
		}
	}
	b.cat.Store(&catalog{mariaDB: b.mariaDB, db: b.cfg.DBName, user: user, read: time.Now()})
	return nil
}

// catalogFor returns the guard's catalog, read again when it is old.
func (b *backend) catalogFor(ctx context.Context, own bool) *catalog {
	c := b.cat.Load()
	if own || time.Since(c.read) < catalogAge {
		return c
	}
	b.catMu.Lock()
	defer b.catMu.Unlock()
	if c = b.cat.Load(); time.Since(c.read) >= catalogAge {
		if err := b.loadCatalog(ctx); err != nil {
			// The names stay as last read; the next call tries again.
			b.cat.Store(&catalog{mariaDB: c.mariaDB, db: c.db, user: c.user, read: time.Now().Add(-catalogAge / 2)})
		}
	}
	return b.cat.Load()
}

// str reads a catalog cell as text.
func str(v any) string { return source.CellText(v) }

func num(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}
