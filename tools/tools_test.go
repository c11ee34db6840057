package tools_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
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

// connect serves the fixture through tools.NewServer and returns a real MCP
// client session over in-memory transports.
func connect(t *testing.T, opts *source.Options) *mcp.ClientSession {
	t.Helper()
	db := dbtest.SQLite(t, opts)
	path := filepath.Join(t.TempDir(), "notes.yaml")
	if err := os.WriteFile(path, []byte(annotations), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := schema.New(db, &schema.Options{Annotations: path})
	if err != nil {
		t.Fatal(err)
	}
	srv := tools.NewServer(db, cat, nil)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
