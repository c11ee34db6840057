package sources_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/sources"
)

// TestDamageFoundAfterStart: Start reports a SQLite file before its
// quick_check ends, and the check goes on; a call waits for it, and a
// damaged file's calls fail naming the damage, which Opened hears of.
func TestDamageFoundAfterStart(t *testing.T) {
	path := dbtest.DamagedSQLiteFile(t)
	cf, err := config.FromURLs([]string{"shop=" + path}, config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reports []*sources.Report
	set := sources.New(cf, &sources.Options{Opened: func(r *sources.Report) { mu.Lock(); reports = append(reports, r); mu.Unlock() }})
	defer set.Close()
	start := set.Start(t.Context())
	if err := start[0].Err(); err != nil || start[0].Tables != 1 {
		t.Fatalf("the report before the check: %v, %d tables", err, start[0].Tables)
	}
	_, _, err = set.Get(t.Context(), "shop")
	var ue *sources.UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "the file is damaged: PRAGMA quick_check says") {
		t.Errorf("a call after the check: %v", err)
	}
	if db := set.Lookup("shop").DB(); db != nil {
		t.Error("the damaged file is served")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 2 || reports[0].Err() != nil || reports[1].Err() == nil || !strings.Contains(reports[1].Err().Error(), "damaged") {
		t.Errorf("Opened heard %d reports, want the first and the damage", len(reports))
	}
}
