package agent_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/modeltest"
	"github.com/sqlmcp/sqlmcp/internal/toolstest"
)

// serve serves sqlmcp's tools on a fresh copy of the SQLite fixture and
// connects client (a plain one when nil) to them, in memory: agent may not
// import the server, but its tests may, and everything under the fake
// model is real.
func serve(t *testing.T, client *mcp.Client) *mcp.ClientSession {
	t.Helper()
	return serveDB(t, client, dbtest.SQLiteFile(t))
}

// serveDB serves the tools on the database dsn names.
func serveDB(t *testing.T, client *mcp.Client, dsn string) *mcp.ClientSession {
	t.Helper()
	return toolstest.Serve(t, dsn, &toolstest.Options{Client: client})
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
