package sqlite

import (
	"fmt"
	"strings"
	"testing"
)

// A connection keeps at most stmtCacheEntries statements, the most
// recently used, none of a text longer than stmtCacheText or of a program
// larger than stmtCacheMemory; closing it finalizes those it keeps.
func TestStmtCacheBounds(t *testing.T) {
	_, c := guardedConn(t, "CREATE TABLE t (x)")
	err := c.Raw(func(dc any) error {
		sc := dc.(*sqliteConn)
		run := func(q string) error {
			st, _, err := sc.prepare(q, nil, true)
			if err != nil {
				return err
			}
			sc.done(q, st, true, nil)
			return nil
		}
		texts := make([]string, stmtCacheEntries+4)
		for i := range texts {
			texts[i] = fmt.Sprintf("SELECT %d", i)
			if err := run(texts[i]); err != nil {
				return err
			}
		}
		if n := len(sc.kept.entries); n != stmtCacheEntries {
			t.Errorf("%d statements kept, want %d", n, stmtCacheEntries)
		}
		if sc.kept.take(texts[0]) != nil || sc.kept.take(texts[3]) != nil {
			t.Error("the least recently used statements are still kept")
		}
		if st := sc.kept.take(texts[len(texts)-1]); st == nil {
			t.Error("the last statement is not kept")
		} else {
			sc.done(texts[len(texts)-1], st, true, nil)
		}
		long := "SELECT 1" + strings.Repeat(" ", stmtCacheText)
		if err := run(long); err != nil {
			return err
		}
		if sc.kept.take(long) != nil {
			t.Errorf("a text of %d bytes is kept", len(long))
		}
		// Nor a program past stmtCacheMemory: a short text of a thousand
		// columns compiles to one.
		wide := "SELECT " + strings.Repeat("x,", 1000) + "x FROM t"
		if len(wide) > stmtCacheText {
			t.Fatalf("the wide statement is %d bytes, over the text bound", len(wide))
		}
		st, _, err := sc.prepare(wide, nil, true)
		if err != nil {
			return err
		}
		if m := stmtMemory(st); m <= stmtCacheMemory {
			t.Fatalf("the wide statement's program takes %d bytes, within the bound", m)
		}
		sc.done(wide, st, true, nil)
		if sc.kept.take(wide) != nil {
			t.Error("a program over the memory bound is kept")
		}
		// A run that failed keeps nothing.
		st, _, err = sc.prepare("SELECT 7", nil, true)
		if err != nil {
			return err
		}
		sc.done("SELECT 7", st, true, fmt.Errorf("interrupted"))
		if sc.kept.take("SELECT 7") != nil {
			t.Error("the statement of a failed run is kept")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Closing the connection finalizes what it keeps, then closes it.
	if err := c.Raw(func(dc any) error { return dc.(*sqliteConn).Close() }); err != nil {
		t.Errorf("closing with statements kept: %v", err)
	}
}
