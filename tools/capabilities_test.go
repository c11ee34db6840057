package tools_test

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// TestDialectDeclared checks that the server says which SQL it speaks as
// data, in capabilities.experimental.sqlmcp.dialect, where a client reads
// it instead of parsing the instructions.
func TestDialectDeclared(t *testing.T) {
	for _, e := range dbtest.All(t, nil) {
		t.Run(e.Name, func(t *testing.T) {
			cs := serve(t, e.DB, zerolog.Nop())
			caps := cs.InitializeResult().Capabilities
			ours, _ := caps.Experimental["sqlmcp"].(map[string]any)
			if got := ours["dialect"]; got != e.Name {
				t.Errorf("experimental.sqlmcp.dialect = %v, want %s", got, e.Name)
			}
			if caps.Tools == nil || caps.Logging == nil {
				t.Errorf("capabilities %+v: want tools and logging as before", caps)
			}
		})
	}
}
