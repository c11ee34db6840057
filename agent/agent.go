// Package agent is a small MCP client that lets a model answer questions
// about a database: it hands the model the server's tools, runs the calls
// the model makes over MCP, and ends when the model submits SQL whose
// result answers the question. The loop is written out here, with no agent
// framework; Model hides the provider (Anthropic's Messages API, or any
// OpenAI-compatible Chat Completions endpoint).
//
// agent talks to sqlmcp over MCP like any client: it imports the MCP SDK,
// never tools, source or guard, and Client is the one place the tools'
// structured output is decoded. The two model APIs are called with small
// clients on net/http (anthropic.go, openai.go, post.go), no provider SDK.
// cmd/sqlmcp ("sqlmcp ask") opens the session and reads flags and
// environment; ChooseModel takes the environment as a function.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/internal/text"
)

// Options configure New. Model is required; zero values elsewhere mean the
// defaults.
type Options struct {
	Model Model
	// MaxTurns caps the model calls per question. Default 8.
	MaxTurns int
	// OnEvent is told of each model call, tool call, retry and answer as it
	// happens. It is never called concurrently: calls are serialized even
	// when tools run in parallel or questions are asked at once. Nil for
	// none.
	OnEvent func(Event)
	// Trace receives one JSON object per line for each model call (kind
	// "model": turn, model, request_bytes, messages, response, usage, ms,
	// cached, or error) and each tool call (kind "tool": turn, name, args,
	// is_error, ms, result_bytes). Writes are serialized. Nil for none.
	Trace io.Writer
	// SchemaTokens is the budget, in tokens of about 4 bytes, for the schema
	// in the system prompt: the table list, then described tables in list
	// order while they fit. Default 6000; negative means the list alone.
	SchemaTokens int
	// MaxResultBytes cuts a tool result's text before the model reads it,
	// saying so. Default 16384.
	MaxResultBytes int
}

// Event is one step of answering, for progress displays.
type Event struct {
	// Kind is "model" (a reply arrived), "tool" (a tool call finished),
	// "retry" (the agent asked the model again: a reminder to submit, or a
	// request to double-check an empty result) or "answer" (the end).
	Kind string
	Turn int
	// Tool and Args name a tool call and its arguments; for "answer", Args
	// holds {"sql": ...} and Tool is "submit_answer", or "run_query" when
	// the model never submitted and the last good query answers.
	Tool    string
	Args    json.RawMessage
	IsError bool
	// Duration is how long the model or tool call took.
	Duration time.Duration
	// Text is the model's text (model), the result the model reads (tool),
	// the note sent (retry) or the answer (answer).
	Text string
}

// Answer is the outcome of one question.
type Answer struct {
	Question, Hint string
	// SQL is the query that answers; Text the answer in plain words (for a
	// fallback, the model's last text, often empty).
	SQL, Text string
	// Columns, ColumnTypes and Rows are the SQL's result from run_query.
	// Cells are nil, bool, float64 (exact: the server sends integers past
	// 2^53 and long decimals as strings), string, or JSON arrays and
	// objects. Truncated says the server cut the rows; RowCount is the rows
	// returned.
	Columns     []string
	ColumnTypes []string
	Rows        [][]any
	RowCount    int
	Truncated   bool
	// Turns counts model calls; Usage sums their tokens; Seconds is wall
	// time.
	Turns   int
	Usage   Usage
	Seconds float64
	// Submitted is false when the model never submitted: the answer is
	// then the last query that ran without error.
	Submitted bool
	// Database is the database the SQL ran in, when the model chose it
	// on a server of several; Text then names it.
	Database string
}

// Agent answers questions over one MCP session. It is safe for concurrent
// use: each Ask has its own conversation.
type Agent struct {
	client    *Client
	model     Model
	maxTurns  int
	onEvent   func(Event)
	trace     io.Writer
	maxResult int
	tools     []Tool
	toolNames map[string]bool
	system    string
	dialect   string
	// databases are the server's, when it has several and the model
	// chooses: tool calls then name theirs.
	databases []DatabaseSummary
	mu        sync.Mutex // serializes OnEvent and Trace
}

// New prepares an agent over an open MCP session: it lists the session's
// tools (they become the model's tools, with their JSON input schemas, plus
// the agent's own submit_answer) and reads the schema for the system prompt
// (list_tables, then describe_table for tables in list order until the
// token budget is spent). The server must offer list_tables and run_query.
func New(ctx context.Context, cs *mcp.ClientSession, o *Options) (*Agent, error) {
	if o == nil || o.Model == nil {
		return nil, errors.New("agent: no model")
	}
	a := &Agent{
		client:    NewClient(cs),
		model:     o.Model,
		maxTurns:  o.MaxTurns,
		onEvent:   o.OnEvent,
		trace:     o.Trace,
		maxResult: o.MaxResultBytes,
		toolNames: map[string]bool{},
	}
	if a.maxTurns <= 0 {
		a.maxTurns = 8
	}
	if a.maxResult <= 0 {
		a.maxResult = 16384
	}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		if t.Name == submitTool.Name {
			return nil, fmt.Errorf("the server offers a tool named %s, which the agent keeps for itself", t.Name)
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: input schema: %w", t.Name, err)
		}
		a.tools = append(a.tools, Tool{Name: t.Name, Description: t.Description, InputSchema: schema})
		a.toolNames[t.Name] = true
	}
	for _, need := range []string{"list_tables", "run_query"} {
		if !a.toolNames[need] {
			return nil, fmt.Errorf("the server has no %s tool: is it sqlmcp?", need)
		}
	}
	a.dialect = a.client.Dialect(ctx)
	tokens := o.SchemaTokens
	if tokens == 0 {
		tokens = 6000
	}
	budget := -1
	if tokens > 0 {
		budget = tokens * 4
	}
	listed, err := a.client.ListTables(ctx)
	if err != nil {
		return nil, err
	}
	var schema string
	if len(listed.Databases) > 0 {
		// A server of several databases, none named: the model chooses.
		a.databases, a.dialect = listed.Databases, ""
		a.tools = append(a.tools, submitToolFor(a.databases))
		schema, err = readDatabases(ctx, a.client, listed, budget)
	} else {
		a.tools = append(a.tools, submitTool)
		schema, err = readSchema(ctx, a.client, listed, budget)
	}
	if err != nil {
		return nil, err
	}
	a.system = systemPrompt(a.dialect, a.client.Instructions(), schema, a.maxTurns, a.databases)
	return a, nil
}

// System returns the system prompt every request carries.
func (a *Agent) System() string { return a.system }

// Dialect returns the database's dialect ("sqlite", "postgres", "duckdb",
// "mysql"), or "" when the server did not say or has several databases
// for the model to choose from.
func (a *Agent) Dialect() string { return a.dialect }

// Databases returns the databases the model chooses from: those of a
// server of several, when the session does not name one; nil otherwise.
func (a *Agent) Databases() []DatabaseSummary { return slices.Clone(a.databases) }

// Tools returns the tools the model is offered: the server's, then
// submit_answer.
func (a *Agent) Tools() []Tool { return slices.Clone(a.tools) }

// Notes the agent sends the model.
const (
	lastTurnNote = "This is your last turn: call submit_answer now with your best SQL and answer."
	reminderNote = "Plain text is not read as an answer. Call submit_answer with the final SQL and a short answer " +
		"(test the SQL with run_query first if you have not)."
)

// ranQuery is a query that ran without error, and what it returned.
type ranQuery struct {
	sql      string
	database string // as the call named it, "" for none
	result   *Result
}

// outcome is one finished tool call.
type outcome struct {
	text    string // what the model reads
	isError bool
	query   *ranQuery // run_query and submit_answer: the query, when it ran
	answer  string    // submit_answer: the answer text
}

// Ask answers one question; hint is outside knowledge about the data (as
// BIRD's evidence) and may be "". It returns an error when a model call
// fails, when ctx ends, or when the model never submitted and no query ran
// without error.
func (a *Agent) Ask(ctx context.Context, question, hint string) (*Answer, error) {
	return a.AskWithNotes(ctx, question, hint, "")
}

// AskWithNotes is Ask with notes for this question: what was learned about
// the database before (lessons, solved examples, queries known to run). The
// notes follow the question in the first message, so the system prompt,
// which the provider caches, stays the same for every question.
func (a *Agent) AskWithNotes(ctx context.Context, question, hint, notes string) (*Answer, error) {
	if strings.TrimSpace(question) == "" {
		return nil, errors.New("no question")
	}
	start := time.Now()
	ans := &Answer{Question: question, Hint: hint}
	first := QuestionText(question, hint)
	if notes = strings.TrimSpace(notes); notes != "" {
		first += "\n\n" + notes
	}
	msgs := []Message{{Role: "user", Blocks: []Block{{Type: "text", Text: first}}}}
	if a.maxTurns == 1 {
		msgs[0].Blocks = append(msgs[0].Blocks, Block{Type: "text", Text: lastTurnNote})
	}
	var (
		lastGood    *ranQuery // the last query that ran without error
		lastText    string    // the model's last words
		reminded    bool      // the model was told once to submit, not write
		doubleCheck bool      // the model was asked once to check an empty result
	)
	for turn := 1; turn <= a.maxTurns; turn++ {
		req := &Request{System: a.system, Messages: msgs, Tools: a.tools, MaxTokens: defaultMaxTokens}
		t0 := time.Now()
		resp, err := a.model.Complete(ctx, req)
		dur := time.Since(t0)
		a.traceModel(turn, req, resp, err, dur)
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", turn, err)
		}
		ans.Turns = turn
		ans.Usage.add(resp.Usage)

		var calls []Block
		var texts []string
		for _, b := range resp.Blocks {
			switch b.Type {
			case "tool_use":
				calls = append(calls, b)
			case "text":
				if t := strings.TrimSpace(b.Text); t != "" {
					texts = append(texts, t)
				}
			}
		}
		if len(texts) > 0 {
			lastText = strings.Join(texts, "\n")
		}
		a.emit(Event{Kind: "model", Turn: turn, Duration: dur, Text: strings.Join(texts, "\n")})
		blocks := resp.Blocks
		if len(blocks) == 0 {
			blocks = []Block{{Type: "text", Text: "(no reply)"}}
		}
		msgs = append(msgs, Message{Role: "assistant", Blocks: blocks})

		var next []Block
		if len(calls) == 0 {
			if reminded || turn == a.maxTurns {
				break
			}
			reminded = true
			next = append(next, Block{Type: "text", Text: reminderNote})
			a.emit(Event{Kind: "retry", Turn: turn, Text: reminderNote})
		} else {
			outs := a.runCalls(ctx, turn, calls)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for i, c := range calls {
				o := outs[i]
				if c.Name == submitTool.Name && !o.isError {
					if o.query.result.Empty() && !doubleCheck {
						doubleCheck = true
						o.text = emptyNote(o.query.result)
						a.emit(Event{Kind: "retry", Turn: turn, Tool: c.Name, Args: c.Input, Text: o.text})
					} else {
						ans.Submitted = true
						ans.Text = o.answer
						return a.finish(ans, turn, o.query, start), nil
					}
				}
				if o.query != nil {
					lastGood = o.query
				}
				next = append(next, Block{Type: "tool_result", ID: c.ID, Text: o.text, IsError: o.isError})
			}
		}
		if turn+1 == a.maxTurns {
			next = append(next, Block{Type: "text", Text: lastTurnNote})
		}
		msgs = append(msgs, Message{Role: "user", Blocks: next})
	}
	if lastGood == nil {
		return nil, fmt.Errorf("the model did not submit an answer in %d turns, and no query it ran succeeded", ans.Turns)
	}
	ans.Text = lastText
	return a.finish(ans, ans.Turns, lastGood, start), nil
}

// finish fills the answer from the query that answers.
func (a *Agent) finish(ans *Answer, turn int, q *ranQuery, start time.Time) *Answer {
	ans.SQL = q.sql
	if len(a.databases) > 0 && q.database != "" {
		ans.Database = q.database
		if !strings.Contains(ans.Text, q.database) {
			ans.Text = strings.TrimSpace(ans.Text + " (database " + q.database + ")")
		}
	}
	for _, c := range q.result.Columns {
		ans.Columns = append(ans.Columns, c.Name)
		ans.ColumnTypes = append(ans.ColumnTypes, c.Type)
	}
	ans.Rows = q.result.Rows
	ans.RowCount = q.result.RowCount
	ans.Truncated = q.result.Truncated
	ans.Seconds = time.Since(start).Seconds()
	args, _ := json.Marshal(map[string]string{"sql": q.sql})
	tool := "run_query"
	if ans.Submitted {
		tool = submitTool.Name
	}
	a.emit(Event{Kind: "answer", Turn: turn, Tool: tool, Args: args, Text: ans.Text})
	return ans
}

func emptyNote(r *Result) string {
	what := "no rows"
	if len(r.Rows) > 0 {
		what = "only NULL values"
	}
	return "Not accepted yet: the query returned " + what + ". Double-check before you submit it: are the values " +
		"you filter on written exactly as in the data (check with distinct_values), and are the joins, date formats " +
		"and conditions right? If the answer really is empty, call submit_answer again and it will be accepted."
}

// runCalls runs one turn's tool calls at once and returns their outcomes in
// the order of the calls.
func (a *Agent) runCalls(ctx context.Context, turn int, calls []Block) []outcome {
	outs := make([]outcome, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() {
			t0 := time.Now()
			outs[i] = a.call(ctx, c)
			dur := time.Since(t0)
			outs[i].text = cutResult(outs[i].text, a.maxResult)
			a.traceTool(turn, c, outs[i], dur)
			a.emit(Event{Kind: "tool", Turn: turn, Tool: c.Name, Args: c.Input, IsError: outs[i].isError, Duration: dur, Text: outs[i].text})
		})
	}
	wg.Wait()
	return outs
}

// call runs one tool call: an MCP tool over the session, or submit_answer,
// which runs the submitted SQL through run_query.
func (a *Agent) call(ctx context.Context, c Block) outcome {
	var args map[string]any
	if err := json.Unmarshal(objectOrEmpty(c.Input), &args); err != nil || args == nil {
		return outcome{text: fmt.Sprintf("the arguments of %s are not a JSON object: %s", c.Name, c.Input), isError: true}
	}
	switch {
	case c.Name == submitTool.Name:
		var in struct{ SQL, Answer, Database string }
		if err := json.Unmarshal(c.Input, &in); err != nil || strings.TrimSpace(in.SQL) == "" {
			if len(a.databases) > 0 {
				return outcome{text: `submit_answer needs {"database": "...", "sql": "...", "answer": "..."}: the database, the final SQL and a short answer`, isError: true}
			}
			return outcome{text: `submit_answer needs {"sql": "...", "answer": "..."}: the final SQL and a short answer`, isError: true}
		}
		var qargs map[string]any
		if in.Database != "" {
			qargs = map[string]any{"sql": in.SQL, "database": in.Database}
		}
		o := a.query(ctx, in.SQL, qargs)
		if o.isError {
			return outcome{text: "The submitted SQL failed, so the answer was not accepted: " + o.text +
				"\nFix the SQL (test it with run_query) and call submit_answer again.", isError: true}
		}
		o.answer = strings.TrimSpace(in.Answer)
		return o
	case c.Name == "run_query":
		sql, _ := args["sql"].(string)
		return a.query(ctx, sql, args)
	case a.toolNames[c.Name]:
		text, err := a.client.Call(ctx, c.Name, args)
		return outcome{text: toolText(text, err), isError: err != nil}
	}
	names := make([]string, len(a.tools))
	for i, t := range a.tools {
		names[i] = t.Name
	}
	return outcome{text: fmt.Sprintf("there is no tool %q; the tools are %s", c.Name, strings.Join(names, ", ")), isError: true}
}

// query runs sql through run_query, with the model's arguments when it
// called the tool (nil: the server's default row cap), and keeps the
// result of a query that ran. A failure, of the query or of the call, is
// an error result the model reads like any other.
func (a *Agent) query(ctx context.Context, sql string, args map[string]any) outcome {
	var (
		r   *Result
		err error
	)
	if args == nil {
		r, err = a.client.Query(ctx, sql, 0)
	} else {
		r, err = a.client.QueryArgs(ctx, args)
	}
	if err != nil {
		return outcome{text: toolText("", err), isError: true}
	}
	db, _ := args["database"].(string)
	return outcome{text: r.Text, query: &ranQuery{sql: sql, database: db, result: r}}
}

// toolText is what the model reads of a tool call that ended in err: the
// tool's own words for an error result, else the failure.
func toolText(text string, err error) string {
	var te *ToolError
	switch {
	case err == nil:
		return text
	case errors.As(err, &te):
		return te.Text
	}
	return err.Error()
}

// cutNote follows the marker of a tool result cut for the model.
const cutNote = " Aggregate, filter or add LIMIT to see less."

// cutResult shortens a tool result the model reads to n bytes, saying so
// and what to do about it.
func cutResult(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return text.Cut(s, n) + cutNote
}

func (a *Agent) emit(e Event) {
	if a.onEvent == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.onEvent(e)
}

func (a *Agent) writeTrace(v any) {
	if a.trace == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.trace.Write(append(b, '\n'))
}

// reply is a response as a trace line shows it; usage and cached sit
// beside it.
type reply struct {
	Blocks     []Block `json:"blocks"`
	StopReason string  `json:"stop_reason,omitempty"`
}

func (a *Agent) traceModel(turn int, req *Request, resp *Response, err error, dur time.Duration) {
	if a.trace == nil {
		return
	}
	size, _ := json.Marshal(req)
	rec := struct {
		Kind         string  `json:"kind"`
		Turn         int     `json:"turn"`
		Model        string  `json:"model"`
		RequestBytes int     `json:"request_bytes"`
		Messages     int     `json:"messages"`
		Response     *reply  `json:"response,omitempty"`
		Usage        *Usage  `json:"usage,omitempty"`
		MS           float64 `json:"ms"`
		Cached       bool    `json:"cached,omitempty"`
		Error        string  `json:"error,omitempty"`
	}{Kind: "model", Turn: turn, Model: a.model.Name(), RequestBytes: len(size), Messages: len(req.Messages), MS: ms(dur)}
	if err != nil {
		rec.Error = err.Error()
	} else {
		rec.Response = &reply{resp.Blocks, resp.StopReason}
		rec.Usage, rec.Cached = &resp.Usage, resp.Cached
	}
	a.writeTrace(rec)
}

func (a *Agent) traceTool(turn int, c Block, o outcome, dur time.Duration) {
	if a.trace == nil {
		return
	}
	args := c.Input
	if !json.Valid(args) {
		args = json.RawMessage("{}")
	}
	a.writeTrace(struct {
		Kind        string          `json:"kind"`
		Turn        int             `json:"turn"`
		Name        string          `json:"name"`
		Args        json.RawMessage `json:"args"`
		IsError     bool            `json:"is_error"`
		MS          float64         `json:"ms"`
		ResultBytes int             `json:"result_bytes"`
	}{"tool", turn, c.Name, args, o.isError, ms(dur), len(o.text)})
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
