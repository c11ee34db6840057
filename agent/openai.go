package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// DefaultOpenAIModel is the model NewOpenAI uses when none is named. A
// local server wants its own model's name instead.
const DefaultOpenAIModel = openai.ChatModelGPT5_4Mini

// OpenAIOptions configure NewOpenAI. Nothing is read from the environment.
type OpenAIOptions struct {
	// APIKey is sent as a bearer token; local servers need none.
	APIKey string
	// Model defaults to DefaultOpenAIModel.
	Model string
	// BaseURL is the API's root including /v1, as
	// http://localhost:11434/v1 (ollama), http://localhost:8000/v1 (vLLM)
	// or http://localhost:8080/v1 (llama.cpp's server). The default is
	// https://api.openai.com/v1.
	BaseURL string
	// HTTPClient defaults to http.DefaultClient.
	HTTPClient *http.Client
	// MaxRetries is how often a failed call is retried with backoff: zero
	// means 2, negative none.
	MaxRetries int
}

type openAIModel struct {
	chat  openai.ChatCompletionService
	model string
}

// NewOpenAI returns a Model that calls a Chat Completions endpoint: OpenAI's
// or any compatible server's. Tool errors travel as tool messages starting
// "Error: ", since the format has no error flag. It is safe for concurrent
// use.
func NewOpenAI(o OpenAIOptions) Model {
	if o.Model == "" {
		o.Model = DefaultOpenAIModel
	}
	// The chat service alone, not openai.NewClient: the client would read
	// OPENAI_API_KEY, OPENAI_BASE_URL and more from the environment, which
	// belongs to cmd/sqlmcp.
	opts := []option.RequestOption{option.WithEnvironmentProduction(), option.WithMaxRetries(retries(o.MaxRetries))}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	if o.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(o.BaseURL))
	}
	if o.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(o.HTTPClient))
	}
	return &openAIModel{chat: openai.NewChatCompletionService(opts...), model: o.Model}
}

func (m *openAIModel) Name() string { return "openai:" + m.model }

func (m *openAIModel) Complete(ctx context.Context, req *Request) (*Response, error) {
	p, err := m.params(req)
	if err != nil {
		return nil, err
	}
	cc, err := m.chat.New(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("openai chat completions: %w", err)
	}
	if len(cc.Choices) == 0 {
		return nil, fmt.Errorf("openai chat completions: the reply has no choices")
	}
	c := cc.Choices[0]
	cached := int(cc.Usage.PromptTokensDetails.CachedTokens)
	resp := &Response{
		StopReason: openAIStop(c.FinishReason),
		Usage: Usage{
			Input:     max(int(cc.Usage.PromptTokens)-cached, 0),
			Output:    int(cc.Usage.CompletionTokens),
			CacheRead: cached,
		},
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

func (m *openAIModel) params(req *Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: m.model}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultMaxTokens
	}
	// max_completion_tokens, not the deprecated max_tokens, which OpenAI's
	// reasoning models refuse; local servers ignore what they do not know.
	p.MaxCompletionTokens = openai.Int(int64(maxTokens))
	for _, t := range req.Tools {
		var schema map[string]any
		if len(t.InputSchema) > 0 {
			if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
				return p, fmt.Errorf("tool %s: input schema: %w", t.Name, err)
			}
		}
		if schema == nil {
			schema = map[string]any{"type": "object"}
		}
		if _, ok := schema["properties"]; !ok {
			schema["properties"] = map[string]any{}
		}
		delete(schema, "$schema")
		fd := openai.FunctionDefinitionParam{Name: t.Name, Parameters: openai.FunctionParameters(schema)}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		if t.Strict {
			fd.Strict = openai.Bool(true)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case "assistant":
			var a openai.ChatCompletionAssistantMessageParam
			var text []string
			for _, b := range msg.Blocks {
				switch b.Type {
				case "text":
					text = append(text, b.Text)
				case "tool_use":
					a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
						OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
							ID:       b.ID,
							Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: argumentsText(b.Input)},
						},
					})
				}
			}
			if t := strings.Join(text, "\n"); t != "" || len(a.ToolCalls) == 0 {
				a.Content.OfString = openai.String(t)
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case "user":
			// Tool results become tool messages, which must come right
			// after the assistant's calls; any text follows as a user
			// message.
			var text []string
			for _, b := range msg.Blocks {
				switch b.Type {
				case "tool_result":
					content := b.Text
					if b.IsError {
						content = "Error: " + content
					}
					p.Messages = append(p.Messages, openai.ToolMessage(content, b.ID))
				case "text":
					text = append(text, b.Text)
				}
			}
			if len(text) > 0 {
				p.Messages = append(p.Messages, openai.UserMessage(strings.Join(text, "\n\n")))
			}
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	return p, nil
}
