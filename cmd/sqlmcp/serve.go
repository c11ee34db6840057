package main

import (
	"context"
	"flag"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/identity"
	"github.com/sqlmcp/sqlmcp/internal/rawio"
	transport "github.com/sqlmcp/sqlmcp/internal/serve"
	"github.com/sqlmcp/sqlmcp/internal/telemetry"
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
	if err := finishServe(cfg, fs, getenv); err != nil {
		return nil, err
	}
	return cfg, nil
}

// finishServe checks cfg, parsed into fs, and works out its databases:
// the flags' values first, then the databases (whose configuration file
// may set server-wide flags the command line and environment left
// unset), then the HTTP settings.
func finishServe(cfg *config, fs *flag.FlagSet, getenv func(string) string) error {
	if err := cfg.check(); err != nil {
		return err
	}
	var err error
	if cfg.sources, err = loadSources(cfg, fs, getenv); err != nil {
		return err
	}
	if _, err := zerolog.ParseLevel(cfg.logLevel); err != nil || cfg.logLevel == "" {
		return usagef("log_level %q: use debug, info, warn or error", cfg.logLevel)
	}
	cfg.oidcClientID, cfg.oidcClientSecret = getenv("SQLMCP_OIDC_CLIENT_ID"), getenv("SQLMCP_OIDC_CLIENT_SECRET")
	if cfg.tracesURL = tracesURL(cfg.otlpEndpoint, getenv); cfg.tracesURL != "" {
		if err := telemetry.CheckURL(cfg.tracesURL); err != nil {
			return usageError{err}
		}
		if cfg.otlpHeaders, err = otlpHeaders(getenv); err != nil {
			return err
		}
	}
	return parseHTTP(cfg)
}

// serve opens the databases and serves MCP on stdin and stdout, or on
// HTTP with --http.
func serve(ctx context.Context, cfg *config, stdin io.Reader, stdout, stderr io.Writer) error {
	if n := servingProcs(cfg.http, os.Getenv("GOMAXPROCS")); n > 0 && ownProcess {
		runtime.GOMAXPROCS(n)
	}
	level, _ := zerolog.ParseLevel(cfg.logLevel)
	if f, ok := stderr.(*os.File); ok {
		stderr = rawio.LogWriter(f)
	}
	log := zerolog.New(stderr).Level(level).With().Timestamp().Logger()

	set, err := startSources(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer set.Close()
	// Reading the catalogs left garbage many times the size of what they
	// keep: collect it and give its pages back once the reads Start did
	// not wait for are done, rather than keep them resident until the
	// next collection. Once, then: with a collection beside the
	// handshake too, start to the first tools/list took 6-19 ms longer
	// here (medians of three rounds).
	go func() {
		set.Settled(ctx)
		debug.FreeOSMemory()
	}()
	srcs := set.Sources()
	// Opened before serving, closed after the last call ends: its final
	// fsync comes after the HTTP server's shutdown grace.
	af, err := cfg.audit.open(log)
	if err != nil {
		return err
	}
	var auditTo io.Writer // nil, not a nil *audit.File, without one
	if af != nil {
		defer af.Close()
		auditTo = af
	}
	var limits sqlmcp.Limits // the longest timeout, for stdio's wait
	for _, src := range srcs {
		if l := src.Config.Limits.WithDefaults(); l.Timeout > limits.Timeout {
			limits = l
		}
	}
	start := func() *zerolog.Event {
		e := log.Info().Str("event", "start").Str("version", buildVersion()).Int("procs", runtime.GOMAXPROCS(0)).
			Bool("demo", cfg.demo).Bool("traces", cfg.tracesURL != "")
		if af != nil {
			e = e.Str("audit_file", af.Path()).Str("audit", cfg.audit.describe())
		}
		if len(srcs) > 1 {
			return e.Strs("databases", set.Names())
		}
		src, r := srcs[0].Config, srcs[0].Report()
		l := src.Limits.WithDefaults()
		e = e.Str("engine", string(r.Engine)).Str("database", r.Database).
			Str("annotations", src.Annotations).Strs("schemas", src.Schemas).Strs("guard", r.Guard)
		if r.Role != "" {
			e = e.Str("role", r.Role)
		}
		return e.Int("tables", r.Tables).
			Float64("timeout_ms", float64(l.Timeout.Milliseconds())).Int("max_rows", l.MaxRows).Int("max_rows_limit", l.MaxRowsLimit).
			Int("max_bytes", l.MaxBytes).Int("max_cell_bytes", l.MaxCellBytes).
			Int("max_concurrency", src.MaxConcurrency)
	}

	var rules identity.Rules
	if cfg.sources != nil {
		rules = cfg.sources.Identities
	}
	if len(rules) > 0 && cfg.http != "" && !cfg.authenticates() {
		return usagef("identities: the rules match callers' identities, and this server proves none: give --auth-token-file (with names) or --auth oidc")
	}
	tel, err := startTelemetry(cfg, set, log)
	if err != nil {
		return err
	}
	defer stopTelemetry(ctx, tel, log)
	calls := new(tools.Calls)
	srv := tools.NewServerSet(set, &tools.Options{Logger: log, Version: buildVersion(), Rules: rules, Audit: auditTo, Observer: tel.Observer(), Calls: calls})
	var direct transport.Calls = calls // tools/call without the SDK's dispatch
	if mw := tel.Middleware(); mw != nil {
		// Every call goes through the SDK, whose middleware makes its span.
		srv.AddReceivingMiddleware(mw)
		direct = nil
	}
	if cfg.http != "" {
		return serveHTTP(ctx, cfg, set.Ready, srv, direct, tel.Handler(), log, stderr, start)
	}
	if len(cfg.httpNotes) > 0 {
		log.Warn().Str("event", "ignored").Strs("settings", cfg.httpNotes).Msg("these settings are for --http and do nothing on stdio")
	}
	start().Str("transport", "stdio").Send()
	if err := serveStdio(ctx, srv, direct, stdin, stdout, limits.Timeout); err != nil {
		return err
	}
	log.Info().Str("event", "stop").Send()
	return nil
}

// servingProcs is how many threads serve lets run Go code at once (0: as
// the runtime chose): one over stdio, unless GOMAXPROCS says otherwise.
// One client sends the calls, which spend their time waiting on the
// database: with a second thread the runtime wakes it, and lets it spin,
// at every call's events. With one, the p50 of sequential calls was 6%
// lower on PostgreSQL and about 25% lower on SQLite here, with 8-25% less
// CPU per call (bench/ab, medians of seven rounds); start-up was
// unchanged. A database's own work (cgo for SQLite and DuckDB, a server
// for the others) runs beside it regardless. HTTP keeps every CPU: there,
// one thread cut the CPU per call by a fifth but also the calls/s by
// 7-14% at 8 and 32 clients.
func servingProcs(http, env string) int {
	if http != "" || env != "" {
		return 0
	}
	return 1
}
