package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

func TestServingProcs(t *testing.T) {
	for _, tt := range []struct {
		http, env string
		want      int
	}{
		{"", "", 1},
		{"", "4", 0},
		{"127.0.0.1:8080", "", 0},
		{"127.0.0.1:8080", "4", 0},
	} {
		if got := servingProcs(tt.http, tt.env); got != tt.want {
			t.Errorf("servingProcs(%q, %q) = %d, want %d", tt.http, tt.env, got, tt.want)
		}
	}
}

// TestStdioProcs: sqlmcp over stdio runs Go code on one thread, unless
// GOMAXPROCS says otherwise, and its start event says how many.
func TestStdioProcs(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	for _, tt := range []struct {
		env  string // GOMAXPROCS, "" for unset
		want string
	}{
		{"", "1"},
		{"2", "2"},
	} {
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GOMAXPROCS=") {
				env = append(env, kv)
			}
		}
		if tt.env != "" {
			env = append(env, "GOMAXPROCS="+tt.env)
		}
		var stderr bytes.Buffer
		cs := startStdioEnv(t, &stderr, env, "serve", "--db", path)
		if _, err := cs.ListTools(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		cs.Close() // the server has exited, and stderr is whole
		m := regexp.MustCompile(`"event":"start"[^\n]*"procs":(\d+)`).FindStringSubmatch(stderr.String())
		if m == nil || m[1] != tt.want {
			t.Errorf("GOMAXPROCS=%q: start event %v, want procs %s; stderr:\n%s", tt.env, m, tt.want, stderr.String())
		}
	}
}
