// Package toolstest serves sqlmcp's real tools to a real MCP client over
// in-memory transports, for the tests of the packages above the server
// (agent, eval, cmd): the same server `sqlmcp serve` runs, without
// building or starting a binary.
package toolstest

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/builtin"
	"github.com/sqlmcp/sqlmcp/sources"
	"github.com/sqlmcp/sqlmcp/tools"
)

// Options configure Serve; nil means serve's defaults.
type Options struct {
	// Limits bound every query, as serve's flags do; zero fields mean the
	// defaults.
	Limits sqlmcp.Limits
	// Annotations and Descriptions are serve's --annotations and
	// --descriptions.
	Annotations, Descriptions string
	// Client is the client to connect; nil for a plain one.
	Client *mcp.Client
}

// Serve opens the database dsn names (a SQLite path or a postgres:// URL)
// as `sqlmcp serve --db dsn` does, checks its catalog, and returns a client
// session to the tools over in-memory transports. Everything is closed
// when the test ends; a failure to start fails the test.
func Serve(t testing.TB, dsn string, o *Options) *mcp.ClientSession {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	db, err := source.Open(t.Context(), dsn, &source.Options{Limits: o.Limits, MaxConns: 10, Engines: builtin.Engines(nil)})
	if err != nil {
		t.Fatalf("opening %s: %v", dsn, err)
	}
	t.Cleanup(func() { db.Close() })
	return ServeDB(t, db, o)
}

// ServeDB is Serve on an open database, which stays the caller's to
// close; o's Limits are unused.
func ServeDB(t testing.TB, db *source.DB, o *Options) *mcp.ClientSession {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	ctx := t.Context()
	cat, err := schema.New(db, &schema.Options{Annotations: o.Annotations, Descriptions: o.Descriptions})
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Check(ctx); err != nil {
		t.Fatal(err)
	}
	srv := tools.NewServer(db, cat, &tools.Options{Logger: zerolog.Nop(), Version: "test", MaxConcurrency: 8})
	return mcptest.ConnectClient(t, srv, o.Client)
}

// ServeSet serves the databases specs name (NAME=URL each) as sources of
// one server, as `sqlmcp serve --db NAME=URL ...` does, each described as
// "The NAME database.", and returns a client session to the tools over
// in-memory transports. Everything is closed when the test ends.
func ServeSet(t testing.TB, specs ...string) *mcp.ClientSession {
	t.Helper()
	return mcptest.Connect(t, tools.NewServerSet(Set(t, specs...), &tools.Options{Logger: zerolog.Nop(), Version: "test", MaxConcurrency: 4}))
}

// Set opens the databases specs name (NAME=URL each) as ServeSet does,
// each described as "The NAME database.", and returns them as a started
// set, closed when the test ends.
func Set(t testing.TB, specs ...string) *sources.Set {
	t.Helper()
	f, err := config.FromURLs(specs, config.Settings{MaxConcurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Sources {
		s.Description = "The " + s.Name + " database."
	}
	set := sources.New(f, nil)
	t.Cleanup(set.Close)
	set.Start(t.Context())
	return set
}
