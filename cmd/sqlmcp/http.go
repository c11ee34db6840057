package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/source"
)

// HTTP timeouts that are not worth a flag.
const (
	readHeaderTimeout = 10 * time.Second  // slow-header clients are dropped
	readBodyTimeout   = 30 * time.Second  // and so are slow-body ones
	idleTimeout       = 120 * time.Second // keep-alive connections between requests
	cancelWait        = 5 * time.Second   // after the grace, for cancelled calls to answer
	minTokenLength    = 16
)

// token is a bearer token as sqlmcp keeps it: its SHA-256 digest, never
// the text.
type token struct {
	digest      [sha256.Size]byte
	fingerprint string // the first 8 hex digits of the digest, for logs
}

func newToken(s string) token {
	d := sha256.Sum256([]byte(s))
	return token{digest: d, fingerprint: hex.EncodeToString(d[:4])}
}

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
	switch {
	case len(cfg.tokens) > 0 && cfg.insecureNoAuth:
		return usagef("--insecure-no-auth and bearer tokens contradict each other: drop one")
	case len(cfg.tokens) == 0 && !cfg.insecureNoAuth && !isLoopback(host):
		return usagef("--http %s is reachable from other machines and no bearer token is set: give --auth-token-file or SQLMCP_AUTH_TOKENS, "+
			"bind 127.0.0.1, or pass --insecure-no-auth if something in front of sqlmcp authenticates", cfg.http)
	}
	for _, o := range splitList(cfg.allowedOrigins) {
		n, ok := normalizeOrigin(o)
		if !ok {
			return usagef("--allowed-origins: %q is not an origin like https://app.example.com (scheme, host and optional port, no path)", o)
		}
		cfg.origins = append(cfg.origins, n)
	}
	for _, h := range splitList(cfg.allowedHosts) {
		n, ok := normalizeHost(h)
		if !ok {
			return usagef("--allowed-hosts: %q is not a host name, host:port or *", h)
		}
		cfg.hosts = append(cfg.hosts, n)
	}
	return nil
}

// loadTokens reads the bearer tokens from file (one per line, blank lines
// and # comments skipped) and list (comma-separated), refusing short ones.
func loadTokens(file, list string) ([]token, error) {
	var raw []string
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, usagef("reading --auth-token-file: %v", err)
		}
		for line := range strings.Lines(string(b)) {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				raw = append(raw, line)
			}
		}
	}
	raw = append(raw, splitList(list)...)
	var tokens []token
	for _, s := range raw {
		t := newToken(s)
		if len(s) < minTokenLength {
			return nil, usagef("bearer token %s (fingerprint) has %d characters; use at least %d, e.g. from openssl rand -hex 32",
				t.fingerprint, len(s), minTokenLength)
		}
		if strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r > '~' }) {
			return nil, usagef("bearer token %s (fingerprint) holds a space, control or non-ASCII character, which cannot travel in an Authorization header", t.fingerprint)
		}
		if !slices.ContainsFunc(tokens, func(u token) bool { return u.digest == t.digest }) {
			tokens = append(tokens, t)
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

// isLoopback reports whether a --http host stays on this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// normalizeOrigin turns a browser origin into scheme://host:port,
// lowercased, with the port explicit.
func normalizeOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), true
}

// normalizeHost turns an --allowed-hosts entry into a lowercased name
// (any port), host:port, or *.
func normalizeHost(s string) (string, bool) {
	s = strings.ToLower(s)
	if s == "*" {
		return s, true
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		return strings.Trim(s, "[]"), true
	}
	if !strings.Contains(s, ":") {
		return s, !strings.ContainsAny(s, "/@ ")
	}
	host, port, err := net.SplitHostPort(s)
	if _, perr := strconv.Atoi(port); err != nil || perr != nil || host == "" {
		return "", false
	}
	return net.JoinHostPort(host, port), true
}

// allowlist says which Host and Origin headers /mcp answers: the defence
// against DNS rebinding, where a web page on a name the attacker controls
// reaches a server on this machine.
type allowlist struct {
	anyHost bool
	names   map[string]bool // host names allowed with any port
	exact   map[string]bool // host:port pairs
	origins map[string]bool // scheme://host:port
}

// newAllowlist builds the allowlist for a server bound to bindHost and
// listening on port: the loopback names and the bind host (any port, so
// port forwarding works), the origins of those names on this port (same
// origin), and the extra hosts and origins given.
func newAllowlist(bindHost, port string, tls bool, hosts, origins []string) *allowlist {
	a := &allowlist{names: map[string]bool{}, exact: map[string]bool{}, origins: map[string]bool{}}
	local := []string{"localhost", "127.0.0.1", "::1"}
	if ip, err := netip.ParseAddr(bindHost); bindHost != "" && (err != nil || !ip.IsUnspecified()) {
		local = append(local, strings.ToLower(bindHost))
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	for _, name := range local {
		a.names[name] = true
		a.origins[scheme+"://"+net.JoinHostPort(name, port)] = true
	}
	for _, h := range hosts {
		if _, _, err := net.SplitHostPort(h); err == nil {
			a.exact[h] = true
		} else if h == "*" {
			a.anyHost = true
		} else {
			a.names[h] = true
		}
	}
	for _, o := range origins {
		a.origins[o] = true
	}
	return a
}

// hostAllowed reports whether a request's Host header is on the list.
func (a *allowlist) hostAllowed(hostHeader string) bool {
	if a.anyHost {
		return true
	}
	h := strings.ToLower(hostHeader)
	host, _, err := net.SplitHostPort(h)
	if err != nil {
		host = strings.Trim(h, "[]")
	}
	return host != "" && (a.names[host] || a.exact[h])
}

// originAllowed reports whether a browser Origin header is on the list.
func (a *allowlist) originAllowed(origin string) bool {
	n, ok := normalizeOrigin(origin)
	return ok && a.origins[n]
}

// sorted lists the allowed hosts and origins for the start log.
func (a *allowlist) sorted() (hosts, origins []string) {
	for h := range a.names {
		hosts = append(hosts, h)
	}
	for h := range a.exact {
		hosts = append(hosts, h)
	}
	if a.anyHost {
		hosts = append(hosts, "*")
	}
	for o := range a.origins {
		origins = append(origins, o)
	}
	slices.Sort(hosts)
	slices.Sort(origins)
	return hosts, origins
}

// httpServer serves one shared *mcp.Server over streamable HTTP.
type httpServer struct {
	log zerolog.Logger
	db  *source.DB // for /readyz, when ready is nil
	// ready answers /readyz: an error is 503 with its text, a note follows
	// "ok: ".
	ready    func(context.Context) (string, error)
	tokens   []token
	allow    *allowlist
	maxBody  int64
	maxTurns int            // --max-concurrency; 0 for no limit
	inflight sync.WaitGroup // requests being served, for shutdown
}

// requestKey is the context key of a request's *requestInfo.
type requestKey struct{}

// requestInfo is what the layers of one HTTP request learn for its access
// log. The MCP middleware sets method and tool from the handler's
// goroutine, hence the mutex.
type requestInfo struct {
	done        <-chan struct{} // closed when the client leaves or shutdown cancels the request
	auth        string          // "missing" or "invalid" when refused
	fingerprint string          // of the accepted token

	mu        sync.Mutex
	mcpMethod string
	tool      string
}

// infoOf returns the request's *requestInfo, or a throwaway one.
func infoOf(ctx context.Context) *requestInfo {
	if info, ok := ctx.Value(requestKey{}).(*requestInfo); ok {
		return info
	}
	return &requestInfo{}
}

// serveHTTP serves srv at /mcp on cfg.http until ctx ends, then shuts down
// gracefully: no new connections, calls in flight get --shutdown-grace to
// finish, then are cancelled (stopping their queries).
func serveHTTP(ctx context.Context, cfg *config, ready func(context.Context) (string, error), srv *mcp.Server, log zerolog.Logger, start func() *zerolog.Event) error {
	var tlsConfig *tls.Config
	if cfg.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.tlsCert, cfg.tlsKey)
		if err != nil {
			return usagef("loading --tls-cert and --tls-key: %v", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", cfg.http)
	if err != nil {
		return usagef("listening on %s: %v", cfg.http, err)
	}
	bindHost, _, _ := net.SplitHostPort(cfg.http)
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	s := &httpServer{
		log:      log,
		ready:    ready,
		tokens:   cfg.tokens,
		allow:    newAllowlist(bindHost, port, tlsConfig != nil, cfg.hosts, cfg.origins),
		maxBody:  cfg.maxBodyBytes,
		maxTurns: cfg.maxConcurrency,
	}
	srv.AddReceivingMiddleware(s.mcpMiddleware)
	sdkLog := log
	if sdkLog.GetLevel() < zerolog.WarnLevel {
		sdkLog = sdkLog.Level(zerolog.WarnLevel)
	}
	// One server for every request, stateless: each POST is a whole
	// exchange, so every protocol revision works (2026-07-28's stateless
	// one too) and replicas behind a load balancer need no sticky
	// sessions. The SDK's own localhost protection is off because
	// s.protect checks Host (and Origin) against a list that agrees with
	// it by default and that --allowed-hosts can extend.
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          cfg.maxBodyBytes,
		DisableLocalhostProtection:   true,
		Logger:                       slog.New(zerolog.NewSlogHandler(sdkLog)),
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.protect(s.authenticate(s.readBody(mcpHandler))))
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)

	// Requests live in baseCtx, not ctx: ctx ending starts the shutdown,
	// and baseCtx is cancelled only when the grace is over.
	baseCtx, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	hs := &http.Server{
		Handler:           s.accessLog(mux),
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		ErrorLog:          stdlog.New(serverErrors{s.log}, "", 0),
	}

	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	hosts, origins := s.allow.sorted()
	fingerprints := make([]string, len(s.tokens))
	for i, t := range s.tokens {
		fingerprints[i] = t.fingerprint
	}
	start().Str("transport", "http").Str("address", ln.Addr().String()).
		Str("url", scheme+"://"+ln.Addr().String()+"/mcp").
		Bool("auth", len(s.tokens) > 0).Int("tokens", len(s.tokens)).Strs("token_fingerprints", fingerprints).
		Bool("tls", tlsConfig != nil).Strs("allowed_hosts", hosts).Strs("allowed_origins", origins).
		Int64("max_body_bytes", s.maxBody).Dur("shutdown_grace", cfg.shutdownGrace).Send()
	if len(s.tokens) == 0 && !isLoopback(bindHost) {
		log.Warn().Str("event", "insecure_no_auth").Str("address", ln.Addr().String()).
			Msg("INSECURE: serving a non-loopback address WITHOUT AUTHENTICATION (--insecure-no-auth): anyone who can reach it can read the database")
	}

	errc := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			errc <- hs.ServeTLS(ln, "", "")
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}

	log.Info().Str("event", "stopping").Dur("grace", cfg.shutdownGrace).Send()
	graceCtx, cancel := context.WithTimeout(context.Background(), cfg.shutdownGrace)
	err = hs.Shutdown(graceCtx)
	cancel()
	if err != nil {
		// The grace is over: cancel the calls still running, which stops
		// their queries inside the engine, and let them answer.
		log.Warn().Str("event", "cancel_in_flight").Msg("the shutdown grace is over: cancelling the calls still running")
		cancelBase()
		done := make(chan struct{})
		go func() { s.inflight.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(cancelWait):
			log.Warn().Str("event", "cancel_in_flight").Msg("calls still running after cancellation; closing their connections")
		}
		hs.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving HTTP: %w", err)
	}
	log.Info().Str("event", "stop").Send()
	return nil
}

// accessLog logs one event per request, after it, and counts the requests
// in flight.
func (s *httpServer) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.inflight.Add(1)
		defer s.inflight.Done()
		start := time.Now()
		info := &requestInfo{done: r.Context().Done()}
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), requestKey{}, info)))

		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		e := s.log.Info()
		switch {
		case status >= 500:
			e = s.log.Warn()
		case r.URL.Path == "/healthz" || r.URL.Path == "/readyz":
			e = s.log.Debug() // probes every few seconds would drown the rest
		}
		e = e.Str("event", "http").Str("method", r.Method).Str("path", cut(r.URL.Path, 100)).
			Int("status", status).Dur("duration", time.Since(start)).Int64("bytes", rec.bytes).
			Str("remote", r.RemoteAddr)
		info.mu.Lock()
		if info.mcpMethod != "" {
			e = e.Str("mcp_method", info.mcpMethod)
		}
		if info.tool != "" {
			e = e.Str("tool", info.tool)
		}
		info.mu.Unlock()
		if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
			e = e.Str("protocol", cut(v, 20))
		}
		if info.fingerprint != "" {
			e = e.Str("token_fingerprint", info.fingerprint)
		}
		if info.auth != "" {
			e = e.Str("auth", info.auth)
		}
		e.Send()
	})
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// protect answers only requests whose Host is on the allowlist and whose
// Origin, when there is one (browsers send it; other clients need not), is
// too: a web page cannot reach /mcp by rebinding a name to this machine.
// It answers CORS preflights from allowed origins.
func (s *httpServer) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.allow.hostAllowed(r.Host) {
			http.Error(w, fmt.Sprintf("forbidden: Host %q is not allowed (see --allowed-hosts)", cut(r.Host, 100)), http.StatusForbidden)
			return
		}
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		if !s.allow.originAllowed(origin) {
			http.Error(w, fmt.Sprintf("forbidden: Origin %q is not allowed (see --allowed-origins)", cut(origin, 100)), http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			// Browsers send no credentials on a preflight: answer it here.
			h.Set("Access-Control-Allow-Methods", "POST, GET, DELETE")
			if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" {
				h.Set("Access-Control-Allow-Headers", rh)
			}
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// authenticate lets through requests bearing one of the tokens, compared
// in constant time over their digests so neither content nor length leaks.
// With no tokens it lets everything through.
func (s *httpServer) authenticate(next http.Handler) http.Handler {
	if len(s.tokens) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := infoOf(r.Context())
		scheme, tok, found := strings.Cut(r.Header.Get("Authorization"), " ")
		tok = strings.TrimSpace(tok)
		if !found || !strings.EqualFold(scheme, "Bearer") || tok == "" {
			info.auth = "missing"
			w.Header().Set("WWW-Authenticate", `Bearer realm="sqlmcp"`)
			http.Error(w, "unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		d := sha256.Sum256([]byte(tok))
		match := -1
		for i := range s.tokens {
			if subtle.ConstantTimeCompare(d[:], s.tokens[i].digest[:]) == 1 {
				match = i
			}
		}
		if match < 0 {
			info.auth = "invalid"
			w.Header().Set("WWW-Authenticate", `Bearer realm="sqlmcp", error="invalid_token"`)
			http.Error(w, "unauthorized: the bearer token is not valid", http.StatusUnauthorized)
			return
		}
		info.fingerprint = s.tokens[match].fingerprint
		next.ServeHTTP(w, r)
	})
}

// readBody reads the whole request body, at most --max-body-bytes of it
// (413 beyond) and within readBodyTimeout, before the MCP handler sees it.
// The read deadline is lifted afterwards: left in place it would cancel
// the request mid-query.
func (s *httpServer) readBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		tooLarge := func() {
			http.Error(w, fmt.Sprintf("request body too large: the limit is %d bytes (--max-body-bytes)", s.maxBody), http.StatusRequestEntityTooLarge)
		}
		if r.ContentLength > s.maxBody {
			tooLarge()
			return
		}
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Now().Add(readBodyTimeout))
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
		rc.SetReadDeadline(time.Time{})
		if err != nil {
			if errors.As(err, new(*http.MaxBytesError)) {
				tooLarge()
				return
			}
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// mcpMiddleware notes each MCP request's method and tool for the access
// log, and ties the handler to its HTTP request: when the client leaves
// (or shutdown cancels the request), the call is cancelled and so is its
// query. The SDK does this itself only for 2026-07-28 requests
// (PropagateRequestCancellation); older revisions, served statelessly,
// have nobody left to answer either.
func (s *httpServer) mcpMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		info, ok := ctx.Value(requestKey{}).(*requestInfo)
		if !ok {
			return next(ctx, method, req)
		}
		var tool string
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
			tool = call.Params.Name
		}
		info.mu.Lock()
		if info.mcpMethod == "" {
			info.mcpMethod, info.tool = method, tool
		}
		info.mu.Unlock()
		e := s.log.Debug().Str("event", "mcp_request").Str("mcp_method", method)
		if tool != "" {
			e = e.Str("tool", tool)
		}
		e.Send()

		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-info.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		return next(ctx, method, req)
	}
}

// healthz says the process is up.
func (s *httpServer) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

// readyz says the database answers a guarded SELECT 1 within a second, and
// how many statements the database did not stop are still running: when
// they hold every turn, the server is not ready.
func (s *httpServer) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	if s.ready != nil {
		note, err := s.ready(ctx)
		if err != nil {
			s.log.Warn().Str("event", "not_ready").Str("error", err.Error()).Send()
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if note != "" {
			fmt.Fprintf(w, "ok: %s\n", note)
			return
		}
		io.WriteString(w, "ok\n")
		return
	}
	if _, err := s.db.Catalog(ctx, "SELECT 1"); err != nil {
		s.log.Warn().Str("event", "not_ready").Str("error", err.Error()).Send()
		if ue := new(source.UnavailableError); errors.As(err, &ue) {
			http.Error(w, "not ready: "+ue.Error(), http.StatusServiceUnavailable)
			return
		}
		http.Error(w, "not ready: the database did not answer", http.StatusServiceUnavailable)
		return
	}
	left, _ := s.db.LeftRunning()
	if left > 0 && s.maxTurns > 0 && left >= s.maxTurns {
		http.Error(w, fmt.Sprintf("not ready: every turn is held by %d queries the database did not stop", left), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if left > 0 {
		fmt.Fprintf(w, "ok: %d queries the database did not stop are still running\n", left)
		return
	}
	io.WriteString(w, "ok\n")
}

// recorder notes a response's status and size for the access log.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Flush sends what is buffered: server-sent events need it.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// serverErrors turns net/http's own complaints into log events, keeping
// stderr JSON.
type serverErrors struct{ log zerolog.Logger }

func (e serverErrors) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	ev := e.log.Warn()
	if strings.HasPrefix(msg, "http: TLS handshake error") {
		ev = e.log.Debug() // scanners and health checkers that speak plain TCP
	}
	ev.Str("event", "http_server").Msg(msg)
	return len(p), nil
}
