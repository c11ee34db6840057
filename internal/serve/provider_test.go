package serve_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// provider is an OpenID Connect provider for tests: discovery, a JSON Web
// Key Set of real RSA and EC keys it can rotate, RFC 7662 introspection of
// the opaque tokens it is told about, and tokens it signs on request.
type provider struct {
	srv    *httptest.Server
	issuer string

	mu        sync.Mutex
	keys      map[string]signingKey // kid -> key, every key it can sign with
	published []string              // the kids its key set lists
	opaque    map[string]map[string]any
	clientID  string
	secret    string
	jwksHits  atomic.Int64
	introHits atomic.Int64
}

// signingKey is a private key and the algorithm it signs with.
type signingKey struct {
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

// newProvider starts a provider publishing an RSA key "rsa-1" (RS256) and
// an EC key "ec-1" (ES256); it stops when the test ends.
func newProvider(t testing.TB) *provider {
	t.Helper()
	p := &provider{keys: map[string]signingKey{}, opaque: map[string]map[string]any{}, clientID: "sqlmcp", secret: "introspection-secret"}
	p.addKey(t, "rsa-1", jose.RS256)
	p.addKey(t, "ec-1", jose.ES256)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer": p.issuer, "jwks_uri": p.issuer + "/keys", "introspection_endpoint": p.issuer + "/introspect",
			"authorization_endpoint": p.issuer + "/auth", "token_endpoint": p.issuer + "/token",
			"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256", "ES256"},
		})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		p.jwksHits.Add(1)
		p.mu.Lock()
		defer p.mu.Unlock()
		var set jose.JSONWebKeySet
		for _, kid := range p.published {
			k := p.keys[kid]
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.priv.Public(), KeyID: kid, Algorithm: string(k.alg), Use: "sig"})
		}
		writeJSON(w, set)
	})
	mux.HandleFunc("POST /introspect", func(w http.ResponseWriter, r *http.Request) {
		p.introHits.Add(1)
		id, secret, ok := r.BasicAuth()
		if !ok || id != p.clientID || secret != p.secret {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		p.mu.Lock()
		ans, found := p.opaque[r.PostFormValue("token")]
		p.mu.Unlock()
		if !found {
			ans = map[string]any{"active": false}
		}
		writeJSON(w, ans)
	})
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	p.issuer = p.srv.URL
	return p
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// addKey makes a key and publishes it.
func (p *provider) addKey(t testing.TB, kid string, alg jose.SignatureAlgorithm) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys[kid] = signingKey{alg: alg, priv: newKey(t, alg)}
	p.published = append(p.published, kid)
}

// unpublish takes kid out of the key set; the provider can still sign
// with it, as a stolen or retired key would.
func (p *provider) unpublish(kid string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.published = slices.DeleteFunc(p.published, func(k string) bool { return k == kid })
}

func newKey(t testing.TB, alg jose.SignatureAlgorithm) crypto.Signer {
	t.Helper()
	var k crypto.Signer
	var err error
	switch alg {
	case jose.RS256:
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES256:
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		t.Fatalf("no key for %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// claims are a valid access token's claims for audience, with changes
// applied (a nil value deletes the claim).
func (p *provider) claims(audience string, changes map[string]any) map[string]any {
	now := time.Now()
	c := map[string]any{
		"iss": p.issuer, "sub": "alice", "aud": audience, "iat": now.Unix(), "nbf": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(), "email": "alice@example.com", "email_verified": true,
		"groups": []string{"analysts", "eu"}, "scope": "openid sql:read", "azp": "inspector",
	}
	for k, v := range changes {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

// sign signs claims with the provider's key kid, naming it in the header.
func (p *provider) sign(t testing.TB, kid string, claims map[string]any) string {
	t.Helper()
	p.mu.Lock()
	k, ok := p.keys[kid]
	p.mu.Unlock()
	if !ok {
		t.Fatalf("no key %s", kid)
	}
	return signWith(t, jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: kid}}, claims)
}

func signWith(t testing.TB, key jose.SigningKey, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(key, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// unsigned is a token with alg "none" and no signature.
func unsigned(t testing.TB, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none","typ":"JWT","kid":"rsa-1"}`)) + "." + enc(payload) + "."
}

// hmacWithPublicKey is the HS/RS confusion attack: a token signed with
// HS256 whose secret is the provider's RSA public key (as PEM, which the
// attacker can read from the key set), under the RSA key's kid.
func (p *provider) hmacWithPublicKey(t testing.TB, claims map[string]any) string {
	t.Helper()
	p.mu.Lock()
	pub := p.keys["rsa-1"].priv.Public()
	p.mu.Unlock()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	return signWith(t, jose.SigningKey{Algorithm: jose.HS256, Key: jose.JSONWebKey{Key: secret, KeyID: "rsa-1"}}, claims)
}

// addOpaque makes the introspection endpoint answer raw with ans.
func (p *provider) addOpaque(raw string, ans map[string]any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opaque[raw] = ans
}
