// Package config reads sqlmcp's configuration file: the databases one
// server serves (its sources), each with a name, a URL, a description the
// model reads and the settings of one database, and the few settings of the
// server as a whole. It fails closed: an unknown key, a duplicate or badly
// formed name, a value of the wrong kind, a variable the environment lacks
// or a file that is not there is an error naming the file, the line and the
// fix, never a setting silently dropped.
//
// config reads only the file and the environment it is handed; it opens no
// database. It sits beside sqlmcp's root package, below everything that
// serves.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/identity"
	"github.com/sqlmcp/sqlmcp/policy"
)

// File is a configuration read by Load or made by FromURLs.
type File struct {
	// Path is the file read; "" for sources given on the command line.
	Path string
	// Global holds the server-wide settings the file gives, in the order
	// written, for the command to apply as its flags.
	Global []Global
	// Sources are the databases, in the order written.
	Sources []*Source
	// Identities are the rules from a caller's identity to the sources it
	// may use (identities:); none means every caller may use every one.
	Identities identity.Rules
}

// Global is one server-wide setting: Key as the file writes it, Flag the
// serve flag it stands for, Value as that flag would take it (a list
// joined by commas).
type Global struct {
	Key, Flag, Value string
	Line             int
}

// Source is one database the server serves.
type Source struct {
	// Name is how tools and the model name the database: a plain
	// identifier, lower case.
	Name string
	// URL is the database's URL or SQLite path, with ${VAR} expanded; it
	// may hold a secret, so show Display instead.
	URL string
	// Display is the URL as written, before expansion, with any literal
	// password hidden: safe for logs and output.
	Display string
	// Description is what the model reads about the database.
	Description string
	Settings
	// Views are a DuckDB source's views and the files each reads, as the
	// file lists them under views:, paths made absolute; none for a
	// source whose files are found by its URL (a folder's listing).
	Views []View
	// File and Line say where the source was written ("" and 0 for one
	// from the command line).
	File string
	Line int

	lines map[string]int // key -> line, for errors found later
}

// Settings are one database's settings: a source takes each from its own
// entry, else from the file's defaults, else from the base Load is given
// (the command's flags).
type Settings struct {
	Annotations  string   // a YAML or JSON file of descriptions, relative to the file
	Descriptions string   // a folder of BIRD-style <table>.csv descriptions
	Schemas      []string // PostgreSQL: the schemas to show; empty for all
	// RequireReadonlyRole refuses the source when its PostgreSQL role could write.
	RequireReadonlyRole bool
	Limits              sqlmcp.Limits
	// MaxConcurrency is how many calls reach this database at once; 0 for no limit.
	MaxConcurrency                  int
	AllowExtensions, AllowFunctions []string
	PGWorkMem, PGTempFileLimit      string
	// DuckDBMemoryLimit and DuckDBThreads are a DuckDB source's
	// memory_limit (as DuckDB writes sizes, "1GB") and threads; "" and 0
	// for the engine's defaults.
	DuckDBMemoryLimit string
	DuckDBThreads     int
	// HideUnreadable hides, on PostgreSQL, the tables and views the role
	// may not read, where they are otherwise listed and marked.
	HideUnreadable bool
	// Tolerate names the kinds of problem found at start (Tolerable) that
	// are warnings for this source instead of errors.
	Tolerate []string
	// Policy is the source's table and column policy (a policy: block,
	// or a file it names); nil for none. It is never a default.
	Policy *policy.Spec
}

// View is one view of a DuckDB source: its name, and the data file, the
// folder of Parquet files or the glob of files (sales_*.parquet) it reads,
// as an absolute path.
type View struct {
	Name, Path string
}

// Tolerable are the kinds of start-up problem a source may tolerate:
// annotations naming what the database lacks, schemas matching nothing,
// and tables or schemas the role may not read.
var Tolerable = []string{"annotations", "schemas", "grants"}

// Tolerates reports whether s treats problems of kind as warnings.
func (s *Source) Tolerates(kind string) bool { return slices.Contains(s.Tolerate, kind) }

// KeyLine is the line of s's key (for example "annotations"), else the
// line of the source itself.
func (s *Source) KeyLine(key string) int {
	if l, ok := s.lines[key]; ok {
		return l
	}
	return s.Line
}

// Where names the place s is defined, for messages: "sqlmcp.yaml:12", or
// "--db" for one from the command line.
func (s *Source) Where(key string) string {
	if s.File == "" {
		return "--db " + s.Name
	}
	return fmt.Sprintf("%s:%d", s.File, s.KeyLine(key))
}

// Error is one mistake in the configuration, at a line, with its fix.
type Error struct {
	File string
	Line int
	Msg  string // what is wrong
	Fix  string // what to write instead; may be ""
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	}
	b.WriteString(e.Msg)
	if e.Fix != "" {
		b.WriteString(" (" + e.Fix + ")")
	}
	return b.String()
}

// Errors are every mistake Load found, in the order of the file.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// namePattern is a source's name: what a model writes without quoting.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var namePattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

// ValidName reports whether name may name a source.
func ValidName(name string) bool { return namePattern.MatchString(name) }

// globals are the server-wide keys, each the flag it sets.
var globals = map[string]string{
	"log_level": "log-level", "cache_dir": "cache-dir", "http": "http", "auth_token_file": "auth-token-file",
	"insecure_no_auth": "insecure-no-auth", "allowed_hosts": "allowed-hosts", "allowed_origins": "allowed-origins",
	"tls_cert": "tls-cert", "tls_key": "tls-key", "max_body_bytes": "max-body-bytes", "shutdown_grace": "shutdown-grace",
	"auth": "auth", "public_url": "public-url", "oidc_issuer": "oidc-issuer", "oidc_audience": "oidc-audience",
	"oidc_algorithms": "oidc-algorithms", "oidc_scopes": "oidc-scopes", "oidc_introspection_url": "oidc-introspection-url",
	"audit_file": "audit-file", "audit_sync": "audit-sync", "audit_max_size": "audit-max-size", "audit_keep": "audit-keep",
	"audit_chain": "audit-chain", "otlp_endpoint": "otlp-endpoint", "metrics_open": "metrics-open",
}

// Load reads the configuration file at path. Each source's settings start
// from base (the command's flags), then the file's defaults, then its own
// entry. Environment variables named ${VAR} in a URL are read with getenv.
// Every mistake found is reported at once, as Errors; a file that cannot be
// read or parsed is an *Error.
func Load(path string, base Settings, getenv func(string) string) (*File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("reading the configuration: %v", err), Fix: "give --config an existing file, or set SQLMCP_CONFIG"}
	}
	return Parse(path, raw, base, getenv)
}

// Parse is Load of the bytes raw, read from path (which places relative
// file names and names the file in errors).
func Parse(path string, raw []byte, base Settings, getenv func(string) string) (*File, error) {
	p := &parser{file: path, dir: filepath.Dir(path), getenv: getenv}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: path, Line: 1, Msg: "the file is empty", Fix: "list the databases under sources:"}
		}
		return nil, &Error{File: path, Line: yamlLine(err), Msg: "not valid YAML: " + oneLine(err.Error())}
	}
	f := &File{Path: path}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		p.errorf(root.Line, "write sources: and the server's settings as keys", "the file must be a mapping of keys, not a %s", kindName(root))
		return nil, p.errs
	}
	defaults := base
	var sourcesNode, identitiesNode *yaml.Node
	seen := map[string]int{}
	pairs(root, func(k, v *yaml.Node) {
		if l, dup := seen[k.Value]; dup {
			p.errorf(k.Line, "keep one of them", "%s is given twice (first on line %d)", k.Value, l)
			return
		}
		seen[k.Value] = k.Line
		switch flagName, isGlobal := globals[k.Value]; {
		case k.Value == "sources":
			sourcesNode = v
		case k.Value == "identities":
			identitiesNode = v
		case k.Value == "defaults":
			if p.expect(v, yaml.MappingNode, "defaults") {
				pairs(v, func(k, v *yaml.Node) { p.setting(&defaults, nil, k, v, "a default") })
			}
		case isGlobal:
			if val, ok := p.scalarOrList(v, k.Value); ok {
				f.Global = append(f.Global, Global{Key: k.Value, Flag: flagName, Value: val, Line: v.Line})
			}
		default:
			p.unknown(k, "a server-wide key", append(slices.Sorted(mapKeys(globals)), "sources", "defaults", "identities"))
		}
	})
	switch {
	case sourcesNode == nil:
		p.errorf(root.Line, "add sources: with a list of {name, url, description}", "no sources: the file names no database")
	case p.expect(sourcesNode, yaml.SequenceNode, "sources"):
		if len(sourcesNode.Content) == 0 {
			p.errorf(sourcesNode.Line, "add at least one {name, url, description}", "sources is empty")
		}
		names := map[string]int{}
		for _, n := range sourcesNode.Content {
			s := p.source(n, defaults)
			if s == nil {
				continue
			}
			if l, dup := names[s.Name]; dup {
				p.errorf(s.KeyLine("name"), "give each source its own name", "source name %q is used twice (first on line %d)", s.Name, l)
				continue
			}
			if s.Name != "" {
				names[s.Name] = s.KeyLine("name")
			}
			f.Sources = append(f.Sources, s)
		}
	}
	if identitiesNode != nil {
		f.Identities = p.identities(identitiesNode, f.Sources)
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return f, nil
}

// FromURLs makes the configuration of --db flags: each spec is NAME=URL, or
// a bare URL or path when it is the only one (its name then comes from the
// database). Every source takes base.
func FromURLs(specs []string, base Settings) (*File, error) {
	f := &File{}
	var errs Errors
	names := map[string]bool{}
	for _, spec := range specs {
		name, url, named := SplitSpec(spec)
		if !named {
			if len(specs) > 1 {
				errs = append(errs, &Error{Msg: fmt.Sprintf("--db %q has no name", redact(spec)), Fix: "with several databases write each as --db NAME=URL"})
				continue
			}
			name = NameFor(url)
		}
		if !ValidName(name) {
			errs = append(errs, &Error{Msg: fmt.Sprintf("--db %s=...: %q is not a plain name", name, name), Fix: nameFix})
			continue
		}
		if names[name] {
			errs = append(errs, &Error{Msg: fmt.Sprintf("--db %s is given twice", name), Fix: "give each database its own name"})
			continue
		}
		names[name] = true
		s := &Source{Name: name, URL: url, Display: redact(url), Settings: base}
		s.Settings = cloneSettings(base)
		if err := staticCheck(s); err != "" {
			errs = append(errs, &Error{Msg: "--db " + name + ": " + err})
			continue
		}
		f.Sources = append(f.Sources, s)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return f, nil
}

const nameFix = "a name is lower-case letters, digits and _, starting with a letter, at most 63 characters"

// specName is the NAME of a NAME=URL spec.
var specName = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*)=(.+)$`)

// SplitSpec splits a --db value: NAME=URL gives name, url and true; a bare
// URL or path (one that exists as a file even with an = in its name) gives
// "", spec and false.
func SplitSpec(spec string) (name, url string, named bool) {
	m := specName.FindStringSubmatch(spec)
	if m == nil {
		return "", spec, false
	}
	if _, err := os.Stat(spec); err == nil {
		return "", spec, false
	}
	return m[1], m[2], true
}

// NameFor is the name of a database given without one: the SQLite file's
// name without its extension, or PostgreSQL's database, made a plain name;
// "db" when nothing is left.
func NameFor(url string) string {
	base := strings.TrimPrefix(strings.TrimPrefix(url, "sqlite:"), "file:")
	if i := strings.IndexAny(base, "?#"); i >= 0 {
		base = base[:i]
	}
	base = filepath.Base(strings.TrimRight(base, "/"))
	if !isServer(url) {
		base = strings.TrimSuffix(base, filepath.Ext(base))
	} else if _, rest, _ := strings.Cut(url, "://"); !strings.Contains(rest, "/") {
		base = ""
	}
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9' && b.Len() > 0:
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	name := strings.TrimRight(b.String(), "_")
	if len(name) > 63 {
		name = name[:63]
	}
	if name == "" {
		return "db"
	}
	return name
}

func isPostgres(url string) bool {
	return strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://")
}

// isServer reports whether url names a database server (PostgreSQL, MySQL
// or MariaDB) rather than a file: it is no path, and may hold a password.
func isServer(url string) bool {
	return isPostgres(url) || strings.HasPrefix(url, "mysql://") || strings.HasPrefix(url, "mariadb://")
}

// IsPostgres reports whether s is a PostgreSQL source.
func (s *Source) IsPostgres() bool { return isPostgres(s.URL) }

// parser gathers the errors of one file.
type parser struct {
	file, dir string
	getenv    func(string) string
	errs      Errors
}

func (p *parser) errorf(line int, fix, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...), Fix: fix})
}

// unknown reports an unknown key with the closest known one.
func (p *parser) unknown(k *yaml.Node, what string, known []string) {
	fix := "the keys here are " + strings.Join(known, ", ")
	if c := closest(k.Value, known); c != "" {
		fix = "did you mean " + c + "?"
	}
	p.errorf(k.Line, fix, "unknown key %q (%s)", k.Value, what)
}

func (p *parser) expect(n *yaml.Node, kind yaml.Kind, key string) bool {
	if n.Kind == kind {
		return true
	}
	want := map[yaml.Kind]string{yaml.MappingNode: "a mapping of keys", yaml.SequenceNode: "a list", yaml.ScalarNode: "a single value"}[kind]
	p.errorf(n.Line, "", "%s must be %s, not %s", key, want, kindName(n))
	return false
}

// source reads one entry of sources.
func (p *parser) source(n *yaml.Node, defaults Settings) *Source {
	if !p.expect(n, yaml.MappingNode, "each source") {
		return nil
	}
	s := &Source{File: p.file, Line: n.Line, lines: map[string]int{}, Settings: cloneSettings(defaults)}
	var rawURL string
	before := len(p.errs)
	pairs(n, func(k, v *yaml.Node) {
		if l, dup := s.lines[k.Value]; dup {
			p.errorf(k.Line, "keep one of them", "%s is given twice in this source (first on line %d)", k.Value, l)
			return
		}
		s.lines[k.Value] = v.Line
		switch k.Value {
		case "name":
			if v, ok := p.scalar(v, "name"); ok {
				s.Name = v
				if !ValidName(v) {
					p.errorf(k.Line, nameFix, "source name %q is not a plain name", v)
				}
			}
		case "url":
			if v, ok := p.scalar(v, "url"); ok {
				rawURL = v
			}
		case "description":
			if v, ok := p.scalar(v, "description"); ok {
				s.Description = strings.Join(strings.Fields(v), " ")
			}
		case "policy":
			p.policy(s, v)
		case "views":
			p.views(s, v)
		default:
			p.setting(&s.Settings, s, k, v, "a source")
		}
	})
	switch {
	case s.lines["name"] == 0:
		p.errorf(n.Line, "add name: a plain name the model uses, such as shop", "this source has no name")
	case s.lines["url"] == 0 && len(s.Views) > 0:
		// The views name every file: the source is DuckDB's, named
		// after the configuration's folder.
		s.URL = "duckdb:" + p.dir
		s.Display = s.URL
	case s.lines["url"] == 0 && s.lines["views"] == 0:
		p.errorf(n.Line, "add url: a SQLite file, or postgres://user@host:5432/db with the password in ${VAR} or PGPASSWORD", "source %s has no url", s.Name)
	case rawURL != "":
		url, err := expand(rawURL, p.getenv)
		if err != "" {
			p.errorf(s.KeyLine("url"), "export the variable, or leave the password out of the URL and set PGPASSWORD", "source %s: url: %s", s.Name, err)
		}
		s.URL, s.Display = url, redact(rawURL)
		if !isServer(url) && err == "" {
			s.URL = p.path(url)
		}
	}
	if len(p.errs) == before {
		if msg := duckdbCheck(s); msg != "" {
			p.errorf(s.Line, "", "source %s: %s", s.Name, msg)
		}
		if msg := staticCheck(s); msg != "" {
			p.errorf(s.Line, "", "source %s: %s", s.Name, msg)
		}
	}
	if s.Annotations != "" {
		s.Annotations = p.path(s.Annotations)
		if _, err := os.Stat(s.Annotations); err != nil {
			p.errorf(s.KeyLine("annotations"), "give the path of an existing YAML or JSON file, relative to this file", "source %s: annotations: %v", s.Name, unwrapPath(err))
		}
	}
	if s.Descriptions != "" {
		s.Descriptions = p.path(s.Descriptions)
		if st, err := os.Stat(s.Descriptions); err != nil || !st.IsDir() {
			p.errorf(s.KeyLine("descriptions"), "give a folder of <table>.csv files, relative to this file", "source %s: descriptions: %s is not a folder", s.Name, s.Descriptions)
		}
	}
	return s
}

// policy reads a source's policy: a block of its own, or the name of a
// policy file, relative to the configuration file.
func (p *parser) policy(s *Source, v *yaml.Node) {
	var err error
	if v.Kind == yaml.ScalarNode {
		s.Policy, err = policy.Load(p.path(v.Value))
	} else {
		s.Policy, err = policy.FromNode(v, p.file)
	}
	if err != nil {
		p.errorf(v.Line, "", "source %s: %v", s.Name, err)
	}
}

// viewName is a view's name: what a model writes without quoting.
var viewName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// views reads a DuckDB source's views: a mapping of each view's name to
// its file, folder or glob, relative to the configuration file. Each must
// name at least one file now.
func (p *parser) views(s *Source, v *yaml.Node) {
	if !p.expect(v, yaml.MappingNode, "views") {
		return
	}
	if len(v.Content) == 0 {
		p.errorf(v.Line, "name each view and its file, as views: {sales: exports/sales.parquet}", "source %s: views is empty", s.Name)
		return
	}
	seen := map[string]int{}
	pairs(v, func(k, f *yaml.Node) {
		lower := strings.ToLower(k.Value)
		switch {
		case !viewName.MatchString(k.Value):
			p.errorf(k.Line, "a view's name is letters, digits and _, starting with a letter or _", "source %s: view name %q is not a plain name", s.Name, k.Value)
			return
		case seen[lower] != 0:
			p.errorf(k.Line, "give each view its own name", "source %s: view %s is given twice (first on line %d)", s.Name, k.Value, seen[lower])
			return
		case f.Kind != yaml.ScalarNode || f.Tag == "!!null" || f.Value == "":
			p.errorf(f.Line, "give the view's file, folder or glob, relative to this file", "source %s: view %s: the file must be a single value, not %s", s.Name, k.Value, kindName(f))
			return
		}
		seen[lower] = k.Line
		path := p.path(f.Value)
		if strings.ContainsAny(filepath.Base(path), "*?[") || strings.ContainsAny(filepath.Dir(path), "*?[") {
			matches, err := filepath.Glob(path)
			if err != nil || len(matches) == 0 {
				p.errorf(f.Line, "give a glob that matches at least one file, relative to this file", "source %s: view %s: %s matches no file", s.Name, k.Value, path)
				return
			}
		} else if _, err := os.Stat(path); err != nil {
			p.errorf(f.Line, "give an existing data file or folder of Parquet files, relative to this file", "source %s: view %s: %s", s.Name, k.Value, unwrapPath(err))
			return
		}
		s.Views = append(s.Views, View{Name: k.Value, Path: path})
	})
}

// duckdbCheck is what is wrong with a source's DuckDB settings: views and
// a DuckDB budget written in its own entry need a source DuckDB serves
// (views: with no url, a duckdb: URL or a folder).
func duckdbCheck(s *Source) string {
	if s.lines["views"] != 0 && s.lines["url"] != 0 {
		st, err := os.Stat(s.URL)
		if !strings.HasPrefix(s.URL, "duckdb:") && (err != nil || !st.IsDir()) {
			return "views are served by DuckDB from the files they name: leave url out, or give a duckdb: URL or a folder"
		}
	}
	if isServer(s.URL) && (s.lines["memory_limit"] != 0 || s.lines["threads"] != 0) {
		return "memory_limit and threads are DuckDB's; a server's budgets are its own (pg_work_mem and pg_temp_file_limit on PostgreSQL)"
	}
	return ""
}

// ValidSize reports whether s is a size as DuckDB writes it: 500MB, 1GB,
// 2GiB.
func ValidSize(s string) bool { return sizePattern.MatchString(s) }

// sizePattern is a size as DuckDB writes it.
var sizePattern = regexp.MustCompile(`^(?i)[0-9]+(\.[0-9]+)?\s*(b|kb|mb|gb|tb|kib|mib|gib|tib)$`)

// path places a relative file name beside the configuration file. A
// sqlite: or file: URL is left as written.
func (p *parser) path(name string) string {
	if name == "" || filepath.IsAbs(name) || strings.HasPrefix(name, "file:") || strings.HasPrefix(name, "sqlite:") {
		return name
	}
	return filepath.Join(p.dir, name)
}

// staticCheck is what can be checked of a source without opening it.
func staticCheck(s *Source) string {
	l := s.Limits
	switch {
	case l.Timeout < 0:
		return "timeout must be positive"
	case l.MaxRows < 0 || l.MaxRowsLimit < 0 || l.MaxBytes < 0 || l.MaxCellBytes < 0:
		return "max_rows, max_rows_limit, max_bytes and max_cell_bytes must be positive"
	case l.MaxRows > 0 && l.MaxRowsLimit > 0 && l.MaxRows > l.MaxRowsLimit:
		return fmt.Sprintf("max_rows %d is more than max_rows_limit %d", l.MaxRows, l.MaxRowsLimit)
	case s.MaxConcurrency < 0:
		return "max_concurrency must be 0 (no limit) or more"
	}
	switch {
	case !isServer(s.URL) && len(s.Schemas) > 0:
		return "schemas are for PostgreSQL (its schemas) and MySQL (its databases); a file has one schema"
	case !isPostgres(s.URL) && len(s.AllowExtensions)+len(s.AllowFunctions) > 0:
		return "allow_extensions and allow_functions are for PostgreSQL"
	}
	return ""
}

// setting reads one per-database key into st; src is nil for defaults.
func (p *parser) setting(st *Settings, src *Source, k, v *yaml.Node, where string) {
	key := k.Value
	set, ok := settingKeys[key]
	if !ok {
		known := slices.Sorted(mapKeys(settingKeys))
		if src != nil {
			known = append([]string{"name", "url", "description", "policy", "views"}, known...)
		}
		p.unknown(k, "in "+where, known)
		return
	}
	if msg := set(p, st, v); msg != "" {
		name := ""
		if src != nil && src.Name != "" {
			name = "source " + src.Name + ": "
		}
		p.errorf(v.Line, "", "%s%s: %s", name, key, msg)
	}
}

// settingKeys read each per-database key; they return "" or what is wrong.
var settingKeys = map[string]func(p *parser, s *Settings, v *yaml.Node) string{
	"annotations":           stringKey(func(s *Settings) *string { return &s.Annotations }),
	"descriptions":          stringKey(func(s *Settings) *string { return &s.Descriptions }),
	"pg_work_mem":           stringKey(func(s *Settings) *string { return &s.PGWorkMem }),
	"pg_temp_file_limit":    stringKey(func(s *Settings) *string { return &s.PGTempFileLimit }),
	"schemas":               listKey(func(s *Settings) *[]string { return &s.Schemas }, nil),
	"allow_extensions":      listKey(func(s *Settings) *[]string { return &s.AllowExtensions }, nil),
	"allow_functions":       listKey(func(s *Settings) *[]string { return &s.AllowFunctions }, nil),
	"tolerate":              listKey(func(s *Settings) *[]string { return &s.Tolerate }, Tolerable),
	"require_readonly_role": boolKey(func(s *Settings) *bool { return &s.RequireReadonlyRole }),
	"hide_unreadable":       boolKey(func(s *Settings) *bool { return &s.HideUnreadable }),
	"max_rows":              intKey(func(s *Settings) *int { return &s.Limits.MaxRows }, 1),
	"max_rows_limit":        intKey(func(s *Settings) *int { return &s.Limits.MaxRowsLimit }, 1),
	"max_bytes":             intKey(func(s *Settings) *int { return &s.Limits.MaxBytes }, 1),
	"max_cell_bytes":        intKey(func(s *Settings) *int { return &s.Limits.MaxCellBytes }, 1),
	"max_concurrency":       intKey(func(s *Settings) *int { return &s.MaxConcurrency }, 0),
	"threads":               intKey(func(s *Settings) *int { return &s.DuckDBThreads }, 1),
	"memory_limit": func(p *parser, s *Settings, v *yaml.Node) string {
		if v.Kind != yaml.ScalarNode || !sizePattern.MatchString(v.Value) {
			return fmt.Sprintf("%q is not a size as DuckDB writes it (write 512MB, 1GB or 2GiB)", v.Value)
		}
		s.DuckDBMemoryLimit = v.Value
		return ""
	},
	"timeout": func(p *parser, s *Settings, v *yaml.Node) string {
		var d yamlDuration
		if v.Kind != yaml.ScalarNode || v.Decode(&d) != nil || d <= 0 {
			return fmt.Sprintf("%q is not a positive duration (write 15s, 2m or 500ms)", v.Value)
		}
		s.Limits.Timeout = d.Duration()
		return ""
	},
}

func stringKey(field func(*Settings) *string) func(*parser, *Settings, *yaml.Node) string {
	return func(p *parser, s *Settings, v *yaml.Node) string {
		if v.Kind != yaml.ScalarNode {
			return "must be a single value, not " + kindName(v)
		}
		*field(s) = v.Value
		return ""
	}
}

func boolKey(field func(*Settings) *bool) func(*parser, *Settings, *yaml.Node) string {
	return func(p *parser, s *Settings, v *yaml.Node) string {
		var b bool
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
			return fmt.Sprintf("%q is not true or false", v.Value)
		}
		*field(s) = b
		return ""
	}
}

func intKey(field func(*Settings) *int, least int) func(*parser, *Settings, *yaml.Node) string {
	return func(p *parser, s *Settings, v *yaml.Node) string {
		var n int
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&n) != nil || n < least {
			return fmt.Sprintf("%q is not a whole number of at least %d", v.Value, least)
		}
		*field(s) = n
		return ""
	}
}

// listKey reads a list, or one value, or a comma-separated value; with
// known, each item must be one of them.
func listKey(field func(*Settings) *[]string, known []string) func(*parser, *Settings, *yaml.Node) string {
	return func(p *parser, s *Settings, v *yaml.Node) string {
		items, msg := list(v)
		if msg != "" {
			return msg
		}
		for _, it := range items {
			if known != nil && !slices.Contains(known, it) {
				return fmt.Sprintf("%q is not one of %s", it, strings.Join(known, ", "))
			}
		}
		*field(s) = items
		return ""
	}
}

// list reads a list of scalars, or one comma-separated scalar.
func list(v *yaml.Node) ([]string, string) {
	var items []string
	switch v.Kind {
	case yaml.ScalarNode:
		for _, it := range strings.Split(v.Value, ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
	case yaml.SequenceNode:
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode || strings.TrimSpace(it.Value) == "" {
				return nil, "each item must be a single non-empty value"
			}
			items = append(items, strings.TrimSpace(it.Value))
		}
	default:
		return nil, "must be a list, not " + kindName(v)
	}
	return items, ""
}

func (p *parser) scalar(v *yaml.Node, key string) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		p.errorf(v.Line, "", "%s must be a single value, not %s", key, kindName(v))
		return "", false
	}
	return v.Value, true
}

func (p *parser) scalarOrList(v *yaml.Node, key string) (string, bool) {
	items, msg := list(v)
	if msg != "" {
		p.errorf(v.Line, "", "%s: %s", key, msg)
		return "", false
	}
	return strings.Join(items, ","), true
}

// pairs calls fn on each key and value of a mapping.
func pairs(m *yaml.Node, fn func(k, v *yaml.Node)) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		fn(m.Content[i], m.Content[i+1])
	}
}

func kindName(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Tag == "!!null":
		return "empty"
	}
	return fmt.Sprintf("%q", n.Value)
}

func cloneSettings(s Settings) Settings {
	s.Schemas = slices.Clone(s.Schemas)
	s.AllowExtensions = slices.Clone(s.AllowExtensions)
	s.AllowFunctions = slices.Clone(s.AllowFunctions)
	s.Tolerate = slices.Clone(s.Tolerate)
	return s
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

var yamlLinePattern = regexp.MustCompile(`line (\d+)(: )?`)

func yamlLine(err error) int {
	if m := yamlLinePattern.FindStringSubmatch(err.Error()); m != nil {
		n := 0
		fmt.Sscan(m[1], &n)
		return n
	}
	return 1
}

func oneLine(s string) string {
	s = strings.TrimPrefix(s, "yaml: ")
	s = yamlLinePattern.ReplaceAllString(s, "")
	s = strings.TrimPrefix(s, ": ")
	return strings.Join(strings.Fields(s), " ")
}

func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}
