package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Client is a typed client of an sqlmcp server over one MCP session: the
// one place the tools' structured output is decoded, for the agent and
// for eval. It is safe for concurrent use.
type Client struct {
	cs *mcp.ClientSession
	// database, when set, is the database every call names.
	database string
}

// NewClient wraps an open session; closing it stays the caller's job.
func NewClient(cs *mcp.ClientSession) *Client { return &Client{cs: cs} }

// WithDatabase returns a client over the same session whose calls name
// database, unless a call names one itself: for a server of several.
func (c *Client) WithDatabase(database string) *Client {
	return &Client{cs: c.cs, database: database}
}

// Database is the database the client's calls name, "" for none.
func (c *Client) Database() string { return c.database }

// Session is the session the client calls over.
func (c *Client) Session() *mcp.ClientSession { return c.cs }

// Instructions is what the server says of itself at the start, "" for
// nothing.
func (c *Client) Instructions() string {
	if r := c.cs.InitializeResult(); r != nil {
		return strings.TrimSpace(r.Instructions)
	}
	return ""
}

// ToolError is a tool's error result: the call went through and the tool
// refused it or failed, saying why in Text, for the model to read.
type ToolError struct {
	Tool, Text string
}

func (e *ToolError) Error() string { return e.Tool + ": " + e.Text }

// Call calls a tool and returns the text it writes for models. An error
// result is a *ToolError; any other error means the call did not go
// through (ctx ended, the session broke, a protocol error).
func (c *Client) Call(ctx context.Context, name string, args map[string]any) (string, error) {
	text, _, err := c.call(ctx, name, args)
	return text, err
}

// call is Call, also returning the structured output as JSON.
func (c *Client) call(ctx context.Context, name string, args map[string]any) (string, json.RawMessage, error) {
	if args == nil {
		args = map[string]any{}
	}
	if _, named := args["database"]; c.database != "" && !named {
		args = maps.Clone(args)
		args["database"] = c.database
	}
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", nil, err
	}
	var structured json.RawMessage
	if res.StructuredContent != nil {
		if structured, err = json.Marshal(res.StructuredContent); err != nil {
			return "", nil, fmt.Errorf("%s: reading the result: %w", name, err)
		}
	}
	var parts []string
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	text := strings.Join(parts, "\n")
	if len(parts) == 0 && structured != nil {
		text = string(structured)
	}
	if res.IsError {
		return text, nil, &ToolError{Tool: name, Text: text}
	}
	return text, structured, nil
}

// callInto is call, decoding the structured output into out.
func callInto[T any](ctx context.Context, c *Client, name string, args map[string]any) (string, *T, error) {
	text, structured, err := c.call(ctx, name, args)
	if err != nil {
		return text, nil, err
	}
	out := new(T)
	if structured == nil {
		return text, nil, fmt.Errorf("%s: the result has no structured output: is the server sqlmcp?", name)
	}
	if err := json.Unmarshal(structured, out); err != nil {
		return text, nil, fmt.Errorf("%s: reading the result: %w", name, err)
	}
	return text, out, nil
}

// Tables is list_tables' result. On a server of several databases,
// list_tables without a database lists them in Databases instead.
type Tables struct {
	// Text is the listing as the model reads it.
	Text      string            `json:"-"`
	Tables    []TableSummary    `json:"tables"`
	Databases []DatabaseSummary `json:"databases"`
}

// DatabaseSummary is one database of a server of several, as list_tables
// names it.
type DatabaseSummary struct {
	Name string `json:"name"` // as the tools' database argument takes it
	// Engine is the database's dialect, as Client.Dialect names them.
	Engine      string `json:"engine"`
	Description string `json:"description"`
	// Tables counts its tables and views; nil when it is unavailable, and
	// Unavailable says why.
	Tables      *int   `json:"tables"`
	Unavailable string `json:"unavailable"`
}

// TableSummary is a table or view as list_tables names it.
type TableSummary struct {
	Name string `json:"name"` // as describe_table takes it
	Kind string `json:"kind"` // "table" or "view"
}

// ListTables lists the tables and views (list_tables with no arguments:
// the server's first 200); on a server of several databases, from a
// client without WithDatabase, it lists the databases.
func (c *Client) ListTables(ctx context.Context) (*Tables, error) {
	text, out, err := callInto[Tables](ctx, c, "list_tables", nil)
	if err != nil {
		return nil, fmt.Errorf("listing tables: %w", err)
	}
	out.Text = text
	return out, nil
}

// Table is describe_table's result, as far as the client side reads it.
type Table struct {
	// Text is the description as the model reads it.
	Text string `json:"-"`
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Schema is PostgreSQL's schema; "" for SQLite.
	Schema       string       `json:"schema"`
	ForeignKeys  []ForeignKey `json:"foreign_keys"`
	ReferencedBy []ForeignKey `json:"referenced_by"`
}

// ForeignKey is one key: Table's Columns reference RefTable's RefColumns,
// the tables named as list_tables names them.
type ForeignKey struct {
	Table      string   `json:"table"`
	Columns    []string `json:"columns"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
}

// DescribeTable describes the table list_tables names name. A table the
// server does not know is a *ToolError.
func (c *Client) DescribeTable(ctx context.Context, name string) (*Table, error) {
	text, out, err := callInto[Table](ctx, c, "describe_table", map[string]any{"table": name})
	if err != nil {
		return nil, fmt.Errorf("describing %s: %w", name, err)
	}
	out.Text = text
	return out, nil
}

// Result is run_query's result.
type Result struct {
	// Text is the result as the model reads it.
	Text    string   `json:"-"`
	Columns []Column `json:"columns"`
	// Rows hold nil, bool, float64 (exact: the server sends integers past
	// 2^53 and long decimals as strings), string, or JSON arrays and
	// objects.
	Rows [][]any `json:"rows"`
	// RowCount is the rows returned; Truncated says the server cut them.
	RowCount  int  `json:"row_count"`
	Truncated bool `json:"truncated"`
}

// Column is a result column: its name and the engine's type, "" when the
// engine does not say.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Empty reports whether r has no rows, or only NULLs.
func (r *Result) Empty() bool {
	for _, row := range r.Rows {
		for _, v := range row {
			if v != nil {
				return false
			}
		}
	}
	return true
}

// Query runs sql through run_query; maxRows > 0 asks for at most that
// many rows, 0 for the server's default. The guard's refusal or the
// database's error is a *ToolError, worded for the model.
func (c *Client) Query(ctx context.Context, sql string, maxRows int) (*Result, error) {
	args := map[string]any{"sql": sql}
	if maxRows > 0 {
		args["max_rows"] = maxRows
	}
	return c.QueryArgs(ctx, args)
}

// QueryArgs is Query with run_query's arguments as a model wrote them.
func (c *Client) QueryArgs(ctx context.Context, args map[string]any) (*Result, error) {
	text, out, err := callInto[Result](ctx, c, "run_query", args)
	if err != nil {
		return nil, err
	}
	out.Text = text
	return out, nil
}

// Dialect names the SQL dialect of the database behind the session,
// "sqlite", "postgres", "duckdb" or "mysql": from what the server declares as data
// (capabilities.experimental.sqlmcp.dialect), or failing that by asking
// the database. It returns "" when it cannot tell.
func (c *Client) Dialect(ctx context.Context) string {
	if r := c.cs.InitializeResult(); r != nil && r.Capabilities != nil {
		if ours, ok := r.Capabilities.Experimental["sqlmcp"].(map[string]any); ok {
			if dbs, ok := ours["databases"].(map[string]any); ok && c.database != "" {
				if d, ok := dbs[c.database].(string); ok && d != "" {
					return d
				}
			}
			if d, ok := ours["dialect"].(string); ok && d != "" {
				return d
			}
		}
	}
	// A server that does not say: ask the engine.
	if _, err := c.Query(ctx, "SELECT sqlite_version()", 1); err == nil {
		return "sqlite"
	}
	if r, err := c.Query(ctx, "SELECT version()", 1); err == nil && strings.Contains(r.Text, "PostgreSQL") {
		return "postgres"
	}
	return ""
}

// QuestionText is how a question and its hint open a conversation:
// "Question: ...", and "Hint: ..." on the next line when there is one.
func QuestionText(question, hint string) string {
	if hint == "" {
		return "Question: " + question
	}
	return "Question: " + question + "\nHint: " + hint
}

// Text is the reply's text blocks, a line apart.
func (r *Response) Text() string {
	var parts []string
	for _, b := range r.Blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
