package config

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sqlmcp/sqlmcp/identity"
)

// identityKeys are the keys of one identity rule, and matchKeys those of
// its match.
var (
	identityKeys = []string{"name", "match", "sources", "roles"}
	matchKeys    = []string{"subject", "issuer", "groups", "scopes", "email_domain"}
)

// identities reads the identities: list, rules from a caller's identity to
// the sources it may use and the role it runs as on each, after the
// sources, whose names the rules must use.
func (p *parser) identities(n *yaml.Node, srcs []*Source) identity.Rules {
	if !p.expect(n, yaml.SequenceNode, "identities") {
		return nil
	}
	byName := map[string]*Source{}
	for _, s := range srcs {
		byName[s.Name] = s
	}
	var rules identity.Rules
	for i, rn := range n.Content {
		if !p.expect(rn, yaml.MappingNode, "each identity rule") {
			continue
		}
		r := identity.Rule{Roles: map[string]string{}}
		matched := false
		pairs(rn, func(k, v *yaml.Node) {
			switch k.Value {
			case "name":
				r.Name, _ = p.scalar(v, "name")
			case "match":
				matched = p.match(v, &r.Match)
			case "sources":
				r.Sources, _ = p.names(v, "sources")
				for _, name := range r.Sources {
					if name != "*" && byName[name] == nil {
						p.errorf(v.Line, "name a source of this file, or * for all", "identity rule: no source named %q", name)
					}
				}
			case "roles":
				if !p.expect(v, yaml.MappingNode, "roles") {
					return
				}
				pairs(v, func(k, v *yaml.Node) {
					role, _ := p.scalar(v, "a role")
					switch s := byName[k.Value]; {
					case s == nil:
						p.errorf(k.Line, "name a source of this file", "identity rule: roles: no source named %q", k.Value)
					case !s.IsPostgres():
						p.errorf(k.Line, "give roles for PostgreSQL sources only", "identity rule: roles: %s is not a PostgreSQL source", k.Value)
					default:
						r.Roles[k.Value] = role
					}
				})
			default:
				p.unknown(k, "in an identity rule", identityKeys)
			}
		})
		if r.Name == "" {
			r.Name = fmt.Sprintf("rule %d", i+1)
		}
		switch {
		case !matched:
			p.errorf(rn.Line, "add match: with subject, issuer, groups, scopes or email_domain", "identity rule %s matches nothing: it has no match", r.Name)
		case len(r.Sources) == 0:
			p.errorf(rn.Line, "add sources: the sources it may use, or [\"*\"]", "identity rule %s gives no source", r.Name)
		}
		for src := range r.Roles {
			if !slices.Contains(r.Sources, src) && !slices.Contains(r.Sources, "*") {
				p.errorf(rn.Line, "add it to sources, or drop its role", "identity rule %s gives a role on %s, which it may not use", r.Name, src)
			}
		}
		rules = append(rules, r)
	}
	return rules
}

// match reads a rule's match; false when it is not a mapping.
func (p *parser) match(v *yaml.Node, m *identity.Match) bool {
	if !p.expect(v, yaml.MappingNode, "match") {
		return false
	}
	pairs(v, func(k, v *yaml.Node) {
		vals, _ := p.names(v, k.Value)
		switch k.Value {
		case "subject":
			m.Subjects = vals
		case "issuer":
			m.Issuers = vals
		case "groups":
			m.Groups = vals
		case "scopes":
			m.Scopes = vals
		case "email_domain":
			m.EmailDomains = vals
		default:
			p.unknown(k, "in match", matchKeys)
		}
	})
	return true
}

// names reads a name or a list of names.
func (p *parser) names(v *yaml.Node, key string) ([]string, bool) {
	vals, msg := list(v)
	if msg != "" {
		p.errorf(v.Line, "", "%s: %s", key, msg)
		return nil, false
	}
	for i := range vals {
		vals[i] = strings.TrimSpace(vals[i])
	}
	return vals, true
}
