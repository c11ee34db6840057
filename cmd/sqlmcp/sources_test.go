package main

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
)

// TestServeConfig: serve --config over HTTP with a SQLite database, a
// PostgreSQL one and one whose server is down: the start log says what was
// found for each, /readyz reports each, calls name their database, and
// the one that is down fails alone, naming itself.
func TestServeConfig(t *testing.T) {
	pg := dbtest.PostgresDSN(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "sqlmcp.yaml")
	text := "log_level: debug\nsources:\n" +
		"  - name: shop\n    url: " + dbtest.SQLiteFile(t) + "\n    description: The shop, in SQLite.\n" +
		"  - name: shop_pg\n    url: " + pg + "\n    description: The shop, in PostgreSQL.\n    max_rows: 2\n" +
		"  - name: down\n    url: postgres://nobody@127.0.0.1:1/x?sslmode=disable&connect_timeout=1\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startHTTP(t, nil, "--config", file)
	for _, want := range []map[string]any{
		{"event": "source", "database": "shop", "engine": "sqlite", "tables": float64(7)},
		{"event": "source", "database": "shop_pg", "engine": "postgres", "tables": float64(8), "max_rows": float64(2)},
		{"event": "source", "database": "down"},
		{"event": "start", "transport": "http"},
	} {
		if len(s.log.Find(want)) == 0 {
			t.Errorf("no log event %v:\n%s", want, s.log)
		}
	}
	if evs := s.log.Find(map[string]any{"event": "source", "database": "down"}); len(evs) == 0 || !strings.Contains(evs[0]["unavailable"].(string), "cannot connect to PostgreSQL") {
		t.Errorf("down's event: %v", evs)
	}

	resp, err := http.Get(s.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "ok: shop ok; shop_pg ok; down not ready: cannot connect to PostgreSQL") {
		t.Errorf("/readyz: %d %q", resp.StatusCode, body)
	}

	cs := connect(t, s.base+"/mcp", httpClient(t, "", nil), "")
	if got, isErr := callText(t, cs, "run_query", map[string]any{"database": "shop_pg", "sql": "SELECT id FROM customers ORDER BY id"}); isErr || !strings.Contains(got, "2 rows") {
		t.Errorf("shop_pg, max_rows 2: %q", got)
	}
	if got, isErr := callText(t, cs, "run_query", map[string]any{"database": "down", "sql": "SELECT 1"}); !isErr || !strings.HasPrefix(got, "database down is unavailable: ") {
		t.Errorf("down: %q", got)
	}
	if got, isErr := callText(t, cs, "run_query", map[string]any{"sql": "SELECT 1"}); !isErr || !strings.Contains(got, "this server has 3 databases: say which with database; the databases are shop (sqlite: The shop, in SQLite), shop_pg (postgres: The shop, in PostgreSQL), down (postgres)") {
		t.Errorf("no database: %q", got)
	}
}

// TestServeConfigFailsClosed: a database that answers with a problem it
// does not tolerate stops the start, with every problem; tolerated, it is
// a warning and the server starts.
func TestServeConfigFailsClosed(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.yaml")
	os.WriteFile(notes, []byte("tables:\n  customerz: {description: x}\n"), 0o600)
	file := filepath.Join(dir, "sqlmcp.yaml")
	db := dbtest.SQLiteFile(t)
	os.WriteFile(file, []byte("sources:\n  - name: shop\n    url: "+db+"\n    annotations: notes.yaml\n  - name: other\n    url: "+db+"\n"), 0o600)
	err := run(t.Context(), []string{"serve", "--config", file}, strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	var ue usageError
	want := `database shop: annotations ` + notes + `:2: no table "customerz" in the database; did you mean customers?`
	if err == nil || err.Error() != want || !errors.As(err, &ue) {
		t.Errorf("got %v, want a usage error %q", err, want)
	}

	os.WriteFile(file, []byte("sources:\n  - name: shop\n    url: "+db+"\n    annotations: notes.yaml\n    tolerate: [annotations]\n  - name: other\n    url: "+db+"\n"), 0o600)
	s := startHTTP(t, nil, "--config", file)
	if evs := s.log.Find(map[string]any{"event": "annotations", "database": "shop"}); len(evs) == 0 {
		t.Errorf("no warning for the tolerated annotations:\n%s", s.log)
	}
}

// TestAskDatabase: ask --database on a server of several databases asks
// about that one: every tool call the model makes names it.
func TestAskDatabase(t *testing.T) {
	fake := newFakeOpenAI(t)
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "sqlmcp.yaml")
	text := "sources:\n  - name: shop\n    url: " + dbtest.SQLiteFile(t) + "\n  - name: empty\n    url: " + other + "\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runAsk(t, nil, "", append(fakeFlags(fake), "--config", file, "--database", "shop", citiesQuestion)...)
	if err != nil || stdout != citiesAnswer {
		t.Errorf("got %v\n%s\nwant\n%s\nstderr: %s", err, stdout, citiesAnswer, stderr)
	}
	if seen := seenLog(fake); !strings.Contains(seen, "step 1 after: 7 tables and views:") {
		t.Errorf("the model did not see shop's tables:\n%s", seen)
	}
}

// callText is mcptest.Text, failing t on a protocol error.
func callText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	text, isErr, err := mcptest.Text(t, cs, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return text, isErr
}
