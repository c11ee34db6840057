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
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

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
	sb, err := openSandbox(ctx, path, views, e.limits(), maxConns)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	b := &backend{sb: sb, limits: cfg.Limits, views: views, left: source.NewLeft(0, nil)}
	err = b.init(ctx)
	if err == nil {
		// The door's first read proves the views answer through the walls.
		_, err = source.Door(b, cfg.Limits).Catalog(ctx, "SELECT count(*) FROM duckdb_views()")
	}
	if err != nil {
		sb.Close()
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
		Guard: append([]string{
			"duckdb parser (json_serialize_sql): one SELECT, built-in side-effect-free functions, no file readers",
			"engine: prepared statement must be a SELECT or EXPLAIN",
		}, sb.settings...),
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

// backend is one locked DuckDB instance.
type backend struct {
	sb     *sandbox
	limits sqlmcp.Limits
	views  []served
	info   source.Info
	guard  *guard.DuckDB
	left   *source.Left // statements given up on that DuckDB still runs, by gaveUp's count
	gaveUp atomic.Uint64
}

// init reads the catalog's functions and relations for the guard.
func (b *backend) init(ctx context.Context) error {
	fns, err := b.sb.db.QueryContext(ctx, guard.DuckDBFunctionsSQL)
	if err != nil {
		return fmt.Errorf("listing DuckDB's functions: %w", err)
	}
	var opts guard.DuckDBOptions
	for fns.Next() {
		var f guard.DuckDBFunction
		if err := fns.Scan(&f.Name, &f.Type, &f.SideEffects, &f.Internal, &f.Definition); err != nil {
			fns.Close()
			return err
		}
		opts.Functions = append(opts.Functions, f)
	}
	if err := fns.Close(); err != nil {
		return err
	}
	opts.Relations, err = names(ctx, b.sb.db, "SELECT table_name FROM duckdb_tables() WHERE NOT internal UNION SELECT view_name FROM duckdb_views() WHERE NOT internal")
	if err != nil {
		return fmt.Errorf("listing tables: %w", err)
	}
	if opts.Schemas, err = names(ctx, b.sb.db, guard.DuckDBSchemasSQL); err != nil {
		return fmt.Errorf("listing schemas: %w", err)
	}
	b.guard = guard.NewDuckDB(&opts)
	// The built-in macros are judged by their bodies, parsed on a
	// connection of the instance.
	c, err := b.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release(nil)
	return b.guard.JudgeMacros(ctx, c.(*conn))
}

func (b *backend) Info() source.Info { return b.info }

func (b *backend) Close() error { return b.sb.Close() }

// Quote double-quotes an identifier.
func (b *backend) Quote(name string) string { return quote(name) }

// Ready runs SELECT 1 on a connection of the instance.
func (b *backend) Ready(ctx context.Context) error {
	return b.sb.db.PingContext(ctx)
}

// Warnings names the files left out because DuckDB could not read them.
func (b *backend) Warnings() []source.Warning { return b.sb.warnings }

// SchemaVersion: the database is read-only and the views fixed, so the
// schema never changes while sqlmcp serves it.
func (b *backend) SchemaVersion(ctx context.Context, r source.Reader) (int64, bool, error) {
	return 1, true, nil
}

// DataStamp is nil: counts are kept as long as the schema's reading.
func (b *backend) DataStamp() any { return nil }

var _ source.Engine = Engine{}
var _ source.Backend = (*backend)(nil)

// errNotQuery is the engine's own refusal, after the guard.
var errNotQuery = &guard.Error{Reason: "only a query can run here", Hint: "Send one SELECT statement"}

// names reads the one text column of query's rows.
func names(ctx context.Context, db *sql.DB, query string) ([]string, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}
