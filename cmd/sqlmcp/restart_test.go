package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestDatabaseRestartUnderLoad: a throwaway cluster is stopped at once
// (as in a crash) and started again while four clients call steadily.
// Only calls in flight while it was down fail, each quickly and with the
// clear message; /readyz is 503 while it is down and 200 within moments
// of its return; every call after works, on the same sqlmcp.
func TestDatabaseRestartUnderLoad(t *testing.T) {
	cluster := dbtest.NewCluster(t)
	const timeout = 3 * time.Second
	db := dbtest.Open(t, cluster.LoadFixture(t), &source.Options{MaxConns: 4, Limits: sqlmcp.Limits{Timeout: timeout}})
	check := readiness(db, 4, zerolog.Nop())
	ready := func() (int, string) {
		if note, err := check(t.Context()); err != nil {
			return http.StatusServiceUnavailable, "not ready: " + err.Error()
		} else if note != "" {
			return http.StatusOK, "ok: " + note
		}
		return http.StatusOK, "ok"
	}
	if code, body := ready(); code != http.StatusOK {
		t.Fatalf("before the restart: /readyz %d %q", code, body)
	}

	type call struct {
		start, end time.Time
		err        error
	}
	var (
		mu    sync.Mutex
		calls []call
		wg    sync.WaitGroup
		stop  = make(chan struct{})
	)
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				c := call{start: time.Now()}
				_, c.err = db.Query(t.Context(), "SELECT count(*) FROM customers", 0)
				c.end = time.Now()
				mu.Lock()
				calls = append(calls, c)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	down := time.Now()
	cluster.Stop(t)
	time.Sleep(500 * time.Millisecond)
	code, body := ready()
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "the database is unavailable (") {
		t.Errorf("while down: /readyz %d %q, want 503 saying the database is unavailable", code, body)
	}
	cluster.Start(t)
	up := time.Now()
	// Calls the outage broke may be counted as left running until sqlmcp
	// has asked the new server (every 250 ms).
	for code, body := ready(); code != http.StatusOK; code, body = ready() {
		if time.Since(up) > 2*time.Second {
			t.Fatalf("once back: /readyz %d %q, want 200", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("/readyz was 200 %s after the start", time.Since(up).Round(time.Millisecond))
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()

	var failed, after int
	for _, c := range calls {
		if c.start.After(up) {
			after++
		}
		if c.err == nil {
			continue
		}
		failed++
		msg := c.err.Error()
		switch {
		case c.end.Before(down) || c.start.After(up):
			t.Errorf("a call outside the outage failed: %v", c.err)
		case !strings.HasPrefix(msg, "the database is unavailable (") || !strings.HasSuffix(msg, "); retrying in the background"):
			t.Errorf("a call failed with %q, want the clear message", msg)
		case c.end.Sub(c.start) >= timeout:
			t.Errorf("a call took %s to fail, the whole timeout", c.end.Sub(c.start))
		}
	}
	if after == 0 {
		t.Error("no call ran after the restart")
	}
	t.Logf("%d calls, %d failed during a %s outage, %d after it", len(calls), failed, up.Sub(down).Round(time.Millisecond), after)
}
