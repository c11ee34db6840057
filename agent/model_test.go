package agent_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/internal/modeltest"
)

// hello is a one-message request.
var hello = &agent.Request{System: "Be brief.", Messages: []agent.Message{{Role: "user", Blocks: []agent.Block{{Type: "text", Text: "hello"}}}}}

func TestModelTimeout(t *testing.T) {
	// An endpoint that takes the request and never answers.
	stop := make(chan struct{})
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	models := map[string]agent.Model{
		"anthropic": agent.NewAnthropic(agent.AnthropicOptions{APIKey: "k", BaseURL: srv.URL, Timeout: 200 * time.Millisecond}),
		"openai":    agent.NewOpenAI(agent.OpenAIOptions{BaseURL: srv.URL + "/v1", Model: "m", Timeout: 200 * time.Millisecond}),
	}
	for name, m := range models {
		t.Run(name, func(t *testing.T) {
			calls.Store(0)
			_, err := m.Complete(t.Context(), hello)
			var te *agent.TimeoutError
			if !errors.As(err, &te) || te.Timeout != 200*time.Millisecond {
				t.Fatalf("got %v, want a *TimeoutError after 200ms", err)
			}
			if !strings.Contains(err.Error(), "no reply from "+srv.URL) || !strings.Contains(err.Error(), "within 200ms") {
				t.Errorf("the message does not say what happened: %v", err)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("%d calls: a timeout is not retried", n)
			}
		})
	}
}

func TestModelRetries(t *testing.T) {
	for _, p := range []modeltest.Provider{modeltest.Anthropic, modeltest.OpenAI} {
		t.Run(p.Name, func(t *testing.T) {
			// A 503 (retried, after the server's Retry-After), then a
			// reply; a 400 is not retried.
			f := modeltest.NewFake(t, p, nil, modeltest.Reply{Status: 503, Text: "busy"}, modeltest.Say("hi"),
				modeltest.Reply{Status: 400, Text: "bad request"})
			var m agent.Model
			if p.Name == "anthropic" {
				m = agent.NewAnthropic(agent.AnthropicOptions{APIKey: "k", BaseURL: f.BaseURL()})
			} else {
				m = agent.NewOpenAI(agent.OpenAIOptions{BaseURL: f.BaseURL(), Model: "m"})
			}
			resp, err := m.Complete(t.Context(), hello)
			if err != nil || resp.Text() != "hi" {
				t.Fatalf("got %+v, %v; want the reply after one retry", resp, err)
			}
			_, err = m.Complete(t.Context(), hello)
			var ae *agent.APIError
			if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Message != "bad request" {
				t.Fatalf("got %v, want the API's 400 with its message", err)
			}
			if f.Left() != 0 {
				t.Errorf("%d replies left: the 400 was retried or the 503 was not", f.Left())
			}
		})
	}
}

func TestChooseModel(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  agent.ModelConfig
		env  map[string]string
		want string // the model's name, or the error's start
	}{
		{"nothing", agent.ModelConfig{}, nil, agent.ErrNoModel.Error()},
		{"anthropic key", agent.ModelConfig{}, map[string]string{"ANTHROPIC_API_KEY": "k"}, "anthropic:" + agent.DefaultAnthropicModel},
		{"openai key", agent.ModelConfig{}, map[string]string{"OPENAI_API_KEY": "k", "OPENAI_MODEL": "gpt-x"}, "openai:gpt-x"},
		{"base URL means openai", agent.ModelConfig{BaseURL: "http://localhost:11434/v1", Model: "qwen3:8b"},
			map[string]string{"ANTHROPIC_API_KEY": "k"}, "openai:qwen3:8b"},
		{"local server without a model", agent.ModelConfig{BaseURL: "http://localhost:11434/v1"}, nil, "--base-url http://localhost:11434/v1: name the model"},
		{"unknown provider", agent.ModelConfig{Provider: "gemini"}, nil, `--provider "gemini"`},
		{"anthropic without a key", agent.ModelConfig{Provider: "anthropic"}, nil, agent.ErrNoModel.Error()},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := agent.ChooseModel(c.cfg, func(k string) string { return c.env[k] })
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = m.Name()
			}
			if !strings.HasPrefix(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestAnthropicBaseURL checks that ANTHROPIC_BASE_URL, as a gateway's
// users set it, is where the key and the conversation go.
func TestAnthropicBaseURL(t *testing.T) {
	f := modeltest.NewFake(t, modeltest.Anthropic, nil, modeltest.Say("hi"), modeltest.Say("again"))
	env := map[string]string{"ANTHROPIC_API_KEY": "gw-key", "ANTHROPIC_BASE_URL": f.BaseURL()}
	m, err := agent.ChooseModel(agent.ModelConfig{}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := m.Complete(t.Context(), hello); err != nil || resp.Text() != "hi" {
		t.Fatalf("got %+v, %v", resp, err)
	}
	if got := f.Headers()[0].Get("Authorization"); got != "Bearer gw-key" {
		t.Errorf("Authorization %q, want the key", got)
	}
	// --base-url wins over the variable.
	env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"
	m, err = agent.ChooseModel(agent.ModelConfig{Provider: "anthropic", BaseURL: f.BaseURL()}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := m.Complete(t.Context(), hello); err != nil || resp.Text() != "again" {
		t.Errorf("with --base-url: got %+v, %v", resp, err)
	}
}
