package postgres_test

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestPostgresWrongService: a postgres:// URL that reaches another
// service fails at once with one line saying what answered: MariaDB greets
// first, Redis (or anything else) never answers PostgreSQL's first
// message.
func TestPostgresWrongService(t *testing.T) {
	// The services run beside the PostgreSQL one: .ci/run starts all three
	// and sets the variable, so nothing skips there.
	if os.Getenv(dbtest.PostgresEnv) == "" {
		t.Skip(dbtest.PostgresEnv + " is not set: skipping the test against MariaDB and Redis, which run beside PostgreSQL")
	}
	for _, tt := range []struct {
		name, addr, want string
	}{
		{"mariadb", "127.0.0.1:3306", "the server at 127.0.0.1:3306 is MySQL or MariaDB, not PostgreSQL"},
		{"redis", "127.0.0.1:6379", "the server at 127.0.0.1:6379 accepted the connection but did not answer PostgreSQL's first message"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.DialTimeout("tcp", tt.addr, time.Second)
			if err != nil {
				t.Fatalf("%s is not listening at %s (start it: see .ci/run): %v", tt.name, tt.addr, err)
			}
			c.Close()
			for _, mode := range []string{"disable", "prefer"} {
				// Without the check, Open waited out this context and said
				// so; the peer's answer (or silence) must decide first.
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				db, err := source.Open(ctx, "postgres://root:secret@"+tt.addr+"/test?sslmode="+mode, dbtest.Options(nil))
				if err == nil {
					db.Close()
					t.Fatalf("sslmode=%s: Open succeeded", mode)
				}
				cancel()
				msg := err.Error()
				t.Logf("sslmode=%s: %s", mode, msg)
				if !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") || strings.Contains(msg, "secret") || strings.Contains(msg, "%!") {
					t.Errorf("sslmode=%s: got %q, want one line saying %q", mode, msg, tt.want)
				}
			}
		})
	}
}
