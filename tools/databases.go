package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/identity"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/sources"
)

// dbArg is the argument every tool takes to name its database.
type dbArg struct {
	Database string `json:"database,omitempty"`
}

func (a dbArg) database() string { return a.Database }

// router finds the database a call names: the one database of NewServer,
// or a source of a set, whose handler state (connections, caches, turns)
// it makes on the source's first use and keeps.
type router struct {
	set   *sources.Set // nil for one database
	one   *server      // the one database, when set is nil
	name  string       // its name, when it has one
	opts  *Options
	audit zerolog.Logger // writes to opts.Audit

	mu      sync.Mutex
	servers map[string]*server
}

// multi reports whether calls must name their database.
func (r *router) multi() bool { return r.set != nil && len(r.set.Sources()) > 1 }

// errListDatabases is pick's answer to list_tables without a database on
// a server of several: the caller lists them.
var errListDatabases = errors.New("list the databases")

// errNoGrant is the answer to a caller no identity rule matches.
var errNoGrant = errors.New("this caller may use no database on this server: no identity rule matches it; ask the server's operator for access")

// grant is what the call's caller may reach under Options.Rules: nil
// (everything) without rules, or for a call without an identity.
func (r *router) grant(ctx context.Context) (*identity.Grant, error) {
	if len(r.opts.Rules) == 0 {
		return nil, nil
	}
	id, ok := identity.From(ctx)
	if !ok {
		return nil, nil
	}
	g, ok := r.opts.Rules.Grant(id)
	if !ok {
		return nil, errNoGrant
	}
	return g, nil
}

// pick returns the state of the database name names ("" for the only
// one, or the only one the caller may use), and ctx carrying the role the
// caller's statements run as there. An unknown name, one the caller may
// not use, or none with several databases, is an error listing those it
// may use; a source that cannot be opened, its *sources.UnavailableError.
func (r *router) pick(ctx context.Context, name string, tool string) (*server, context.Context, error) {
	g, err := r.grant(ctx)
	if err != nil {
		return nil, ctx, err
	}
	if r.set == nil {
		if name != "" && name != r.name {
			return nil, ctx, fmt.Errorf("no database named %q: this server has one database%s; leave database out", name, orName(r.name))
		}
		return r.one, ctx, nil
	}
	visible := g.Allows
	if name == "" {
		var mine []string
		for _, src := range r.set.Sources() {
			if visible(src.Config.Name) {
				mine = append(mine, src.Config.Name)
			}
		}
		switch {
		case len(mine) == 1:
			name = mine[0]
		case tool == "list_tables" && len(mine) > 1:
			return nil, ctx, errListDatabases
		case len(mine) == 0:
			return nil, ctx, errNoGrant
		default:
			return nil, ctx, fmt.Errorf("this server has %d databases: say which with database; %s", len(mine), r.set.ListingOf(visible))
		}
	}
	if !visible(name) {
		return nil, ctx, &sources.UnknownError{Name: name, Set: r.set, Visible: visible}
	}
	if role := g.Role(name); role != "" {
		ctx = source.WithRole(ctx, role)
	}
	r.mu.Lock()
	s := r.servers[name]
	r.mu.Unlock()
	if s != nil {
		return s, ctx, nil
	}
	db, cat, err := r.set.Get(ctx, name)
	if err != nil {
		return nil, ctx, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s = r.servers[name]; s == nil {
		s = newServer(db, cat, r.opts.Logger, r.set.Lookup(name).Config.MaxConcurrency)
		s.name = name
		r.servers[name] = s
	}
	return s, ctx, nil
}

func orName(name string) string {
	if name == "" {
		return ""
	}
	return ", " + name
}

// databaseSummary is one database in list_tables' list of them.
type databaseSummary struct {
	Name        string `json:"name"`
	Engine      string `json:"engine"`
	Description string `json:"description,omitempty"`
	Tables      *int   `json:"tables"`
	Unavailable string `json:"unavailable,omitempty"`
}

// listDatabases is list_tables without a database on a server of
// several: each database with its engine, description and table count,
// opened now if it was not (each within countBudget, at once).
func (r *router) listDatabases(ctx context.Context) (listTablesOut, error) {
	g, err := r.grant(ctx)
	if err != nil {
		return listTablesOut{}, err
	}
	var srcs []*sources.Source
	for _, src := range r.set.Sources() {
		if g.Allows(src.Config.Name) {
			srcs = append(srcs, src)
		}
	}
	out := listTablesOut{Databases: make([]databaseSummary, len(srcs)), Total: len(srcs)}
	ctx, cancel := context.WithTimeout(ctx, countBudget)
	defer cancel()
	var wg sync.WaitGroup
	for i, src := range srcs {
		d := &out.Databases[i]
		*d = databaseSummary{Name: src.Config.Name, Engine: string(src.Engine()), Description: src.Config.Description}
		wg.Go(func() {
			_, cat, err := src.Open(ctx)
			var tables []*schema.Table
			if err == nil {
				tables, err = cat.Tables(ctx)
			}
			if err != nil {
				d.Unavailable = strings.TrimPrefix(err.Error(), "database "+d.Name+" is unavailable: ")
				return
			}
			n := len(tables)
			d.Tables = &n
		})
	}
	wg.Wait()
	return out, nil
}

// capability is experimental.sqlmcp: the dialect, when every database
// speaks the same one, and with several databases each one's.
func (r *router) capability() map[string]any {
	if r.set == nil {
		return map[string]any{"dialect": string(r.one.db.Dialect())}
	}
	c := map[string]any{}
	if len(r.opts.Rules) > 0 && len(r.set.Sources()) > 1 {
		return c // which databases a caller may know of depends on who it is
	}
	dialects := map[string]any{}
	for _, src := range r.set.Sources() {
		dialects[src.Config.Name] = string(src.Engine())
	}
	if d := string(r.set.Sources()[0].Engine()); len(r.set.Sources()) == 1 || allSame(dialects, d) {
		c["dialect"] = d
	}
	if len(dialects) > 1 {
		c["databases"] = dialects
	}
	return c
}

func allSame(m map[string]any, v string) bool {
	for _, x := range m {
		if x != v {
			return false
		}
	}
	return true
}

// instructions is the server's instructions: those of one database, or
// of several, naming each.
// dialects are the engines of the server's databases, one for each.
func (r *router) dialects() []sqlmcp.Dialect {
	if r.set == nil {
		return []sqlmcp.Dialect{r.one.db.Dialect()}
	}
	var out []sqlmcp.Dialect
	for _, src := range r.set.Sources() {
		out = append(out, src.Engine())
	}
	return out
}

func (r *router) instructions() string {
	if r.set == nil {
		return instructions(r.one.db.Dialect(), r.one.db.Limits(), r.one.cat.Overview())
	}
	srcs := r.set.Sources()
	if len(srcs) == 1 {
		overview := ""
		if cat := srcs[0].Catalog(); cat != nil {
			overview = cat.Overview()
		}
		return instructions(srcs[0].Engine(), srcs[0].Config.Limits.WithDefaults(), overview)
	}
	var b strings.Builder
	if len(r.opts.Rules) > 0 {
		// Which databases a caller may use depends on who it is: list_tables
		// names them.
		srcs = nil
		b.WriteString("This server gives read-only access to databases; every tool takes database, naming one.\n")
	} else {
		fmt.Fprintf(&b, "This server gives read-only access to %d databases; every tool takes database, naming one:\n", len(srcs))
	}
	for _, src := range srcs {
		fmt.Fprintf(&b, "- %s (%s)", src.Config.Name, src.Engine())
		if d := src.Config.Description; d != "" {
			fmt.Fprintf(&b, ": %s", d)
		}
		b.WriteByte('\n')
	}
	b.WriteString(`list_tables without database lists them with their table counts. Explore before you query:
list_tables, then describe_table for the tables that matter, or search_schema to find columns by meaning.
Check real values with sample_values and distinct_values before filtering on them.
Then run_query runs one SELECT in that database's dialect. Nothing can change a database: writes are refused.
Every query stops at its database's timeout, and a result says when it was cut.
` + dataNote)
	return b.String()
}

// NewServerSet returns an MCP server offering the six tools over the
// databases of set, each call naming its database (which may be left out
// when there is one). A database is opened on its first call if Start did
// not open it, and tried again on later calls while it cannot be. Each
// database has its own connections, caches and Options.MaxConcurrency
// turns (the source's max_concurrency). It is safe for concurrent use.
func NewServerSet(set *sources.Set, opts *Options) *mcp.Server {
	if opts == nil {
		opts = &Options{}
	}
	return newMCP(&router{set: set, opts: opts, servers: map[string]*server{}}, opts)
}

// newServer is the handler state of one database.
func newServer(db *source.DB, cat *schema.Catalog, log zerolog.Logger, maxConcurrency int) *server {
	s := &server{db: db, cat: cat, log: log}
	if maxConcurrency > 0 {
		s.turns = newTurns(db, maxConcurrency)
	}
	return s
}
