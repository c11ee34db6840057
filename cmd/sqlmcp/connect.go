package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// How the commands that talk to sqlmcp (ask, eval, learn, explore) reach
// it: a running server over streamable HTTP, or `sqlmcp serve` started as
// a subprocess over stdio.

// target is the server a command talks to.
type target struct {
	// url is a running server's /mcp, and token its bearer token; "" to
	// start a server with settings.
	url, token string
	settings   []setting
	// log receives the started server's log (its stderr); nil keeps only
	// its last lines, to say why it stopped.
	log io.Writer
}

// setting is one of serve's flags, set.
type setting struct{ name, value string }

// serverCommand returns the command that runs this binary as `sqlmcp
// serve` with settings. They travel as SQLMCP_* variables, not flags, so a
// database URL stays out of ps; no other SQLMCP_* variable reaches the
// server. Tests replace it to run the test binary as sqlmcp.
var serverCommand = func(settings []setting) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start the server: %w", err)
	}
	cmd := exec.Command(exe, "serve")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SQLMCP_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for _, s := range settings {
		cmd.Env = append(cmd.Env, envName(s.name)+"="+s.value)
	}
	return cmd, nil
}

// dial opens an MCP session to t: over streamable HTTP to t.url, or
// over stdio to a server it starts. A server that refuses its settings
// gives a usage error with its own words.
func dial(ctx context.Context, t target) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "sqlmcp-ask", Version: buildVersion()}, nil)
	if t.url != "" {
		base := http.DefaultTransport.(*http.Transport).Clone()
		var rt http.RoundTripper = base
		if t.token != "" {
			rt = bearerAuth{t.token, base}
		}
		tr := &mcp.StreamableClientTransport{Endpoint: t.url, HTTPClient: &http.Client{Transport: rt}, DisableStandaloneSSE: true}
		cs, err := client.Connect(ctx, tr, nil)
		if err != nil {
			if strings.Contains(err.Error(), "Unauthorized") {
				what := "the server wants a token"
				if t.token != "" {
					what = "the server refused the token"
				}
				return nil, fmt.Errorf("connecting to %s: %s: pass --token or set SQLMCP_TOKEN (%w)", t.url, what, err)
			}
			return nil, fmt.Errorf("connecting to %s: %w", t.url, err)
		}
		return cs, nil
	}
	cmd, err := serverCommand(t.settings)
	if err != nil {
		return nil, err
	}
	tail := &tailBuffer{max: 8 << 10}
	cmd.Stderr = tail
	if t.log != nil {
		cmd.Stderr = io.MultiWriter(tail, t.log)
	}
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err == nil {
		return cs, nil
	}
	// A failed connect has closed the session and waited for the server.
	msg := tail.lastLine()
	if msg == "" {
		return nil, fmt.Errorf("starting the server: %w", err)
	}
	if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 2 {
		return nil, usageError{errors.New(msg)}
	}
	return nil, fmt.Errorf("starting the server: %s", msg)
}

// bearerAuth adds a bearer token to every request.
type bearerAuth struct {
	token string
	base  http.RoundTripper
}

func (b bearerAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// lastLine returns the server's last words: its last line, without the
// "sqlmcp: " that main puts before an error.
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return strings.TrimPrefix(strings.TrimSpace(lines[len(lines)-1]), "sqlmcp: ")
}

// describeSettings shows the server's settings as flags, with the password
// of a database URL hidden.
func describeSettings(settings []setting) string {
	var b strings.Builder
	for _, s := range settings {
		v := s.value
		if u, err := url.Parse(v); s.name == "db" && err == nil && u.User != nil {
			v = u.Redacted()
		}
		fmt.Fprintf(&b, " --%s=%s", s.name, v)
	}
	return b.String()
}

// demoSettings are the settings that serve the demo built in dir, with
// its annotations, as serve --demo does.
func demoSettings(dir string) []setting {
	return []setting{{"demo", "true"}, {"cache-dir", dir}}
}
