package sources_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/sources"
)

// TestSourceDownAtStart: a PostgreSQL source that is down when the set
// starts does not stop the SQLite one; its calls fail at once naming the
// database and the cause, and once the server is up a later call opens it.
func TestSourceDownAtStart(t *testing.T) {
	c := dbtest.NewCluster(t)
	c.LoadFixture(t)
	c.Stop(t)
	f, err := config.FromURLs([]string{"shop=" + dbtest.SQLiteFile(t), "later=" + c.DSN + "&connect_timeout=2"}, config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reports []*sources.Report
	set := sources.New(f, &sources.Options{Opened: func(r *sources.Report) { mu.Lock(); reports = append(reports, r); mu.Unlock() }})
	defer set.Close()
	start := set.Start(t.Context())
	if start[0].Err() != nil || start[0].Tables != 7 {
		t.Errorf("shop: %v, %d tables", start[0].Err(), start[0].Tables)
	}
	if start[1].Unavailable == "" {
		t.Fatalf("later is down, yet opened: %+v", start[1])
	}

	if _, _, err := set.Get(t.Context(), "shop"); err != nil {
		t.Errorf("shop: %v", err)
	}
	_, _, err = set.Get(t.Context(), "later")
	var ue *sources.UnavailableError
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "database later is unavailable: cannot connect to PostgreSQL") ||
		!strings.HasSuffix(err.Error(), "; it is tried again on the next call") {
		t.Errorf("later, down: %v", err)
	}

	c.Start(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, cat, err := set.Get(t.Context(), "later")
		if err == nil {
			tables, err := cat.Tables(t.Context())
			if err != nil || len(tables) != 8 {
				t.Errorf("later, up: %d tables, %v", len(tables), err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("later never opened: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The report reaches Opened just after the source is published: wait
	// for it a moment.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(reports)
		mu.Unlock()
		if n >= 3 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if n := len(reports); n < 3 || reports[n-1].Name != "later" || reports[n-1].Err() != nil {
		t.Errorf("the last report should be later's, opened: %d reports", n)
	}

	_, _, err = set.Get(t.Context(), "nope")
	if want := `no database named "nope"; the databases are shop (sqlite), later (postgres)`; err == nil || err.Error() != want {
		t.Errorf("unknown: %v, want %q", err, want)
	}
}
