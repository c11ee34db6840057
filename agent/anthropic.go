package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// DefaultAnthropicModel is the model NewAnthropic uses when none is named.
const DefaultAnthropicModel = anthropic.ModelClaudeHaiku5_5

// AnthropicOptions configure NewAnthropic. Nothing is read from the
// environment: the caller passes the key.
type AnthropicOptions struct {
	APIKey string
	// Model defaults to DefaultAnthropicModel.
	Model string
	// BaseURL is the API's root, without /v1: the default is
	// https://api.anthropic.com.
	BaseURL string
	// HTTPClient defaults to the SDK's client.
	HTTPClient *http.Client
	// MaxRetries is how often a failed call (a connection error, 408, 409,
	// 429 or 5xx) is retried with backoff: zero means 2, negative none.
	MaxRetries int
}

type anthropicModel struct {
	client anthropic.Client
	model  string
}

// NewAnthropic returns a Model that calls Anthropic's Messages API. The
// system prompt and the tools carry cache_control breakpoints (ephemeral),
// and so does the newest message, so each turn reads the conversation so
// far from the prompt cache. It is safe for concurrent use.
func NewAnthropic(o AnthropicOptions) Model {
	if o.Model == "" {
		o.Model = DefaultAnthropicModel
	}
	// The environment belongs to cmd/sqlmcp: never let the SDK read
	// ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL or profile files behind the
	// caller's back.
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithMaxRetries(retries(o.MaxRetries))}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	if o.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(o.BaseURL))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	return &anthropicModel{client: anthropic.NewClient(opts...), model: o.Model}
}

// retries turns the options' convention (zero for the default, negative
// for none) into a count.
func retries(n int) int {
	switch {
	case n == 0:
		return 2
	case n < 0:
		return 0
	}
	return n
}

func (m *anthropicModel) Name() string { return "anthropic:" + m.model }

func (m *anthropicModel) Complete(ctx context.Context, req *Request) (*Response, error) {
	p, err := m.params(req)
	if err != nil {
		return nil, err
	}
	msg, err := m.client.Messages.New(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("anthropic messages: %w", err)
	}
	resp := &Response{
		StopReason: string(msg.StopReason),
		Usage: Usage{
			Input:      int(msg.Usage.InputTokens),
			Output:     int(msg.Usage.OutputTokens),
			CacheRead:  int(msg.Usage.CacheReadInputTokens),
			CacheWrite: int(msg.Usage.CacheCreationInputTokens),
		},
	}
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

func (m *anthropicModel) params(req *Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{Model: m.model, MaxTokens: int64(req.MaxTokens)}
	if p.MaxTokens <= 0 {
		p.MaxTokens = defaultMaxTokens
	}
	// Breakpoints: the tools, then the system prompt (together the stable
	// prefix), then the newest message; the API allows four.
	for i, t := range req.Tools {
		schema, err := anthropicSchema(t.InputSchema)
		if err != nil {
			return p, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tp := anthropic.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		if i == len(req.Tools)-1 {
			tp.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System, CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	}
	for i, msg := range req.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		for _, b := range msg.Blocks {
			switch b.Type {
			case "text":
				if b.Text != "" { // the API refuses empty text blocks
					blocks = append(blocks, anthropic.NewTextBlock(b.Text))
				}
			case "tool_use":
				blocks = append(blocks, anthropic.NewToolUseBlock(b.ID, objectOrEmpty(b.Input), b.Name))
			case "tool_result":
				blocks = append(blocks, anthropic.NewToolResultBlock(b.ID, b.Text, b.IsError))
			}
		}
		if len(blocks) == 0 {
			blocks = append(blocks, anthropic.NewTextBlock("(empty)"))
		}
		if i == len(req.Messages)-1 {
			last := blocks[len(blocks)-1]
			switch {
			case last.OfText != nil:
				last.OfText.CacheControl = anthropic.NewCacheControlEphemeralParam()
			case last.OfToolResult != nil:
				last.OfToolResult.CacheControl = anthropic.NewCacheControlEphemeralParam()
			case last.OfToolUse != nil:
				last.OfToolUse.CacheControl = anthropic.NewCacheControlEphemeralParam()
			}
		}
		switch msg.Role {
		case "assistant":
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		case "user":
			p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	return p, nil
}

// anthropicSchema splits a JSON object schema into the SDK's parts:
// properties, required, and everything else as extra fields.
func anthropicSchema(raw json.RawMessage) (anthropic.ToolInputSchemaParam, error) {
	var s anthropic.ToolInputSchemaParam
	var m map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return s, fmt.Errorf("input schema: %w", err)
		}
	}
	s.Properties = map[string]any{}
	if p, ok := m["properties"]; ok && p != nil {
		s.Properties = p
	}
	if r, ok := m["required"].([]any); ok {
		for _, v := range r {
			if name, ok := v.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	for k, v := range m {
		switch k {
		case "type", "properties", "required", "$schema":
			continue
		}
		if s.ExtraFields == nil {
			s.ExtraFields = map[string]any{}
		}
		s.ExtraFields[k] = v
	}
	return s, nil
}

// objectOrEmpty returns raw, or {} when it is empty, so a tool call always
// carries an object.
func objectOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}
