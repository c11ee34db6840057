package identity

import (
	"slices"
	"strings"
)

// Rule maps the identities it matches to what they may reach: the
// sources they may use and, per PostgreSQL source, the role their calls
// run as. Rules are tried in order; the first that matches decides.
type Rule struct {
	// Name names the rule in sqlmcp check's effective configuration and
	// in the configuration's errors.
	Name  string
	Match Match
	// Sources are the sources the identity may use, by name; "*" for
	// every one. The others are invisible to it.
	Sources []string
	// Roles maps a PostgreSQL source to the role the identity's calls run
	// as there (SET LOCAL ROLE inside each call's read-only transaction),
	// so that the database's own grants and row-level security apply.
	Roles map[string]string
}

// Match is what an identity must show for a Rule to match: every field
// given must match (a list matches when any of its values does); a Match
// with no field given matches every identity that proved one, never the
// anonymous caller.
type Match struct {
	Subjects, Issuers, Groups, Scopes []string
	// EmailDomains match a verified email's domain, without the @.
	EmailDomains []string
}

// Rules are a server's identity rules, in order.
type Rules []Rule

// Grant is what an identity may reach, as the rule that matched says.
type Grant struct {
	all  bool
	srcs []string
	role map[string]string
}

// Grant returns what id may reach under rs, and false when no rule
// matches it: such an identity may reach nothing (rules fail closed).
func (rs Rules) Grant(id Identity) (*Grant, bool) {
	for _, r := range rs {
		if r.Match.matches(id) {
			return &Grant{all: slices.Contains(r.Sources, "*"), srcs: r.Sources, role: r.Roles}, true
		}
	}
	return nil, false
}

func (m Match) matches(id Identity) bool {
	if id.Subject == "" && id.Issuer == "" {
		return false // the anonymous caller proved nothing
	}
	any := func(want, have []string) bool {
		return len(want) == 0 || slices.ContainsFunc(have, func(h string) bool { return slices.Contains(want, h) })
	}
	domain := ""
	if at := strings.LastIndexByte(id.Email, '@'); at >= 0 {
		domain = strings.ToLower(id.Email[at+1:])
	}
	lower := make([]string, len(m.EmailDomains))
	for i, d := range m.EmailDomains {
		lower[i] = strings.ToLower(strings.TrimPrefix(d, "@"))
	}
	return any(m.Subjects, []string{id.Subject}) && any(m.Issuers, []string{id.Issuer}) &&
		any(m.Groups, id.Groups) && any(m.Scopes, id.Scopes) && (len(lower) == 0 || domain != "" && slices.Contains(lower, domain))
}

// Allows reports whether the grant reaches the source name; a nil Grant
// (no rules configured) reaches every source.
func (g *Grant) Allows(name string) bool {
	return g == nil || g.all || slices.Contains(g.srcs, name)
}

// Role is the PostgreSQL role calls on the source name run as; "" for the
// connecting role.
func (g *Grant) Role(name string) string {
	if g == nil {
		return ""
	}
	return g.role[name]
}
