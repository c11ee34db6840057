package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/identity"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/serve"
)

// identities records the caller's identity each tools/call's context
// carries, as the tools and the audit trail read it.
type identities struct {
	mu  sync.Mutex
	ids []identity.Identity
	nil int // calls that carried none
}

func (r *identities) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			id, ok := identity.From(ctx)
			r.mu.Lock()
			if ok {
				r.ids = append(r.ids, id)
			} else {
				r.nil++
			}
			r.mu.Unlock()
		}
		return next(ctx, method, req)
	}
}

func (r *identities) last(t testing.TB) identity.Identity {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.nil > 0 || len(r.ids) == 0 {
		t.Fatalf("%d calls carried an identity, %d none", len(r.ids), r.nil)
	}
	return r.ids[len(r.ids)-1]
}

// startWith is startHTTP with the identities of the calls recorded, by a
// receiving middleware: every call goes through the SDK.
func startWith(t testing.TB, opts serve.HTTPOptions) (*testServer, *identities) {
	t.Helper()
	ids := &identities{}
	s := startHTTPVia(t, dbtest.SQLite(t, nil), opts, 0, false, func(srv *mcp.Server) { srv.AddReceivingMiddleware(ids.middleware) })
	return s, ids
}

// get fetches url and returns the status, the headers and the body.
func get(t testing.TB, url string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := httpClient(t, "", nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

// TestOIDCAccepts: a go-sdk client with a token the provider signed for
// this server (RS256 or ES256) initializes and calls a tool; the call's
// context carries the token's identity; the log names the subject, never
// the token.
func TestOIDCAccepts(t *testing.T) {
	p := newProvider(t)
	s, ids := startWith(t, serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: p.issuer}})
	resource := s.base + "/mcp"
	for _, kid := range []string{"rsa-1", "ec-1"} {
		t.Run(kid, func(t *testing.T) {
			tok := p.sign(t, kid, p.claims(resource, nil))
			cs := connect(t, resource, httpClient(t, tok, nil), "2025-06-18")
			if text, isErr := callText(t, cs, "run_query", map[string]any{"sql": "SELECT count(*) AS n FROM customers"}); isErr || !strings.Contains(text, "n\n4") {
				t.Fatalf("run_query: got isError=%v %q", isErr, text)
			}
			got := ids.last(t)
			want := identity.Identity{
				Subject: "alice", Issuer: p.issuer, Email: "alice@example.com",
				Groups: []string{"analysts", "eu"}, Scopes: []string{"openid", "sql:read"},
				Claims: map[string]any{"azp": "inspector"},
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("the call's identity (-want +got):\n%s", d)
			}
			s.log.Wait(t, 10*time.Second, map[string]any{"event": "http", "tool": "run_query", "subject": "alice", "status": 200})
			if strings.Contains(s.log.String(), tok) || strings.Contains(s.log.String(), strings.Split(tok, ".")[2]) {
				t.Error("the log holds the token")
			}
		})
	}
	t.Run("unverified email and scp", func(t *testing.T) {
		tok := p.sign(t, "rsa-1", p.claims(resource, map[string]any{"email_verified": false, "scope": nil, "scp": []string{"a", "b"}, "groups": "solo"}))
		cs := connect(t, resource, httpClient(t, tok, nil), "")
		callText(t, cs, "list_tables", nil)
		got := ids.last(t)
		if got.Email != "" || !slices.Equal(got.Scopes, []string{"a", "b"}) || !slices.Equal(got.Groups, []string{"solo"}) {
			t.Errorf("got email %q, scopes %v, groups %v; want no email, [a b], [solo]", got.Email, got.Scopes, got.Groups)
		}
	})
	t.Run("within the clock skew", func(t *testing.T) {
		now := time.Now()
		tok := p.sign(t, "rsa-1", p.claims(resource, map[string]any{"exp": now.Add(-10 * time.Second).Unix(), "nbf": now.Add(10 * time.Second).Unix(), "iat": now.Add(10 * time.Second).Unix()}))
		resp, _ := rpc(t, t.Context(), httpClient(t, "", nil), resource, map[string]string{"Authorization": "Bearer " + tok}, initialize2025)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("got %d, want 200", resp.StatusCode)
		}
	})
	t.Run("audience with a trailing slash", func(t *testing.T) {
		tok := p.sign(t, "rsa-1", p.claims(resource+"/", nil))
		resp, _ := rpc(t, t.Context(), httpClient(t, "", nil), resource, map[string]string{"Authorization": "Bearer " + tok}, initialize2025)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("got %d, want 200", resp.StatusCode)
		}
	})
}

// TestOIDCRefuses: each kind of bad token gets a 401 whose
// WWW-Authenticate says invalid_token and where the metadata is; none
// reaches a tool.
func TestOIDCRefuses(t *testing.T) {
	p := newProvider(t)
	s, ids := startWith(t, serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: p.issuer, KeyMinRefresh: time.Millisecond}})
	resource := s.base + "/mcp"
	meta := s.base + "/.well-known/oauth-protected-resource/mcp"
	stranger := newProvider(t) // signs with keys this server never saw
	stranger.addKey(t, "rsa-9", jose.RS256)
	now := time.Now()
	hourAgo, inHour := now.Add(-time.Hour).Unix(), now.Add(time.Hour).Unix()

	cases := []struct {
		name, token, reason string
	}{
		{"expired", p.sign(t, "rsa-1", p.claims(resource, map[string]any{"exp": hourAgo, "iat": hourAgo - 60, "nbf": hourAgo - 60})), "expired"},
		{"expired just beyond the leeway", p.sign(t, "rsa-1", p.claims(resource, map[string]any{"exp": now.Add(-time.Minute).Unix()})), "expired"},
		{"not valid yet", p.sign(t, "rsa-1", p.claims(resource, map[string]any{"nbf": inHour})), "not valid yet"},
		{"issued in the future", p.sign(t, "ec-1", p.claims(resource, map[string]any{"iat": inHour})), "issued in the future"},
		{"no expiry", p.sign(t, "rsa-1", p.claims(resource, map[string]any{"exp": nil})), "no expiry"},
		{"no subject", p.sign(t, "rsa-1", p.claims(resource, map[string]any{"sub": nil})), "no subject"},
		{"wrong audience", p.sign(t, "rsa-1", p.claims("https://other.example.com/mcp", nil)), "audience"},
		{"another path on this host", p.sign(t, "rsa-1", p.claims(s.base+"/other", nil)), "audience"},
		{"an ID token for a client", p.sign(t, "rsa-1", p.claims("inspector", nil)), "audience"},
		{"wrong issuer", p.sign(t, "rsa-1", p.claims(resource, map[string]any{"iss": "https://evil.example.com"})), "issuer"},
		{"alg none", unsigned(t, p.claims(resource, nil)), "algorithm"},
		{"HS256 with the RSA public key", p.hmacWithPublicKey(t, p.claims(resource, nil)), "algorithm"},
		{"unknown kid", stranger.sign(t, "rsa-9", p.claims(resource, nil)), "signing key is not one the issuer publishes"},
		{"a stranger's key under a known kid", func() string {
			stranger.mu.Lock()
			k := stranger.keys["ec-1"]
			stranger.mu.Unlock()
			return signWith(t, jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k.priv, KeyID: "ec-1"}}, p.claims(resource, nil))
		}(), "signature"},
		{"tampered payload", func() string {
			parts := strings.Split(p.sign(t, "rsa-1", p.claims(resource, nil)), ".")
			other := strings.Split(p.sign(t, "rsa-1", p.claims(resource, map[string]any{"sub": "admin"})), ".")
			return parts[0] + "." + other[1] + "." + parts[2]
		}(), "signature"},
		{"not a JWT", "0123456789abcdef0123456789abcdef", "not a JWT"},
		{"malformed", "eyJhbGciOi.e30.c2ln", "malformed"},
		{"oversized", p.sign(t, "rsa-1", p.claims(resource, map[string]any{"pad": strings.Repeat("x", serve.MaxAuthorizationBytes)})), "longer than 8192 bytes"},
		{"a logout token", func() string {
			p.mu.Lock()
			k := p.keys["rsa-1"]
			p.mu.Unlock()
			signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k.priv, KeyID: "rsa-1"}}, (&jose.SignerOptions{}).WithType("logout+jwt"))
			obj, _ := signer.Sign(must(json.Marshal(p.claims(resource, nil))))
			return must(obj.CompactSerialize())
		}(), "not an access token"},
	}
	hc := httpClient(t, "", nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, _ := rpc(t, t.Context(), hc, resource, map[string]string{"Authorization": "Bearer " + c.token}, listTables2025)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), c.reason) {
				t.Errorf("got %d %q, want 401 saying %q", resp.StatusCode, body, c.reason)
			}
			wa := resp.Header.Get("WWW-Authenticate")
			if !strings.HasPrefix(wa, `Bearer error="invalid_token", error_description="`) || !strings.HasSuffix(wa, fmt.Sprintf(`resource_metadata=%q`, meta)) {
				t.Errorf("WWW-Authenticate: got %s", wa)
			}
		})
	}
	s.log.Wait(t, 10*time.Second, map[string]any{"event": "http", "status": 401, "auth": "invalid", "auth_error": "the token has expired"})

	t.Run("missing", func(t *testing.T) {
		for _, h := range []string{"", "Basic YWxpY2U6cHc=", "Bearer "} {
			header := map[string]string{}
			if h != "" {
				header["Authorization"] = h
			}
			resp, _ := rpc(t, t.Context(), hc, resource, header, listTables2025)
			if wa := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusUnauthorized || wa != fmt.Sprintf(`Bearer resource_metadata=%q`, meta) {
				t.Errorf("Authorization %q: got %d, WWW-Authenticate %s", h, resp.StatusCode, wa)
			}
		}
	})
	t.Run("two Authorization headers", func(t *testing.T) {
		good := p.sign(t, "rsa-1", p.claims(resource, nil))
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, resource, strings.NewReader(listTables2025))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Add("Authorization", "Bearer "+good)
		req.Header.Add("Authorization", "Bearer "+good)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("got %d, want 401", resp.StatusCode)
		}
	})
	ids.mu.Lock()
	defer ids.mu.Unlock()
	if len(ids.ids)+ids.nil > 0 {
		t.Errorf("%d refused requests reached a tool", len(ids.ids)+ids.nil)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestOIDCKeyRotation: a token under a key the provider has just
// published is accepted (the unknown kid makes the server fetch the keys
// again); once the provider withdraws a key, its tokens are refused after
// the keys' maximum age.
func TestOIDCKeyRotation(t *testing.T) {
	p := newProvider(t)
	s, _ := startWith(t, serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: p.issuer, KeyMinRefresh: time.Millisecond, KeyMaxAge: time.Second}})
	resource := s.base + "/mcp"
	hc := httpClient(t, "", nil)
	status := func(tok string) int {
		resp, _ := rpc(t, t.Context(), hc, resource, map[string]string{"Authorization": "Bearer " + tok}, initialize2025)
		return resp.StatusCode
	}
	old := p.sign(t, "rsa-1", p.claims(resource, nil))
	if got := status(old); got != http.StatusOK {
		t.Fatalf("the first key: got %d, want 200", got)
	}
	p.addKey(t, "rsa-2", jose.RS256)
	hits := p.jwksHits.Load()
	if got := status(p.sign(t, "rsa-2", p.claims(resource, nil))); got != http.StatusOK {
		t.Errorf("the new key: got %d, want 200", got)
	}
	if n := p.jwksHits.Load() - hits; n != 1 {
		t.Errorf("the unknown kid made %d fetches of the keys, want 1", n)
	}
	p.unpublish("rsa-1")
	time.Sleep(1200 * time.Millisecond)
	if got := status(old); got != http.StatusUnauthorized {
		t.Errorf("the withdrawn key after the keys' maximum age: got %d, want 401", got)
	}
	if got := status(p.sign(t, "rsa-2", p.claims(resource, nil))); got != http.StatusOK {
		t.Errorf("the new key, later: got %d, want 200", got)
	}
}

// TestOIDCNoRefetchStorm: tokens naming made-up key IDs, many at once,
// make the server fetch the provider's keys at most once per
// KeyMinRefresh.
func TestOIDCNoRefetchStorm(t *testing.T) {
	p := newProvider(t)
	s, _ := startWith(t, serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: p.issuer, KeyMinRefresh: time.Hour}})
	resource := s.base + "/mcp"
	before := p.jwksHits.Load()
	p.mu.Lock()
	k := p.keys["rsa-1"]
	p.mu.Unlock()
	hc := httpClient(t, "", nil)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			tok := signWith(t, jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k.priv, KeyID: fmt.Sprintf("made-up-%d", i)}}, p.claims(resource, nil))
			resp, _ := rpc(t, context.Background(), hc, resource, map[string]string{"Authorization": "Bearer " + tok}, initialize2025)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("a made-up kid: got %d, want 401", resp.StatusCode)
			}
		})
	}
	wg.Wait()
	if n := p.jwksHits.Load() - before; n > 0 {
		t.Errorf("the key set was fetched %d times within KeyMinRefresh of the first fetch", n)
	}
}

// TestOIDCMetadata: the protected resource metadata document, at the
// path-suffixed well-known URL and the plain one, names this server and
// its issuer; a browser may read it from any origin.
func TestOIDCMetadata(t *testing.T) {
	p := newProvider(t)
	s, _ := startWith(t, serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: p.issuer, Scopes: []string{"sql:read"}}})
	want := map[string]any{
		"resource": s.base + "/mcp", "authorization_servers": []any{p.issuer},
		"bearer_methods_supported": []any{"header"}, "scopes_supported": []any{"sql:read"}, "resource_name": "sqlmcp",
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		status, h, body := get(t, s.base+path, map[string]string{"Origin": "https://inspector.example.com"})
		var got map[string]any
		if status != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil {
			t.Fatalf("%s: got %d %q", path, status, body)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", path, d)
		}
		if h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: Access-Control-Allow-Origin %q, want *", path, h.Get("Access-Control-Allow-Origin"))
		}
	}
	if status, _, _ := get(t, s.base+"/.well-known/oauth-protected-resource/mcp", map[string]string{"Host": "evil.example.com"}); status == http.StatusOK {
		t.Errorf("a Host not allowed: got %d", status)
	}
	// The challenge of a request without a token names the scopes too.
	resp, _ := rpc(t, t.Context(), httpClient(t, "", nil), s.base+"/mcp", nil, listTables2025)
	if wa, want := resp.Header.Get("WWW-Authenticate"), fmt.Sprintf(`Bearer scope="sql:read", resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, s.base); wa != want {
		t.Errorf("WWW-Authenticate: got %s, want %s", wa, want)
	}
}

// TestOIDCPublicURL: with a public URL the resource and the default
// audience are that URL's /mcp, and its host is allowed; a token for the
// address listened on is then refused.
func TestOIDCPublicURL(t *testing.T) {
	p := newProvider(t)
	s, _ := startWith(t, serve.HTTPOptions{PublicURL: "https://SQLMCP.example.com", OIDC: &serve.OIDCOptions{Issuer: p.issuer}})
	const resource = "https://sqlmcp.example.com/mcp"
	ev := s.log.Wait(t, time.Second, map[string]any{"event": "start", "resource": resource, "resource_derived": false})
	if ev["resource_metadata"] != "https://sqlmcp.example.com/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("resource_metadata: got %v", ev["resource_metadata"])
	}
	hc := httpClient(t, "", nil)
	for aud, want := range map[string]int{resource: 200, s.base + "/mcp": 401} {
		resp, _ := rpc(t, t.Context(), hc, s.base+"/mcp", map[string]string{"Host": "sqlmcp.example.com", "Authorization": "Bearer " + p.sign(t, "rsa-1", p.claims(aud, nil))}, initialize2025)
		if resp.StatusCode != want {
			t.Errorf("audience %s: got %d, want %d", aud, resp.StatusCode, want)
		}
	}
}

// TestOIDCIntrospection: an opaque token is checked at the provider's
// RFC 7662 endpoint: active and for this server is accepted with its
// identity; inactive or for another audience is refused; an endpoint that
// will not answer makes a 503, not a 401.
func TestOIDCIntrospection(t *testing.T) {
	p := newProvider(t)
	opts := &serve.OIDCOptions{Issuer: p.issuer, IntrospectionURL: p.issuer + "/introspect", ClientID: p.clientID, ClientSecret: p.secret}
	s, ids := startWith(t, serve.HTTPOptions{OIDC: opts})
	resource := s.base + "/mcp"
	exp := time.Now().Add(time.Minute).Unix()
	p.addOpaque("opaque-good-0123456789", map[string]any{"active": true, "sub": "bob", "aud": resource, "exp": exp, "scope": "sql:read", "client_id": "cli"})
	p.addOpaque("opaque-other-0123456789", map[string]any{"active": true, "sub": "bob", "aud": "https://other.example.com", "exp": exp})
	p.addOpaque("opaque-expired-0123456789", map[string]any{"active": true, "sub": "bob", "aud": resource, "exp": time.Now().Add(-time.Hour).Unix()})

	cs := connect(t, resource, httpClient(t, "opaque-good-0123456789", nil), "")
	callText(t, cs, "list_tables", nil)
	got := ids.last(t)
	if want := (identity.Identity{Subject: "bob", Issuer: p.issuer, Scopes: []string{"sql:read"}, Claims: map[string]any{"client_id": "cli"}}); !cmp.Equal(want, got) {
		t.Errorf("identity: %s", cmp.Diff(want, got))
	}
	hc := httpClient(t, "", nil)
	for tok, reason := range map[string]string{"opaque-inactive-0123456789": "not active", "opaque-other-0123456789": "audience", "opaque-expired-0123456789": "expired"} {
		resp, _ := rpc(t, t.Context(), hc, resource, map[string]string{"Authorization": "Bearer " + tok}, listTables2025)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), reason) {
			t.Errorf("%s: got %d %q, want 401 saying %q", tok, resp.StatusCode, body, reason)
		}
	}
	p.mu.Lock()
	p.secret = "rotated"
	p.mu.Unlock()
	resp, _ := rpc(t, t.Context(), hc, resource, map[string]string{"Authorization": "Bearer opaque-good-0123456789"}, listTables2025)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("introspection refused to the server: got %d, want 503", resp.StatusCode)
	}
	s.log.Wait(t, time.Second, map[string]any{"event": "auth_unavailable"})
}

// TestOIDCStart: what stops the server at start: an unreachable issuer,
// a discovery document naming another issuer, an algorithm that is none
// or HMAC, OIDC beside listed tokens.
func TestOIDCStart(t *testing.T) {
	p := newProvider(t)
	srv := newServer(t, dbtest.SQLite(t, nil), &mcptest.Log{}, 0)
	// An issuer whose key set never ends.
	var huge *httptest.Server
	huge = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/openid-configuration" {
			writeJSON(w, map[string]string{"issuer": huge.URL, "jwks_uri": huge.URL + "/keys"})
			return
		}
		io.WriteString(w, `{"keys":[`)
		for range 1 << 12 {
			io.WriteString(w, strings.Repeat(" ", 1<<10))
		}
	}))
	defer huge.Close()
	for name, c := range map[string]struct {
		opts serve.HTTPOptions
		want string
	}{
		"unreachable":                    {serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: "http://127.0.0.1:1"}}, "discovery document"},
		"a huge key set":                 {serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: huge.URL}}, "sent more than 1048576 bytes"},
		"another issuer":                 {serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: p.issuer + "/"}}, "names the issuer"},
		"plain http":                     {serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: "http://login.example.com"}}, "must be https"},
		"alg none":                       {serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: p.issuer, Algorithms: []string{"none"}}}, `"none" is not accepted`},
		"HS256":                          {serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: p.issuer, Algorithms: []string{"RS256", "HS256"}}}, `"HS256" is not accepted`},
		"with tokens":                    {serve.HTTPOptions{Tokens: []string{tokenA}, OIDC: &serve.OIDCOptions{Issuer: p.issuer}}, "exclude each other"},
		"introspection without a secret": {serve.HTTPOptions{OIDC: &serve.OIDCOptions{Issuer: p.issuer, IntrospectionURL: p.issuer + "/introspect", ClientID: "x"}}, "client ID and secret"},
		"public URL with a path":         {serve.HTTPOptions{PublicURL: "https://example.com/db", OIDC: &serve.OIDCOptions{Issuer: p.issuer}}, "public URL"},
	} {
		t.Run(name, func(t *testing.T) {
			c.opts.Addr = "127.0.0.1:0"
			err := serve.HTTP(t.Context(), srv, &c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// TestNamedTokens: a listed token written "NAME: TOKEN" gives its calls
// that Subject, beside the fingerprint; an unnamed one only the
// fingerprint.
func TestNamedTokens(t *testing.T) {
	s, ids := startWith(t, serve.HTTPOptions{Tokens: []string{"ci-bot: " + tokenA, tokenB}})
	for tok, want := range map[string]identity.Identity{
		tokenA: {Subject: "ci-bot", Fingerprint: serve.Fingerprint(tokenA)},
		tokenB: {Fingerprint: serve.Fingerprint(tokenB)},
	} {
		cs := connect(t, s.base+"/mcp", httpClient(t, tok, nil), "")
		callText(t, cs, "list_tables", nil)
		if got := ids.last(t); !cmp.Equal(want, got) {
			t.Errorf("identity: %s", cmp.Diff(want, got))
		}
	}
	s.log.Wait(t, 10*time.Second, map[string]any{"event": "http", "tool": "list_tables", "subject": "ci-bot", "token_fingerprint": serve.Fingerprint(tokenA)})
	for line, want := range map[string]string{
		"ci bot: " + tokenA: "holds a space, or its name lacks the colon",
		"c/i: " + tokenA:    "is not one word",
		"a: b: " + tokenA:   "holds a space",
		"name: shorttoken":  "use at least 16",
	} {
		_, _, err := serve.ParseToken(line)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), tokenA) {
			t.Errorf("%q: got %v, want an error saying %q without the token", strings.ReplaceAll(line, tokenA, "TOKEN"), err, want)
		}
	}
	srv := newServer(t, dbtest.SQLite(t, nil), &mcptest.Log{}, 0)
	if err := serve.HTTP(t.Context(), srv, &serve.HTTPOptions{Addr: "127.0.0.1:0", Tokens: []string{"a: " + tokenA, "b: " + tokenA}}); err == nil || !strings.Contains(err.Error(), "different names") {
		t.Errorf("one token, two names: got %v", err)
	}
}

// TestNoAuthNoIdentity: without authentication a call carries no
// identity at all, not an empty one.
func TestNoAuthNoIdentity(t *testing.T) {
	s, ids := startWith(t, serve.HTTPOptions{})
	callText(t, connect(t, s.base+"/mcp", httpClient(t, "", nil), ""), "list_tables", nil)
	ids.mu.Lock()
	defer ids.mu.Unlock()
	if ids.nil != 1 || len(ids.ids) != 0 {
		t.Errorf("%d calls without an identity, %d with; want 1 without", ids.nil, len(ids.ids))
	}
}
