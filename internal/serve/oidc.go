package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/sqlmcp/sqlmcp/identity"
)

// MaxAuthorizationBytes is the longest Authorization header HTTP reads in
// OpenID Connect mode; a longer one is refused as an invalid token before
// it is parsed.
const MaxAuthorizationBytes = 8 << 10

// DefaultAlgorithms are the signing algorithms OIDCOptions.Algorithms
// accepts when it is empty.
var DefaultAlgorithms = []string{"RS256", "ES256"}

// signingAlgorithms are the algorithms a token may be signed with: public
// key signatures only. "none" and the HMAC family (HS256, ...) are never
// among them, so a token cannot go unsigned or be signed with the issuer's
// public key used as a shared secret.
var signingAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// OIDCOptions make HTTP an OAuth 2.1 resource server: /mcp accepts only
// access tokens an OpenID Connect issuer signed for this server, and
// /.well-known/oauth-protected-resource tells clients where to get one.
type OIDCOptions struct {
	// Issuer is the issuer's URL, exactly as its tokens' iss claim and its
	// discovery document write it; https, or http to loopback. Required.
	Issuer string
	// Audiences are the aud values a token must hold one of. Empty means
	// the resource identifier, HTTP's public URL of /mcp (a trailing
	// slash aside).
	Audiences []string
	// Algorithms are the JWS algorithms tokens may be signed with, among
	// RS*, PS*, ES* and EdDSA. Empty means DefaultAlgorithms.
	Algorithms []string
	// Scopes, when set, are advertised as scopes_supported and in the
	// challenge of a request without a token; they are not required.
	Scopes []string
	// IntrospectionURL, when set, is the issuer's RFC 7662 token
	// introspection endpoint, asked about tokens that are not JWTs, as
	// ClientID with ClientSecret (HTTP basic authentication).
	IntrospectionURL, ClientID, ClientSecret string
	// Leeway is the clock difference tolerated on exp, nbf and iat. Zero
	// means 30 seconds.
	Leeway time.Duration
	// KeyMaxAge is how long the issuer's keys are used before they are
	// fetched again (so a key the issuer removed stops working). Zero
	// means 10 minutes.
	KeyMaxAge time.Duration
	// KeyMinRefresh is the least time between two fetches of the keys,
	// however many tokens name a key the set lacks. Zero means 10 seconds.
	KeyMinRefresh time.Duration
	// Client fetches the discovery document and the keys and calls the
	// introspection endpoint. Nil means a plain client; every call is
	// bounded in time and size whatever the client.
	Client *http.Client
}

// oidcAuth checks access tokens for one issuer.
type oidcAuth struct {
	issuer     string
	audiences  []string
	algs       []jose.SignatureAlgorithm
	leeway     time.Duration
	keys       *keySet
	introspect *introspector // nil without an endpoint
	resource   string        // the resource identifier, for the metadata
	scopes     []string
	metaURL    string // of the protected resource metadata
}

// authFailure is why a request's credentials were refused: what the
// access log notes and the caller reads.
type authFailure struct {
	missing     bool   // no credentials at all
	unavailable bool   // the credentials could not be checked now (503)
	reason      string // a short phrase: "the token has expired"
	cause       error  // for the log, when unavailable
}

func (f *authFailure) Error() string { return f.reason }

func refuse(format string, args ...any) *authFailure {
	return &authFailure{reason: fmt.Sprintf(format, args...)}
}

// newOIDC reads the issuer's discovery document and keys: a server that
// cannot reach its issuer at start says so rather than refusing every
// caller later.
func newOIDC(ctx context.Context, o *OIDCOptions, resource string, log func(n int, err error)) (*oidcAuth, error) {
	if o.Issuer == "" {
		return nil, errors.New("OpenID Connect needs the issuer's URL")
	}
	if err := checkIssuerURL("the issuer", o.Issuer); err != nil {
		return nil, err
	}
	a := &oidcAuth{issuer: o.Issuer, audiences: o.Audiences, leeway: o.Leeway, resource: resource, scopes: o.Scopes}
	if len(a.audiences) == 0 {
		a.audiences = []string{resource}
	}
	if a.leeway <= 0 {
		a.leeway = 30 * time.Second
	}
	names := o.Algorithms
	if len(names) == 0 {
		names = DefaultAlgorithms
	}
	for _, n := range names {
		if !slices.Contains(signingAlgorithms, n) {
			return nil, fmt.Errorf("signing algorithm %q is not accepted: use some of %s (never none or HS*)", n, strings.Join(signingAlgorithms, ", "))
		}
		a.algs = append(a.algs, jose.SignatureAlgorithm(n))
	}
	if o.IntrospectionURL != "" {
		if err := checkIssuerURL("the introspection URL", o.IntrospectionURL); err != nil {
			return nil, err
		}
		if o.ClientID == "" || o.ClientSecret == "" {
			return nil, errors.New("token introspection needs a client ID and secret")
		}
	}
	client := bounded(o.Client)

	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	discovery := strings.TrimSuffix(o.Issuer, "/") + "/.well-known/openid-configuration"
	if err := getJSON(ctx, client, discovery, &doc); err != nil {
		return nil, fmt.Errorf("reading the issuer's discovery document: %w", err)
	}
	switch {
	case doc.Issuer != o.Issuer:
		return nil, fmt.Errorf("the discovery document %s names the issuer %q, not %q: give the issuer exactly as it writes itself", discovery, doc.Issuer, o.Issuer)
	case doc.JWKSURI == "":
		return nil, fmt.Errorf("the discovery document %s has no jwks_uri", discovery)
	}
	if err := checkIssuerURL("the issuer's jwks_uri", doc.JWKSURI); err != nil {
		return nil, err
	}
	a.keys = &keySet{url: doc.JWKSURI, client: client, maxAge: o.KeyMaxAge, minGap: o.KeyMinRefresh, onFetch: log}
	if a.keys.maxAge <= 0 {
		a.keys.maxAge = 10 * time.Minute
	}
	if a.keys.minGap <= 0 {
		a.keys.minGap = 10 * time.Second
	}
	if err := a.keys.refresh(ctx, time.Now()); err != nil {
		return nil, err
	}
	if o.IntrospectionURL != "" {
		a.introspect = newIntrospector(client, o.IntrospectionURL, o.ClientID, o.ClientSecret)
	}
	return a, nil
}

// bounded is client, or a plain one, with fetchTimeout on every call.
func bounded(client *http.Client) *http.Client {
	c := &http.Client{}
	if client != nil {
		*c = *client
	}
	if c.Timeout == 0 || c.Timeout > fetchTimeout {
		c.Timeout = fetchTimeout
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 3 {
			return errors.New("more than 3 redirects")
		}
		return checkIssuerURL("a redirect", req.URL.String())
	}
	return c
}

// metadataPath is where the protected resource metadata of resource is
// served: RFC 9728 section 3.1 inserts the well-known path between the
// host and the resource's path.
func metadataPath(resource string) string {
	u, _ := url.Parse(resource)
	return "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.EscapedPath(), "/")
}

// metadata is the protected resource metadata document (RFC 9728).
func (a *oidcAuth) metadata() *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               a.resource,
		AuthorizationServers:   []string{a.issuer},
		BearerMethodsSupported: []string{"header"},
		ScopesSupported:        a.scopes,
		ResourceName:           "sqlmcp",
	}
}

// challenge is the WWW-Authenticate header of a refusal: the metadata's
// URL always, so a client can start discovery, and error="invalid_token"
// when a token was sent (RFC 6750 section 3).
func (a *oidcAuth) challenge(f *authFailure) string {
	var b strings.Builder
	b.WriteString("Bearer ")
	if !f.missing {
		fmt.Fprintf(&b, `error="invalid_token", error_description=%q, `, f.reason)
	} else if len(a.scopes) > 0 {
		fmt.Fprintf(&b, "scope=%q, ", strings.Join(a.scopes, " "))
	}
	fmt.Fprintf(&b, "resource_metadata=%q", a.metaURL)
	return b.String()
}

// verify checks an access token and returns the identity it proves, or
// an *authFailure.
func (a *oidcAuth) verify(ctx context.Context, raw string) (identity.Identity, error) {
	if strings.Count(raw, ".") != 2 {
		if a.introspect != nil {
			return a.introspect.check(ctx, raw, a)
		}
		return identity.Identity{}, refuse("the token is not a JWT (header.payload.signature)")
	}
	tok, err := jwt.ParseSigned(raw, a.algs)
	if err != nil {
		if errors.As(err, new(*jose.ErrUnexpectedSignatureAlgorithm)) {
			return identity.Identity{}, refuse("the token's signing algorithm is not accepted (accepted: %s)", a.algNames())
		}
		return identity.Identity{}, refuse("the token is malformed")
	}
	if len(tok.Headers) != 1 {
		return identity.Identity{}, refuse("the token is malformed")
	}
	h := tok.Headers[0]
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != "" && !strings.EqualFold(typ, "JWT") &&
		!strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") {
		return identity.Identity{}, refuse("the token's type %q is not an access token", cut(typ, 40))
	}
	var std jwt.Claims
	var all map[string]any
	keys := a.keys.candidates(ctx, h.KeyID, h.Algorithm)
	if len(keys) == 0 {
		return identity.Identity{}, refuse("the token's signing key is not one the issuer publishes")
	}
	verified := false
	for _, key := range keys {
		if tok.Claims(key.Key, &std, &all) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return identity.Identity{}, refuse("the token's signature does not verify with the issuer's keys")
	}
	if err := a.checkClaims(std.Issuer, []string(std.Audience), std.Subject, std.Expiry, std.NotBefore, std.IssuedAt); err != nil {
		return identity.Identity{}, err
	}
	return claimsIdentity(all), nil
}

func (a *oidcAuth) algNames() string {
	s := make([]string, len(a.algs))
	for i, alg := range a.algs {
		s[i] = string(alg)
	}
	return strings.Join(s, ", ")
}

// googleIssuer is Google's issuer, whose ID tokens may also write it
// without the scheme, as Google documents.
const googleIssuer = "https://accounts.google.com"

// checkClaims holds a token's registered claims to this server: its
// issuer, one of its audiences, a subject, and a lifetime (exp required)
// that holds now, within the leeway.
func (a *oidcAuth) checkClaims(iss string, aud []string, sub string, exp, nbf, iat *jwt.NumericDate) *authFailure {
	if iss != a.issuer && !(a.issuer == googleIssuer && iss == "accounts.google.com") {
		return refuse("the token's issuer is not the one this server trusts")
	}
	ok := false
	for _, want := range a.audiences {
		ok = ok || oauthex.MatchesResource(aud, want)
	}
	if !ok {
		return refuse("the token's audience is not this server (want %s)", strings.Join(a.audiences, " or "))
	}
	if sub == "" {
		return refuse("the token has no subject")
	}
	if exp == nil {
		return refuse("the token has no expiry")
	}
	err := jwt.Claims{Expiry: exp, NotBefore: nbf, IssuedAt: iat}.ValidateWithLeeway(jwt.Expected{}, a.leeway)
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return refuse("the token has expired")
	case errors.Is(err, jwt.ErrNotValidYet):
		return refuse("the token is not valid yet (nbf)")
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return refuse("the token was issued in the future (iat)")
	case err != nil:
		return refuse("the token's lifetime is not valid")
	}
	return nil
}

// mapped are the claims claimsIdentity gives their own fields, left out
// of Identity.Claims.
var mapped = []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti", "email", "email_verified", "groups", "scope", "scp"}

// claimsIdentity is the identity a verified token's claims prove.
func claimsIdentity(c map[string]any) identity.Identity {
	id := identity.Identity{Claims: map[string]any{}}
	id.Subject, _ = c["sub"].(string)
	id.Issuer, _ = c["iss"].(string)
	if v, _ := c["email_verified"].(bool); v {
		id.Email, _ = c["email"].(string)
	}
	id.Groups = strings1(c["groups"], false)
	if s, ok := c["scope"]; ok {
		id.Scopes = strings1(s, true)
	} else {
		id.Scopes = strings1(c["scp"], true)
	}
	for k, v := range c {
		if !slices.Contains(mapped, k) {
			id.Claims[k] = v
		}
	}
	return id
}

// strings1 reads a claim that is a list of strings, or one string
// (split on spaces when split is set, as scope is written).
func strings1(v any, split bool) []string {
	switch v := v.(type) {
	case string:
		if split {
			return strings.Fields(v)
		}
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
