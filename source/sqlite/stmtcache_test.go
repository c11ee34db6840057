package sqlite_test

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// A connection keeps the statements it ran under no policy for their
// text's next run. A kept statement answers only its very text, follows
// the schema as another process changes it, and is never used once a
// policy is in force: the same text is then judged again, and refused.
func TestKeptStatements(t *testing.T) {
	path := policyFile(t)
	db := dbtest.Open(t, path, &source.Options{MaxConns: 1})
	ctx := t.Context()
	query := func(sql string) (*source.Result, error) { return db.Query(ctx, sql, 10) }
	cols := func(r *source.Result) string {
		var names []string
		for _, c := range r.Columns {
			names = append(names, c.Name)
		}
		return strings.Join(names, ",")
	}

	// Texts that differ at all, in case or spacing too, are compiled for
	// themselves, however often each comes.
	texts := []string{"SELECT 1 AS a", "SELECT 1 AS b", "select 1 AS a", "SELECT 1 AS a ", "SELECT 2 AS a", "SELECT 1 AS a -- x"}
	for round := range 3 {
		for i, sql := range texts {
			r, err := query(sql)
			if err != nil {
				t.Fatalf("round %d, %q: %v", round, sql, err)
			}
			want := map[int]string{1: "b"}[i]
			if want == "" {
				want = "a"
			}
			v := map[int]int64{4: 2}[i]
			if v == 0 {
				v = 1
			}
			if cols(r) != want || len(r.Rows) != 1 || r.Rows[0][0] != v {
				t.Errorf("round %d, %q: columns %s, rows %v", round, sql, cols(r), r.Rows)
			}
		}
	}

	// A refused text stays refused: nothing of it is kept.
	for range 2 {
		if _, err := query("DELETE FROM notes"); !isRefusal(err) {
			t.Fatalf("DELETE: %v, want the guard's refusal", err)
		}
	}

	// Another process changes the schema under a kept statement.
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const notes = "SELECT * FROM notes"
	for range 2 {
		if r, err := query(notes); err != nil || cols(r) != "body" {
			t.Fatalf("before the change: %v, %v", r, err)
		}
	}
	if _, err := w.Exec("ALTER TABLE notes ADD COLUMN tag TEXT DEFAULT 'new'"); err != nil {
		t.Fatal(err)
	}
	if r, err := query(notes); err != nil || cols(r) != "body,tag" || r.Rows[0][1] != "new" {
		t.Fatalf("after a column was added: %v, %v", r, err)
	}
	if _, err := w.Exec("DROP TABLE notes"); err != nil {
		t.Fatal(err)
	}
	if _, err := query(notes); err == nil || !strings.Contains(err.Error(), "notes") {
		t.Fatalf("after the table was dropped: %v, want no such table", err)
	}

	// Kept before the policy, refused under it.
	const password = "SELECT password FROM users"
	for range 2 {
		if r, err := query(password); err != nil || len(r.Rows) != 2 {
			t.Fatalf("before the policy: %v, %v", r, err)
		}
	}
	pe := db.Backend().(source.PolicyEnforcer)
	pe.SetPolicy(testPolicy)
	for range 2 {
		r, err := query(password)
		if !isRefusal(err) {
			t.Fatalf("under the policy: %v, %v; want the guard's refusal", r, err)
		}
		if l := leaks(fmt.Sprint(r, err), password); len(l) > 0 {
			t.Fatalf("under the policy the answer shows %v", l)
		}
	}
}

func isRefusal(err error) bool {
	var ge *guard.Error
	return errors.As(err, &ge)
}
