package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// DefaultAnthropicModel is the model NewAnthropic uses when none is named.
const DefaultAnthropicModel = "claude-haiku-5-5"

// DefaultAnthropicURL is the Messages API's root when the options name none.
const DefaultAnthropicURL = "https://api.anthropic.com"

// anthropicVersion is the API version every request names.
const anthropicVersion = "2026-10-21"

// AnthropicOptions configure NewAnthropic. Nothing is read from the
// environment: the caller passes the key.
type AnthropicOptions struct {
	// APIKey is sent as a bearer token.
	APIKey string
	// Model defaults to DefaultAnthropicModel.
	Model string
	// BaseURL is the API's root, without /v1: the default is
	// DefaultAnthropicURL.
	BaseURL string
	// HTTPClient defaults to http.DefaultClient.
	HTTPClient *http.Client
	// MaxRetries is how often a failed call (a connection error, 408, 409,
	// 429 or 5xx) is retried with backoff: zero means 2, negative none.
	MaxRetries int
	// Timeout bounds one call, reply included: zero means DefaultTimeout.
	// A call that runs out is a *TimeoutError and is not retried.
	Timeout time.Duration
}

type anthropicModel struct {
	api   *endpoint
	model string
}

// NewAnthropic returns a Model that calls Anthropic's Messages API
// (POST /v1/messages). The system prompt and the tools carry cache_control
// breakpoints (ephemeral), and so does the newest message, so each turn
// reads the conversation so far from the prompt cache. It is safe for
// concurrent use.
func NewAnthropic(o AnthropicOptions) Model {
	if o.Model == "" {
		o.Model = DefaultAnthropicModel
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultAnthropicURL
	}
	h := http.Header{}
	h.Set("Anthropic-Version", anthropicVersion)
	if o.APIKey != "" {
		h.Set("Authorization", "Bearer "+o.APIKey)
	}
	return &anthropicModel{api: newEndpoint("anthropic messages", o.BaseURL, "/v1/messages", h, o.HTTPClient, o.MaxRetries, o.Timeout), model: o.Model}
}

func (m *anthropicModel) Name() string { return "anthropic:" + m.model }

// The Messages API's request and reply, as far as the agent uses them.
type (
	anthropicRequest struct {
		Model     string             `json:"model"`
		MaxTokens int                `json:"max_tokens"`
		System    []anthropicBlock   `json:"system,omitempty"`
		Tools     []anthropicTool    `json:"tools,omitempty"`
		Messages  []anthropicMessage `json:"messages"`
	}
	anthropicTool struct {
		Name         string          `json:"name"`
		Description  string          `json:"description,omitempty"`
		InputSchema  json.RawMessage `json:"input_schema"`
		CacheControl *cacheControl   `json:"cache_control,omitempty"`
	}
	anthropicMessage struct {
		Role    string           `json:"role"`
		Content []anthropicBlock `json:"content"`
	}
	anthropicBlock struct {
		Type         string          `json:"type"`
		Text         string          `json:"text,omitempty"`
		ID           string          `json:"id,omitempty"`
		Name         string          `json:"name,omitempty"`
		Input        json.RawMessage `json:"input,omitempty"`
		ToolUseID    string          `json:"tool_use_id,omitempty"`
		Content      *string         `json:"content,omitempty"`
		IsError      bool            `json:"is_error,omitempty"`
		CacheControl *cacheControl   `json:"cache_control,omitempty"`
	}
	cacheControl struct {
		Type string `json:"type"`
	}
	anthropicReply struct {
		Content    []anthropicBlock `json:"content"`
		StopReason string           `json:"stop_reason"`
		Usage      struct {
			Input      int `json:"input_tokens"`
			Output     int `json:"output_tokens"`
			CacheWrite int `json:"cache_creation_input_tokens"`
			CacheRead  int `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
)

var ephemeral = &cacheControl{Type: "ephemeral"}

func (m *anthropicModel) Complete(ctx context.Context, req *Request) (*Response, error) {
	body, err := m.request(req)
	if err != nil {
		return nil, err
	}
	var msg anthropicReply
	if err := m.api.post(ctx, body, &msg); err != nil {
		return nil, err
	}
	resp := &Response{StopReason: msg.StopReason, Usage: Usage{Input: msg.Usage.Input, Output: msg.Usage.Output,
		CacheRead: msg.Usage.CacheRead, CacheWrite: msg.Usage.CacheWrite}}
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			resp.Blocks = append(resp.Blocks, Block{Type: "text", Text: b.Text})
		case "tool_use":
			resp.Blocks = append(resp.Blocks, Block{Type: "tool_use", ID: b.ID, Name: b.Name, Input: objectOrEmpty(b.Input)})
		}
		// Thinking and server-tool blocks are not asked for; drop any.
	}
	return resp, nil
}

func (m *anthropicModel) request(req *Request) (*anthropicRequest, error) {
	p := &anthropicRequest{Model: m.model, MaxTokens: req.MaxTokens}
	if p.MaxTokens <= 0 {
		p.MaxTokens = defaultMaxTokens
	}
	// Breakpoints: the tools, then the system prompt (together the stable
	// prefix), then the newest message; the API allows four.
	for i, t := range req.Tools {
		schema, err := objectSchema(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		at := anthropicTool{Name: t.Name, Description: t.Description, InputSchema: schema}
		if i == len(req.Tools)-1 {
			at.CacheControl = ephemeral
		}
		p.Tools = append(p.Tools, at)
	}
	if req.System != "" {
		p.System = []anthropicBlock{{Type: "text", Text: req.System, CacheControl: ephemeral}}
	}
	for i, msg := range req.Messages {
		if msg.Role != "user" && msg.Role != "assistant" {
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
		var blocks []anthropicBlock
		for _, b := range msg.Blocks {
			switch b.Type {
			case "text":
				if b.Text != "" { // the API refuses empty text blocks
					blocks = append(blocks, anthropicBlock{Type: "text", Text: b.Text})
				}
			case "tool_use":
				blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: objectOrEmpty(b.Input)})
			case "tool_result":
				blocks = append(blocks, anthropicBlock{Type: "tool_result", ToolUseID: b.ID, Content: &b.Text, IsError: b.IsError})
			}
		}
		if len(blocks) == 0 {
			blocks = append(blocks, anthropicBlock{Type: "text", Text: "(empty)"})
		}
		if i == len(req.Messages)-1 {
			blocks[len(blocks)-1].CacheControl = ephemeral
		}
		p.Messages = append(p.Messages, anthropicMessage{Role: msg.Role, Content: blocks})
	}
	return p, nil
}

// objectSchema is a tool's input schema as both APIs take it: a JSON
// object schema with properties, without $schema.
func objectSchema(raw json.RawMessage) (json.RawMessage, error) {
	var s map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
	}
	if s == nil {
		s = map[string]any{}
	}
	s["type"] = "object"
	if p, ok := s["properties"]; !ok || p == nil {
		s["properties"] = map[string]any{}
	}
	delete(s, "$schema")
	return json.Marshal(s)
}

// objectOrEmpty returns raw, or {} when it is empty, so a tool call always
// carries an object.
func objectOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}
