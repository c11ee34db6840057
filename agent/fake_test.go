package agent_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/modeltest"
)

// sqlmcpBin is the real sqlmcp, built once for all tests.
var sqlmcpBin string

// TestMain builds sqlmcp, which the tests start over stdio: agent may not
// import the server, and everything under the fake model is real.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agent-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sqlmcpBin = filepath.Join(dir, "sqlmcp")
	build := exec.Command("go", "build", "-o", sqlmcpBin, "github.com/sqlmcp/sqlmcp/cmd/sqlmcp")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building sqlmcp: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// serve starts sqlmcp on a fresh copy of the SQLite fixture and connects
// client (a plain one when nil) to it over stdio.
func serve(t *testing.T, client *mcp.Client) *mcp.ClientSession {
	t.Helper()
	return serveDB(t, client, dbtest.SQLiteFile(t))
}

// serveDB starts sqlmcp on the database dsn names.
func serveDB(t *testing.T, client *mcp.Client, dsn string) *mcp.ClientSession {
	t.Helper()
	if client == nil {
		client = mcp.NewClient(&mcp.Implementation{Name: "agent-test"}, nil)
	}
	cmd := exec.Command(sqlmcpBin, "serve", "--db", dsn, "--log-level", "warn")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("starting sqlmcp: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// provider is a model API's wire protocol, with how the agent's real
// client is pointed at a fake of it.
type provider struct {
	modeltest.Provider
	model func(baseURL string) agent.Model
}

var (
	anthropicFake = provider{modeltest.Anthropic, func(baseURL string) agent.Model {
		return agent.NewAnthropic(agent.AnthropicOptions{APIKey: "test-key", BaseURL: baseURL, MaxRetries: -1})
	}}
	openAIFake = provider{modeltest.OpenAI, func(baseURL string) agent.Model {
		return agent.NewOpenAI(agent.OpenAIOptions{APIKey: "test-key", Model: "qwen3:8b", BaseURL: baseURL, MaxRetries: -1})
	}}
	providers = []provider{anthropicFake, openAIFake}
)

// fake is a model server speaking one provider's wire protocol, scripted
// with the turns it answers, in order, and recording every request.
type fake struct {
	*modeltest.Fake
	p provider
}

func newFake(t *testing.T, p provider, script ...modeltest.Reply) *fake {
	return &fake{modeltest.NewFake(t, p.Provider, nil, script...), p}
}

func (f *fake) model() agent.Model { return f.p.model(f.BaseURL()) }

// Scripted turns.
var (
	text   = modeltest.Say
	use    = modeltest.Use
	query  = modeltest.Query
	submit = modeltest.Submit
	turn   = modeltest.Turn
)

// Reading decoded JSON.

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }
func str(v any) string         { s, _ := v.(string); return s }
