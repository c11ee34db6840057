package agent

import (
	"errors"
	"fmt"
	"time"
)

// ModelConfig says which model to call, as a user gives it; empty fields
// are worked out by ChooseModel from the provider's environment variables.
type ModelConfig struct {
	// Provider is "anthropic", "openai" or "" to choose: openai with a
	// BaseURL, else anthropic when ANTHROPIC_API_KEY is set, else openai
	// when OPENAI_API_KEY or OPENAI_BASE_URL is.
	Provider string
	// Model defaults to DefaultAnthropicModel, or OPENAI_MODEL or
	// DefaultOpenAIModel; an OpenAI-compatible BaseURL needs one.
	Model string
	// BaseURL is the API's root; the default is ANTHROPIC_BASE_URL or
	// OPENAI_BASE_URL, then the provider's own.
	BaseURL string
	// Timeout bounds one model call: zero means DefaultTimeout.
	Timeout time.Duration
}

// ErrNoModel is ChooseModel's error when nothing names a model to call.
var ErrNoModel = errors.New("no model to ask: set ANTHROPIC_API_KEY for Claude, or OPENAI_API_KEY for OpenAI, " +
	"or pass --base-url for a local OpenAI-compatible server such as ollama (--base-url http://localhost:11434/v1 --model qwen3:8b)")

// ChooseModel picks the provider, model and endpoint from c and the
// provider's variables, read through getenv (the caller owns the
// environment): ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, OPENAI_API_KEY,
// OPENAI_BASE_URL and OPENAI_MODEL. c's fields win. Every error is a
// mistake in the configuration, worded for the user: ErrNoModel, an unknown
// provider, or an OpenAI-compatible endpoint without a model name.
func ChooseModel(c ModelConfig, getenv func(string) string) (Model, error) {
	openAIBase := c.BaseURL
	if openAIBase == "" {
		openAIBase = getenv("OPENAI_BASE_URL")
	}
	provider := c.Provider
	switch {
	case provider == "anthropic" || provider == "openai":
	case provider != "":
		return nil, fmt.Errorf("--provider %q: use anthropic or openai", provider)
	case c.BaseURL != "":
		provider = "openai"
	case getenv("ANTHROPIC_API_KEY") != "":
		provider = "anthropic"
	case getenv("OPENAI_API_KEY") != "" || openAIBase != "":
		provider = "openai"
	default:
		return nil, ErrNoModel
	}
	if provider == "anthropic" {
		o := AnthropicOptions{APIKey: getenv("ANTHROPIC_API_KEY"), Model: c.Model, BaseURL: c.BaseURL, Timeout: c.Timeout}
		if o.BaseURL == "" {
			o.BaseURL = getenv("ANTHROPIC_BASE_URL")
		}
		if o.APIKey == "" && o.BaseURL == "" {
			return nil, ErrNoModel
		}
		return NewAnthropic(o), nil
	}
	o := OpenAIOptions{APIKey: getenv("OPENAI_API_KEY"), Model: c.Model, BaseURL: openAIBase, Timeout: c.Timeout}
	if o.Model == "" {
		o.Model = getenv("OPENAI_MODEL")
	}
	switch {
	case o.APIKey == "" && o.BaseURL == "":
		return nil, ErrNoModel
	case o.Model == "" && o.BaseURL != "":
		return nil, fmt.Errorf("--base-url %s: name the model that server runs with --model (or OPENAI_MODEL), e.g. --model qwen3:8b", o.BaseURL)
	}
	return NewOpenAI(o), nil
}
