package agent

import (
	"context"
	"encoding/json"
)

// Model is one LLM behind a provider's API. Implementations are safe for
// concurrent use.
type Model interface {
	// Complete sends one request and returns the model's reply. An error
	// means no reply: the API refused the request, or it could not be
	// reached after the provider client's retries.
	Complete(ctx context.Context, req *Request) (*Response, error)
	// Name says which provider and model answer, as "anthropic:claude-haiku-5-5"
	// or "openai:qwen3:8b", for traces and cache keys.
	Name() string
}

// Request is one call to a model: a whole conversation, provider-neutral.
// Its JSON form is what the cache hashes and stores.
type Request struct {
	// System is the system prompt: instructions and schema. Anthropic caches
	// it (with the tools) between calls.
	System   string    `json:"system,omitempty"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools,omitempty"`
	// MaxTokens caps the reply; zero means 4096.
	MaxTokens int `json:"max_tokens,omitempty"`
}

// Message is one turn of the conversation.
type Message struct {
	Role   string  `json:"role"` // "user" or "assistant"
	Blocks []Block `json:"blocks"`
}

// Block is one piece of a message, in Anthropic's shape: text, a tool call
// (tool_use, from the assistant) or a tool's result (tool_result, from the
// user, answering the tool_use with the same ID).
type Block struct {
	Type string `json:"type"` // "text", "tool_use" or "tool_result"
	// Text is the text of a text block, or a tool result's content.
	Text string `json:"text,omitempty"`
	// ID names a tool call; a tool_result carries the ID of its tool_use.
	ID string `json:"id,omitempty"`
	// Name is the tool a tool_use calls.
	Name string `json:"name,omitempty"`
	// Input is a tool_use's arguments, a JSON object when the model wrote
	// valid JSON (a JSON string holding the raw text otherwise).
	Input json.RawMessage `json:"input,omitempty"`
	// IsError marks a tool_result that reports a failure.
	IsError bool `json:"is_error,omitempty"`
}

// Tool is a tool the model may call.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments, an object schema.
	InputSchema json.RawMessage `json:"input_schema"`
	// Strict asks the provider to hold the model's arguments to the schema
	// exactly, where it can (OpenAI's strict function calling). The schema
	// must then require every property and forbid others.
	Strict bool `json:"strict,omitempty"`
}

// Response is a model's reply.
type Response struct {
	Blocks []Block `json:"blocks"`
	// StopReason is why the model stopped: "end_turn", "tool_use",
	// "max_tokens", or the provider's own word for anything else.
	StopReason string `json:"stop_reason,omitempty"`
	Usage      Usage  `json:"usage"`
	// Cached is true when the reply came from a cache and no call was made.
	Cached bool `json:"cached,omitempty"`
}

// Usage counts tokens. Input counts prompt tokens neither read from nor
// written to the provider's prompt cache, so Input+CacheRead+CacheWrite is
// the whole prompt.
type Usage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cache_read,omitempty"`
	CacheWrite int `json:"cache_write,omitempty"`
}

func (u *Usage) add(v Usage) {
	u.Input += v.Input
	u.Output += v.Output
	u.CacheRead += v.CacheRead
	u.CacheWrite += v.CacheWrite
}

// defaultMaxTokens caps a reply when the request does not say.
const defaultMaxTokens = 4096
