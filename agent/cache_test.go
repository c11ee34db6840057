package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlmcp/sqlmcp/agent"
)

// counting is a model that answers every request alike and counts calls.
type counting struct{ calls atomic.Int32 }

func (m *counting) Name() string { return "test:counting" }

func (m *counting) Complete(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	m.calls.Add(1)
	return &agent.Response{Blocks: []agent.Block{{Type: "text", Text: "hello " + req.Messages[0].Blocks[0].Text}},
		StopReason: "end_turn", Usage: agent.Usage{Input: 5, Output: 2}}, nil
}

func TestCacheConcurrentAndDamaged(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "made", "on", "first", "write")
	m := &counting{}
	c := agent.NewCache(dir, m)
	if c.Name() != m.Name() {
		t.Errorf("Name %q, want the model's", c.Name())
	}
	req := func(s string) *agent.Request {
		return &agent.Request{System: "s", Messages: []agent.Message{{Role: "user", Blocks: []agent.Block{{Type: "text", Text: s}}}}}
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			q := []string{"a", "b"}[i%2]
			resp, err := c.Complete(t.Context(), req(q))
			if err != nil || resp.Blocks[0].Text != "hello "+q {
				t.Errorf("got %+v, %v", resp, err)
			}
		})
	}
	wg.Wait()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 2 {
		t.Fatalf("files %v, want one per request and no temporary files left", files)
	}
	before := m.calls.Load()
	resp, err := c.Complete(t.Context(), req("a"))
	if err != nil || !resp.Cached || resp.Usage.Input != 5 || m.calls.Load() != before {
		t.Errorf("a hit: %+v, %v, %d calls (was %d)", resp, err, m.calls.Load(), before)
	}
	// A damaged file is a miss, and is written again.
	for _, f := range files {
		os.WriteFile(f, []byte("{not json"), 0o644)
	}
	if resp, err := c.Complete(t.Context(), req("a")); err != nil || resp.Cached || m.calls.Load() != before+1 {
		t.Errorf("after damage: %+v, %v", resp, err)
	}
	if resp, err := c.Complete(t.Context(), req("a")); err != nil || !resp.Cached {
		t.Errorf("rewritten: %+v, %v", resp, err)
	}
	// A different model name is a different key.
	other := agent.NewCache(dir, namedAs{m, "test:other"})
	if resp, _ := other.Complete(t.Context(), req("a")); resp.Cached {
		t.Error("another model's reply came from the cache")
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), `"model": "test:`) {
		t.Errorf("cache file: %s", b)
	}
}

type namedAs struct {
	*counting
	name string
}

func (n namedAs) Name() string { return n.name }
