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
			if ops[name][w], err = schemaOp(ctx, s, name, engine, w, "t0001"); err != nil {
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
				// The first call may fill a cache: a server is slow when
				// its second call still takes over a second.
				warm, n := 1, b.schemaCalls
				for k := 0; k < 2 && warm > 0; k++ {
					t0 := time.Now()
					if _, err := call(ctx, 0); err != nil {
						return fmt.Errorf("%s %s on %s: %w", section, w, name, err)
					}
					if time.Since(t0) <= time.Second {
						break
					}
					if k == 1 {
						warm, n = 0, 1
						slow[w+"/"+name] = true
					}
				}
				lat, _, last, err := sequential(ctx, call, 0, warm, n)
				if err != nil {
					return fmt.Errorf("%s %s on %s: %w", section, w, name, err)
				}
				b.emit(section, w, "p50_ms", name, r, mcpbench.Quantile(lat, 0.5), nil)
				b.emit(section, w, "reply_kib", name, r, float64(last.Bytes)/1024, nil)
			}
		}
	}
	return nil
}
