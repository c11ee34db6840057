// Command soak drives N clients over HTTP against sqlmcp for M minutes,
// with a mix of the six tools, cancellations and a few runaway queries,
// while it injects faults into a throwaway PostgreSQL cluster it starts
// itself: its connections killed with pg_terminate_backend, and full
// restarts. It reports calls, errors by kind (explained or not), p50/p99,
// sqlmcp's RSS over time and the backends left over, and stops everything
// it started, on Ctrl-C too. bench/soak.sh builds and runs it; see
// bench/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench"
)

type config struct {
	sqlmcp, out, dir, args string
	clients                int
	duration, warmup       time.Duration
	faultEvery, outage     time.Duration
	grace                  time.Duration
	runawayEvery, timeout  time.Duration
	cancelShare            float64
	rows                   int
	faultKinds             string
}

func main() {
	var c config
	flag.StringVar(&c.sqlmcp, "sqlmcp", "", "the sqlmcp binary (required)")
	flag.StringVar(&c.out, "out", "", "folder for sqlmcp's log, soak.jsonl and soak.md (default: a new temporary folder)")
	flag.StringVar(&c.dir, "dir", "", "where the throwaway cluster's folder is made (default: the system's temporary folder)")
	flag.StringVar(&c.args, "args", "", "more flags for sqlmcp serve, space-separated")
	flag.IntVar(&c.clients, "clients", 8, "clients calling at once, each on its own connection")
	flag.DurationVar(&c.duration, "duration", 3*time.Minute, "how long the clients call")
	flag.DurationVar(&c.warmup, "warmup", 30*time.Second, "the first part of the run, left out of the RSS verdict")
	flag.DurationVar(&c.faultEvery, "fault-every", 30*time.Second, "time between faults, which alternate: connections killed, then a restart")
	flag.DurationVar(&c.outage, "outage", 2*time.Second, "how long the cluster stays down in a restart")
	flag.DurationVar(&c.grace, "grace", time.Second, "after a restart, how long a failed call still counts as caught in it")
	flag.DurationVar(&c.runawayEvery, "runaway-every", 20*time.Second, "time between runaway queries, which sqlmcp's --timeout must stop")
	flag.DurationVar(&c.timeout, "timeout", 5*time.Second, "sqlmcp's --timeout")
	flag.Float64Var(&c.cancelShare, "cancel", 0.03, "share of calls the client cancels early (a slow query, abandoned after 20-300 ms)")
	flag.IntVar(&c.rows, "rows", 50000, "customers in the soak's database (twice as many orders)")
	flag.StringVar(&c.faultKinds, "faults", "kill,restart", "faults to inject in turn: kill, restart; none for a soak without faults")
	flag.Parse()
	if c.sqlmcp == "" {
		fmt.Fprintln(os.Stderr, "soak: --sqlmcp is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := &soak{config: c}
	code := 0
	if err := s.run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		code = 1
	}
	s.cleanup()
	if code == 0 && s.unexplained > 0 {
		code = 3
	}
	os.Exit(code)
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "[soak %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
}

type soak struct {
	config
	cluster *mcpbench.Cluster
	server  *mcpbench.Server
	url     string
	started time.Time

	mu      sync.Mutex
	calls   []call
	faults  []fault
	samples []sample

	unexplained int
	stopped     bool
}

// call is one tool call's outcome.
type call struct {
	tool, kind string // kind: "ok", or the error's class
	msg        string
	start, end time.Duration // since the start of the run
	cancelled  bool          // the client cancelled it on purpose
	runaway    bool
}

// fault is one injected fault: a kill at one instant, or a restart over a
// window.
type fault struct {
	kind       string
	start, end time.Duration
	killed     int
	err        string
}

type sample struct {
	at    time.Duration
	rssKB int
	ready int // /readyz status, 0 when it did not answer
}

func (s *soak) since() time.Duration { return time.Since(s.started) }

func (s *soak) run(ctx context.Context) error {
	if s.out == "" {
		d, err := os.MkdirTemp("", "sqlmcp-soak-")
		if err != nil {
			return err
		}
		s.out = d
	}
	if err := os.MkdirAll(s.out, 0o755); err != nil {
		return err
	}
	logf("output in %s; starting a throwaway PostgreSQL cluster", s.out)
	var err error
	if s.cluster, err = mcpbench.NewCluster(s.dir, "max_connections = 40", "log_min_messages = warning"); err != nil {
		return err
	}
	for _, q := range []string{"CREATE ROLE soak_ro LOGIN", "GRANT pg_read_all_data TO soak_ro", "CREATE DATABASE soak"} {
		if err := mcpbench.Exec(ctx, "pg", s.cluster.DSN, q); err != nil {
			return err
		}
	}
	if err := mcpbench.Exec(ctx, "pg", s.cluster.DSNFor("postgres", "soak"), mcpbench.ShopSQL("pg", s.rows)); err != nil {
		return err
	}
	port, err := mcpbench.FreePort()
	if err != nil {
		return err
	}
	argv := []string{s.sqlmcp, "serve", "--db", s.cluster.DSNFor("soak_ro", "soak"), "--http", fmt.Sprintf("127.0.0.1:%d", port),
		"--timeout", s.timeout.String()}
	argv = append(argv, strings.Fields(s.args)...)
	if s.server, err = mcpbench.Spawn(argv, nil, filepath.Join(s.out, "sqlmcp.log")); err != nil {
		return err
	}
	s.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := s.server.WaitReady(ctx, mcpbench.NewHTTP(s.url+"/mcp", 1), 60*time.Second); err != nil {
		return err
	}
	logf("sqlmcp pid %d at %s/mcp; %d clients for %v, faults %q every %v", s.server.Pid(), s.url, s.clients, s.duration, s.faultKinds, s.faultEvery)

	s.started = time.Now()
	lctx, cancel := context.WithTimeout(ctx, s.duration)
	defer cancel()
	var wg sync.WaitGroup
	run := func(f func(context.Context)) { wg.Add(1); go func() { defer wg.Done(); f(lctx) }() }
	run(s.sampler)
	run(s.injector)
	run(func(lctx context.Context) { s.runaways(lctx, ctx) })
	for i := 0; i < s.clients; i++ {
		run(func(ctx context.Context) { s.client(ctx, i) })
	}
	wg.Wait()
	interrupted := ctx.Err() != nil
	logf("load done; checking what is left")

	after := ""
	if !interrupted {
		after = s.afterCheck(ctx)
	}
	idle := s.backends(ctx)
	if !interrupted {
		time.Sleep(settle)
	}
	settled := s.backends(ctx)
	exitErr, killed := s.server.Stop(15 * time.Second)
	s.stopped = true
	gone := s.backends(ctx)
	report := s.report(interrupted, after, [3]string{idle, settled, gone}, exitErr, killed)
	fmt.Print(report)
	return os.WriteFile(filepath.Join(s.out, "soak.md"), []byte(report), 0o644)
}

// settle is how long the backends get to become idle after the load.
const settle = 5 * time.Second

// cleanup stops sqlmcp and removes the cluster, whatever happened.
func (s *soak) cleanup() {
	if s.server != nil && !s.stopped {
		s.server.Stop(5 * time.Second)
	}
	if s.cluster != nil {
		s.cluster.Remove()
	}
}

// op is a kind of call in the mix, drawn with its weight.
type op struct {
	tool   string
	args   func() map[string]any
	weight int
}

func fixed(args map[string]any) func() map[string]any { return func() map[string]any { return args } }

// mix is the six tools' calls, a point lookup the most common.
func (s *soak) mix() []op {
	point := func() map[string]any {
		return map[string]any{"sql": fmt.Sprintf("SELECT * FROM customers WHERE id = %d", 1+rand.IntN(s.rows))}
	}
	return []op{
		{"run_query", point, 35},
		{"run_query", fixed(map[string]any{"sql": "SELECT 1"}), 10},
		{"run_query", fixed(map[string]any{"sql": "SELECT status, count(*), sum(total) FROM orders GROUP BY status ORDER BY status"}), 8},
		{"list_tables", fixed(map[string]any{}), 10},
		{"describe_table", fixed(map[string]any{"table": "orders"}), 10},
		{"search_schema", fixed(map[string]any{"query": "customer status"}), 10},
		{"sample_values", fixed(map[string]any{"table": "customers", "column": "city"}), 8},
		{"distinct_values", fixed(map[string]any{"table": "orders", "column": "status"}), 9},
	}
}

// cancelSQL takes about a second; the client abandons it early.
const cancelSQL = "SELECT count(*) FROM generate_series(1, 3000) AS a, generate_series(1, 3000) AS b"

// runawaySQL would run for minutes; sqlmcp's --timeout stops it.
const runawaySQL = "SELECT count(*) FROM generate_series(1, 100000) AS a, generate_series(1, 100000) AS b"

func (s *soak) client(ctx context.Context, id int) {
	h := mcpbench.NewHTTP(s.url+"/mcp", 1)
	ops := s.mix()
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	for ctx.Err() == nil {
		if rand.Float64() < s.cancelShare {
			d := time.Duration(20+rand.IntN(280)) * time.Millisecond
			cctx, cancel := context.WithTimeout(ctx, d)
			s.do(ctx, cctx, h, "run_query", map[string]any{"sql": cancelSQL}, true, false)
			cancel()
			continue
		}
		k := rand.IntN(total)
		for _, o := range ops {
			if k -= o.weight; k < 0 {
				s.do(ctx, ctx, h, o.tool, o.args(), false, false)
				break
			}
		}
	}
}

// runaways sends a runaway query every --runaway-every until ctx ends; it
// is left to finish (sqlmcp's --timeout stops it) unless outer ends too.
func (s *soak) runaways(ctx, outer context.Context) {
	h := mcpbench.NewHTTP(s.url+"/mcp", 1)
	t := time.NewTicker(s.runawayEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.do(outer, outer, h, "run_query", map[string]any{"sql": runawaySQL}, false, true)
		}
	}
}

// do makes one call under ctx and records it, unless it failed because
// run ended (the end of the load, or Ctrl-C).
func (s *soak) do(run, ctx context.Context, h *mcpbench.HTTP, tool string, args map[string]any, cancelled, runaway bool) {
	start := s.since()
	cctx, cancel := context.WithTimeout(ctx, s.timeout+30*time.Second)
	_, err := mcpbench.CallTool(cctx, h, tool, args)
	cancel()
	c := call{tool: tool, kind: "ok", start: start, end: s.since(), cancelled: cancelled, runaway: runaway}
	if err != nil {
		if run.Err() != nil {
			return
		}
		c.kind, c.msg = classify(err)
	}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

var digits = regexp.MustCompile(`[0-9]+`)

// classify names an error's class and its message, numbers folded.
func classify(err error) (kind, msg string) {
	msg = digits.ReplaceAllString(err.Error(), "N")
	if len(msg) > 160 {
		msg = msg[:160] + "…"
	}
	switch {
	case mcpbench.IsToolError(err):
		return "tool error", msg
	case strings.Contains(msg, "context deadline exceeded") || strings.Contains(msg, "context canceled"):
		return "client cancel", msg
	case strings.HasPrefix(msg, "HTTP "):
		return "HTTP status", msg
	case strings.HasPrefix(msg, "JSON-RPC"):
		return "JSON-RPC error", msg
	}
	return "transport", msg
}

func (s *soak) sampler(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	cl := &http.Client{Timeout: 2 * time.Second}
	for {
		smp := sample{at: s.since(), rssKB: mcpbench.RSS(s.server.Pid())}
		if resp, err := cl.Get(s.url + "/readyz"); err == nil {
			smp.ready = resp.StatusCode
			resp.Body.Close()
		}
		s.mu.Lock()
		s.samples = append(s.samples, smp)
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *soak) injector(ctx context.Context) {
	kinds := strings.Split(s.faultKinds, ",")
	if s.faultKinds == "none" || s.faultKinds == "" {
		return
	}
	t := time.NewTicker(s.faultEvery)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f := fault{kind: strings.TrimSpace(kinds[i%len(kinds)]), start: s.since()}
		switch f.kind {
		case "kill":
			n, err := s.kill(ctx)
			f.killed = n
			if err != nil {
				f.err = err.Error()
			}
		case "restart":
			// Runs to the end even if the run stops meanwhile: the cluster
			// is left up, as the cleanup expects.
			if err := s.cluster.Stop("fast"); err != nil {
				f.err = err.Error()
			}
			time.Sleep(s.outage)
			if err := s.cluster.Start(); err != nil {
				f.err += " " + err.Error()
			}
		default:
			f.err = "unknown fault " + f.kind
		}
		f.end = s.since()
		logf("fault %s at %v (%v): killed %d %s", f.kind, f.start.Round(time.Second), (f.end - f.start).Round(time.Millisecond), f.killed, f.err)
		s.mu.Lock()
		s.faults = append(s.faults, f)
		s.mu.Unlock()
	}
}

// kill ends every backend of sqlmcp's (application_name sqlmcp).
func (s *soak) kill(ctx context.Context) (int, error) {
	var n int
	err := s.admin(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		return conn.QueryRow(ctx, "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'sqlmcp'").Scan(&n)
	})
	return n, err
}

// admin runs f on a connection of its own as the superuser, within 10 s,
// even after ctx ended (the checks at the end of an interrupted run).
func (s *soak) admin(ctx context.Context, f func(context.Context, *pgx.Conn) error) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, s.cluster.DSN)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return f(cctx, conn)
}

// backends describes sqlmcp's backends by state, e.g. "3 idle, 1 active
// (SELECT count(*) ...)".
func (s *soak) backends(ctx context.Context) string {
	var out []string
	err := s.admin(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, `SELECT coalesce(state, '?'), count(*), coalesce(string_agg(CASE WHEN state <> 'idle' THEN regexp_replace(left(query, 60), '\s+', ' ', 'g') END, '; '), '')
			FROM pg_stat_activity WHERE application_name = 'sqlmcp' GROUP BY 1 ORDER BY 1`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var state, queries string
			var n int
			if err := rows.Scan(&state, &n, &queries); err != nil {
				return err
			}
			e := fmt.Sprintf("%d %s", n, state)
			if queries != "" {
				e += " (" + queries + ")"
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return "unknown: " + err.Error()
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// afterCheck calls each of the six tools once after the run: all must
// answer without sqlmcp having been restarted.
func (s *soak) afterCheck(ctx context.Context) string {
	h := mcpbench.NewHTTP(s.url+"/mcp", 1)
	var failed []string
	seen := map[string]bool{}
	for _, o := range s.mix() {
		if seen[o.tool] {
			continue
		}
		seen[o.tool] = true
		cctx, cancel := context.WithTimeout(ctx, s.timeout+5*time.Second)
		if _, err := mcpbench.CallTool(cctx, h, o.tool, o.args()); err != nil {
			failed = append(failed, o.tool+": "+err.Error())
		}
		cancel()
	}
	if len(failed) == 0 {
		return fmt.Sprintf("all %d tools answer", len(seen))
	}
	return "FAILED: " + strings.Join(failed, "; ")
}
