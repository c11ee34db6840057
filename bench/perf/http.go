package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench"
)

// http is the HTTP section on one engine: sqlmcp and DBHub (the reference
// server has no HTTP), c = 8 and 32 clients of this program's own, each
// calling SELECT 1 and the point lookup in turn: calls/s, p50, p99, server
// CPU per call, and this program's CPU per call.
func (b *bench) http(ctx context.Context, engine string) error {
	db, err := b.database(ctx, engine, "shop")
	if err != nil {
		return err
	}
	section := "http-" + engine
	names := []string{sqlmcp, dbhub}
	urls, servers := map[string]string{}, map[string]*mcpbench.Server{}
	for _, n := range names {
		port, err := mcpbench.FreePort()
		if err != nil {
			return err
		}
		s, err := mcpbench.Spawn(b.argv(n, engine, db, port), nil, filepath.Join(b.out, "logs", section+"-"+n+".log"))
		if err != nil {
			return err
		}
		defer s.Stop(10 * time.Second)
		urls[n], servers[n] = fmt.Sprintf("http://127.0.0.1:%d/mcp", port), s
		if err := s.WaitReady(ctx, mcpbench.NewHTTP(urls[n], 1), 60*time.Second); err != nil {
			return err
		}
	}
	for r := 1; r <= b.rounds; r++ {
		logf("%s round %d/%d", section, r, b.rounds)
		for _, c := range []int{8, 32} {
			for _, n := range rotate(names, r-1) {
				if err := b.httpBlock(ctx, section, n, urls[n], servers[n].Pid(), c, r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (b *bench) httpBlock(ctx context.Context, section, name, url string, pid, c, round int) error {
	h := mcpbench.NewHTTP(url, c)
	queries := []string{"SELECT 1", b.pointSQL()}
	one := func(i int) error {
		tool, args := sqlCall(name, fill(queries[i%2], i))
		_, err := mcpbench.CallTool(ctx, h, tool, args)
		return err
	}
	var errs atomic.Int64
	var firstErr atomic.Value
	workers := func(body func(w int) []float64) [][]float64 {
		lats := make([][]float64, c)
		var wg sync.WaitGroup
		for w := 0; w < c; w++ {
			wg.Add(1)
			go func() { defer wg.Done(); lats[w] = body(w) }()
		}
		wg.Wait()
		return lats
	}
	// The warm-up opens every worker's connection.
	workers(func(w int) []float64 {
		for k := 0; k < 10; k++ {
			if err := one(w*10 + k); err != nil {
				firstErr.CompareAndSwap(nil, err.Error())
			}
		}
		return nil
	})
	if e := firstErr.Load(); e != nil {
		return fmt.Errorf("%s c=%d on %s: warm-up: %v", section, c, name, e)
	}
	c0, self0, t0 := mcpbench.CPU(pid), mcpbench.SelfCPU(), time.Now()
	deadline := t0.Add(b.httpTime)
	lats := workers(func(w int) []float64 {
		var lat []float64
		for i := 1000 + w; time.Now().Before(deadline) && ctx.Err() == nil; i += c {
			t := time.Now()
			if err := one(i); err != nil {
				errs.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
			}
			lat = append(lat, mcpbench.Ms(time.Since(t)))
		}
		return lat
	})
	wall := time.Since(t0).Seconds()
	c1, self1 := mcpbench.CPU(pid), mcpbench.SelfCPU()
	var all []float64
	for _, l := range lats {
		all = append(all, l...)
	}
	n := float64(len(all))
	w := fmt.Sprintf("c%d", c)
	b.emit(section, w, "calls_per_s", name, round, n/wall, map[string]any{"calls": len(all), "errors": errs.Load()})
	b.emit(section, w, "p50_ms", name, round, mcpbench.Quantile(all, 0.5), nil)
	b.emit(section, w, "p99_ms", name, round, mcpbench.Quantile(all, 0.99), nil)
	b.emit(section, w, "cpu_ms_per_call", name, round, (c1-c0)/n, nil)
	b.emit(section, w, "errors", name, round, float64(errs.Load()), nil)
	b.genCPU = append(b.genCPU, (self1-self0)/n*1000)
	if e := firstErr.Load(); e != nil {
		logf("%s c=%d on %s: %d errors, the first: %v", section, c, name, errs.Load(), e)
		b.errors = append(b.errors, fmt.Sprintf("%s c=%d %s round %d: %d errors, the first: %v", section, c, name, round, errs.Load(), e))
	}
	return ctx.Err()
}
