package config

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sqlmcp/sqlmcp/policy"
)

// effective is a source as Effective prints it.
type effective struct {
	Name                string           `yaml:"name"`
	URL                 string           `yaml:"url"`
	Description         string           `yaml:"description,omitempty"`
	Annotations         string           `yaml:"annotations,omitempty"`
	Descriptions        string           `yaml:"descriptions,omitempty"`
	Schemas             []string         `yaml:"schemas,omitempty,flow"`
	RequireReadonlyRole bool             `yaml:"require_readonly_role"`
	HideUnreadable      bool             `yaml:"hide_unreadable"`
	Timeout             string           `yaml:"timeout"`
	MaxRows             int              `yaml:"max_rows"`
	MaxRowsLimit        int              `yaml:"max_rows_limit"`
	MaxBytes            int              `yaml:"max_bytes"`
	MaxCellBytes        int              `yaml:"max_cell_bytes"`
	MaxConcurrency      int              `yaml:"max_concurrency"`
	AllowExtensions     []string         `yaml:"allow_extensions,omitempty,flow"`
	AllowFunctions      []string         `yaml:"allow_functions,omitempty,flow"`
	PGWorkMem           string           `yaml:"pg_work_mem,omitempty"`
	PGTempFileLimit     string           `yaml:"pg_temp_file_limit,omitempty"`
	MemoryLimit         string           `yaml:"memory_limit,omitempty"`
	Threads             int              `yaml:"threads,omitempty"`
	Views               yaml.Node        `yaml:"views,omitempty"`
	Tolerate            []string         `yaml:"tolerate,omitempty,flow"`
	Policy              *effectivePolicy `yaml:"policy,omitempty"`
}

// effectiveIdentity is an identity rule as Effective prints it.
type effectiveIdentity struct {
	Name    string            `yaml:"name"`
	Match   effectiveMatch    `yaml:"match,flow"`
	Sources []string          `yaml:"sources,flow"`
	Roles   map[string]string `yaml:"roles,omitempty,flow"`
}

type effectiveMatch struct {
	Subjects     []string `yaml:"subject,omitempty"`
	Issuers      []string `yaml:"issuer,omitempty"`
	Groups       []string `yaml:"groups,omitempty"`
	Scopes       []string `yaml:"scopes,omitempty"`
	EmailDomains []string `yaml:"email_domain,omitempty"`
}

// effectivePolicy is a source's policy as Effective prints it, in the
// file's own keys.
type effectivePolicy struct {
	Default     string            `yaml:"default"`
	Tables      []string          `yaml:"tables,omitempty,flow"`
	DenyTables  []string          `yaml:"deny_tables,omitempty,flow"`
	DenyColumns []string          `yaml:"deny_columns,omitempty,flow"`
	MaskColumns map[string]string `yaml:"mask_columns,omitempty"`
}

func showPolicy(p *policy.Spec) *effectivePolicy {
	if p == nil {
		return nil
	}
	e := &effectivePolicy{Default: "allow", Tables: p.Tables, DenyTables: p.DenyTables, DenyColumns: p.DenyColumns}
	if p.DenyByDefault {
		e.Default = "deny"
	}
	for col, mode := range p.Mask {
		if e.MaskColumns == nil {
			e.MaskColumns = map[string]string{}
		}
		e.MaskColumns[col] = string(mode)
	}
	return e
}

// Effective is the configuration as it will run, in the file's own format:
// the server-wide settings the file gives, and every source with each
// setting it ends up with, defaults filled in. URLs are shown as written,
// passwords hidden.
func (f *File) Effective() string {
	global := map[string]string{}
	for _, g := range f.Global {
		global[g.Key] = g.Value
	}
	var doc struct {
		Sources    []effective         `yaml:"sources"`
		Identities []effectiveIdentity `yaml:"identities,omitempty"`
	}
	for _, r := range f.Identities {
		m := r.Match
		doc.Identities = append(doc.Identities, effectiveIdentity{Name: r.Name, Sources: r.Sources, Roles: r.Roles,
			Match: effectiveMatch{Subjects: m.Subjects, Issuers: m.Issuers, Groups: m.Groups, Scopes: m.Scopes, EmailDomains: m.EmailDomains}})
	}
	for _, s := range f.Sources {
		l := s.Limits.WithDefaults()
		e := effective{Name: s.Name, URL: s.Display, Description: s.Description, Annotations: s.Annotations,
			Descriptions: s.Descriptions, Schemas: s.Schemas, RequireReadonlyRole: s.RequireReadonlyRole,
			HideUnreadable: s.HideUnreadable, Timeout: l.Timeout.String(), MaxRows: l.MaxRows, MaxRowsLimit: l.MaxRowsLimit,
			MaxBytes: l.MaxBytes, MaxCellBytes: l.MaxCellBytes, MaxConcurrency: s.MaxConcurrency, Tolerate: s.Tolerate,
			Policy: showPolicy(s.Policy)}
		if !isServer(s.URL) {
			e.MemoryLimit, e.Threads = s.DuckDBMemoryLimit, s.DuckDBThreads
		}
		if len(s.Views) > 0 {
			e.Views = yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
			for _, v := range s.Views {
				e.Views.Content = append(e.Views.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: v.Name}, &yaml.Node{Kind: yaml.ScalarNode, Value: v.Path})
			}
		}
		if s.IsPostgres() {
			e.AllowExtensions, e.AllowFunctions = s.AllowExtensions, s.AllowFunctions
			e.PGWorkMem, e.PGTempFileLimit = s.PGWorkMem, s.PGTempFileLimit
		}
		doc.Sources = append(doc.Sources, e)
	}
	var b strings.Builder
	for _, part := range []any{global, doc} {
		if part, ok := part.(map[string]string); ok && len(part) == 0 {
			continue
		}
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(part); err != nil {
			return "# " + err.Error() + "\n"
		}
		enc.Close()
	}
	return b.String()
}
