package main

import (
	"context"
	"fmt"
	"time"

	"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench"
)

var schemaWorkloads = []string{"describe_table", "list_tables", "search_schema"}

// schema is the schema-tool section on one engine at n tables: each
// server's describe_table, list_tables and search_schema (or what it has
// for them) over stdio, p50 and reply size.
func (b *bench) schema(ctx context.Context, engine string, n int) error {
	db, err := b.database(ctx, engine, fmt.Sprintf("scale_%d", n))
	if err != nil {
		return err
	}
	section := fmt.Sprintf("schema-%s-%d", engine, n)
	names := peers(engine)
	ops := map[string]map[string]op{}
	for _, name := range names {
		s, stop, err := b.start(ctx, name, engine, db, section+"-"+name)
		if err != nil {
			return err
		}
		defer stop()
		ops[name] = map[string]op{}
		for _, w := range schemaWorkloads {
			if ops[name][w], err = schemaOp(ctx, s, name, engine, db, w, "t0001"); err != nil {
				return err
			}
		}
	}
	slow := map[string]bool{} // workload/server: over a second a call, measured once
	for r := 1; r <= b.rounds; r++ {
		logf("%s round %d/%d", section, r, b.rounds)
		for _, w := range schemaWorkloads {
			for _, name := range rotate(names, r-1) {
				call := ops[name][w]
				if call == nil || slow[w+"/"+name] {
					continue
				}
				lat, last, once, err := b.schemaBlock(ctx, call)
				if err != nil {
					return fmt.Errorf("%s %s on %s: %w", section, w, name, err)
				}
				slow[w+"/"+name] = once
				b.emit(section, w, "p50_ms", name, r, mcpbench.Quantile(lat, 0.5), nil)
				b.emit(section, w, "reply_kib", name, r, float64(last.Bytes)/1024, nil)
			}
		}
	}
	return nil
}

// schemaBlock measures one schema call on one server: schemaCalls calls
// after a warm one. The first call may fill a cache, so a call over a
// second is tried again; a server whose second call still takes over a
// second, or whose first took over five, is slow: that one call is its
// figure (once says so), and the later rounds leave it out.
func (b *bench) schemaBlock(ctx context.Context, call op) (lat []float64, last mcpbench.Reply, once bool, err error) {
	timed := func() (float64, error) {
		t0 := time.Now()
		last, err = call(ctx, 0)
		return mcpbench.Ms(time.Since(t0)), err
	}
	d, err := timed()
	if err != nil || d <= 1000 {
		lat, _, last, err = sequential(ctx, call, 0, 0, b.schemaCalls)
		return lat, last, false, err
	}
	if d <= 5000 {
		if d, err = timed(); err != nil || d <= 1000 {
			lat, _, last, err = sequential(ctx, call, 0, 0, b.schemaCalls)
			return lat, last, false, err
		}
	}
	return []float64{d}, last, true, nil
}
