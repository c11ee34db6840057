// Package duckdb is sqlmcp's DuckDB engine: it serves a DuckDB database
// file, or a file or folder of data files (CSV/TSV, Parquet, JSON/NDJSON),
// each file a view sqlmcp makes before it locks DuckDB down.
//
// Three walls, all DuckDB's own: the guard (package guard) judges DuckDB's
// parse tree, from json_serialize_sql, and accepts one query calling
// built-in, side-effect-free functions and no file readers; the statement
// DuckDB prepares must be a SELECT or EXPLAIN; and the instance is
// sandboxed: the database is read-only, external access is off with only
// the served files allowed, extensions are neither installed nor loaded,
// memory, threads and spill files are bounded, and the configuration is
// locked so no statement can undo any of it.
//
// DuckDB's library is large (about 50 MB): only the binary and this
// package's tests link it, by listing Engine among source.Options'
// engines.
package duckdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
)

// Engine opens DuckDB files and data files. The zero value is ready, with
// the default budgets.
type Engine struct {
	// MemoryLimit is DuckDB's memory_limit for the source, as DuckDB
	// writes it ("1GB"). Default DefaultMemoryLimit.
	MemoryLimit string
	// Threads is how many threads DuckDB runs a query on. Default 2.
	Threads int
	// TempLimit bounds the spill files of one source
	// (max_temp_directory_size, "1GB"). Default DefaultTempLimit.
	TempLimit string
	// Views name the views to serve and their files, instead of a
	// folder's listing (the configuration file's list).
	Views []View
}

// The default budgets of a source.
const (
	DefaultMemoryLimit = "1GB"
	DefaultTempLimit   = "1GB"
	defaultThreads     = 2
)

// Dialect is sqlmcp.DuckDB.
func (Engine) Dialect() sqlmcp.Dialect { return sqlmcp.DuckDB }

// Claims takes duckdb: URLs, folders, files named as DuckDB databases
// (.duckdb, .ddb) or data files (.csv, .tsv, .parquet, .json, .ndjson,
// .jsonl, optionally .gz or .zst), whether or not they exist, and files
// whose first bytes are a DuckDB or Parquet file's.
func (Engine) Claims(dsn string) bool {
	if strings.HasPrefix(dsn, "duckdb:") {
		return true
	}
	if strings.Contains(dsn, "://") || strings.HasPrefix(dsn, "sqlite:") || strings.HasPrefix(dsn, "file:") {
		return false
	}
	if st, err := os.Stat(dsn); err == nil && st.IsDir() {
		return true
	}
	if isDuckDBName(dsn) || kindOf(dsn) != notData {
		return true
	}
	head := make([]byte, 12)
	f, err := os.Open(dsn)
	if err != nil {
		return false
	}
	defer f.Close()
	n, _ := f.Read(head)
	head = head[:n]
	return len(head) >= 12 && string(head[8:12]) == "DUCK" || len(head) >= 4 && string(head[:4]) == "PAR1"
}

// Forms are the forms of --db DuckDB takes.
func (Engine) Forms() []string {
	return []string{
		"FILE.duckdb or duckdb:PATH (a DuckDB database, opened read-only)",
		"FOLDER, FILE.csv, FILE.parquet, FILE.json (data files, each a view)",
	}
}

// Open opens the DuckDB database or data files dsn names, makes the views,
// locks the instance down and builds the guard from its catalog. It
// refuses allowed extensions and functions: the sandbox loads none.
func (e Engine) Open(ctx context.Context, dsn string, cfg source.Config) (source.Backend, error) {
	if len(cfg.AllowExtensions)+len(cfg.AllowFunctions) > 0 {
		return nil, errors.New("--allow-extension and --allow-function apply to PostgreSQL only")
	}
	path, err := filepath.Abs(strings.TrimPrefix(dsn, "duckdb:"))
	if err != nil {
		return nil, err
	}
	var views []served
	isDB := false
	switch {
	case len(e.Views) > 0:
		views, err = fromViews(e.Views)
	default:
		st, serr := os.Stat(path)
		switch {
		case serr != nil:
			return nil, fmt.Errorf("opening %s: %w", path, serr)
		case !st.IsDir() && (isDuckDBName(path) || kindOf(path) == notData):
			isDB = true
		default:
			views, err = discover(path)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	maxConns := cfg.MaxConns
	if maxConns <= 0 {
		maxConns = 8
	}
	lim := e.limits()
	bound, err := dataBound(lim.memory)
	if err != nil {
		return nil, err
	}
	sb, err := prepareSandbox(path, views)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	b := &backend{sb: sb, limits: cfg.Limits, workers: &workers{open: opening{
		DB: sb.db, Files: readable(views), Spill: sb.dir, Memory: lim.memory, Temp: lim.temp,
		Threads: lim.threads, Conns: maxConns, DataLimit: bound, Raw: allowRaw, Build: wireViews(views),
	}}}
	err = b.init(ctx)
	if err == nil {
		// The door's first read proves the views answer through the walls.
		_, err = source.Door(b, cfg.Limits).Catalog(ctx, "SELECT count(*) FROM duckdb_views()")
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	database, infoPath := viewName(path), ""
	if isDB {
		database, infoPath = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), path
	}
	b.info = source.Info{
		Dialect:  sqlmcp.DuckDB,
		Name:     path,
		Database: database,
		Path:     infoPath,
		// A call whose worker ended under it before any row (stopped for
		// another call's statement, or crashed) runs once more on a new
		// worker.
		Retries: 1,
		Guard: append([]string{
			"duckdb parser (json_serialize_sql): one SELECT, built-in side-effect-free functions, no file readers",
			"engine: prepared statement must be a SELECT or EXPLAIN",
		}, b.settings...),
	}
	return b, nil
}

func (e Engine) limits() limits {
	l := limits{memory: e.MemoryLimit, temp: e.TempLimit, threads: e.Threads}
	if l.memory == "" {
		l.memory = DefaultMemoryLimit
	}
	if l.temp == "" {
		l.temp = DefaultTempLimit
	}
	if l.threads <= 0 {
		l.threads = defaultThreads
	}
	return l
}

// backend is one DuckDB source: the locked instance runs in a worker
// process, the guard here.
type backend struct {
	sb      *sandbox
	workers *workers
	// settings are the locked instance's, as its first worker read them
	// back: Guard lines for the start log and sqlmcp check.
	settings []string
	// built is what the first worker made of the served files; nil for a
	// DuckDB file.
	built  *built
	limits sqlmcp.Limits
	info   source.Info
	guard  *guard.DuckDB
}

// init starts the worker and reads the catalog's functions and relations
// for the guard.
func (b *backend) init(ctx context.Context) error {
	c, err := b.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release(nil)
	cn := c.(*conn)
	b.settings, b.built = cn.w.settings, cn.w.built
	fns, err := cn.all(ctx, guard.DuckDBFunctionsSQL)
	if err != nil {
		return fmt.Errorf("listing DuckDB's functions: %w", err)
	}
	var opts guard.DuckDBOptions
	for _, r := range fns {
		f := guard.DuckDBFunction{Name: str(r[0]), Type: str(r[1]), Definition: str(r[4])}
		f.SideEffects, _ = r[2].(bool)
		f.Internal, _ = r[3].(bool)
		opts.Functions = append(opts.Functions, f)
	}
	opts.Relations, err = cn.names(ctx, "SELECT table_name FROM duckdb_tables() WHERE NOT internal UNION SELECT view_name FROM duckdb_views() WHERE NOT internal")
	if err != nil {
		return fmt.Errorf("listing tables: %w", err)
	}
	if opts.Schemas, err = cn.names(ctx, guard.DuckDBSchemasSQL); err != nil {
		return fmt.Errorf("listing schemas: %w", err)
	}
	views, err := cn.all(ctx, guard.DuckDBViewsSQL)
	if err != nil {
		return fmt.Errorf("listing DuckDB's views: %w", err)
	}
	for _, r := range views {
		opts.Views = append(opts.Views, guard.DuckDBView{Name: str(r[0]), SQL: str(r[1])})
	}
	b.guard = guard.NewDuckDB(&opts)
	// The built-in macros and views are judged by their bodies, parsed by the
	// instance.
	return b.guard.JudgeBuiltins(ctx, cn)
}

func (b *backend) Info() source.Info { return b.info }

// Restarts counts the workers that ended while serving, by why:
// "timeout" (stopped past a statement's time), "memory" (replaced to hand
// memory back, or after an allocation failed), "ended" (a crash, or a
// kill from outside).
func (b *backend) Restarts() map[string]uint64 { return b.workers.counts() }

// Close stops the worker and removes the private directory.
func (b *backend) Close() error {
	b.workers.close()
	return b.sb.Close()
}

// Quote double-quotes an identifier.
func (b *backend) Quote(name string) string { return quote(name) }

// Ready pings the instance, starting a worker when none runs.
func (b *backend) Ready(ctx context.Context) error {
	w, err := b.workers.get(ctx)
	if err != nil {
		return err
	}
	_, err = w.do(ctx, request{Op: opPing}, nil, nil)
	return err
}

// Warnings names the files left out because DuckDB could not read them.
func (b *backend) Warnings() []source.Warning {
	if b.built == nil {
		return nil
	}
	return b.built.Warnings
}

// SchemaVersion: the database is read-only and the views fixed, so the
// schema never changes while sqlmcp serves it.
func (b *backend) SchemaVersion(ctx context.Context, r source.Reader) (int64, bool, error) {
	return 1, true, nil
}

// DataStamp is nil: counts are kept as long as the schema's reading.
func (b *backend) DataStamp() any { return nil }

var _ source.Engine = Engine{}
var _ source.Backend = (*backend)(nil)
var _ source.Restarter = (*backend)(nil)

// errNotQuery is the engine's own refusal, after the guard.
var errNotQuery = &guard.Error{Reason: "only a query can run here", Hint: "Send one SELECT statement"}

// all runs one of sqlmcp's own statements, unguarded, and returns its
// rows whole.
func (c *conn) all(ctx context.Context, text string) ([][]any, error) {
	var rows [][]any
	err := c.run(ctx, request{Op: opRun, SQL: text}, source.Sink{Row: func(r []any) bool {
		rows = append(rows, r)
		return true
	}})
	return rows, err
}

// names reads the one text column of text's rows.
func (c *conn) names(ctx context.Context, text string) ([]string, error) {
	rows, err := c.all(ctx, text)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = str(r[0])
	}
	return out, err
}

// allowRaw lets the worker run unchecked statements (opRaw): set by this
// package's tests alone.
var allowRaw = false

// dataBound is the worker's data memory bound for DuckDB's memory_limit
// m ("1GB", "512MiB"): the limit, which DuckDB's buffers keep to, and a
// GiB more for what it allocates outside them (a value a function
// builds, the program's own) and the program's own memory.
func dataBound(m string) (int64, error) {
	n, err := parseSize(m)
	if err != nil {
		return 0, fmt.Errorf("DuckDB memory_limit %q: %w", m, err)
	}
	return n + 1<<30, nil
}

// parseSize reads a size as DuckDB writes one: a number and a unit, KB,
// MB, GB or TB in powers of 1000 and KiB, MiB, GiB or TiB in powers of
// 1024, or bytes.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	num, err := strconv.ParseFloat(t[:i], 64)
	if err != nil || num < 0 {
		return 0, errors.New("give a size such as 1GB or 512MiB")
	}
	units := map[string]float64{"": 1, "b": 1, "bytes": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
	u, ok := units[strings.ToLower(strings.TrimSpace(t[i:]))]
	if !ok {
		return 0, errors.New("give a size such as 1GB or 512MiB")
	}
	return int64(num * u), nil
}
