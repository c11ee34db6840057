package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// DefaultOpenAIModel is the model NewOpenAI uses when none is named. A
// local server wants its own model's name instead.
const DefaultOpenAIModel = "gpt-5.4-mini"

// DefaultOpenAIURL is the Chat Completions API's root when the options
// name none.
const DefaultOpenAIURL = "https://api.openai.com/v1"

// OpenAIOptions configure NewOpenAI. Nothing is read from the environment.
type OpenAIOptions struct {
	// APIKey is sent as a bearer token; local servers need none.
	APIKey string
	// Model defaults to DefaultOpenAIModel.
	Model string
	// BaseURL is the API's root including /v1, as
	// http://localhost:11434/v1 (ollama), http://localhost:8000/v1 (vLLM)
	// or http://localhost:8080/v1 (llama.cpp's server). The default is
	// DefaultOpenAIURL.
	BaseURL string
	// HTTPClient defaults to http.DefaultClient.
	HTTPClient *http.Client
	// MaxRetries is how often a failed call is retried with backoff: zero
	// means 2, negative none.
	MaxRetries int
	// Timeout bounds one call, reply included: zero means DefaultTimeout.
	// A call that runs out is a *TimeoutError and is not retried.
	Timeout time.Duration
}

type openAIModel struct {
	api   *endpoint
	model string
}

// NewOpenAI returns a Model that calls a Chat Completions endpoint
// (POST /chat/completions under the base URL): OpenAI's or any compatible
// server's. Tool errors travel as tool messages starting "Error: ", since
// the format has no error flag. It is safe for concurrent use.
func NewOpenAI(o OpenAIOptions) Model {
	if o.Model == "" {
		o.Model = DefaultOpenAIModel
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultOpenAIURL
	}
	h := http.Header{}
	if o.APIKey != "" {
		h.Set("Authorization", "Bearer "+o.APIKey)
	}
	return &openAIModel{api: newEndpoint("openai chat completions", o.BaseURL, "/chat/completions", h, o.HTTPClient, o.MaxRetries, o.Timeout), model: o.Model}
}

func (m *openAIModel) Name() string { return "openai:" + m.model }

// The Chat Completions request and reply, as far as the agent uses them.
type (
	openAIRequest struct {
		Model string `json:"model"`
		// max_completion_tokens, not the deprecated max_tokens, which
		// OpenAI's reasoning models refuse; local servers ignore what they
		// do not know.
		MaxCompletionTokens int             `json:"max_completion_tokens"`
		Messages            []openAIMessage `json:"messages"`
		Tools               []openAITool    `json:"tools,omitempty"`
	}
	openAITool struct {
		Type     string         `json:"type"`
		Function openAIFunction `json:"function"`
	}
	openAIFunction struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict,omitempty"`
	}
	openAIMessage struct {
		Role string `json:"role"`
		// Content is nil for an assistant message of tool calls alone.
		Content    *string          `json:"content,omitempty"`
		ToolCalls  []openAIToolCall `json:"tool_calls,omitempty"`
		ToolCallID string           `json:"tool_call_id,omitempty"`
	}
	openAIToolCall struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	openAIReply struct {
		Choices []struct {
			Message struct {
				Content   string           `json:"content"`
				ToolCalls []openAIToolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			Prompt  int `json:"prompt_tokens"`
			Output  int `json:"completion_tokens"`
			Details struct {
				Cached int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
)

func (m *openAIModel) Complete(ctx context.Context, req *Request) (*Response, error) {
	body, err := m.request(req)
	if err != nil {
		return nil, err
	}
	var cc openAIReply
	if err := m.api.post(ctx, body, &cc); err != nil {
		return nil, err
	}
	if len(cc.Choices) == 0 {
		return nil, errors.New("openai chat completions: the reply has no choices")
	}
	c := cc.Choices[0]
	cached := cc.Usage.Details.Cached
	resp := &Response{
		StopReason: openAIStop(c.FinishReason),
		Usage:      Usage{Input: max(cc.Usage.Prompt-cached, 0), Output: cc.Usage.Output, CacheRead: cached},
	}
	if c.Message.Content != "" {
		resp.Blocks = append(resp.Blocks, Block{Type: "text", Text: c.Message.Content})
	}
	for i, tc := range c.Message.ToolCalls {
		id := tc.ID
		if id == "" { // some local servers leave it out
			id = fmt.Sprintf("call_%d", i)
		}
		resp.Blocks = append(resp.Blocks, Block{Type: "tool_use", ID: id, Name: tc.Function.Name, Input: argumentsJSON(tc.Function.Arguments)})
	}
	return resp, nil
}

// openAIStop words a finish reason as Anthropic's stop reasons.
func openAIStop(r string) string {
	switch r {
	case "tool_calls", "function_call":
		return "tool_use"
	case "stop":
		return "end_turn"
	case "length":
		return "max_tokens"
	}
	return r
}

// argumentsJSON turns a tool call's arguments, a string that should hold
// JSON, into JSON: the object itself, {} for nothing, or the text as a JSON
// string when it is not valid JSON (the agent then tells the model).
func argumentsJSON(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// argumentsText undoes argumentsJSON for the conversation sent back.
func argumentsText(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(objectOrEmpty(raw))
}

func (m *openAIModel) request(req *Request) (*openAIRequest, error) {
	p := &openAIRequest{Model: m.model, MaxCompletionTokens: req.MaxTokens}
	if p.MaxCompletionTokens <= 0 {
		p.MaxCompletionTokens = defaultMaxTokens
	}
	for _, t := range req.Tools {
		schema, err := objectSchema(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		p.Tools = append(p.Tools, openAITool{Type: "function",
			Function: openAIFunction{Name: t.Name, Description: t.Description, Parameters: schema, Strict: t.Strict}})
	}
	text := func(role, s string) openAIMessage { return openAIMessage{Role: role, Content: &s} }
	if req.System != "" {
		p.Messages = append(p.Messages, text("system", req.System))
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case "assistant":
			a := openAIMessage{Role: "assistant"}
			var texts []string
			for _, b := range msg.Blocks {
				switch b.Type {
				case "text":
					texts = append(texts, b.Text)
				case "tool_use":
					c := openAIToolCall{ID: b.ID, Type: "function"}
					c.Function.Name, c.Function.Arguments = b.Name, argumentsText(b.Input)
					a.ToolCalls = append(a.ToolCalls, c)
				}
			}
			if t := strings.Join(texts, "\n"); t != "" || len(a.ToolCalls) == 0 {
				a.Content = &t
			}
			p.Messages = append(p.Messages, a)
		case "user":
			// Tool results become tool messages, which must come right
			// after the assistant's calls; any text follows as a user
			// message.
			var texts []string
			for _, b := range msg.Blocks {
				switch b.Type {
				case "tool_result":
					content := b.Text
					if b.IsError {
						content = "Error: " + content
					}
					m := text("tool", content)
					m.ToolCallID = b.ID
					p.Messages = append(p.Messages, m)
				case "text":
					texts = append(texts, b.Text)
				}
			}
			if len(texts) > 0 {
				p.Messages = append(p.Messages, text("user", strings.Join(texts, "\n\n")))
			}
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	return p, nil
}
