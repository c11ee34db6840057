package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Bounds on what the issuer's endpoints may send back.
const (
	maxDocBytes  = 1 << 20          // a discovery document or key set
	fetchTimeout = 10 * time.Second // one fetch, connecting included
)

// keySet is the issuer's published signing keys, fetched from its
// jwks_uri and kept for at most maxAge. A token naming a key the set lacks
// makes it fetch again, but never twice within minGap, so a flood of
// tokens with made-up key IDs costs the issuer one fetch per minGap. It is
// safe for concurrent use.
type keySet struct {
	url            string
	client         *http.Client
	maxAge, minGap time.Duration
	onFetch        func(n int, err error) // told of every fetch, for the log

	fetch sync.Mutex // held while fetching, so one fetch runs at a time

	mu      sync.Mutex // guards the fields below
	keys    []jose.JSONWebKey
	fetched time.Time // of the keys held
	tried   time.Time // the last fetch began, successful or not
}

// refresh fetches the key set unless a fetch began at or after since,
// which the caller may then use instead.
func (k *keySet) refresh(ctx context.Context, since time.Time) error {
	k.fetch.Lock()
	defer k.fetch.Unlock()
	k.mu.Lock()
	if !k.tried.Before(since) && !k.tried.IsZero() {
		k.mu.Unlock()
		return nil
	}
	k.tried = time.Now()
	k.mu.Unlock()

	keys, err := fetchKeys(ctx, k.client, k.url)
	if k.onFetch != nil {
		k.onFetch(len(keys), err)
	}
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.keys, k.fetched = keys, time.Now()
	k.mu.Unlock()
	return nil
}

// candidates returns the keys a token signed with alg under kid may be
// verified with (for no kid, every key of the algorithm), fetching the set
// again when it is older than maxAge or lacks kid, as minGap allows. A
// fetch that fails leaves the keys held in use.
func (k *keySet) candidates(ctx context.Context, kid, alg string) []jose.JSONWebKey {
	// A fetch is shared: the caller leaving does not stop it, and one
	// that began after now serves this caller too.
	ctx = context.WithoutCancel(ctx)
	now := time.Now()
	k.mu.Lock()
	stale := now.Sub(k.fetched) > k.maxAge && now.Sub(k.tried) >= k.minGap
	k.mu.Unlock()
	if stale {
		k.refresh(ctx, now)
	}
	found := k.match(kid, alg)
	if len(found) > 0 || kid == "" {
		return found
	}
	k.mu.Lock()
	may := now.Sub(k.tried) >= k.minGap || k.tried.After(now)
	k.mu.Unlock()
	if !may {
		// A fetch in flight may bring the key: wait for it (fetchTimeout
		// at most), then look again.
		k.fetch.Lock()
		k.fetch.Unlock() //lint:ignore SA2001 waiting for the fetch in flight is the point
		return k.match(kid, alg)
	}
	if k.refresh(ctx, now) != nil {
		return nil
	}
	return k.match(kid, alg)
}

func (k *keySet) match(kid, alg string) []jose.JSONWebKey {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []jose.JSONWebKey
	for _, key := range k.keys {
		if (kid == "" || key.KeyID == kid) && (key.Algorithm == "" || key.Algorithm == alg) && fitsAlg(key.Key, alg) {
			out = append(out, key)
		}
	}
	return out
}

// fitsAlg reports whether a public key is of the kind alg signs with: an
// RSA key for RS* and PS*, an EC key for ES*, Ed25519 for EdDSA. The
// algorithm list never holds HS*, and a key set's symmetric keys are
// dropped when read, so an RSA key never serves as an HMAC secret.
func fitsAlg(key any, alg string) bool {
	switch key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PublicKey:
		return strings.HasPrefix(alg, "ES")
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}

// fetchKeys reads a JSON Web Key Set, keeping the public signing keys it
// understands and skipping the rest (other key types, encryption keys), as
// RFC 7517 section 5 says a reader should.
func fetchKeys(ctx context.Context, client *http.Client, u string) ([]jose.JSONWebKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := getJSON(ctx, client, u, &set); err != nil {
		return nil, fmt.Errorf("reading the issuer's keys: %w", err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		var key jose.JSONWebKey
		if json.Unmarshal(raw, &key) != nil || !key.Valid() || key.Use == "enc" {
			continue
		}
		pub := key.Public()
		if !pub.Valid() {
			continue // a symmetric key, which has no public half
		}
		switch pub.Key.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
			keys = append(keys, pub)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("reading the issuer's keys: %s holds no public signing key this server can use", u)
	}
	return keys, nil
}

// getJSON fetches u and decodes its JSON body into v: at most maxDocBytes,
// within fetchTimeout, status 200 only.
func getJSON(ctx context.Context, client *http.Client, u string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return decodeJSON(resp, u, v)
}

// decodeJSON reads a response of at most maxDocBytes into v.
func decodeJSON(resp *http.Response, u string, v any) error {
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes+1))
	if err != nil {
		return fmt.Errorf("reading %s: %w", u, err)
	}
	if len(body) > maxDocBytes {
		return fmt.Errorf("%s sent more than %d bytes", u, maxDocBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s is not the JSON expected: %w", u, err)
	}
	return nil
}

// checkIssuerURL reports whether s can be an issuer or endpoint URL:
// https, or http to a loopback host (a provider on this machine).
func checkIssuerURL(what, s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%s %q is not an absolute URL like https://login.example.com/realms/main", what, s)
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !IsLoopback(u.Hostname())) {
		return fmt.Errorf("%s %q must be https (plain http only to a provider on this machine)", what, s)
	}
	return nil
}
