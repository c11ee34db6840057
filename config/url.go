package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sqlmcp/sqlmcp/schema"
)

// expand replaces each ${VAR} in raw with the variable's value. In a
// server URL's user and password, the value is percent-escaped, so a
// password with @, : or / in it needs no care. A variable that is unset or
// empty, or a ${ without its }, is an error: a URL is never half-expanded.
func expand(raw string, getenv func(string) string) (string, string) {
	userEnd := -1 // the index of the @ that ends a server URL's user part
	if isServer(raw) {
		rest := raw[strings.Index(raw, "//")+2:]
		if end := strings.IndexAny(rest, "/?#"); end >= 0 {
			rest = rest[:end]
		}
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			userEnd = strings.Index(raw, "//") + 2 + at
		}
	}
	var b strings.Builder
	for i := 0; i < len(raw); {
		j := strings.Index(raw[i:], "${")
		if j < 0 {
			b.WriteString(raw[i:])
			break
		}
		b.WriteString(raw[i : i+j])
		start := i + j
		end := strings.IndexByte(raw[start:], '}')
		if end < 0 {
			return "", fmt.Sprintf("%q has a ${ without its }", redact(raw))
		}
		name := raw[start+2 : start+end]
		if !envName.MatchString(name) {
			return "", fmt.Sprintf("${%s} is not a variable name", name)
		}
		v := getenv(name)
		if v == "" {
			return "", fmt.Sprintf("${%s} is not set in the environment", name)
		}
		if start < userEnd {
			v = escapeUserinfo(v)
		}
		b.WriteString(v)
		i = start + end + 1
	}
	return b.String(), ""
}

// escapeUserinfo percent-escapes everything but RFC 3986's unreserved
// characters.
func escapeUserinfo(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// redact hides a literal password in a server's URL (in its user part or
// a password= parameter); ${VAR} references are kept, since they hold no
// secret.
func redact(raw string) string {
	if !isServer(raw) {
		return raw
	}
	// ${VAR} does not parse as part of a URL: stand a plain word in for
	// each while parsing.
	var refs []string
	text := refPattern.ReplaceAllStringFunc(raw, func(ref string) string {
		refs = append(refs, ref)
		return fmt.Sprintf("sqlmcpref%dx", len(refs)-1)
	})
	u, err := url.Parse(text)
	if err != nil {
		return strings.SplitN(raw, "//", 2)[0] + "//(a URL that does not parse)"
	}
	if p, ok := u.User.Password(); ok && !isRef(p) {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if p := q.Get("password"); p != "" && !isRef(p) {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	s := u.String()
	for i, ref := range refs {
		s = strings.Replace(s, fmt.Sprintf("sqlmcpref%dx", i), ref, 1)
	}
	return s
}

var refPattern = regexp.MustCompile(`\$\{[^}]*\}`)

// isRef reports whether s stands for a ${VAR}.
func isRef(s string) bool {
	return strings.HasPrefix(s, "sqlmcpref") && strings.HasSuffix(s, "x")
}

// closest is the known key nearest to key, or "".
func closest(key string, known []string) string {
	if c := schema.Closest(key, known, 1); len(c) > 0 {
		return c[0]
	}
	return ""
}

// yamlDuration is a duration written as Go writes them ("15s", "2m").
type yamlDuration time.Duration

func (d *yamlDuration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	*d = yamlDuration(v)
	return err
}

func (d yamlDuration) Duration() time.Duration { return time.Duration(d) }
