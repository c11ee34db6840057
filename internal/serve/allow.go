package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// MinTokenLength is the fewest characters a bearer token may have.
const MinTokenLength = 16

// Fingerprint names a bearer token in logs and errors without giving it
// away: the first 8 hex digits of its SHA-256 digest.
func Fingerprint(token string) string {
	d := sha256.Sum256([]byte(token))
	return hex.EncodeToString(d[:4])
}

// CheckToken reports whether token can serve as a bearer token: at least
// MinTokenLength characters, all printable ASCII without spaces. Its error
// names the token by its fingerprint, never by its text.
func CheckToken(token string) error {
	if len(token) < MinTokenLength {
		return fmt.Errorf("bearer token %s (fingerprint) has %d characters; use at least %d, e.g. from openssl rand -hex 32",
			Fingerprint(token), len(token), MinTokenLength)
	}
	if strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r > '~' }) {
		return fmt.Errorf("bearer token %s (fingerprint) holds a space, control or non-ASCII character, which cannot travel in an Authorization header",
			Fingerprint(token))
	}
	return nil
}

// ParseToken reads one listed token as a token file writes it: "TOKEN",
// or "NAME: TOKEN" to give the caller bearing it a name (the Subject of
// its identity): letters, digits and . _ @ + -, at most 64 of them. The
// token is checked by CheckToken. Errors never hold the token's text.
func ParseToken(line string) (name, token string, err error) {
	f := strings.Fields(line)
	switch {
	case len(f) == 1:
		return "", f[0], CheckToken(f[0])
	case len(f) == 2 && strings.HasSuffix(f[0], ":"):
		name = strings.TrimSuffix(f[0], ":")
		if !tokenName(name) {
			return "", "", fmt.Errorf("bearer token %s (fingerprint): the name %q is not one word of letters, digits and . _ @ + - (at most 64)", Fingerprint(f[1]), cut(name, 70))
		}
		return name, f[1], CheckToken(f[1])
	}
	return "", "", fmt.Errorf("a listed bearer token holds a space, or its name lacks the colon: write TOKEN or NAME: TOKEN (%d words found)", len(f))
}

func tokenName(s string) bool {
	return s != "" && len(s) <= 64 && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._@+-", r))
	})
}

// ParsePublicURL reads the URL clients reach the server at: http or https,
// a host, an optional port, and no path but "/" or "/mcp". It returns it
// as scheme://host[:port], the scheme and host lowercased.
func ParsePublicURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || (u.Path != "" && u.Path != "/" && u.Path != "/mcp") {
		return "", fmt.Errorf("public URL %q is not like https://sqlmcp.example.com (scheme, host, optional port; /mcp is added)", s)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// ParseOrigin turns a browser origin into scheme://host:port, lowercased,
// with the port explicit; ok is false for anything but an http or https
// origin without a path, query or user.
func ParseOrigin(s string) (origin string, ok bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port), true
}

// ParseHost turns an allowed Host entry into a lowercased name (any port),
// host:port, or *; ok is false when it is none of those.
func ParseHost(s string) (host string, ok bool) {
	s = strings.ToLower(s)
	if s == "*" {
		return s, true
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		return strings.Trim(s, "[]"), true
	}
	if !strings.Contains(s, ":") {
		return s, s != "" && !strings.ContainsAny(s, "/@ ")
	}
	h, port, err := net.SplitHostPort(s)
	if _, perr := strconv.Atoi(port); err != nil || perr != nil || h == "" {
		return "", false
	}
	return net.JoinHostPort(h, port), true
}

// allowlist says which Host and Origin headers /mcp answers: the defence
// against DNS rebinding, where a web page on a name the attacker controls
// reaches a server on this machine.
type allowlist struct {
	anyHost bool
	names   map[string]bool // host names allowed with any port
	exact   map[string]bool // host:port pairs
	origins map[string]bool // scheme://host:port
}

// newAllowlist builds the allowlist for a server bound to bindHost and
// listening on port: the loopback names and the bind host (any port, so
// port forwarding works), the origins of those names on this port (same
// origin), and the extra hosts and origins given, already parsed.
func newAllowlist(bindHost, port string, tls bool, hosts, origins []string) *allowlist {
	a := &allowlist{names: map[string]bool{}, exact: map[string]bool{}, origins: map[string]bool{}}
	local := []string{"localhost", "127.0.0.1", "::1"}
	if ip, err := netip.ParseAddr(bindHost); bindHost != "" && (err != nil || !ip.IsUnspecified()) {
		local = append(local, strings.ToLower(bindHost))
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	for _, name := range local {
		a.names[name] = true
		a.origins[scheme+"://"+net.JoinHostPort(name, port)] = true
	}
	for _, h := range hosts {
		if _, _, err := net.SplitHostPort(h); err == nil {
			a.exact[h] = true
		} else if h == "*" {
			a.anyHost = true
		} else {
			a.names[h] = true
		}
	}
	for _, o := range origins {
		a.origins[o] = true
	}
	return a
}

// hostAllowed reports whether a request's Host header is on the list.
func (a *allowlist) hostAllowed(hostHeader string) bool {
	if a.anyHost {
		return true
	}
	h := strings.ToLower(hostHeader)
	host, _, err := net.SplitHostPort(h)
	if err != nil {
		host = strings.Trim(h, "[]")
	}
	return host != "" && (a.names[host] || a.exact[h])
}

// originAllowed reports whether a browser Origin header is on the list.
func (a *allowlist) originAllowed(origin string) bool {
	n, ok := ParseOrigin(origin)
	return ok && a.origins[n]
}

// sorted lists the allowed hosts and origins for the start log.
func (a *allowlist) sorted() (hosts, origins []string) {
	for h := range a.names {
		hosts = append(hosts, h)
	}
	for h := range a.exact {
		hosts = append(hosts, h)
	}
	if a.anyHost {
		hosts = append(hosts, "*")
	}
	for o := range a.origins {
		origins = append(origins, o)
	}
	slices.Sort(hosts)
	slices.Sort(origins)
	return hosts, origins
}
