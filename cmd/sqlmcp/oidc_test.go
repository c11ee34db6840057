package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// issuer is an OpenID Connect provider for cmd's tests: discovery, one
// RSA key, and a token endpoint granting the client credentials grant to
// one client, for the resource it names (RFC 8707); internal/serve tests
// the refusals against a fuller one.
type issuer struct {
	url string
	key *rsa.PrivateKey
}

// The one client of the issuer's token endpoint.
const (
	clientID     = "reporting-job"
	clientSecret = "reporting-job-secret"
)

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": is.url, "jwks_uri": is.url + "/keys", "token_endpoint": is.url + "/token",
			"grant_types_supported": []string{"client_credentials"}, "token_endpoint_auth_methods_supported": []string{"client_secret_basic"},
			"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"}, "authorization_endpoint": is.url + "/authorize"})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		w.Header().Set("Content-Type", "application/json")
		if !ok || id != clientID || secret != clientSecret || r.PostFormValue("grant_type") != "client_credentials" || r.PostFormValue("resource") == "" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"invalid_request"}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"access_token": is.token(t, r.PostFormValue("resource"), id), "token_type": "Bearer", "expires_in": 60})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	is.url = srv.URL
	return is
}

// token is an access token for audience, for subject, in groups.
func (is *issuer) token(t *testing.T, audience, subject string, groups ...string) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: is.key, KeyID: "k1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(signer).Claims(jwt.Claims{Issuer: is.url, Subject: subject, Audience: jwt.Audience{audience},
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Minute))}).Claims(map[string]any{"groups": groups}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestServeOIDC: sqlmcp.yaml's server-wide auth: oidc and oidc_issuer
// make /mcp an OAuth resource server: the go-sdk client with a token for
// the derived resource identifier calls a tool, the access log names the
// subject, and a request without a token is pointed at the metadata.
func TestServeOIDC(t *testing.T) {
	is := newIssuer(t)
	file := filepath.Join(t.TempDir(), "sqlmcp.yaml")
	text := "auth: oidc\noidc_issuer: " + is.url + "\noidc_scopes: [sql:read]\nsources:\n  - name: shop\n    url: " + dbtest.SQLiteFile(t) + "\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startHTTP(t, nil, "--config", file)
	resource := s.base + "/mcp"
	s.log.Wait(t, time.Second, map[string]any{"event": "start", "auth_mode": "oidc", "oidc_issuer": is.url, "resource": resource, "resource_derived": true})

	cs := connect(t, resource, httpClient(t, is.token(t, resource, "carol"), nil), "")
	if got, isErr := callText(t, cs, "run_query", map[string]any{"sql": "SELECT count(*) AS n FROM customers"}); isErr || !strings.Contains(got, "n\n4") {
		t.Errorf("run_query: %q", got)
	}
	s.log.Wait(t, 10*time.Second, map[string]any{"event": "http", "tool": "run_query", "subject": "carol"})

	resp, err := http.Post(resource, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := `Bearer scope="sql:read", resource_metadata="` + s.base + `/.well-known/oauth-protected-resource/mcp"`; resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("no token: got %d %s, want 401 %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
	resp, err = http.Get(s.base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"authorization_servers":["`+is.url+`"]`) {
		t.Errorf("metadata: %s", body)
	}
}

// TestServeOIDCIdentities: the identity an access token proves is what
// sqlmcp.yaml's identity rules match: a token in the analysts group
// reaches shop and not hr, one in no group reaches nothing.
func TestServeOIDCIdentities(t *testing.T) {
	is := newIssuer(t)
	file := filepath.Join(t.TempDir(), "sqlmcp.yaml")
	text := "auth: oidc\noidc_issuer: " + is.url + "\nsources:\n" +
		"  - name: shop\n    url: " + dbtest.SQLiteFile(t) + "\n  - name: hr\n    url: " + dbtest.SQLiteFile(t) + "\n" +
		"identities:\n  - name: analysts\n    match: {groups: [analysts]}\n    sources: [shop]\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startHTTP(t, nil, "--config", file)
	resource := s.base + "/mcp"
	query := func(tok, db string) bool {
		cs := connect(t, resource, httpClient(t, tok, nil), "")
		_, isErr := callText(t, cs, "run_query", map[string]any{"sql": "SELECT count(*) FROM customers", "database": db})
		return !isErr
	}
	analyst, guest := is.token(t, resource, "alice", "analysts"), is.token(t, resource, "bob", "guests")
	for _, c := range []struct {
		who, tok, db string
		want         bool
	}{{"analyst", analyst, "shop", true}, {"analyst", analyst, "hr", false}, {"guest", guest, "shop", false}, {"guest", guest, "hr", false}} {
		if got := query(c.tok, c.db); got != c.want {
			t.Errorf("%s on %s: answered %v, want %v", c.who, c.db, got, c.want)
		}
	}
}

// TestServeOIDCRefusals: --auth oidc settings that cannot work stop sqlmcp
// at start with exit status 2 and what to change.
func TestServeOIDCRefusals(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no issuer", []string{"--auth", "oidc"}, nil, "--auth oidc needs --oidc-issuer"},
		{"an unknown mode", []string{"--auth", "basic"}, nil, `--auth "basic": use tokens`},
		{"oidc settings without oidc", []string{"--oidc-issuer", "https://login.example.com"}, nil, "need --auth oidc"},
		{"tokens too", []string{"--auth", "oidc", "--oidc-issuer", "https://login.example.com"}, map[string]string{"SQLMCP_AUTH_TOKENS": fileToken}, "exclude each other"},
		{"insecure too", []string{"--auth", "oidc", "--oidc-issuer", "https://login.example.com", "--insecure-no-auth"}, nil, "contradict"},
		{"every interface without a public URL", []string{"--auth", "oidc", "--oidc-issuer", "https://login.example.com", "--http", "0.0.0.0:8080"}, nil, "needs --public-url"},
		{"a public URL with a path", []string{"--auth", "oidc", "--oidc-issuer", "https://login.example.com", "--public-url", "https://x.example.com/db"}, nil, "--public-url"},
		{"introspection without the client", []string{"--auth", "oidc", "--oidc-issuer", "https://login.example.com", "--oidc-introspection-url", "https://login.example.com/introspect"},
			map[string]string{"SQLMCP_OIDC_CLIENT_ID": "sqlmcp"}, "SQLMCP_OIDC_CLIENT_SECRET"},
		{"tokens mode without tokens", []string{"--auth", "tokens"}, nil, "--auth tokens needs tokens"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"serve", "--db", path}, tt.args...)
			if !strings.Contains(strings.Join(args, " "), "--http") {
				args = append(args, "--http", "127.0.0.1:0")
			}
			err := run(t.Context(), args, strings.NewReader(""), io.Discard, &bytes.Buffer{}, func(k string) string { return tt.env[k] })
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want a usage error saying %q", err, tt.want)
			}
		})
	}
}

// TestNamedTokenFile: a token file line "NAME: TOKEN" gives the calls
// bearing it that subject in the access log.
func TestNamedTokenFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	os.WriteFile(file, []byte("# the nightly job\nnightly: "+fileToken+"\n"+envToken+"\n"), 0o600)
	s := startHTTP(t, nil, "--db", dbtest.SQLiteFile(t), "--auth-token-file", file)
	cs := connect(t, s.base+"/mcp", httpClient(t, fileToken, nil), "")
	callText(t, cs, "list_tables", nil)
	s.log.Wait(t, 10*time.Second, map[string]any{"event": "http", "tool": "list_tables", "subject": "nightly"})
	s.log.Wait(t, time.Second, map[string]any{"event": "start", "tokens": float64(2)})
}

// TestTypeScriptOAuth: the TypeScript SDK's client, knowing only the
// server's URL and its own client credentials, finds the issuer from the
// protected resource metadata, gets a token for sqlmcp's resource by the
// client credentials grant and calls a tool: the discovery an MCP client
// does, with no one at a browser. (The MCP Inspector CLI authorizes only
// interactively, by the authorization code grant in a browser.)
func TestTypeScriptOAuth(t *testing.T) {
	if os.Getenv("SQLMCP_TEST_INSPECTOR") != "1" {
		t.Skip("SQLMCP_TEST_INSPECTOR is not 1: not running the TypeScript SDK's OAuth client (needs `" + oauthClientInstall + "`)")
	}
	dir := filepath.Join(dbtest.Root(), "testdata", "oauthclient")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("SQLMCP_TEST_INSPECTOR=1 but the TypeScript SDK is not installed (%v): run `%s` at the repository root first", err, oauthClientInstall)
	}
	is := newIssuer(t)
	s := startHTTP(t, nil, "--db", dbtest.SQLiteFile(t), "--auth", "oidc", "--oidc-issuer", is.url, "--oidc-scopes", "sql:read")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "discover.mjs"), s.base+"/mcp")
	cmd.Env = append(os.Environ(), "SQLMCP_TEST_CLIENT_ID="+clientID, "SQLMCP_TEST_CLIENT_SECRET="+clientSecret)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\nstderr: %s\nserver log:\n%s", err, stderr.String(), s.log)
	}
	var got struct {
		Metadata struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		} `json:"metadata"`
		Tools   []string `json:"tools"`
		Text    string   `json:"text"`
		IsError bool     `json:"isError"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the TypeScript client printed %q", out)
	}
	if got.Metadata.Resource != s.base+"/mcp" || len(got.Metadata.AuthorizationServers) != 1 || got.Metadata.AuthorizationServers[0] != is.url {
		t.Errorf("the metadata it found: %+v", got.Metadata)
	}
	if got.IsError || !strings.Contains(got.Text, "n\n4") || !slices.Contains(got.Tools, "run_query") {
		t.Errorf("tools %v, run_query isError=%v %q", got.Tools, got.IsError, got.Text)
	}
	// The client was refused first, then came back with its token.
	s.log.Wait(t, 10*time.Second, map[string]any{"event": "http", "status": 401, "auth": "missing"})
	s.log.Wait(t, 10*time.Second, map[string]any{"event": "http", "tool": "run_query", "subject": clientID, "status": 200})
}

// oauthClientInstall is what puts the TypeScript SDK into
// testdata/oauthclient/node_modules.
const oauthClientInstall = "npm install --prefix testdata/oauthclient --no-audit --no-fund"
