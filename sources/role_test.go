package sources_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/sources"
)

// TestRoleCheckedAfterStart: the role's check, when it can only warn, is
// one of the reads Start does not wait for: the start's report has no
// role yet, and the try's last one, which Opened hears of, has it with
// its warning. With require_readonly_role the check can refuse the
// database, so Start waits for it and refuses.
func TestRoleCheckedAfterStart(t *testing.T) {
	dsn := dbtest.PostgresDSN(t) // connects as a role that could write
	open := func(require bool) (*sources.Set, []*sources.Report, func() []*sources.Report) {
		cf, err := config.FromURLs([]string{"shop=" + dsn}, config.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		cf.Sources[0].RequireReadonlyRole = require
		var mu sync.Mutex
		var heard []*sources.Report
		set := sources.New(cf, &sources.Options{Opened: func(r *sources.Report) { mu.Lock(); heard = append(heard, r); mu.Unlock() }})
		t.Cleanup(set.Close)
		start := set.Start(t.Context())
		set.Settled(t.Context())
		return set, start, func() []*sources.Report { mu.Lock(); defer mu.Unlock(); return heard }
	}

	set, start, heard := open(false)
	if err := start[0].Err(); err != nil || start[0].Role != "" {
		t.Fatalf("the start's report: %v, role %q; want no error and the role not yet checked", err, start[0].Role)
	}
	last := set.Lookup("shop").Report()
	if !strings.HasPrefix(last.Role, "could write") || last.Err() != nil {
		t.Errorf("the try's last report: role %q, %v; want could write, served", last.Role, last.Err())
	}
	if len(last.Warnings()) == 0 || last.Warnings()[0].Kind != "role" {
		t.Errorf("the try's last report warns of %v, want the role", last.Warnings())
	}
	if h := heard(); len(h) != 2 || h[1].Role != last.Role {
		t.Errorf("Opened heard %d reports, want the start's and the last, with the role", len(h))
	}

	_, start, _ = open(true)
	if err := start[0].Err(); err == nil || !strings.Contains(err.Error(), "require_readonly_role: the role could write") {
		t.Errorf("with require_readonly_role the start's report says %v, want the role refused", err)
	}
}
