package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/demo"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/builtin"
	"github.com/sqlmcp/sqlmcp/source/postgres"
	"github.com/sqlmcp/sqlmcp/tools"
)

// parseServe reads serve's environment, then its flags, and checks them.
// It returns a nil config and no error when -help was asked for.
func parseServe(args []string, stdout io.Writer, getenv func(string) string) (*config, error) {
	cfg := &config{}
	fs := newFlags(cfg, io.Discard)
	if ok, err := parseArgs(fs, args, stdout, usage, "sqlmcp help", getenv); !ok {
		return nil, err
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := parseHTTP(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// serve opens the database and serves MCP on stdin and stdout, or on HTTP
// with --http.
func serve(ctx context.Context, cfg *config, stdin io.Reader, stdout, stderr io.Writer) error {
	level, _ := zerolog.ParseLevel(cfg.logLevel)
	log := zerolog.New(stderr).Level(level).With().Timestamp().Logger()

	dsn, annotations := cfg.db, cfg.annotations
	if cfg.demo {
		dir, err := cfg.demoDir()
		if err != nil {
			return err
		}
		path, err := demo.Open(dir)
		if err != nil {
			return fmt.Errorf("building the demo database: %w", err)
		}
		// Building the demo on first use takes heap an idle server never
		// needs again: hand it back now, not minutes from now.
		debug.FreeOSMemory()
		dsn = path
		if annotations == "" {
			annotations = filepath.Join(filepath.Dir(path), "annotations.json")
		}
	}
	// Room for every allowed call plus the catalog and /readyz.
	db, err := source.Open(ctx, dsn, &source.Options{Limits: cfg.limits, MaxConns: max(8, cfg.maxConcurrency+2),
		AllowExtensions: splitList(cfg.allowExt), AllowFunctions: splitList(cfg.allowFunc),
		Engines: builtin.Engines(&postgres.Engine{WorkMem: cfg.pgWorkMem, TempFileLimit: cfg.pgTempFileLimit})})
	if err != nil {
		return usageError{err}
	}
	defer db.Close()
	schemas := splitList(cfg.schemas)
	if len(schemas) > 0 && db.Dialect() != sqlmcp.Postgres {
		return usagef("--schema is for PostgreSQL; a SQLite database has one schema")
	}
	cat, err := schema.New(db, &schema.Options{Annotations: annotations, Descriptions: cfg.descriptions, Schemas: schemas})
	if err != nil {
		return usageError{err}
	}
	cctx, cancel := context.WithTimeout(ctx, cfg.limits.WithDefaults().Timeout)
	err = cat.Check(cctx)
	cancel()
	if err != nil {
		return usageError{err}
	}
	if err := checkRole(ctx, db, cfg.requireRO, log); err != nil {
		return err
	}
	for _, w := range db.Warnings() {
		log.Warn().Str("event", w.Event).Msg(w.Message)
	}
	limits := db.Limits()
	layers := db.Guard()
	start := func() *zerolog.Event {
		return log.Info().Str("event", "start").Str("version", buildVersion()).
			Str("engine", string(db.Dialect())).Str("database", db.Name()).Bool("demo", cfg.demo).
			Str("annotations", annotations).Strs("schemas", schemas).
			Strs("guard", layers).
			Float64("timeout_ms", float64(limits.Timeout.Milliseconds())).Int("max_rows", limits.MaxRows).Int("max_rows_limit", limits.MaxRowsLimit).
			Int("max_bytes", limits.MaxBytes).Int("max_cell_bytes", limits.MaxCellBytes).
			Int("max_concurrency", cfg.maxConcurrency)
	}

	srv := tools.NewServer(db, cat, &tools.Options{Logger: log, Version: buildVersion(), MaxConcurrency: cfg.maxConcurrency})
	if cfg.http != "" {
		return serveHTTP(ctx, cfg, db, srv, log, start)
	}
	if len(cfg.httpNotes) > 0 {
		log.Warn().Str("event", "ignored").Strs("settings", cfg.httpNotes).Msg("these settings are for --http and do nothing on stdio")
	}
	start().Str("transport", "stdio").Send()
	if err := serveStdio(ctx, srv, stdin, stdout, limits.Timeout); err != nil {
		return err
	}
	log.Info().Str("event", "stop").Send()
	return nil
}

// checkRole warns, loudly, when a server's role could write, and with
// --require-readonly-role refuses to start.
func checkRole(ctx context.Context, db *source.DB, require bool, log zerolog.Logger) error {
	if db.Dialect() == sqlmcp.SQLite {
		return nil
	}
	found, err := db.WriteAccess(ctx)
	if err != nil {
		return fmt.Errorf("checking what the role may write: %w", err)
	}
	if len(found) == 0 {
		log.Info().Str("event", "role").Str("role", "read-only").Send()
		return nil
	}
	fix := db.ReadOnlyRoleSQL("sqlmcp_ro")
	if require {
		return usagef("--require-readonly-role: the role could write (%s); connect as a read-only role, e.g. one made by:\n%s",
			strings.Join(found, "; "), fix)
	}
	log.Warn().Str("event", "role").Strs("could_write", found).Str("create_read_only_role", fix).
		Msg("this role could write: sqlmcp's guard and read-only transactions still stop every write, but connect as a read-only role so a third wall holds")
	return nil
}
