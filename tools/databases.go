package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

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
	set  *sources.Set // nil for one database
	one  *server      // the one database, when set is nil
	name string       // its name, when it has one
	opts *Options

	mu      sync.Mutex
	servers map[string]*server
}

// multi reports whether calls must name their database.
func (r *router) multi() bool { return r.set != nil && len(r.set.Sources()) > 1 }

// errListDatabases is pick's answer to list_tables without a database on
// a server of several: the caller lists them.
var errListDatabases = errors.New("list the databases")

// pick returns the state of the database name names ("" for the only
// one). An unknown name, or none with several databases, is an error
// listing them; a source that cannot be opened, its *sources.UnavailableError.
func (r *router) pick(ctx context.Context, name string, tool string) (*server, error) {
	if r.set == nil {
		if name != "" && name != r.name {
			return nil, fmt.Errorf("no database named %q: this server has one database%s; leave database out", name, orName(r.name))
		}
		return r.one, nil
	}
	if name == "" {
		if r.multi() {
			if tool == "list_tables" {
				return nil, errListDatabases
			}
			return nil, fmt.Errorf("this server has %d databases: say which with database; %s", len(r.set.Sources()), r.set.Listing())
		}
		name = r.set.Sources()[0].Config.Name
	}
	r.mu.Lock()
	s := r.servers[name]
	r.mu.Unlock()
	if s != nil {
		return s, nil
	}
	db, cat, err := r.set.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s = r.servers[name]; s == nil {
		s = newServer(db, cat, r.opts.Logger, r.set.Lookup(name).Config.MaxConcurrency)
		s.name = name
		r.servers[name] = s
	}
	return s, nil
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
	srcs := r.set.Sources()
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
	fmt.Fprintf(&b, "This server gives read-only access to %d databases; every tool takes database, naming one:\n", len(srcs))
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
Every query stops at its database's timeout, and a result says when it was cut.`)
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
