package tools_test

import (
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/tools"
)

// TestAuditLogHoldsNoValues: engine errors that quote a value from a
// table of secrets reach the model whole, and the audit log keeps the
// SQLSTATE and the message's wording but not one secret, whatever route
// the error takes.
func TestAuditLogHoldsNoValues(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv(dbtest.PostgresEnv) == "" {
			t.Skip(dbtest.PostgresEnv + " is not set")
		}
		dsn := dbtest.PostgresDSN(t)
		dbtest.PostgresExec(t, dsn, `CREATE TYPE sqlmcp_mood AS ENUM ('calm');
			CREATE TABLE secrets (k text PRIMARY KEY, v text);
			INSERT INTO secrets VALUES ('int', 'secret-2'), ('enum', 'sekrit-enum'), ('date', '7319-13-41'),
				('big', '98765432109'), ('json', '{"a": sekritjson}'), ('regex', '(sekritregex'),
				('year', 'sekrityear'), ('uuid', 'sekrit-uuid'), ('xml', '<a>sekritxml'), ('array', 'sekrit-array'),
				('zero', 'sekrit-zero'), ('varchar', 'sekrit-too-long'), ('quote', 'sek"rit" inner "words')`)
		cs := serveLogged(t, dbtest.Open(t, dsn, nil))
		auditValues(t, cs, []call{
			{"SELECT CAST(v AS int) FROM secrets WHERE k = 'int'", "secret-2"},
			{"SELECT v::sqlmcp_mood FROM secrets WHERE k = 'enum'", "sekrit-enum"},
			{"SELECT v::date FROM secrets WHERE k = 'date'", "7319-13-41"},
			{"SELECT v::int FROM secrets WHERE k = 'big'", "98765432109"},
			{"SELECT v::numeric(3, 0) FROM secrets WHERE k = 'big'", ""},
			{"SELECT v::json FROM secrets WHERE k = 'json'", "sekritjson"},
			{"SELECT 'x' ~ v FROM secrets WHERE k = 'regex'", ""},
			{"SELECT to_date(v, 'YYYY') FROM secrets WHERE k = 'year'", "sekr"},
			{"SELECT v::uuid FROM secrets WHERE k = 'uuid'", "sekrit-uuid"},
			{"SELECT xmlparse(document v) FROM secrets WHERE k = 'xml'", "sekritxml"},
			{"SELECT v::int[] FROM secrets WHERE k = 'array'", "sekrit-array"},
			{"SELECT 1 / (length(v) - length(v)) FROM secrets WHERE k = 'zero'", ""},
			{"SELECT v::varchar(3)::int FROM secrets WHERE k = 'varchar'", "sek"},
			{"SELECT v::int FROM secrets WHERE k = 'quote'", "inner"},
		}, []string{"secret-2", "sekrit", "7319-13", "98765432109", "sekr", "inner", "words"})
	})
	t.Run("sqlite", func(t *testing.T) {
		path := dbtest.SQLiteFile(t)
		w, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Exec(`CREATE TABLE secrets (k text, v text);
			INSERT INTO secrets VALUES ('path', '$sekrit-path'), ('json', '{"a": sekritjson}')`); err != nil {
			t.Fatal(err)
		}
		w.Close()
		cs := serveLogged(t, dbtest.Open(t, path, nil))
		auditValues(t, cs, []call{
			{"SELECT json_extract('{}', v) FROM secrets WHERE k = 'path'", "sekrit-path"},
			{"SELECT json_extract(v, '$.a') FROM secrets WHERE k = 'json'", ""},
		}, []string{"sekrit"})
	})
}

// call is one failing call and the secret its answer quotes ("" for
// none), which the model reads and the log must not hold.
type call struct{ sql, secret string }

// loggedSession is a client session, the server's audit log and what it
// wrote to its audit file.
type loggedSession struct {
	cs          *mcp.ClientSession
	logs, audit *syncBuffer
}

// serveLogged serves db with the audit log and the audit file's events kept.
func serveLogged(t *testing.T, db *source.DB) *loggedSession {
	t.Helper()
	logs, audit := &syncBuffer{}, &syncBuffer{}
	return &loggedSession{serveWith(t, db, &tools.Options{Logger: zerolog.New(logs), Audit: audit}), logs, audit}
}

// auditValues makes each call, checks the model's answer is an error
// holding its secret, then that the log holds none of secrets but names
// each failure.
func auditValues(t *testing.T, ls *loggedSession, calls []call, secrets []string) {
	t.Helper()
	for _, c := range calls {
		res, err := ls.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": c.sql}})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, c.secret) {
			t.Errorf("%s: got %q, want an error holding %q", c.sql, text, c.secret)
		}
	}
	for name, log := range map[string]*syncBuffer{"log": ls.logs, "audit file": ls.audit} {
		var errs int
		for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
			// Every line, the SDK's too; the SQL is logged, and names no secret.
			for _, s := range secrets {
				if strings.Contains(l, s) {
					t.Errorf("the %s holds %q: %s", name, s, l)
				}
			}
			if i := strings.Index(l, `"error":`); i >= 0 && strings.Contains(l, `"event":"tool_call"`) {
				errs++
				t.Logf("%s: %s", name, l[i:])
			}
		}
		if errs != len(calls) {
			t.Errorf("%d errors in the %s, want %d:\n%s", errs, name, len(calls), log.String())
		}
	}
}

// TestAuditLogBoundsArguments: an argument longer than any statement the
// server runs (refused for its size) is logged as its start, its length
// and its hash, not whole; a statement the guard reads is logged as sent.
func TestAuditLogBoundsArguments(t *testing.T) {
	ls := serveLogged(t, dbtest.SQLite(t, nil))
	long := "SELECT '" + strings.Repeat("x", guard.MaxSQLBytes) + "'"
	fits := "SELECT '" + strings.Repeat("y", 1000) + "'"
	for _, sql := range []string{long, fits} {
		if _, err := ls.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_query", Arguments: map[string]any{"sql": sql}}); err != nil {
			t.Fatal(err)
		}
	}
	sum := sha256.Sum256([]byte(long))
	for name, log := range map[string]*syncBuffer{"log": ls.logs, "audit file": ls.audit} {
		var sawLong, sawFits bool
		for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
			if len(l) > 16<<10 {
				t.Errorf("the %s holds a line of %d bytes", name, len(l))
			}
			sawLong = sawLong || strings.Contains(l, fmt.Sprintf("(%d bytes, sha256 %x)", len(long), sum))
			sawFits = sawFits || strings.Contains(l, fits)
		}
		if !sawLong || !sawFits {
			t.Errorf("the %s: the long SQL's length and hash logged %v, the short SQL logged whole %v", name, sawLong, sawFits)
		}
	}
}
