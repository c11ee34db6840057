// Command ab times builds of sqlmcp against each other over stdio, in
// interleaved rounds whose order rotates: the p50 of sequential calls and
// the server's CPU per call (from /proc), as medians over the rounds and
// ratios to the first build. It is for changes too small for the
// side-by-side benchmark's noise: the same database, the same process
// start, one build after another in every round.
//
//	go run ./bench/ab --db URL --sql 'SELECT 1' [--rounds 9] [--calls 1000] BUILD...
//
// {i} in the statement becomes each call's number (--sql 'SELECT {i}'):
// every call then sends a text the server has not judged before.
// A BUILD is a binary, or NAME=VALUE... binary to run it with that
// environment (GOMAXPROCS=1 ./sqlmcp).
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench"
)

func main() {
	db := flag.String("db", "", "the database every build serves (--db of sqlmcp serve)")
	sql := flag.String("sql", "SELECT 1", "the statement run_query runs; {i} becomes the call's number")
	rounds := flag.Int("rounds", 9, "interleaved rounds")
	calls := flag.Int("calls", 1000, "sequential calls per build and round")
	flag.Parse()
	builds := flag.Args()
	if *db == "" || len(builds) == 0 {
		fmt.Fprintln(os.Stderr, "usage: ab --db URL [--sql SQL] [--rounds N] [--calls N] BUILD...")
		os.Exit(2)
	}
	if err := run(*db, *sql, *rounds, *calls, builds); err != nil {
		fmt.Fprintln(os.Stderr, "ab:", err)
		os.Exit(1)
	}
}

type build struct {
	name string
	argv []string
	env  []string
	p50  []float64
	cpu  []float64
}

func run(db, sql string, rounds, calls int, specs []string) error {
	ctx := context.Background()
	var bs []*build
	for _, s := range specs {
		b := &build{name: s}
		for _, f := range strings.Fields(s) {
			if strings.Contains(f, "=") && b.argv == nil {
				b.env = append(b.env, f)
			} else {
				b.argv = append(b.argv, f)
			}
		}
		b.argv = append(b.argv, "serve", "--db", db)
		bs = append(bs, b)
	}
	for r := 0; r < rounds; r++ {
		for k := range bs {
			b := bs[(k+r)%len(bs)]
			s, err := mcpbench.StartStdio(ctx, b.argv, b.env, nil)
			if err != nil {
				return err
			}
			lat, cpu, err := sequential(ctx, s, sql, calls)
			s.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", b.name, err)
			}
			b.p50 = append(b.p50, mcpbench.Quantile(lat, 0.5))
			b.cpu = append(b.cpu, cpu)
		}
	}
	fmt.Printf("%d rounds of %d calls of %q\n", rounds, calls, sql)
	fmt.Printf("%-50s %10s %10s %12s %12s\n", "build", "p50 ms", "cpu ms", "p50 ÷ first", "cpu ÷ first")
	for _, b := range bs {
		fmt.Printf("%-50s %10.4f %10.4f %12s %12s\n", b.name, mcpbench.Median(b.p50), mcpbench.Median(b.cpu),
			ratio(b.p50, bs[0].p50), ratio(b.cpu, bs[0].cpu))
	}
	return nil
}

// sequential makes 50 warming calls, then n timed ones, one at a time;
// {i} in sql becomes each call's number, so every call sends a new text.
func sequential(ctx context.Context, s *mcpbench.Stdio, sql string, n int) (lat []float64, cpu float64, err error) {
	i := 0
	call := func() error {
		i++
		args := mcpbench.CallParams("run_query", map[string]any{"sql": strings.ReplaceAll(sql, "{i}", strconv.Itoa(i))})
		r, err := s.Call(ctx, "tools/call", args)
		if err == nil {
			err = r.ToolError()
		}
		return err
	}
	for i := 0; i < 50; i++ {
		if err := call(); err != nil {
			return nil, 0, err
		}
	}
	c0 := mcpbench.CPU(s.Pid())
	for i := 0; i < n; i++ {
		t := time.Now()
		if err := call(); err != nil {
			return nil, 0, err
		}
		lat = append(lat, mcpbench.Ms(time.Since(t)))
	}
	return lat, (mcpbench.CPU(s.Pid()) - c0) / float64(n), nil
}

// ratio is the median of the per-round ratios of xs to base, and their
// range.
func ratio(xs, base []float64) string {
	rs := make([]float64, len(xs))
	for i := range xs {
		rs[i] = xs[i] / base[i]
		if base[i] == 0 {
			rs[i] = math.NaN()
		}
	}
	lo, hi := mcpbench.Range(rs)
	return fmt.Sprintf("%.3f (%.2f–%.2f)", mcpbench.Median(rs), lo, hi)
}
