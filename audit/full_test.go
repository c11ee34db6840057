//go:build linux

package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestDiskFull: a write that fails (here the disk is full) is logged as a
// loud error, the calls go on, and once the file takes writes again the
// events lost are recorded and the chain holds.
func TestDiskFull(t *testing.T) {
	var logs syncBuffer
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := open(path, Options{Sync: time.Second, Keep: 10, Queue: 16, QueueWait: time.Second, CloseWait: 10 * time.Second, Logger: zerolog.New(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	a.f.Close()
	a.f = full
	go a.run()
	fmt.Fprint(a, `{"event":"tool_call","sql":"SELECT 'lost'"}`)
	deadline := time.Now().Add(10 * time.Second)
	for a.Stats().Failures == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	write(t, a, 1, 2)
	var ev map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(logs.String(), "\n", 2)[0]), &ev); err != nil || ev["event"] != "audit_error" || ev["disk_full"] != true || ev["level"] != "error" {
		t.Errorf("log %q, want an error event with disk_full", logs.String())
	}
	lines := readLines(t, path)
	if len(lines) != 4 || !strings.Contains(lines[1], `"seq":2,`) || !strings.Contains(lines[1], `"event":"audit_lost","lost":1}`) {
		t.Errorf("after the failed write:\n%s", strings.Join(lines, ""))
	}
	if p, n := verify(t, path); p != nil || n != nil {
		t.Errorf("problems %q, notes %q", p, n)
	}
	if s := a.Stats(); s.Written != 4 || s.Lost != 0 || s.Failures != 1 {
		t.Errorf("stats %+v, want 4 written, 1 failure", s)
	}
}
