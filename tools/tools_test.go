package tools_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/tools"
)

// annotations describe the fixture as a user's --annotations file would.
const annotations = `tables:
  customers:
    description: People who bought something.
    columns:
      email: Contact address; NULL when unknown.
      delete_flag: {description: Soft-delete marker, values: "1 = deleted, 0 = live"}
  order:
    description: One purchase by one customer.
    columns:
      status: {description: Where the order stands, values: "new, shipped or cancelled"}
  SchoolStats:
    columns:
      Free Meal Count (K-12): Students eligible for free meals, kindergarten to grade 12.
`

// connect serves the SQLite fixture.
func connect(t *testing.T, opts *source.Options) *mcp.ClientSession {
	t.Helper()
	return serve(t, dbtest.SQLite(t, opts), zerolog.Nop())
}

// connectLogged is connect with the audit log kept in logs.
func connectLogged(t *testing.T, logs *syncBuffer) *mcp.ClientSession {
	t.Helper()
	return serve(t, dbtest.SQLite(t, nil), zerolog.New(logs))
}

// syncBuffer lets a test read, and wait on, a log the server writes
// concurrently.
type syncBuffer = mcptest.Log

func serveBench(b *testing.B) *mcp.ClientSession {
	b.Helper()
	return serve(b, dbtest.SQLite(b, nil), zerolog.Nop())
}

// serve serves db through tools.NewServer, with the fixture's annotations,
// and returns a real MCP client session over in-memory transports.
func serve(t testing.TB, db *source.DB, log zerolog.Logger) *mcp.ClientSession {
	t.Helper()
	return serveWith(t, db, &tools.Options{Logger: log})
}

// serveWith is serve with the server's options.
func serveWith(t testing.TB, db *source.DB, opts *tools.Options) *mcp.ClientSession {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notes.yaml")
	if err := os.WriteFile(path, []byte(annotations), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := schema.New(db, &schema.Options{Annotations: path})
	if err != nil {
		t.Fatal(err)
	}
	// Searches see the values from the first call, as they do once a
	// server has run a while.
	if err := cat.IndexValues(t.Context()); err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, tools.NewServer(db, cat, opts))
}

// TestToolListCacheable: the tool list tells clients they may keep it.
func TestToolListCacheable(t *testing.T) {
	cs := connect(t, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 6 || res.TTLMs != 600000 {
		t.Errorf("got %d tools with ttlMs %d; want 6 and 600000", len(res.Tools), res.TTLMs)
	}
}
