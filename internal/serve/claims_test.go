package serve

import (
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
)

// TestGoogleIssuer: Google's issuer accepts the scheme-less iss its ID
// tokens may carry; any other issuer must match exactly.
func TestGoogleIssuer(t *testing.T) {
	exp := jwt.NewNumericDate(time.Now().Add(time.Minute))
	for _, c := range []struct {
		issuer, iss string
		ok          bool
	}{
		{googleIssuer, googleIssuer, true},
		{googleIssuer, "accounts.google.com", true},
		{googleIssuer, "http://accounts.google.com", false},
		{"https://login.example.com", "login.example.com", false},
	} {
		a := &oidcAuth{issuer: c.issuer, audiences: []string{"client-1"}, leeway: time.Second}
		if f := a.checkClaims(c.iss, []string{"client-1"}, "sub-1", exp, nil, nil); (f == nil) != c.ok {
			t.Errorf("issuer %s, iss %s: got %v, want ok=%v", c.issuer, c.iss, f, c.ok)
		}
	}
}
