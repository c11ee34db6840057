package postgres

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestOwnCatalog: what ownCatalog knows is what the server's function
// catalog says of the same names, and sqlmcp's reads at start are judged
// by it alone, so they never wait for the function catalog.
func TestOwnCatalog(t *testing.T) {
	dsn := os.Getenv("SQLMCP_TEST_POSTGRES")
	if dsn == "" {
		t.Fatal("SQLMCP_TEST_POSTGRES is not set")
	}
	b, err := (&Engine{}).Open(t.Context(), dsn, source.Config{MaxConns: 2, Limits: sqlmcp.Limits{}.WithDefaults()})
	if err != nil {
		t.Fatal(err)
	}
	p := b.(*backend)
	defer p.Close()
	if err := p.Settle(t.Context()); err != nil {
		t.Fatal(err)
	}
	full := p.cat.Load()
	for _, row := range ownCatalogRows {
		kind, schema, name := row[0].(string), row[1].(string), row[2].(string)
		switch kind {
		case "o":
			if got, want := ownCatalog.Operators(schema, name), full.Operators(schema, name); !sameSet(got, want) {
				t.Errorf("operator %s.%s: ownCatalog has %v, the server %v", schema, name, got, want)
			}
		case "t":
			if _, ok := full.Type(schema, name); !ok {
				t.Errorf("type %s.%s: not on the server", schema, name)
			}
		default:
			if got, want := ownCatalog.Functions(schema, name), full.Functions(schema, name); !sameSet(got, want) {
				t.Errorf("function %s.%s: ownCatalog has %v, the server %v", schema, name, got, want)
			}
		}
	}
	reads := []string{pgTypesSQL, pgLookupSQL([]pgconn.FieldDescription{{DataTypeOID: 25}, {DataTypeOID: 1009}})}
	for sql := range pgStartReads {
		reads = append(reads, sql)
	}
	for _, sql := range reads {
		if _, err := guardPostgres(sql, 0, ownCatalog, nil); err != nil {
			t.Errorf("ownCatalog refuses a read of the start: %v\n%.200s", err, sql)
		}
	}
}

// sameSet reports whether a and b hold the same functions, each once or
// more (the function catalog has a row per overload).
func sameSet[T comparable](a, b []T) bool {
	in := func(x, y []T) bool {
		for _, v := range x {
			if !slices.Contains(y, v) {
				return false
			}
		}
		return true
	}
	return len(a) > 0 && in(a, b) && in(b, a)
}

// TestCatalogFor: while the function catalog is read, the reads of the
// start are judged by ownCatalog and every other statement waits, sqlmcp's
// own too; a failed read fails every statement, and Settle, after it.
func TestCatalogFor(t *testing.T) {
	p := &backend{loaded: make(chan struct{})}
	p.loadOnce.Do(func() {}) // a read under way
	p.cat.Store(bootstrapCatalog)
	if cat, err := p.catalogFor(t.Context(), true); cat != ownCatalog || err != nil {
		t.Errorf("own read while loading: %p, %v; want ownCatalog", cat, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.catalogFor(ctx, false); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the model's statement while loading: %v, want it to wait", err)
	}
	ctx2, cancel2 := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel2()
	if _, err := p.check(ctx2, nil, "SELECT count(*) FROM pg_catalog.pg_class", 0, true, false); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("sqlmcp's own read that is not a read of the start, while loading: %v, want it to wait", err)
	}
	p.loadErr = errors.New("reading the function catalog: boom")
	close(p.loaded)
	for _, own := range []bool{true, false} {
		if _, err := p.catalogFor(t.Context(), own); err != p.loadErr {
			t.Errorf("own %v after a failed read: %v, want %v", own, err, p.loadErr)
		}
	}
	if err := p.Settle(t.Context()); err != p.loadErr {
		t.Errorf("Settle after a failed read: %v", err)
	}
	if _, err := p.check(t.Context(), nil, "SELECT 1", 0, false, false); err != p.loadErr {
		t.Errorf("check after a failed read: %v", err)
	}
}

// TestFunctionCatalogReadLate: Open and the reads of the start leave the
// function catalog unread; the first statement that needs it starts the
// read, and a backend closed before that gives the read's connection
// back. With one connection, the one kept for the read is the pool's
// last, so Open reads the catalog rather than wait on itself.
func TestFunctionCatalogReadLate(t *testing.T) {
	dsn := os.Getenv("SQLMCP_TEST_POSTGRES")
	if dsn == "" {
		t.Fatal("SQLMCP_TEST_POSTGRES is not set")
	}
	open := func(conns int) *backend {
		b, err := (&Engine{}).Open(t.Context(), dsn, source.Config{MaxConns: conns, Limits: sqlmcp.Limits{}.WithDefaults()})
		if err != nil {
			t.Fatal(err)
		}
		return b.(*backend)
	}
	closed := func(p *backend) {
		done := make(chan struct{})
		go func() { p.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Close did not return")
		}
	}
	p := open(2)
	for sql := range pgStartReads {
		if _, err := p.check(t.Context(), nil, sql, 0, true, true); err != nil {
			t.Fatalf("a read of the start: %v", err)
		}
	}
	if p.loadBegun.Load() {
		t.Error("Open or a read of the start began reading the function catalog")
	}
	closed(p)

	p = open(2)
	if _, err := p.check(t.Context(), nil, "SELECT 1", 0, false, false); err != nil {
		t.Fatal(err)
	}
	if !p.loadBegun.Load() || p.cat.Load() == bootstrapCatalog {
		t.Error("the model's statement was judged before the function catalog was read")
	}
	closed(p)

	p = open(1)
	if !p.loadBegun.Load() {
		t.Error("with one connection, Open did not read the function catalog")
	}
	closed(p)
}
