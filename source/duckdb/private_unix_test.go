//go:build unix

package duckdb

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestSweepPrivate: the private directory of a process killed with
// SIGKILL is removed by the next start's sweep; one a live process holds,
// and one without a lock file, are left alone.
func TestSweepPrivate(t *testing.T) {
	if dir := os.Getenv("SQLMCP_TEST_HOLD_PRIVATE"); dir != "" {
		// The child: hold dir's lock until killed.
		if _, err := holdPrivate(dir); err != nil {
			os.Exit(2)
		}
		os.WriteFile(filepath.Join(dir, "held"), nil, 0o600)
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mk := func(name string) string {
		d := filepath.Join(tmp, privatePrefix+name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		return d
	}
	killed, live, bare := mk("killed"), mk("live"), mk("bare")
	child := exec.Command(os.Args[0], "-test.run=^TestSweepPrivate$")
	child.Env = append(os.Environ(), "SQLMCP_TEST_HOLD_PRIVATE="+killed)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(killed, "held")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatal("the child never took the lock")
		}
	}
	if got := sweepPrivate(); len(got) != 0 {
		t.Errorf("swept %v while their processes lived", got)
	}
	child.Process.Kill()
	child.Wait()
	release, err := holdPrivate(live)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if got := sweepPrivate(); !slices.Equal(got, []string{killed}) {
		t.Errorf("swept %v, want only %s", got, killed)
	}
	for _, d := range []string{live, bare} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}
