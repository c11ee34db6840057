package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/identity"
	"github.com/sqlmcp/sqlmcp/internal/logline"
)

// HTTP timeouts that are not worth an option.
const (
	readHeaderTimeout = 10 * time.Second  // slow-header clients are dropped
	readBodyTimeout   = 30 * time.Second  // and so are slow-body ones
	idleTimeout       = 120 * time.Second // keep-alive connections between requests
	cancelWait        = 5 * time.Second   // after the grace, for cancelled calls to answer
	// maxBatch is the most messages one JSON-RPC batch (protocol
	// 2025-03-26) may hold: the answers of a batch are held together until
	// written, each up to the result limits.
	maxBatch = 16
)

// writeStall is how long one write of a response may wait for a client
// that stopped reading: then the connection is dropped and what the
// answer held is freed. A variable for tests.
var writeStall = 30 * time.Second

// maxRequests bounds the /mcp requests served at once, however many
// connections bring them: each holds its body (up to the body limit) and,
// until it is written, its answer (a batch's, up to sixteen). Past it a
// request gets 503 at once, before its body is read. Waiting for a turn
// stays the calls' bound (--max-concurrency); this one bounds what the
// waiting and the writing hold: 3,000 clients that posted a call and did
// not read took sqlmcp to 316 MB. One caller (an identity a token
// proves, or every caller without authentication) holds at most
// maxCallerRequests of them, so a client's flood leaves the others room,
// as turns are shared fairly among callers. Variables for tests.
var (
	maxRequests       = 512
	maxCallerRequests = 256
)

// DefaultMaxBodyBytes is the largest request body HTTP reads when
// HTTPOptions.MaxBodyBytes is zero.
const DefaultMaxBodyBytes = 1 << 20

// HTTPOptions configure HTTP. The zero value serves 127.0.0.1:8080 without
// tokens, TLS or a readiness check.
type HTTPOptions struct {
	// Addr is the host:port to listen on. Default "127.0.0.1:8080".
	Addr string
	// Tokens are the bearer tokens /mcp accepts, each "TOKEN" or
	// "NAME: TOKEN" as ParseToken reads them (NAME becomes the caller's
	// identity.Identity.Subject); none, and no OIDC, means no
	// authentication.
	Tokens []string
	// OIDC, when set, makes /mcp accept only access tokens its issuer
	// signed for this server, and serves the protected resource metadata
	// that leads clients to the issuer. It excludes Tokens.
	OIDC *OIDCOptions
	// PublicURL is the URL clients reach this server at, scheme://host
	// with an optional port and no path: the resource identifier of OIDC
	// mode is PublicURL/mcp. Empty means one made of Addr (with the port
	// listened on) and TLS, which serves only clients on this machine
	// unless Addr names the host they use.
	PublicURL string
	// Hosts are Host header values allowed besides loopback and the bind
	// address: a name (any port), name:port, or "*" for any.
	Hosts []string
	// Origins are browser origins allowed besides this server's own, as
	// ParseOrigin reads them.
	Origins []string
	// TLS, when set, serves HTTPS with it.
	TLS *tls.Config
	// MaxBodyBytes bounds a request body (413 beyond). Zero means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// ShutdownGrace is how long calls in flight may finish once ctx ends,
	// before they are cancelled. Zero cancels them at once.
	ShutdownGrace time.Duration
	// Ready answers /readyz: an error makes it 503 with the error's text;
	// a non-empty note is said after "ok: ". Nil means always ready.
	Ready func(ctx context.Context) (note string, err error)
	// Logger receives the start and stop events, one access-log event per
	// request and net/http's complaints. Default: no logs.
	Logger zerolog.Logger
	// LogOutput, when set, is the writer under Logger and under the
	// tools' logger. A request's access event and its call's tool_call
	// event then go out to it in one write, when the request is done.
	LogOutput io.Writer
	// Start returns the start event, to which HTTP adds where it listens
	// and how, then sends. Nil means an info event "start".
	Start func() *zerolog.Event
	// Metrics, when set, answers GET /metrics, behind the same Host and
	// Origin checks as /mcp and, unless MetricsOpen, the same tokens.
	Metrics http.Handler
	// MetricsOpen serves /metrics without the tokens, for a scraper that
	// cannot send one.
	MetricsOpen bool
	// Calls, when set, answers plain tools/call requests without the SDK's
	// dispatch (see Calls).
	Calls Calls
}

// token is a bearer token as HTTP keeps it: its SHA-256 digest, never the
// text, and the name it was given.
type token struct {
	digest      [sha256.Size]byte
	fingerprint string
	name        string
}

func newToken(name, s string) token {
	return token{digest: sha256.Sum256([]byte(s)), fingerprint: Fingerprint(s), name: name}
}

// httpServer serves one shared *mcp.Server over streamable HTTP.
type httpServer struct {
	log      zerolog.Logger
	logOut   io.Writer // nil: each line is written alone
	tokens   []token
	oidc     *oidcAuth // nil unless OIDC mode
	allow    *allowlist
	maxBody  int64
	ready    func(context.Context) (string, error)
	inflight sync.WaitGroup // requests being served, for shutdown
	serving  chan struct{}  // one token per /mcp request being served (maxRequests)

	callerMu sync.Mutex
	byCaller map[string]int // the /mcp requests being served, by caller
}

// requestKey is the context key of a request's *requestInfo.
type requestKey struct{}

// requestInfo is what the layers of one HTTP request learn for its access
// log. The MCP middleware sets method and tool from the handler's
// goroutine, hence the mutex.
type requestInfo struct {
	auth        string // "missing", "invalid" or "unavailable" when refused
	authError   string // why, when refused
	subject     string // of the accepted caller
	fingerprint string // of the accepted listed token

	mu        sync.Mutex
	mcpMethod string
	tool      string
	gone      bool                 // the client left or shutdown cancelled the request
	cancels   []context.CancelFunc // of the MCP calls serving it
}

// tie cancels an MCP call's context when the HTTP request ends (at once if
// it has).
func (i *requestInfo) tie(cancel context.CancelFunc) {
	i.mu.Lock()
	gone := i.gone
	if !gone {
		i.cancels = append(i.cancels, cancel)
	}
	i.mu.Unlock()
	if gone {
		cancel()
	}
}

// end cancels the calls tied to the request.
func (i *requestInfo) end() {
	i.mu.Lock()
	i.gone = true
	cancels := i.cancels
	i.cancels = nil
	i.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// HTTP serves srv at /mcp, with /healthz, /readyz and (when opts.Metrics
// is set) /metrics beside it, on
// opts.Addr until ctx ends; then it shuts down gracefully: no new
// connections, calls in flight get opts.ShutdownGrace to finish, then are
// cancelled (stopping their queries). It returns nil after a shutdown, an
// error wrapping a *net.OpError when it cannot listen, an error for a
// token, host, origin or public URL that is not valid, and in OIDC mode an
// error when the issuer's discovery document or keys cannot be read.
//
// Every request is served statelessly by srv, so any protocol revision
// works and replicas behind a load balancer need no sticky sessions. HTTP
// adds a receiving middleware to srv: serve one server once.
func HTTP(ctx context.Context, srv *mcp.Server, opts *HTTPOptions) error {
	defer keepHeapFloor()
	if opts == nil {
		opts = &HTTPOptions{}
	}
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	s := &httpServer{log: opts.Logger, logOut: opts.LogOutput, maxBody: opts.MaxBodyBytes, ready: opts.Ready,
		serving: make(chan struct{}, maxRequests), byCaller: map[string]int{}}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	for _, line := range opts.Tokens {
		name, t, err := ParseToken(line)
		if err != nil {
			return err
		}
		tk := newToken(name, t)
		if i := slices.IndexFunc(s.tokens, func(u token) bool { return u.digest == tk.digest }); i >= 0 {
			if s.tokens[i].name != name {
				return fmt.Errorf("bearer token %s (fingerprint) is given twice with different names", tk.fingerprint)
			}
			continue
		}
		s.tokens = append(s.tokens, tk)
	}
	if opts.OIDC != nil && len(s.tokens) > 0 {
		return errors.New("OpenID Connect and listed bearer tokens exclude each other: give one")
	}
	var hosts, origins []string
	for _, h := range opts.Hosts {
		n, ok := ParseHost(h)
		if !ok {
			return fmt.Errorf("%q is not a host name, host:port or *", h)
		}
		hosts = append(hosts, n)
	}
	for _, o := range opts.Origins {
		n, ok := ParseOrigin(o)
		if !ok {
			return fmt.Errorf("%q is not an origin like https://app.example.com", o)
		}
		origins = append(origins, n)
	}

	if opts.PublicURL != "" {
		// Clients reaching the server by its public URL send its host,
		// and browsers its origin.
		base, err := ParsePublicURL(opts.PublicURL)
		if err != nil {
			return err
		}
		u, _ := url.Parse(base)
		origin, _ := ParseOrigin(base)
		hosts, origins = append(hosts, strings.ToLower(u.Hostname())), append(origins, origin)
	}

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	bindHost, _, _ := net.SplitHostPort(addr)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	s.allow = newAllowlist(bindHost, port, opts.TLS != nil, hosts, origins)
	scheme := "http"
	if opts.TLS != nil {
		scheme = "https"
	}
	// The address as the operator wrote it, with the port chosen: for
	// 0.0.0.0 the listener says [::], which is not what was asked for.
	shown := net.JoinHostPort(bindHost, port)
	if bindHost == "" {
		shown = net.JoinHostPort("0.0.0.0", port)
	}
	publicURL, derived := opts.PublicURL, opts.PublicURL == ""
	if derived {
		publicURL = scheme + "://" + shown
	}
	base, _ := ParsePublicURL(publicURL)
	if opts.OIDC != nil {
		s.oidc, err = newOIDC(ctx, opts.OIDC, base+"/mcp", func(n int, err error) {
			if err != nil {
				s.log.Warn().Str("event", "oidc_keys").Str("error", err.Error()).Send()
				return
			}
			s.log.Debug().Str("event", "oidc_keys").Int("keys", n).Send()
		})
		if err != nil {
			ln.Close()
			return fmt.Errorf("OpenID Connect: %w", err)
		}
		s.oidc.metaURL = base + metadataPath(s.oidc.resource)
	}
	srv.AddReceivingMiddleware(s.mcpMiddleware)

	sdkLog := s.log
	if sdkLog.GetLevel() < zerolog.WarnLevel {
		sdkLog = sdkLog.Level(zerolog.WarnLevel)
	}
	// The SDK's own localhost protection is off because s.protect checks
	// Host (and Origin) against a list that agrees with it by default and
	// that opts.Hosts can extend.
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          s.maxBody,
		DisableLocalhostProtection:   true,
		Logger:                       slog.New(zerolog.NewSlogHandler(sdkLog)),
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.protect(s.authenticate(s.bounded(s.readBody(s.quickPOST(srv, opts.Calls, mcpHandler))))))
	metrics := "none" // for the start event: how /metrics is served
	if opts.Metrics != nil {
		h := opts.Metrics
		metrics = "open"
		if !opts.MetricsOpen && (len(s.tokens) > 0 || s.oidc != nil) {
			h, metrics = s.authenticate(h), "token"
		}
		mux.Handle("GET /metrics", s.protect(h))
	}
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	if s.oidc != nil {
		// Public, and asked for by browsers from any origin: the Host check
		// only, and the SDK's handler answers CORS itself.
		meta := s.hostOnly(auth.ProtectedResourceMetadataHandler(s.oidc.metadata()))
		mux.Handle("/.well-known/oauth-protected-resource", meta)
		mux.Handle(metadataPath(s.oidc.resource), meta)
	}

	// Requests live in baseCtx, not ctx: ctx ending starts the shutdown,
	// and baseCtx is cancelled only when the grace is over.
	baseCtx, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	hs := &http.Server{
		Handler:           s.accessLog(mux),
		TLSConfig:         opts.TLS,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		ErrorLog:          stdlog.New(serverErrors{s.log}, "", 0),
	}

	start := opts.Start
	if start == nil {
		start = func() *zerolog.Event { return s.log.Info().Str("event", "start") }
	}
	allowedHosts, allowedOrigins := s.allow.sorted()
	fingerprints := make([]string, len(s.tokens))
	for i, t := range s.tokens {
		fingerprints[i] = t.fingerprint
	}
	ev := start().Str("transport", "http").Str("address", shown).Str("url", scheme+"://"+shown+"/mcp").
		Bool("auth", len(s.tokens) > 0 || s.oidc != nil)
	if s.oidc != nil {
		ev = ev.Str("auth_mode", "oidc").Str("oidc_issuer", s.oidc.issuer).Str("resource", s.oidc.resource).
			Bool("resource_derived", derived).Strs("oidc_audiences", s.oidc.audiences).Str("oidc_algorithms", s.oidc.algNames()).
			Str("resource_metadata", s.oidc.metaURL).Bool("oidc_introspection", s.oidc.introspect != nil)
	} else {
		ev = ev.Int("tokens", len(s.tokens)).Strs("token_fingerprints", fingerprints)
	}
	ev.Bool("tls", opts.TLS != nil).Strs("allowed_hosts", allowedHosts).Strs("allowed_origins", allowedOrigins).
		Int64("max_body_bytes", s.maxBody).Float64("shutdown_grace_ms", ms(opts.ShutdownGrace)).Str("metrics", metrics).Send()
	if derived && s.oidc != nil && !IsLoopback(bindHost) {
		s.log.Warn().Str("event", "resource_derived").Str("resource", s.oidc.resource).
			Msg("the resource identifier is made of --http; clients reaching this server by another name need --public-url, and tokens must name that URL as their audience")
	}
	if len(s.tokens) == 0 && s.oidc == nil && !IsLoopback(bindHost) {
		s.log.Warn().Str("event", "insecure_no_auth").Str("address", shown).
			Msg("INSECURE: serving a non-loopback address WITHOUT AUTHENTICATION: anyone who can reach it can read the database")
	}

	errc := make(chan error, 1)
	go func() {
		if opts.TLS != nil {
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

	s.log.Info().Str("event", "stopping").Float64("grace_ms", ms(opts.ShutdownGrace)).Send()
	graceCtx, cancel := context.WithTimeout(context.Background(), opts.ShutdownGrace)
	err = hs.Shutdown(graceCtx)
	cancel()
	if err != nil {
		// The grace is over: cancel the calls still running, which stops
		// their queries inside the engine, and let them answer.
		s.log.Warn().Str("event", "cancel_in_flight").Msg("the shutdown grace is over: cancelling the calls still running")
		cancelBase()
		done := make(chan struct{})
		go func() { s.inflight.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(cancelWait):
			s.log.Warn().Str("event", "cancel_in_flight").Msg("calls still running after cancellation; closing their connections")
		}
		hs.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving HTTP: %w", err)
	}
	s.log.Info().Str("event", "stop").Send()
	return nil
}

// accessLog logs one event per request, after it, and counts the requests
// in flight. With logOut set, the request's lines go out in one write.
func (s *httpServer) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.inflight.Add(1)
		defer s.inflight.Done()
		start := time.Now()
		info := &requestInfo{}
		// No goroutine per request: the callback runs only if the request
		// ends before its handler returns.
		stop := context.AfterFunc(r.Context(), info.end)
		defer stop()
		rec := &recorder{ResponseWriter: w, rc: http.NewResponseController(w)}
		// A deadline left on the connection would reach its next request.
		defer rec.rc.SetWriteDeadline(time.Time{})
		ctx := context.WithValue(r.Context(), requestKey{}, info)
		log := s.log
		if s.logOut != nil {
			// The lines are written before the handler's last bytes go
			// out, as the access event alone always was.
			held := logline.New(s.logOut)
			defer held.Flush()
			ctx, log = logline.With(ctx, held), s.log.Output(held)
		}
		next.ServeHTTP(rec, r.WithContext(ctx))

		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		e := log.Info()
		switch {
		case status >= 500:
			e = log.Warn()
		case r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || r.URL.Path == "/metrics":
			e = log.Debug() // probes and scrapes every few seconds would drown the rest
		}
		e = e.Str("event", "http").Str("method", r.Method).Str("path", cut(r.URL.Path, 100)).
			Int("status", status).Float64("duration_ms", ms(time.Since(start))).Int64("bytes", rec.bytes).
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
		if info.subject != "" {
			e = e.Str("subject", cut(info.subject, 200))
		}
		if info.fingerprint != "" {
			e = e.Str("token_fingerprint", info.fingerprint)
		}
		if info.auth != "" {
			e = e.Str("auth", info.auth)
		}
		if info.authError != "" {
			e = e.Str("auth_error", info.authError)
		}
		e.Send()
	})
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

// authenticate lets through requests bearing one of the tokens, or in
// OIDC mode a valid access token, with the caller's identity in the
// request's context (identity.With). With neither it lets everything
// through, with no identity.
func (s *httpServer) authenticate(next http.Handler) http.Handler {
	if len(s.tokens) == 0 && s.oidc == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, _ := r.Context().Value(requestKey{}).(*requestInfo)
		if info == nil {
			info = &requestInfo{}
		}
		var id identity.Identity
		var err error
		if s.oidc != nil {
			id, err = s.checkOIDC(r)
		} else {
			id, err = s.checkListed(r)
		}
		if err != nil {
			f, ok := err.(*authFailure)
			if !ok {
				f = refuse("the token is not valid")
			}
			info.auth, info.authError = "invalid", f.reason
			switch {
			case f.missing:
				info.auth, info.authError = "missing", ""
			case f.unavailable:
				info.auth = "unavailable"
				s.log.Warn().Str("event", "auth_unavailable").Str("error", fmt.Sprint(f.cause)).Send()
				http.Error(w, "unavailable: "+f.reason+"; try again shortly", http.StatusServiceUnavailable)
				return
			}
			if s.oidc != nil {
				w.Header().Set("WWW-Authenticate", s.oidc.challenge(f))
			} else if f.missing {
				w.Header().Set("WWW-Authenticate", `Bearer realm="sqlmcp"`)
			} else {
				w.Header().Set("WWW-Authenticate", `Bearer realm="sqlmcp", error="invalid_token"`)
			}
			if f.missing {
				http.Error(w, "unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
			} else {
				http.Error(w, "unauthorized: "+f.reason, http.StatusUnauthorized)
			}
			return
		}
		info.subject, info.fingerprint = id.Subject, id.Fingerprint
		next.ServeHTTP(w, r.WithContext(identity.With(r.Context(), id)))
	})
}

// bearer returns the request's bearer token, or an *authFailure for none
// (missing) or a header that is not one Authorization: Bearer of at most
// limit bytes (0 for no limit).
func bearer(r *http.Request, limit int) (string, error) {
	vals := r.Header.Values("Authorization")
	if len(vals) == 0 {
		return "", &authFailure{missing: true}
	}
	if len(vals) > 1 {
		return "", refuse("send one Authorization header, not %d", len(vals))
	}
	if limit > 0 && len(vals[0]) > limit {
		return "", refuse("the Authorization header is longer than %d bytes", limit)
	}
	scheme, tok, found := strings.Cut(vals[0], " ")
	tok = strings.TrimSpace(tok)
	if !found || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", &authFailure{missing: true}
	}
	return tok, nil
}

// checkListed accepts one of the tokens, compared in constant time over
// their digests so neither content nor length leaks.
func (s *httpServer) checkListed(r *http.Request) (identity.Identity, error) {
	tok, err := bearer(r, 0)
	if err != nil {
		if f := err.(*authFailure); !f.missing {
			f.reason = "the bearer token is not valid"
		}
		return identity.Identity{}, err
	}
	d := sha256.Sum256([]byte(tok))
	match := -1
	for i := range s.tokens {
		if subtle.ConstantTimeCompare(d[:], s.tokens[i].digest[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return identity.Identity{}, refuse("the bearer token is not valid")
	}
	return identity.Identity{Subject: s.tokens[match].name, Fingerprint: s.tokens[match].fingerprint}, nil
}

// checkOIDC accepts an access token the issuer signed for this server
// (or, with introspection, one the issuer says is active for it).
func (s *httpServer) checkOIDC(r *http.Request) (identity.Identity, error) {
	tok, err := bearer(r, MaxAuthorizationBytes)
	if err != nil {
		return identity.Identity{}, err
	}
	return s.oidc.verify(r.Context(), tok)
}

// hostOnly answers only requests whose Host is on the allowlist, whatever
// their Origin.
func (s *httpServer) hostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.allow.hostAllowed(r.Host) {
			http.Error(w, fmt.Sprintf("forbidden: Host %q is not allowed (see --allowed-hosts)", cut(r.Host, 100)), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bounded serves at most maxRequests requests at once, and at most
// maxCallerRequests of one caller's, and answers the rest 503 at once,
// with Retry-After, before their bodies are read.
func (s *httpServer) bounded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		busy := func(msg string) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy: "+msg+"; retry shortly", http.StatusServiceUnavailable)
		}
		var caller string
		if id, ok := identity.From(r.Context()); ok {
			caller = id.Issuer + "\x00" + id.Subject + "\x00" + id.Fingerprint
		}
		s.callerMu.Lock()
		mine := s.byCaller[caller]
		if mine < maxCallerRequests {
			s.byCaller[caller] = mine + 1
		}
		s.callerMu.Unlock()
		if mine >= maxCallerRequests {
			busy(fmt.Sprintf("this caller has %d requests being served, the most one caller may have at once", mine))
			return
		}
		defer func() {
			s.callerMu.Lock()
			if s.byCaller[caller]--; s.byCaller[caller] == 0 {
				delete(s.byCaller, caller)
			}
			s.callerMu.Unlock()
		}()
		select {
		case s.serving <- struct{}{}:
		default:
			busy(fmt.Sprintf("this server is serving %d requests, the most it takes at once", cap(s.serving)))
			return
		}
		defer func() { <-s.serving }()
		next.ServeHTTP(w, r)
	})
}

// readBody reads the whole request body, at most maxBody of it (413
// beyond) and within readBodyTimeout, before the MCP handler sees it. The
// read deadline is lifted afterwards: left in place it would cancel the
// request mid-query.
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
		if n := batchLen(body); n > maxBatch {
			http.Error(w, fmt.Sprintf("a JSON-RPC batch of %d messages: at most %d may be sent at once; send the rest in another request", n, maxBatch), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// batchLen is how many messages body holds when it is a JSON array (a
// batch), up to one past maxBatch; 0 for anything else, which the SDK
// judges.
func batchLen(body []byte) int {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return 0
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if _, err := dec.Token(); err != nil { // [
		return 0
	}
	n := 0
	for dec.More() && n <= maxBatch {
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return 0
		}
		n++
	}
	return n
}

// mcpMiddleware notes each MCP request's method and tool for the access
// log, and ties the handler to its HTTP request: when the client leaves
// (or shutdown cancels the request), the call is cancelled and so is its
// query. The SDK does this itself only for 2026-07-28 requests
// (PropagateRequestCancellation); older revisions, served statelessly,
// have nobody left to answer either.
func (s *httpServer) mcpMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		var tool string
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
			tool = call.Params.Name
		}
		ctx, done := s.noteCall(ctx, method, tool)
		defer done()
		return next(ctx, method, req)
	}
}

// noteCall notes an MCP request's method and tool ("" for none) for the
// access log and returns its context tied to the HTTP request (see
// mcpMiddleware), and what to call when it is answered.
func (s *httpServer) noteCall(ctx context.Context, method, tool string) (context.Context, context.CancelFunc) {
	info, ok := ctx.Value(requestKey{}).(*requestInfo)
	if !ok {
		return ctx, func() {}
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
	info.tie(cancel)
	return ctx, cancel
}

// healthz says the process is up.
func (s *httpServer) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

// readyWait bounds a readiness check.
const readyWait = time.Second

// readyz says whether the readiness function is content, within a second.
func (s *httpServer) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	var note string
	if s.ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readyWait)
		defer cancel()
		var err error
		if note, err = s.ready(ctx); err != nil {
			s.log.Warn().Str("event", "not_ready").Str("error", err.Error()).Send()
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if note != "" {
		fmt.Fprintf(w, "ok: %s\n", note)
		return
	}
	io.WriteString(w, "ok\n")
}

// recorder notes a response's status and size for the access log, and
// gives each write writeStall to go out.
type recorder struct {
	http.ResponseWriter
	rc     *http.ResponseController
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
	r.rc.SetWriteDeadline(time.Now().Add(writeStall))
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Flush sends what is buffered: server-sent events need it.
func (r *recorder) Flush() {
	r.rc.SetWriteDeadline(time.Now().Add(writeStall))
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

// IsLoopback reports whether a listening host stays on this machine.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
