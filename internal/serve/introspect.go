package serve

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/sqlmcp/sqlmcp/identity"
)

// maxIntrospections bounds the introspection calls in flight, so a flood
// of made-up opaque tokens cannot turn into a flood at the issuer.
const maxIntrospections = 8

// introspector asks the issuer about opaque tokens (RFC 7662). It is safe
// for concurrent use.
type introspector struct {
	client     *http.Client
	url        string
	id, secret string
	slots      chan struct{}
}

func newIntrospector(client *http.Client, u, id, secret string) *introspector {
	return &introspector{client: client, url: u, id: id, secret: secret, slots: make(chan struct{}, maxIntrospections)}
}

// check asks whether raw is an active token and holds what the endpoint
// says to the same rules as a JWT's claims (issuer, audience, subject,
// lifetime). It returns an *authFailure when the token is refused, and
// when the endpoint cannot be asked (unavailable set).
func (in *introspector) check(ctx context.Context, raw string, a *oidcAuth) (identity.Identity, error) {
	select {
	case in.slots <- struct{}{}:
		defer func() { <-in.slots }()
	case <-ctx.Done():
		return identity.Identity{}, &authFailure{unavailable: true, reason: "the token could not be checked now"}
	}
	c, err := in.ask(ctx, raw)
	if err != nil {
		return identity.Identity{}, &authFailure{unavailable: true, reason: "the issuer's introspection endpoint did not answer", cause: err}
	}
	if active, _ := c["active"].(bool); !active {
		return identity.Identity{}, refuse("the token is not active")
	}
	if _, ok := c["iss"]; !ok {
		c["iss"] = a.issuer // the issuer's own endpoint speaks for it
	}
	iss, _ := c["iss"].(string)
	sub, _ := c["sub"].(string)
	if f := a.checkClaims(iss, strings1(c["aud"], false), sub, date(c["exp"]), date(c["nbf"]), date(c["iat"])); f != nil {
		return identity.Identity{}, f
	}
	delete(c, "active")
	return claimsIdentity(c), nil
}

// ask posts the token to the endpoint, authenticated as the client (RFC
// 6749 section 2.3.1 form-encodes the ID and secret), and returns the
// answer's members.
func (in *introspector) ask(ctx context.Context, raw string) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	form := url.Values{"token": {raw}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.url, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(in.id), url.QueryEscape(in.secret))
	resp, err := in.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var c map[string]any
	if err := decodeJSON(resp, in.url, &c); err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("%s answered null", in.url)
	}
	return c, nil
}

// date reads a NumericDate member of a JSON object; nil when absent or
// not a number.
func date(v any) *jwt.NumericDate {
	f, ok := v.(float64)
	if !ok {
		return nil
	}
	d := jwt.NumericDate(int64(f))
	return &d
}
