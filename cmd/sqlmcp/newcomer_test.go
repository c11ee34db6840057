package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// What a newcomer meets first, trying the README as written.

func TestBareSqlmcpPrintsHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), nil, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	var ue usageError
	if !errors.As(err, &ue) {
		t.Fatalf("got %v, want a usage error", err)
	}
	if !strings.Contains(stderr.String(), "Usage:") || !strings.Contains(stderr.String(), "  --db string") {
		t.Errorf("no help on stderr:\n%s", stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout, an MCP client's, got %q", stdout.String())
	}
	// With SQLMCP_DB set, bare sqlmcp serves as before: here it finds no file.
	err = run(t.Context(), nil, strings.NewReader(""), &stdout, &stderr, func(k string) string {
		return map[string]string{"SQLMCP_DB": "/no/such.db"}[k]
	})
	if err == nil || !strings.Contains(err.Error(), "no such database file") {
		t.Errorf("SQLMCP_DB set: got %v", err)
	}
}

func TestHelpWritesDoubleDashes(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"ask", "--help"}, {"eval", "--help"}, {"explore", "--help"}} {
		var stdout bytes.Buffer
		if err := run(t.Context(), args, nil, &stdout, nil, func(string) string { return "" }); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		out := stdout.String()
		if strings.Contains(out, "\n  -db") || strings.Contains(out, "\n  -max-rows") {
			t.Errorf("%v: a flag printed with one dash:\n%s", args, out)
		}
		if !strings.Contains(out, "\n  --") {
			t.Errorf("%v: no --flag in the help:\n%s", args, out)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version"} {
		var stdout bytes.Buffer
		if err := run(t.Context(), []string{arg}, nil, &stdout, nil, func(string) string { return "" }); err != nil || !strings.HasPrefix(stdout.String(), "sqlmcp ") {
			t.Errorf("%s: got %v, %q", arg, err, stdout.String())
		}
	}
}

func TestDurationWithoutUnit(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--db", path, "--timeout", "5"}, nil, "--timeout 5: a duration needs a unit, as 5s, 500ms or 2m"},
		{[]string{"--db", path}, map[string]string{"SQLMCP_TIMEOUT": "5"}, `SQLMCP_TIMEOUT="5" is not a valid --timeout value (a duration needs a unit, as 5s, 500ms or 2m)`},
		{[]string{"ask", "--db", path, "--model-timeout", "30", "q"}, nil, "--model-timeout 30: a duration needs a unit, as 30s"},
	} {
		err := run(t.Context(), c.args, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(k string) string { return c.env[k] })
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want a usage error containing %q", c.args, err, c.want)
		}
	}
}

func TestHealthcheckHelp(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"healthcheck", "--help"}, nil, &stdout, nil, func(string) string { return "" }); err != nil ||
		!strings.Contains(stdout.String(), "sqlmcp healthcheck [URL]") {
		t.Errorf("got %v, %q", err, stdout.String())
	}
	err := run(t.Context(), []string{"healthcheck", "--url"}, nil, &stdout, nil, func(string) string { return "" })
	var ue usageError
	if !errors.As(err, &ue) || strings.Contains(err.Error(), "unsupported protocol scheme") {
		t.Errorf("a flag it does not take: got %v", err)
	}
}

// TestAskModelTimeout points ask at an endpoint that takes the request
// and never answers: ask gives up after --model-timeout and says so.
func TestAskModelTimeout(t *testing.T) {
	t.Parallel()
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(stop) })
	_, _, err := runAsk(t, nil, "", "--base-url", hang.URL+"/v1", "--model", "m", "--model-timeout", "300ms",
		"--db", dbtest.SQLiteFile(t), ordersQuestion)
	if err == nil || !strings.Contains(err.Error(), "no reply from "+hang.URL+"/v1/chat/completions within 300ms") {
		t.Errorf("got %v, want the timeout said plainly", err)
	}
}
