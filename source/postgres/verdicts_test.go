package postgres_test

import (
	"errors"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// TestPostgresVerdictCache: an accepted statement's verdict is reused only
// for the very text, and the same text is judged afresh once the catalog
// is reloaded: texts that differ by a byte, a comment or a case, and texts
// that differ only past a cached prefix, are each judged on their own.
func TestPostgresVerdictCache(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	db := dbtest.Open(t, dsn, nil)
	ctx := t.Context()
	for range 2 { // the second time from the cache
		if _, err := db.Query(ctx, "SELECT upper(name) FROM customers", 0); err != nil {
			t.Fatal(err)
		}
	}
	var ge *guard.Error
	for _, sql := range []string{
		"SELECT upper(name) FROM customers; DELETE FROM customers",
		"SELECT upper(name) FROM customers FOR UPDATE",
		"SELECT upper(name) FROM customers\n-- x\n; SELECT pg_sleep(1)",
		"SELECT pg_sleep(name) FROM customers",
	} {
		if _, err := db.Query(ctx, sql, 0); !errors.As(err, &ge) {
			t.Errorf("%q: got %v, want the guard's refusal", sql, err)
		}
	}
	// A row limit is part of the text the guard judged.
	res, err := db.Query(ctx, "SELECT id FROM customers ORDER BY id", 1)
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("limit 1: %v, %v", res, err)
	}
	res, err = db.Query(ctx, "SELECT id FROM customers ORDER BY id", 2)
	if err != nil || len(res.Rows) != 2 {
		t.Fatalf("limit 2 after limit 1: %v, %v", res, err)
	}
	// A function the catalog did not know makes it reload; the text
	// accepted before is judged again under the new catalog.
	if _, err := db.Query(ctx, "SELECT lower(name) FROM customers", 0); err != nil {
		t.Fatal(err)
	}
	dbtest.PostgresExec(t, dsn, `CREATE FUNCTION lower(int) RETURNS text LANGUAGE sql AS 'SELECT ''x''';
		CREATE FUNCTION made_later() RETURNS int LANGUAGE sql AS 'SELECT 1'`)
	if _, err := db.Query(ctx, "SELECT made_later()", 0); !errors.As(err, &ge) {
		t.Fatalf("made_later(): got %v, want the guard's refusal", err)
	}
	if _, err := db.Query(ctx, "SELECT lower(name) FROM customers", 0); !errors.As(err, &ge) {
		t.Errorf("after the reload, lower() is overloaded by a user: got %v, want the guard's refusal", err)
	}
}
