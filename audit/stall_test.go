//go:build unix

package audit

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStalledDisk: when the disk takes nothing (here a pipe no one reads),
// a call waits at most QueueWait for its event, which is counted as lost.
func TestStalledDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := Open(path, &Options{Queue: 4, QueueWait: 20 * time.Millisecond, CloseWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	big := `{"sql":"` + strings.Repeat("x", 32<<10) + `"}`
	start := time.Now()
	for range 20 {
		if _, err := io.WriteString(a, big); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("20 writes to a stalled file took %s", d)
	}
	if s := a.Stats(); s.Lost < 10 {
		t.Errorf("stats %+v, want most of the 20 events lost", s)
	}
	// Close gives up on a disk that takes nothing.
	if err := a.Close(); err == nil || !strings.Contains(err.Error(), "the last lines were not written within 50ms") {
		t.Errorf("Close on a stalled file: %v", err)
	}
	// Drain the pipe so that the writer can finish.
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go io.Copy(io.Discard, r)
	<-a.done
}
