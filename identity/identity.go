// Package identity is who is calling: the identity an HTTP request's
// credentials prove (an OpenID Connect token's claims, or the bearer token
// of the server's list), carried in the call's context from the transport
// (internal/serve) to the tools, the rules that map it to what it may
// reach, and the audit trail. It imports only the standard library.
package identity

import "context"

// Identity is a caller, as its credentials prove it. The zero Identity is
// the anonymous caller of a server without authentication (stdio, or HTTP
// on loopback without tokens).
type Identity struct {
	// Subject is the token's sub claim, or the name a listed bearer token
	// is given; "" for the anonymous caller.
	Subject string
	// Issuer is the token's iss claim; "" for a listed bearer token.
	Issuer string
	// Email is the token's email claim, when its email_verified is true.
	Email string
	// Groups and Scopes are the token's groups and scope (or scp) claims.
	Groups, Scopes []string
	// Fingerprint identifies a listed bearer token in logs without
	// revealing it (see internal/serve.Fingerprint); "" for OIDC.
	Fingerprint string
	// Claims are the token's other claims, for the rules to match.
	Claims map[string]any
}

type key struct{}

// With returns ctx carrying id.
func With(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, key{}, id)
}

// From returns the identity ctx carries, and false when it carries none.
func From(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(key{}).(Identity)
	return id, ok
}
