package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench"
)

type key struct{ section, workload, metric string }

// results holds, per measure and server, one value per round (NaN when
// missing).
type results map[key]map[string][]float64

func (r results) add(k key, server string, round, rounds int, v float64) {
	m := r[k]
	if m == nil {
		m = map[string][]float64{}
		r[k] = m
	}
	s := m[server]
	if s == nil {
		s = make([]float64, rounds)
		for i := range s {
			s[i] = math.NaN()
		}
		m[server] = s
	}
	s[round-1] = v
}

// row is a line of the ratio table: sqlmcp's value over the best peer's
// in each round (the lowest, or the highest when higher is better).
type row struct {
	label  string
	k      key
	higher bool
	goal   string  // "<", "<=" or ">=" and the bound, on the median ratio; "" for none
	bound  float64 // the goal's bound
	peers  []string
}

// ratios are sqlmcp's per-round ratios to the best peer of the row.
func (b *bench) ratios(rw row) []float64 {
	m := b.res[rw.k]
	var out []float64
	for i := 0; i < b.rounds; i++ {
		best := math.NaN()
		for _, p := range rw.peers {
			v := at(m[p], i)
			if math.IsNaN(v) || v <= 0 {
				continue
			}
			if math.IsNaN(best) || (rw.higher && v > best) || (!rw.higher && v < best) {
				best = v
			}
		}
		out = append(out, at(m[sqlmcp], i)/best)
	}
	return out
}

func at(xs []float64, i int) float64 {
	if i >= len(xs) {
		return math.NaN()
	}
	return xs[i]
}

func met(goal string, bound, v float64) string {
	if goal == "" || math.IsNaN(v) {
		return ""
	}
	ok := map[string]bool{"<": v < bound, "<=": v <= bound, ">=": v >= bound}[goal]
	if ok {
		return "yes"
	}
	return "**no**"
}

func num(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "–"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func ratioCell(xs []float64) string {
	m := mcpbench.Median(xs)
	if math.IsNaN(m) {
		return "–"
	}
	lo, hi := mcpbench.Range(xs)
	return fmt.Sprintf("%s× (%s–%s)", num(m), num(lo), num(hi))
}

var engineName = map[string]string{"sqlite": "SQLite", "pg": "PostgreSQL", "mysql": "MariaDB"}

func (b *bench) rows() []row {
	var rows []row
	for _, e := range b.engines {
		E, ps := engineName[e], peers(e)[1:]
		st := "stdio-" + e
		if b.sections["stdio"] {
			rows = append(rows,
				row{"stdio " + E + ": SELECT 1, p50 ms", key{st, "select1", "p50_ms"}, false, "<", 1, ps},
				row{"stdio " + E + ": SELECT 1, ms above the floor", key{st, "select1", "overhead_ms"}, false, "<=", 0.5, ps},
				row{"stdio " + E + ": SELECT 1, server CPU ms/call", key{st, "select1", "cpu_ms_per_call"}, false, "<=", 0.5, ps},
				row{"stdio " + E + ": point lookup, p50 ms", key{st, "point", "p50_ms"}, false, "<", 1, ps},
				row{"stdio " + E + ": point lookup, ms above the floor", key{st, "point", "overhead_ms"}, false, "<=", 0.5, ps},
				row{"stdio " + E + ": point lookup, server CPU ms/call", key{st, "point", "cpu_ms_per_call"}, false, "", 0, ps},
				row{"stdio " + E + ": 8 in flight on one pipe, calls/s", key{st, "pipe8", "calls_per_s"}, true, "", 0, ps},
				row{"stdio " + E + ": 8 in flight, server CPU ms/call", key{st, "pipe8", "cpu_ms_per_call"}, false, "", 0, ps},
				row{"stdio " + E + ": describe customers, p50 ms", key{st, "describe_customers", "p50_ms"}, false, "", 0, ps},
				// As issue 13 measured them: beside DBHub.
				row{"stdio " + E + ": start to first tools/list, ms (÷ DBHub)", key{st, "startup", "to_first_list_ms"}, false, "<=", 0.1, []string{dbhub}},
				row{"stdio " + E + ": RSS after start, MiB (÷ DBHub)", key{st, "startup", "rss_mib"}, false, "<=", 0.35, []string{dbhub}},
			)
		}
		if b.sections["http"] {
			for _, c := range []string{"c8", "c32"} {
				h := "http-" + e
				rows = append(rows,
					row{"HTTP " + E + " " + c + ": calls/s", key{h, c, "calls_per_s"}, true, ">=", 3, []string{dbhub}},
					row{"HTTP " + E + " " + c + ": server CPU ms/call", key{h, c, "cpu_ms_per_call"}, false, "<=", 0.33, []string{dbhub}},
					row{"HTTP " + E + " " + c + ": p99 ms", key{h, c, "p99_ms"}, false, "<=", 1, []string{dbhub}},
					row{"HTTP " + E + " " + c + ": p50 ms", key{h, c, "p50_ms"}, false, "", 0, []string{dbhub}},
				)
			}
		}
		if b.sections["schema"] {
			for _, n := range b.scales {
				for _, w := range schemaWorkloads {
					rows = append(rows, row{fmt.Sprintf("%s, %d tables: %s p50 ms", E, n, w), key{fmt.Sprintf("schema-%s-%d", e, n), w, "p50_ms"}, false, "", 0, ps})
				}
			}
		}
	}
	return rows
}

// own are sqlmcp's own targets: absolute, or between its own figures.
func (b *bench) own() [][4]string {
	var out [][4]string
	add := func(label string, xs []float64, goal string, bound float64) {
		m := mcpbench.Median(xs)
		lo, hi := mcpbench.Range(xs)
		g := ""
		if goal != "" {
			g = goal + " " + num(bound)
		}
		out = append(out, [4]string{label, fmt.Sprintf("%s (%s–%s)", num(m), num(lo), num(hi)), g, met(goal, bound, m)})
	}
	for _, e := range b.engines {
		E := engineName[e]
		if b.sections["stdio"] {
			add("tools/list result, bytes ("+E+")", b.res[key{"stdio-" + e, "startup", "tools_list_bytes"}][sqlmcp], "<", 6144)
			add("describe_table on customers ("+fmt.Sprint(b.customers)+" rows), p50 ms ("+E+")", b.res[key{"stdio-" + e, "describe_customers", "p50_ms"}][sqlmcp], "<", 1)
		}
		if !b.sections["schema"] || len(b.scales) < 2 {
			continue
		}
		lo, hi := b.scales[0], b.scales[len(b.scales)-1]
		sec := func(n int) string { return fmt.Sprintf("schema-%s-%d", e, n) }
		add(fmt.Sprintf("list_tables at %d tables, p50 ms (%s)", hi, E), b.res[key{sec(hi), "list_tables", "p50_ms"}][sqlmcp], "<", 20)
		add(fmt.Sprintf("list_tables at %d tables, reply KiB (%s)", hi, E), b.res[key{sec(hi), "list_tables", "reply_kib"}][sqlmcp], "", 0)
		for _, w := range []string{"describe_table", "search_schema"} {
			a, z := b.res[key{sec(lo), w, "p50_ms"}][sqlmcp], b.res[key{sec(hi), w, "p50_ms"}][sqlmcp]
			var xs []float64
			for i := range z {
				xs = append(xs, at(z, i)/at(a, i))
			}
			add(fmt.Sprintf("%s p50, %d ÷ %d tables (%s)", w, hi, lo, E), xs, "<=", 2)
		}
	}
	return out
}

func (b *bench) report() string {
	var s strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&s, format, a...) }
	p("## sqlmcp beside its peers, %s\n\n", b.started.UTC().Format("2006-01-02 15:04 MST"))
	p("- machine: %s\n", machine())
	p("- command: `%s`\n", command())
	p("- %s; %s; Node %s; %d rounds, server order rotated each round; load average at start %s, at the end %s; %s\n",
		firstLine(b.sqlmcp, "version"), peerVersions(b.nodeModules), firstLine(b.node, "--version"), b.rounds, b.loadStart, loadavg(), time.Since(b.started).Round(time.Second))
	if b.maria != nil {
		// "/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu ..."
		v := "?"
		if _, after, ok := strings.Cut(firstLine(b.maria.Bin, "--version"), " Ver "); ok {
			v, _, _ = strings.Cut(after, " ")
		}
		p("- MySQL profile: MariaDB %s, a throwaway server (32 MiB buffer pool); sqlmcp as an account granted SELECT and SHOW VIEW on the database, DBHub (its MySQL connector, mysql2) as root\n", v)
	}
	if len(b.genCPU) > 0 {
		lo, hi := mcpbench.Range(b.genCPU)
		p("- the Go load generator used %.0f ms of CPU per 1,000 HTTP calls (median of the blocks; %.0f–%.0f)\n", mcpbench.Median(b.genCPU), lo, hi)
	}
	if len(b.errors) == 0 {
		p("- no call failed\n")
	} else {
		p("- calls failed: %s\n", strings.Join(b.errors, "; "))
	}
	p("\nValues are medians over the rounds; the ratio is sqlmcp's value over the best peer's in the same round: its median and range across rounds. ")
	p("Goals are issue 13's (start-up and memory: must not regress; the bounds are this table's).\n\n")
	p("Schema rows: a server whose call still takes over a second when warm (or over five seconds cold) is measured by that one call, in the first round only.\n\n")
	p("| measure | sqlmcp | DBHub | server-postgres | Go driver floor | sqlmcp ÷ best peer | goal | met |\n")
	p("|---|---|---|---|---|---|---|---|\n")
	for _, rw := range b.rows() {
		m := b.res[rw.k]
		if m == nil {
			continue
		}
		rs := b.ratios(rw)
		goal := ""
		if rw.goal != "" {
			goal = rw.goal + " " + num(rw.bound)
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", rw.label, num(mcpbench.Median(m[sqlmcp])), num(mcpbench.Median(m[dbhub])),
			num(mcpbench.Median(m[spg])), num(mcpbench.Median(m[floor])), ratioCell(rs), goal, met(rw.goal, rw.bound, mcpbench.Median(rs)))
	}
	if own := b.own(); len(own) > 0 {
		p("\n| sqlmcp alone | median (range) | goal | met |\n|---|---|---|---|\n")
		for _, o := range own {
			p("| %s | %s | %s | %s |\n", o[0], o[1], o[2], o[3])
		}
	}
	p("\nRaw figures: %s\n", filepath.Join(b.out, "perf.jsonl"))
	return s.String()
}

func machine() string {
	model := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				model = strings.TrimSpace(l[strings.Index(l, ":")+1:])
				break
			}
		}
	}
	host, _ := os.Hostname()
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		fmt.Sscanf(strings.SplitN(string(b), "\n", 2)[0], "MemTotal: %d kB", &kb)
		mem = fmt.Sprintf(", %.0f GiB", float64(kb)/(1<<20))
	}
	return fmt.Sprintf("%s, %d × %s%s, %s/%s, %s", host, runtime.NumCPU(), model, mem, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// command is the command line that made the figures: the wrapper's, when
// bench/perf.sh ran this.
func command() string {
	if c := os.Getenv("SQLMCP_PERF_COMMAND"); c != "" {
		return c
	}
	return strings.Join(os.Args, " ")
}

func firstLine(bin string, args ...string) string {
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

func peerVersions(nodeModules string) string {
	var out []string
	for _, p := range []string{"@bytebase/dbhub", "@modelcontextprotocol/server-postgres"} {
		v := "?"
		if b, err := os.ReadFile(filepath.Join(nodeModules, p, "package.json")); err == nil {
			if i := strings.Index(string(b), `"version"`); i >= 0 {
				f := strings.Split(string(b[i:]), `"`)
				if len(f) > 3 {
					v = f[3]
				}
			}
		}
		out = append(out, p+" "+v)
	}
	return strings.Join(out, ", ")
}
