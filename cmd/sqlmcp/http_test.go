package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	transport "github.com/sqlmcp/sqlmcp/internal/serve"
)

// The transport itself is tested in internal/serve; these tests check
// what cmd adds: flags and environment in, refusals with exit status 2,
// token files and TLS files read.

// Test tokens; each at least 16 characters.
const (
	fileToken = "file-token-0123456789abcdef"
	envToken  = "env-token-fedcba9876543210"
)

// testServer is sqlmcp run in-process by run() with --http.
type testServer struct {
	base   string // scheme://127.0.0.1:port
	log    *mcptest.Log
	cancel context.CancelFunc // ends run's ctx: SIGTERM
	done   chan error         // run's result
}

// startHTTP runs sqlmcp serve with args, on 127.0.0.1:0 unless args say
// where, and env as its environment; it learns the port from the start
// event. The server stops when the test ends.
func startHTTP(t testing.TB, env map[string]string, args ...string) *testServer {
	t.Helper()
	if !slices.Contains(args, "--http") {
		args = append(args, "--http", "127.0.0.1:0")
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{log: &mcptest.Log{}, cancel: cancel, done: make(chan error, 1)}
	go func() {
		s.done <- run(ctx, append([]string{"serve", "--log-level", "debug"}, args...), strings.NewReader(""), io.Discard, s.log,
			func(k string) string { return env[k] })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Error("the server did not stop")
		}
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if evs := s.log.Find(map[string]any{"event": "start", "transport": "http"}); len(evs) > 0 {
			s.base = strings.TrimSuffix(evs[0]["url"].(string), "/mcp")
			return s
		}
		select {
		case err := <-s.done:
			t.Fatalf("run returned before serving: %v\n%s", err, s.log)
		default:
		}
	}
	t.Fatalf("no start event:\n%s", s.log)
	return nil
}

// The go-sdk's streamable HTTP client, and an HTTP client of its own for
// each test.
var (
	httpClient = mcptest.HTTPClient
	connect    = mcptest.ConnectHTTP
)

// everyTool is one call of each tool on the fixture and what its text holds.
var everyTool = []struct {
	tool string
	args map[string]any
	want string
}{
	{"list_tables", map[string]any{}, `"Order Items" (table, 5 rows`},
	{"describe_table", map[string]any{"table": "order"}, "- customer_id INTEGER NOT NULL"},
	{"search_schema", map[string]any{"query": "free meal"}, `"SchoolStats"."Free Meal Count (K-12)"`},
	{"sample_values", map[string]any{"table": "products", "column": "category"}, "'book'"},
	{"distinct_values", map[string]any{"table": "order", "column": "status"}, "- 'shipped': 2"},
	{"run_query", map[string]any{"sql": "SELECT count(*) AS n FROM customers"}, "\nn\n4\n</data-"},
}

// TestHTTPFromFlags: tokens from a file and from the environment are both
// accepted, and the TLS files are read, through run.
func TestHTTPFromFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	os.WriteFile(file, []byte("# rotated in on Monday\n\n  "+fileToken+"  \n# the old one goes Friday\n"), 0o600)
	certFile, keyFile, pool := selfSigned(t)
	s := startHTTP(t, map[string]string{"SQLMCP_AUTH_TOKENS": envToken + ", "}, "--db", dbtest.SQLiteFile(t),
		"--auth-token-file", file, "--tls-cert", certFile, "--tls-key", keyFile)
	start := s.log.Find(map[string]any{"event": "start"})[0]
	if start["auth"] != true || start["tokens"] != float64(2) || start["tls"] != true || !strings.HasPrefix(s.base, "https://") {
		t.Errorf("start event: auth %v, tokens %v, tls %v, url %s; want true, 2, true, https", start["auth"], start["tokens"], start["tls"], s.base)
	}
	for _, k := range []string{"engine", "database", "timeout_ms", "shutdown_grace_ms"} {
		if _, ok := start[k]; !ok {
			t.Errorf("start event without %s: %v", k, start)
		}
	}
	for _, tok := range []string{fileToken, envToken} {
		cs := connect(t, s.base+"/mcp", httpClient(t, tok, &tls.Config{RootCAs: pool}), "")
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_tables", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Errorf("token %s: %v %+v", transport.Fingerprint(tok), err, res)
		}
	}
	resp, err := httpClient(t, "", &tls.Config{RootCAs: pool}).Get(s.base + "/readyz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz: %v %v", resp, err)
	}
	if strings.Contains(s.log.String(), fileToken) || strings.Contains(s.log.String(), envToken) {
		t.Error("the log holds a token")
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and localhost
// and returns its files and a pool that trusts it.
func selfSigned(t testing.TB) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sqlmcp test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600)
	return certFile, keyFile, pool
}

// TestHTTPStartRefusals: mistakes in the HTTP settings stop sqlmcp before
// it serves, with exit status 2.
func TestHTTPStartRefusals(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	short := filepath.Join(t.TempDir(), "short")
	os.WriteFile(short, []byte("tooshort\n"), 0o600)
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, []byte("# nothing yet\n\n"), 0o600)
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"all interfaces without auth", []string{"--http", "0.0.0.0:0"}, nil, "reachable from other machines and no bearer token is set"},
		{"empty host without auth", []string{"--http", ":8080"}, nil, "reachable from other machines"},
		{"IPv6 any without auth", []string{"--http", "[::]:8080"}, nil, "reachable from other machines"},
		{"a host name without auth", []string{"--http", "db.example.com:8080"}, nil, "reachable from other machines"},
		{"port only", []string{"--http", "8080"}, nil, `--http "8080" is not host:port`},
		{"named port", []string{"--http", "127.0.0.1:http"}, nil, "is not host:port"},
		{"short token in a file", []string{"--http", "127.0.0.1:0", "--auth-token-file", short}, nil, "has 8 characters; use at least 16"},
		{"empty token file", []string{"--http", "0.0.0.0:0", "--auth-token-file", empty}, nil, "holds no token"},
		{"short token in the env", []string{"--http", "127.0.0.1:0"}, map[string]string{"SQLMCP_AUTH_TOKENS": "0123456789abcdefgh,short"}, "has 5 characters"},
		{"token with a space", []string{"--http", "127.0.0.1:0", "--auth-tokens", "0123456789 abcdefgh"}, nil, "holds a space"},
		{"missing token file", []string{"--http", "127.0.0.1:0", "--auth-token-file", "/no/such/file"}, nil, "reading --auth-token-file"},
		{"tokens and insecure", []string{"--http", "0.0.0.0:0", "--auth-tokens", fileToken, "--insecure-no-auth"}, nil, "contradict"},
		{"cert without key", []string{"--http", "127.0.0.1:0", "--tls-cert", "c.pem"}, nil, "give --tls-cert and --tls-key together"},
		{"key without cert", []string{"--http", "127.0.0.1:0"}, map[string]string{"SQLMCP_TLS_KEY": "k.pem"}, "give --tls-cert and --tls-key together"},
		{"unreadable cert", []string{"--http", "127.0.0.1:0", "--tls-cert", "/no/c.pem", "--tls-key", "/no/k.pem"}, nil, "loading --tls-cert and --tls-key"},
		{"origin with a path", []string{"--http", "127.0.0.1:0", "--allowed-origins", "https://app.example.com/x"}, nil, "is not an origin"},
		{"bad host", []string{"--http", "127.0.0.1:0", "--allowed-hosts", "a/b"}, nil, "is not a host name"},
		{"bad body limit", []string{"--http", "127.0.0.1:0", "--max-body-bytes", "0"}, nil, "--max-body-bytes must be positive"},
		{"negative concurrency", []string{"--max-concurrency", "-1"}, nil, "--max-concurrency must be 0"},
		{"address in use", []string{"--http", "127.0.0.1:1"}, nil, "listening on 127.0.0.1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "address in use" {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
				tt.args[1] = ln.Addr().String()
				tt.want = "listening on " + ln.Addr().String()
			}
			var stderr bytes.Buffer
			args := append([]string{"serve", "--db", path}, tt.args...)
			err := run(t.Context(), args, strings.NewReader(""), io.Discard, &stderr, func(k string) string { return tt.env[k] })
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want a usage error (exit status 2)", err)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %q, want one line containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "tooshort") || strings.Contains(err.Error(), "short,") {
				t.Errorf("the error holds the token: %q", err)
			}
		})
	}
}

// TestHTTPSettingsFromEnvironment: the HTTP flags read their SQLMCP_*
// variables; --http= serves stdio even when SQLMCP_HTTP is set, and HTTP
// settings on stdio are noted for a warning rather than refused.
func TestHTTPSettingsFromEnvironment(t *testing.T) {
	env := map[string]string{
		"SQLMCP_DB": "x.db", "SQLMCP_HTTP": "127.0.0.1:9", "SQLMCP_AUTH_TOKENS": envToken + "," + envToken,
		"SQLMCP_ALLOWED_ORIGINS": "https://App.example.com", "SQLMCP_MAX_BODY_BYTES": "2048", "SQLMCP_SHUTDOWN_GRACE": "3s",
	}
	getenv := func(k string) string { return env[k] }
	cfg, err := parseServe(nil, nil, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.http != "127.0.0.1:9" || len(cfg.tokens) != 2 || cfg.maxBodyBytes != 2048 || cfg.shutdownGrace != 3*time.Second ||
		!slices.Equal(cfg.origins, []string{"https://app.example.com:443"}) {
		t.Errorf("got http %q, %d tokens, body %d, grace %s, origins %v", cfg.http, len(cfg.tokens), cfg.maxBodyBytes, cfg.shutdownGrace, cfg.origins)
	}
	cfg, err = parseServe([]string{"--http="}, nil, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.http != "" || !slices.Equal(cfg.httpNotes, []string{"--auth-tokens", "--allowed-origins"}) {
		t.Errorf("--http=: got http %q, notes %v; want stdio, with the HTTP settings noted", cfg.http, cfg.httpNotes)
	}
}
