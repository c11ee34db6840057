package main

import (
	"flag"
	"io"
	"time"

	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	conf "github.com/sqlmcp/sqlmcp/config"
	transport "github.com/sqlmcp/sqlmcp/internal/serve"
	"github.com/sqlmcp/sqlmcp/source/postgres"
)

// serve's flags: the flag group that serve defines and ask passes on to
// the server it starts.

// config is what serve needs, from flags and environment.
type config struct {
	dbFlags
	configFile   string // --config: the databases and their settings, in a file
	annotations  string
	descriptions string
	schemas      string
	requireRO    bool
	allowExt     string // comma-separated
	allowFunc    string // comma-separated schema.name
	policyFile   string // --policy: the database's table and column policy
	maskKey      string // SQLMCP_MASK_KEY: the key masked values are hashed with
	limits       sqlmcp.Limits
	logLevel     string
	audit        auditFlags // --audit-*: the audit file

	// maxConcurrency is how many tool calls reach the database at once;
	// zero for no limit beyond the connection pool.
	maxConcurrency int

	// PostgreSQL's own budgets for every call, as PostgreSQL writes sizes.
	pgWorkMem, pgTempFileLimit string
	// DuckDB's budgets for a source; "" and 0 for the engine's defaults.
	duckdbMemoryLimit string
	duckdbThreads     int

	// HTTP; http == "" serves stdio and leaves the rest unused.
	http           string // host:port
	insecureNoAuth bool
	authTokenFile  string
	authTokens     string // comma-separated
	allowedOrigins string // comma-separated
	allowedHosts   string // comma-separated
	tlsCert        string
	tlsKey         string
	maxBodyBytes   int64
	shutdownGrace  time.Duration
	metricsOpen    bool

	// Traces: --otlp-endpoint, and where spans go, worked out from it and
	// the environment ("" for none).
	otlpEndpoint, tracesURL string
	otlpHeaders             map[string]string // what OTEL_EXPORTER_OTLP_HEADERS says

	// OAuth 2.1 resource server: --auth oidc.
	auth, publicURL                string
	oidcIssuer, oidcAudience       string
	oidcAlgorithms, oidcScopes     string // comma-separated
	oidcIntrospection              string
	oidcClientID, oidcClientSecret string                 // from the environment only
	oidc                           *transport.OIDCOptions // worked out by parseHTTP

	// Worked out by parseServe from the above.
	tokens    []string // the accepted bearer tokens
	origins   []string // --allowed-origins, normalized
	hosts     []string // --allowed-hosts, lowercased
	httpNotes []string // HTTP settings given without --http, to warn about
	// sources are the databases, worked out by finishServe; nil for
	// --demo, built when served (demoSource).
	sources *conf.File
}

// newFlags defines serve's flags on cfg, with their defaults.
func newFlags(cfg *config, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(out)
	cfg.dbFlags.define(fs, "the database")
	fs.StringVar(&cfg.configFile, "config", "", "a configuration file (sqlmcp.yaml) naming the databases to serve and their settings (SQLMCP_CONFIG)")
	fs.StringVar(&cfg.annotations, "annotations", "", "YAML or JSON file of table and column descriptions (SQLMCP_ANNOTATIONS)")
	fs.StringVar(&cfg.descriptions, "descriptions", "", "a folder of BIRD-style <table>.csv column descriptions (SQLMCP_DESCRIPTIONS; default: database_description beside a SQLite file)")
	fs.StringVar(&cfg.schemas, "schema", "", "PostgreSQL and MySQL: the schemas (MySQL's databases) to show, comma-separated (SQLMCP_SCHEMA; default: PostgreSQL's all but the system ones, MySQL's the URL's database)")
	fs.BoolVar(&cfg.requireRO, "require-readonly-role", false, "PostgreSQL and MySQL: refuse to start when the role could write anything (SQLMCP_REQUIRE_READONLY_ROLE)")
	fs.StringVar(&cfg.allowExt, "allow-extension", "", "PostgreSQL: extensions, comma-separated, whose non-volatile functions queries may call beyond the vetted ones; never those that run SQL text (SQLMCP_ALLOW_EXTENSION)")
	fs.StringVar(&cfg.allowFunc, "allow-function", "", "PostgreSQL: functions defined in the database, as schema.name, comma-separated, that queries may call; never those that run SQL text (SQLMCP_ALLOW_FUNCTION)")
	fs.StringVar(&cfg.policyFile, "policy", "", "a YAML file of the database's table and column policy: tables and columns the model may not see, columns it sees only masked (SQLMCP_POLICY; with --config, a source's policy: key)")
	fs.DurationVar(&cfg.limits.Timeout, "timeout", 15*time.Second, "stop any query after this long, inside the engine (SQLMCP_TIMEOUT)")
	fs.IntVar(&cfg.limits.MaxRows, "max-rows", 100, "rows a query returns unless the caller asks for fewer or more (SQLMCP_MAX_ROWS)")
	fs.IntVar(&cfg.limits.MaxRowsLimit, "max-rows-limit", 1000, "the most rows a caller may ask for (SQLMCP_MAX_ROWS_LIMIT)")
	fs.IntVar(&cfg.limits.MaxBytes, "max-bytes", 256<<10, "the most bytes of rows a result holds, as JSON (SQLMCP_MAX_BYTES)")
	fs.IntVar(&cfg.limits.MaxCellBytes, "max-cell-bytes", 2<<10, "text values longer than this are cut, with a marker (SQLMCP_MAX_CELL_BYTES)")
	fs.StringVar(&cfg.logLevel, "log-level", "info", "debug, info, warn or error; logs go to stderr as JSON (SQLMCP_LOG_LEVEL)")
	cfg.audit.define(fs)
	fs.IntVar(&cfg.maxConcurrency, "max-concurrency", 8, "tool calls that reach the database at once; the rest wait up to --timeout, then are told the server is busy; 0 for no limit (SQLMCP_MAX_CONCURRENCY)")
	fs.StringVar(&cfg.pgWorkMem, "pg-work-mem", postgres.DefaultWorkMem, "PostgreSQL: work_mem for every call, the memory each sort or hash may take before it spills to disk (SQLMCP_PG_WORK_MEM)")
	fs.StringVar(&cfg.pgTempFileLimit, "pg-temp-file-limit", postgres.DefaultTempFileLimit, "PostgreSQL: temp_file_limit for every call, the temporary disk each process may write, when the role may set it (else a warning says how); -1 for none (SQLMCP_PG_TEMP_FILE_LIMIT)")
	fs.StringVar(&cfg.duckdbMemoryLimit, "duckdb-memory-limit", "", "DuckDB: memory_limit of each DuckDB source, as DuckDB writes sizes (512MB, 2GB); a query needing more is refused (SQLMCP_DUCKDB_MEMORY_LIMIT; default 1GB)")
	fs.IntVar(&cfg.duckdbThreads, "duckdb-threads", 0, "DuckDB: threads each DuckDB source runs a query on (SQLMCP_DUCKDB_THREADS; default 2)")
	fs.StringVar(&cfg.http, "http", "", "serve MCP over streamable HTTP at /mcp on this host:port, usually 127.0.0.1:8080, instead of stdio (SQLMCP_HTTP)")
	fs.StringVar(&cfg.authTokenFile, "auth-token-file", "", "HTTP: a file of bearer tokens clients must send, one per line; blank lines and # comments are skipped (SQLMCP_AUTH_TOKEN_FILE)")
	fs.StringVar(&cfg.authTokens, "auth-tokens", "", "HTTP: bearer tokens, comma-separated; prefer the environment variable or --auth-token-file, since a flag's value shows in ps (SQLMCP_AUTH_TOKENS)")
	fs.BoolVar(&cfg.insecureNoAuth, "insecure-no-auth", false, "HTTP: serve a non-loopback address without tokens, because something in front authenticates (SQLMCP_INSECURE_NO_AUTH)")
	fs.StringVar(&cfg.allowedOrigins, "allowed-origins", "", "HTTP: browser origins allowed besides this server's own, comma-separated, e.g. https://app.example.com (SQLMCP_ALLOWED_ORIGINS)")
	fs.StringVar(&cfg.allowedHosts, "allowed-hosts", "", "HTTP: Host header names allowed besides loopback and the bind address, comma-separated, name or name:port; * allows any (SQLMCP_ALLOWED_HOSTS)")
	fs.StringVar(&cfg.tlsCert, "tls-cert", "", "HTTP: serve HTTPS with this PEM certificate chain; needs --tls-key (SQLMCP_TLS_CERT)")
	fs.StringVar(&cfg.tlsKey, "tls-key", "", "HTTP: the PEM private key of --tls-cert (SQLMCP_TLS_KEY)")
	fs.StringVar(&cfg.auth, "auth", "", "HTTP: how callers prove who they are: tokens (the listed bearer tokens; the default when any is given) or oidc (access tokens from --oidc-issuer) (SQLMCP_AUTH)")
	fs.StringVar(&cfg.publicURL, "public-url", "", "HTTP: the URL clients reach this server at, like https://sqlmcp.example.com; --auth oidc's resource identifier is it with /mcp (SQLMCP_PUBLIC_URL; default: made of --http)")
	fs.StringVar(&cfg.oidcIssuer, "oidc-issuer", "", "--auth oidc: the issuer's URL exactly as its tokens' iss claim writes it (SQLMCP_OIDC_ISSUER)")
	fs.StringVar(&cfg.oidcAudience, "oidc-audience", "", "--auth oidc: the aud values a token must hold one of, comma-separated (SQLMCP_OIDC_AUDIENCE; default: the resource identifier, --public-url/mcp)")
	fs.StringVar(&cfg.oidcAlgorithms, "oidc-algorithms", "RS256,ES256", "--auth oidc: the signing algorithms accepted, comma-separated, among RS*, PS*, ES* and EdDSA; never none or HS* (SQLMCP_OIDC_ALGORITHMS)")
	fs.StringVar(&cfg.oidcScopes, "oidc-scopes", "", "--auth oidc: scopes to advertise to clients in the protected resource metadata, comma-separated (SQLMCP_OIDC_SCOPES)")
	fs.StringVar(&cfg.oidcIntrospection, "oidc-introspection-url", "", "--auth oidc: the issuer's RFC 7662 endpoint for opaque (non-JWT) tokens, asked as SQLMCP_OIDC_CLIENT_ID with SQLMCP_OIDC_CLIENT_SECRET (SQLMCP_OIDC_INTROSPECTION_URL)")
	fs.Int64Var(&cfg.maxBodyBytes, "max-body-bytes", 1<<20, "HTTP: the largest request body; larger gets 413 (SQLMCP_MAX_BODY_BYTES)")
	fs.DurationVar(&cfg.shutdownGrace, "shutdown-grace", 10*time.Second, "HTTP: on SIGTERM or SIGINT, how long calls in flight may finish before they are cancelled (SQLMCP_SHUTDOWN_GRACE)")
	defineObserve(fs, cfg)
	return fs
}

// check says what is wrong with serve's settings, before anything starts,
// but for the databases (see finishServe).
func (cfg *config) check() error {
	l := cfg.limits
	switch {
	case l.Timeout <= 0:
		return usagef("--timeout must be positive, not %s", l.Timeout)
	case l.MaxRows <= 0 || l.MaxRowsLimit <= 0 || l.MaxBytes <= 0 || l.MaxCellBytes <= 0:
		return usagef("--max-rows, --max-rows-limit, --max-bytes and --max-cell-bytes must be positive")
	case l.MaxRows > l.MaxRowsLimit:
		return usagef("--max-rows %d is more than --max-rows-limit %d", l.MaxRows, l.MaxRowsLimit)
	}
	if _, err := zerolog.ParseLevel(cfg.logLevel); err != nil || cfg.logLevel == "" {
		return usagef("--log-level %q: use debug, info, warn or error", cfg.logLevel)
	}
	if err := cfg.audit.check(); err != nil {
		return err
	}
	if cfg.duckdbMemoryLimit != "" && !conf.ValidSize(cfg.duckdbMemoryLimit) {
		return usagef("--duckdb-memory-limit %q is not a size as DuckDB writes it: write 512MB, 1GB or 2GiB", cfg.duckdbMemoryLimit)
	}
	if cfg.duckdbThreads < 0 {
		return usagef("--duckdb-threads must be 1 or more, not %d", cfg.duckdbThreads)
	}
	if cfg.maxConcurrency < 0 {
		return usagef("--max-concurrency must be 0 (no limit) or more, not %d", cfg.maxConcurrency)
	}
	return nil
}

// authenticates reports whether the HTTP server proves its callers'
// identities, which identity rules need.
func (cfg *config) authenticates() bool {
	return cfg.authTokenFile != "" || cfg.authTokens != "" || cfg.auth == "oidc"
}
