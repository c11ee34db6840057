package main

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/rawio"
	transport "github.com/sqlmcp/sqlmcp/internal/serve"
	"github.com/sqlmcp/sqlmcp/sources"
)

// parseHTTP checks the --http settings and works out the tokens and
// allowlists. Without --http it only notes which HTTP settings were given.
func parseHTTP(cfg *config) error {
	if cfg.http == "" {
		for _, s := range []struct {
			name string
			set  bool
		}{
			{"--auth-token-file", cfg.authTokenFile != ""}, {"--auth-tokens", cfg.authTokens != ""},
			{"--insecure-no-auth", cfg.insecureNoAuth}, {"--allowed-origins", cfg.allowedOrigins != ""},
			{"--allowed-hosts", cfg.allowedHosts != ""}, {"--tls-cert", cfg.tlsCert != ""}, {"--tls-key", cfg.tlsKey != ""},
			{"--auth", cfg.auth != ""}, {"--public-url", cfg.publicURL != ""}, {"--oidc-issuer", cfg.oidcIssuer != ""},
			{"--metrics-open", cfg.metricsOpen},
		} {
			if s.set {
				cfg.httpNotes = append(cfg.httpNotes, s.name)
			}
		}
		return nil
	}
	host, port, err := net.SplitHostPort(cfg.http)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return usagef("--http %q is not host:port; 127.0.0.1:8080 serves this machine only", cfg.http)
	}
	switch {
	case (cfg.tlsCert == "") != (cfg.tlsKey == ""):
		return usagef("give --tls-cert and --tls-key together, or neither")
	case cfg.maxBodyBytes <= 0:
		return usagef("--max-body-bytes must be positive, not %d", cfg.maxBodyBytes)
	case cfg.shutdownGrace < 0:
		return usagef("--shutdown-grace must not be negative, not %s", cfg.shutdownGrace)
	}
	if cfg.tokens, err = loadTokens(cfg.authTokenFile, cfg.authTokens); err != nil {
		return err
	}
	if err := parseOIDC(cfg, host); err != nil {
		return err
	}
	switch {
	case len(cfg.tokens) > 0 && cfg.insecureNoAuth:
		return usagef("--insecure-no-auth and bearer tokens contradict each other: drop one")
	case cfg.auth == "tokens" && len(cfg.tokens) == 0:
		return usagef("--auth tokens needs tokens: give --auth-token-file or SQLMCP_AUTH_TOKENS")
	case len(cfg.tokens) == 0 && cfg.oidc == nil && !cfg.insecureNoAuth && !transport.IsLoopback(host):
		return usagef("--http %s is reachable from other machines and no bearer token is set: give --auth-token-file or SQLMCP_AUTH_TOKENS, "+
			"or --auth oidc with --oidc-issuer, bind 127.0.0.1, or pass --insecure-no-auth if something in front of sqlmcp authenticates", cfg.http)
	}
	for _, o := range splitList(cfg.allowedOrigins) {
		n, ok := transport.ParseOrigin(o)
		if !ok {
			return usagef("--allowed-origins: %q is not an origin like https://app.example.com (scheme, host and optional port, no path)", o)
		}
		cfg.origins = append(cfg.origins, n)
	}
	for _, h := range splitList(cfg.allowedHosts) {
		n, ok := transport.ParseHost(h)
		if !ok {
			return usagef("--allowed-hosts: %q is not a host name, host:port or *", h)
		}
		cfg.hosts = append(cfg.hosts, n)
	}
	return nil
}

// parseOIDC checks the --auth oidc settings and works out cfg.oidc;
// without --auth oidc it refuses the settings that need it.
func parseOIDC(cfg *config, host string) error {
	if cfg.publicURL != "" {
		if _, err := transport.ParsePublicURL(cfg.publicURL); err != nil {
			return usagef("--public-url: %v", err)
		}
	}
	switch cfg.auth {
	case "", "tokens":
		if cfg.oidcIssuer != "" || cfg.oidcAudience != "" || cfg.oidcScopes != "" || cfg.oidcIntrospection != "" {
			return usagef("the --oidc-* settings need --auth oidc")
		}
		return nil
	case "oidc":
	default:
		return usagef("--auth %q: use tokens (the listed bearer tokens) or oidc (access tokens from --oidc-issuer)", cfg.auth)
	}
	switch ip, err := netip.ParseAddr(host); {
	case len(cfg.tokens) > 0:
		return usagef("--auth oidc and listed bearer tokens (--auth-token-file, SQLMCP_AUTH_TOKENS) exclude each other: a shared token would bypass the issuer; drop the tokens")
	case cfg.insecureNoAuth:
		return usagef("--auth oidc and --insecure-no-auth contradict each other: drop one")
	case cfg.oidcIssuer == "":
		return usagef("--auth oidc needs --oidc-issuer, the issuer's URL, like https://login.example.com/realms/main")
	case cfg.publicURL == "" && (host == "" || err == nil && ip.IsUnspecified()):
		return usagef("--auth oidc on --http %s needs --public-url, the URL clients reach this server at: tokens are issued for it", cfg.http)
	case cfg.oidcIntrospection != "" && (cfg.oidcClientID == "" || cfg.oidcClientSecret == ""):
		return usagef("--oidc-introspection-url needs SQLMCP_OIDC_CLIENT_ID and SQLMCP_OIDC_CLIENT_SECRET, the client this server introspects as")
	}
	cfg.oidc = &transport.OIDCOptions{
		Issuer: cfg.oidcIssuer, Audiences: splitList(cfg.oidcAudience), Algorithms: splitList(cfg.oidcAlgorithms),
		Scopes: splitList(cfg.oidcScopes), IntrospectionURL: cfg.oidcIntrospection,
		ClientID: cfg.oidcClientID, ClientSecret: cfg.oidcClientSecret,
	}
	return nil
}

// loadTokens reads the bearer tokens from file (one per line, blank lines
// and # comments skipped) and list (comma-separated), each TOKEN or
// NAME: TOKEN, refusing short ones and a file that holds none.
func loadTokens(file, list string) ([]string, error) {
	var tokens []string
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, usagef("reading --auth-token-file: %v", err)
		}
		for line := range strings.Lines(string(b)) {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				tokens = append(tokens, line)
			}
		}
		if len(tokens) == 0 {
			return nil, usagef("--auth-token-file %s holds no token: write one per line (blank lines and # comments are skipped), e.g. from openssl rand -hex 32", file)
		}
	}
	tokens = append(tokens, splitList(list)...)
	for _, t := range tokens {
		if _, _, err := transport.ParseToken(t); err != nil {
			return nil, usageError{err}
		}
	}
	return tokens, nil
}

// splitList splits a comma-separated setting, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// serveHTTP serves srv over HTTP as cfg says, until ctx ends.
func serveHTTP(ctx context.Context, cfg *config, ready func(context.Context) (string, error), srv *mcp.Server, calls transport.Calls, metrics http.Handler, log zerolog.Logger, logOut io.Writer, start func() *zerolog.Event) error {
	var tlsConfig *tls.Config
	if cfg.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.tlsCert, cfg.tlsKey)
		if err != nil {
			return usagef("loading --tls-cert and --tls-key: %v", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	err := transport.HTTP(ctx, srv, &transport.HTTPOptions{
		Addr: cfg.http, Tokens: cfg.tokens, OIDC: cfg.oidc, PublicURL: cfg.publicURL, Hosts: cfg.hosts, Origins: cfg.origins, TLS: tlsConfig,
		MaxBodyBytes: cfg.maxBodyBytes, ShutdownGrace: cfg.shutdownGrace,
		Ready: readiness(ready, log), Logger: log, LogOutput: logOut, Start: start, Metrics: metrics, MetricsOpen: cfg.metricsOpen, Calls: calls,
	})
	if errors.As(err, new(*net.OpError)) {
		return usageError{err}
	}
	return err
}

// readiness is /readyz's check, ready's, with the reason a database did
// not answer going to the log, not to whoever probes.
func readiness(ready func(context.Context) (string, error), log zerolog.Logger) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		note, err := ready(ctx)
		if na := new(sources.NotAnsweringError); errors.As(err, &na) {
			log.Warn().Str("event", "not_ready").Str("error", na.Err.Error()).Send()
		}
		return note, err
	}
}

// serveStdio serves srv on stdin and stdout. A client that hangs up at
// once still gets every reply: a call may wait the timeout for its turn,
// then run for the timeout.
//
// A pipe or socket is read and written with raw system calls (see rawio):
// on a trivial call that is about a tenth less CPU.
func serveStdio(ctx context.Context, srv *mcp.Server, calls transport.Calls, stdin io.Reader, stdout io.Writer, timeout time.Duration) error {
	if f, ok := stdin.(*os.File); ok {
		if r := rawio.OpenFile(f); r != nil {
			defer r.Close()
			stdin = r
		}
	}
	if f, ok := stdout.(*os.File); ok {
		if w := rawio.OpenFile(f); w != nil {
			defer w.Close()
			stdout = w
		}
	}
	return transport.StdioCalls(ctx, srv, calls, stdin, stdout, 2*timeout+5*time.Second)
}
