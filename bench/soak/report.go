package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench"
)

// explain sorts a failed call into why it failed: an expected outcome,
// a call caught in a restart, or "" for unexplained.
func (s *soak) explain(c call) string {
	timedOut := strings.Contains(c.msg, "timeout") || strings.Contains(c.msg, "time limit") || strings.Contains(c.msg, "took longer")
	switch {
	case c.cancelled && c.kind == "client cancel":
		return "expected: cancelled by the client on purpose"
	case c.runaway && c.kind == "tool error" && timedOut:
		return "expected: a runaway query stopped by --timeout"
	}
	for _, f := range s.faults {
		if f.kind == "restart" && c.start <= f.end+s.grace && c.end >= f.start {
			return "explained: in flight during a restart (its window and " + s.grace.String() + " after)"
		}
	}
	return ""
}

// nearKill says whether a call overlapped a kill or ended within a second
// after one: a hint for the unexplained.
func (s *soak) nearKill(c call) bool {
	for _, f := range s.faults {
		if f.kind == "kill" && c.start <= f.end+time.Second && c.end >= f.start {
			return true
		}
	}
	return false
}

// report is the soak's Markdown report; backends are sqlmcp's right after
// the load, after settle, and after sqlmcp exited.
func (s *soak) report(interrupted bool, after string, backends [3]string, exitErr error, killed bool) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	elapsed := s.since()
	p("## sqlmcp soak, %s\n\n", s.started.UTC().Format("2006-01-02 15:04 MST"))
	host, _ := os.Hostname()
	p("- machine: %s, %d CPUs, %s; %s\n", host, runtime.NumCPU(), runtime.Version(), version(s.sqlmcp))
	p("- command: `%s`\n", command())
	p("- %d clients over HTTP for %v%s; faults %q every %v (restart: pg_ctl stop -m fast, %v down, start); a runaway every %v against --timeout %v; %.0f%% of calls cancelled early by the client\n",
		s.clients, elapsed.Round(time.Second), map[bool]string{true: " (interrupted)", false: ""}[interrupted], s.faultKinds, s.faultEvery, s.outage, s.runawayEvery, s.timeout, 100*s.cancelShare)

	// Calls and latency.
	ok := map[string][]float64{}
	var all []float64
	failed := 0
	for _, c := range s.calls {
		if c.kind == "ok" {
			ms := mcpbench.Ms(c.end - c.start)
			if !c.cancelled && !c.runaway {
				ok[c.tool] = append(ok[c.tool], ms)
				all = append(all, ms)
			}
		} else {
			failed++
		}
	}
	p("\n### Calls\n\n%d calls, %d answered, %d failed; %.0f calls/s.\n\n", len(s.calls), len(s.calls)-failed, failed, float64(len(s.calls))/elapsed.Seconds())
	p("| tool | answered | p50 ms | p99 ms |\n|---|---|---|---|\n")
	p("| all of the mix | %d | %.2f | %.2f |\n", len(all), mcpbench.Quantile(all, 0.5), mcpbench.Quantile(all, 0.99))
	for _, t := range keys(ok) {
		p("| %s | %d | %.2f | %.2f |\n", t, len(ok[t]), mcpbench.Quantile(ok[t], 0.5), mcpbench.Quantile(ok[t], 0.99))
	}

	// Faults.
	p("\n### Faults\n\n")
	if len(s.faults) == 0 {
		p("none\n")
	}
	for _, f := range s.faults {
		switch f.kind {
		case "kill":
			p("- %v: pg_terminate_backend of sqlmcp's %d backends", f.start.Round(time.Millisecond), f.killed)
		default:
			p("- %v–%v: %s", f.start.Round(time.Millisecond), f.end.Round(time.Millisecond), f.kind)
		}
		if f.err != "" {
			p(" (error: %s)", f.err)
		}
		p("\n")
	}

	// Errors by kind.
	type group struct {
		why, kind, msg string
		n, nearKill    int
		tools          map[string]int
	}
	groups := map[string]*group{}
	s.unexplained = 0
	cancelledOK, runawayOK := 0, 0
	for _, c := range s.calls {
		if c.kind == "ok" {
			if c.cancelled {
				cancelledOK++
			}
			if c.runaway {
				runawayOK++
				s.unexplained++ // a runaway must not run to its end
			}
			continue
		}
		why := s.explain(c)
		if why == "" {
			why = "UNEXPLAINED"
			s.unexplained++
		}
		k := why + "\x00" + c.kind + "\x00" + c.msg
		g := groups[k]
		if g == nil {
			g = &group{why: why, kind: c.kind, msg: c.msg, tools: map[string]int{}}
			groups[k] = g
		}
		g.n++
		g.tools[c.tool]++
		if s.nearKill(c) {
			g.nearKill++
		}
	}
	p("\n### Errors by kind\n\n")
	if len(groups) == 0 {
		p("no call failed\n")
	} else {
		gs := make([]*group, 0, len(groups))
		for _, g := range groups {
			gs = append(gs, g)
		}
		sort.Slice(gs, func(i, j int) bool {
			if gs[i].why != gs[j].why {
				return gs[i].why < gs[j].why
			}
			return gs[i].n > gs[j].n
		})
		p("| calls | why | class | message (numbers as N) | tools | of them near a kill |\n|---|---|---|---|---|---|\n")
		for _, g := range gs {
			var ts []string
			for _, t := range keys(g.tools) {
				ts = append(ts, fmt.Sprintf("%s %d", t, g.tools[t]))
			}
			p("| %d | %s | %s | %s | %s | %d |\n", g.n, g.why, g.kind, strings.ReplaceAll(g.msg, "|", "\\|"), strings.Join(ts, ", "), g.nearKill)
		}
	}
	if runawayOK > 0 {
		p("\n%d runaway queries ran to their end: UNEXPLAINED (--timeout should stop them).\n", runawayOK)
	}
	p("\n**Unexplained errors: %d.** (A cancelled call that finished before its cancel: %d, counted as answered.)\n", s.unexplained, cancelledOK)

	// Memory and readiness.
	p("\n### sqlmcp's RSS and /readyz over time\n\n")
	step := max(10*time.Second, (elapsed / 12).Round(10*time.Second))
	p("| from | RSS MiB, min–max | /readyz not 200 |\n|---|---|---|\n")
	for t0 := time.Duration(0); t0 < elapsed; t0 += step {
		lo, hi, down, n := 1<<30, 0, 0, 0
		for _, x := range s.samples {
			if x.at >= t0 && x.at < t0+step && x.rssKB > 0 {
				lo, hi, n = min(lo, x.rssKB), max(hi, x.rssKB), n+1
				if x.ready != 200 {
					down++
				}
			}
		}
		if n > 0 {
			p("| %v | %.1f–%.1f | %d of %d s |\n", t0, float64(lo)/1024, float64(hi)/1024, down, n)
		}
	}
	codes := map[string]int{}
	for _, x := range s.samples {
		c := "no answer"
		if x.ready != 0 {
			c = fmt.Sprint(x.ready)
		}
		codes[c]++
	}
	var cs []string
	for _, c := range keys(codes) {
		cs = append(cs, fmt.Sprintf("%s %d", c, codes[c]))
	}
	p("\n/readyz, once a second: %s.\n", strings.Join(cs, ", "))
	p("\n%s\n", s.rssVerdict())

	p("\n### After the run\n\n")
	p("- the six tools after the last fault, without restarting sqlmcp: %s\n", after)
	p("- sqlmcp's backends right after the load: %s; %v later (its pool should be idle): %s\n", backends[0], settle, backends[1])
	exit := "exited 0 on SIGTERM"
	if exitErr != nil {
		exit = "exited with " + exitErr.Error()
	}
	if killed {
		exit = "did not exit on SIGTERM within 15 s: killed"
	}
	p("- sqlmcp %s; its backends after it exited: %s\n", exit, backends[2])
	p("- sqlmcp's log: %s\n", s.server.Log)
	return b.String()
}

// rssVerdict compares sqlmcp's RSS in the first and the last quarter of
// the run after the warm-up.
func (s *soak) rssVerdict() string {
	var post []sample
	for _, x := range s.samples {
		if x.at >= s.warmup && x.rssKB > 0 {
			post = append(post, x)
		}
	}
	if len(post) < 8 {
		return fmt.Sprintf("RSS: too few samples after the %v warm-up for a verdict.", s.warmup)
	}
	q := len(post) / 4
	med := func(xs []sample) float64 {
		v := make([]float64, len(xs))
		for i, x := range xs {
			v[i] = float64(x.rssKB) / 1024
		}
		return mcpbench.Median(v)
	}
	first, last := med(post[:q]), med(post[len(post)-q:])
	verdict := "flat"
	if last-first > 3 && last > first*1.1 {
		verdict = "GROWING"
	}
	return fmt.Sprintf("RSS after the %v warm-up: median %.1f MiB in its first quarter, %.1f MiB in its last (%+.1f MiB, %+.0f%%): %s.",
		s.warmup, first, last, last-first, 100*(last-first)/first, verdict)
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func version(bin string) string {
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		return "sqlmcp ?"
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

// command is the command line that made the figures: the wrapper's, when
// bench/soak.sh ran this.
func command() string {
	if c := os.Getenv("SQLMCP_SOAK_COMMAND"); c != "" {
		return c
	}
	return strings.Join(os.Args, " ")
}
