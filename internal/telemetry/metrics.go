package telemetry

import (
	"bufio"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sqlmcp/sqlmcp/sources"
	"github.com/sqlmcp/sqlmcp/tools"
)

// durationBuckets are the latency histogram's upper bounds, in seconds:
// from a cached catalog read to a query near the default timeout.
var durationBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// metrics counts tool calls for /metrics, in Prometheus's text format. It
// keeps a series per combination of fixed label values it has seen (tool
// names, configured database names, verdicts), so the series stay few.
type metrics struct {
	set     *sources.Set // for the databases' gauges; nil for none
	version string

	active atomic.Int64
	calls  sync.Map // callKey → *callSeries
	hists  sync.Map // tool name → *histogram
}

// callKey names one series of calls.
type callKey struct{ tool, database, verdict string }

// callSeries is the calls of one callKey, and the rows and bytes they
// returned.
type callSeries struct{ calls, rows, bytes atomic.Uint64 }

// histogram is one tool's latencies: a count per bucket (not cumulative:
// the scrape adds them up), the calls past the last bucket, and the sum.
type histogram struct {
	buckets [16]atomic.Uint64 // len(durationBuckets) + 1 for +Inf
	sumBits atomic.Uint64     // float64 seconds
}

func (h *histogram) observe(seconds float64) {
	i, _ := slices.BinarySearch(durationBuckets, seconds)
	h.buckets[i].Add(1)
	for {
		old := h.sumBits.Load()
		if h.sumBits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+seconds)) {
			return
		}
	}
}

func (m *metrics) started() { m.active.Add(1) }

func (m *metrics) ended(c tools.Call) {
	m.active.Add(-1)
	k := callKey{c.Tool, c.Database, c.Verdict}
	v, ok := m.calls.Load(k)
	if !ok {
		v, _ = m.calls.LoadOrStore(k, &callSeries{})
	}
	s := v.(*callSeries)
	s.calls.Add(1)
	s.rows.Add(uint64(max(c.Rows, 0)))
	s.bytes.Add(uint64(max(c.Bytes, 0)))
	h, ok := m.hists.Load(c.Tool)
	if !ok {
		h, _ = m.hists.LoadOrStore(c.Tool, &histogram{})
	}
	h.(*histogram).observe(c.Duration.Seconds())
}

// ServeHTTP writes the metrics in Prometheus's text exposition format.
func (m *metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	b := bufio.NewWriter(w)
	m.write(b)
	b.Flush()
}

// write writes every metric, series sorted, so a scrape reads the same
// way twice.
func (m *metrics) write(w *bufio.Writer) {
	type call struct {
		callKey
		calls, rows, bytes uint64
	}
	var calls []call
	m.calls.Range(func(k, v any) bool {
		s := v.(*callSeries)
		calls = append(calls, call{k.(callKey), s.calls.Load(), s.rows.Load(), s.bytes.Load()})
		return true
	})
	slices.SortFunc(calls, func(a, b call) int {
		return strings.Compare(a.tool+"\x00"+a.database+"\x00"+a.verdict, b.tool+"\x00"+b.database+"\x00"+b.verdict)
	})
	// Rows and bytes by tool and database: the verdicts summed.
	type sum struct{ tool, database string }
	var sums []sum
	rows, bytes := map[sum]uint64{}, map[sum]uint64{}
	for _, c := range calls {
		k := sum{c.tool, c.database}
		if _, ok := rows[k]; !ok {
			sums = append(sums, k)
		}
		rows[k] += c.rows
		bytes[k] += c.bytes
	}

	header(w, "sqlmcp_build_info", "gauge", "The sqlmcp build serving: always 1.")
	series(w, "sqlmcp_build_info", []string{"version", m.version}, 1)

	header(w, "sqlmcp_tool_calls_total", "counter", "Tool calls ended, by tool, database and verdict (ok, refused, timeout, not_stopped, cancelled, busy, unavailable, error).")
	for _, c := range calls {
		series(w, "sqlmcp_tool_calls_total", []string{"tool", c.tool, "database", c.database, "verdict", c.verdict}, float64(c.calls))
	}
	header(w, "sqlmcp_tool_rows_total", "counter", "Rows (or tables, columns, values) the tool calls returned, by tool and database.")
	for _, k := range sums {
		series(w, "sqlmcp_tool_rows_total", []string{"tool", k.tool, "database", k.database}, float64(rows[k]))
	}
	header(w, "sqlmcp_tool_result_bytes_total", "counter", "Bytes of results the tool calls returned to the model, text and structured content, by tool and database.")
	for _, k := range sums {
		series(w, "sqlmcp_tool_result_bytes_total", []string{"tool", k.tool, "database", k.database}, float64(bytes[k]))
	}

	header(w, "sqlmcp_tool_call_duration_seconds", "histogram", "How long tool calls took, waiting for a turn included, by tool.")
	var names []string
	m.hists.Range(func(k, _ any) bool { names = append(names, k.(string)); return true })
	slices.Sort(names)
	for _, name := range names {
		v, _ := m.hists.Load(name)
		h := v.(*histogram)
		var n uint64
		for i, le := range durationBuckets {
			n += h.buckets[i].Load()
			series(w, "sqlmcp_tool_call_duration_seconds_bucket", []string{"tool", name, "le", strconv.FormatFloat(le, 'g', -1, 64)}, float64(n))
		}
		n += h.buckets[len(durationBuckets)].Load()
		series(w, "sqlmcp_tool_call_duration_seconds_bucket", []string{"tool", name, "le", "+Inf"}, float64(n))
		series(w, "sqlmcp_tool_call_duration_seconds_sum", []string{"tool", name}, math.Float64frombits(h.sumBits.Load()))
		series(w, "sqlmcp_tool_call_duration_seconds_count", []string{"tool", name}, float64(n))
	}

	header(w, "sqlmcp_tool_calls_active", "gauge", "Tool calls running now, waiting for a turn included.")
	series(w, "sqlmcp_tool_calls_active", nil, float64(m.active.Load()))

	if m.set == nil {
		return
	}
	type pool struct {
		name     string
		open     bool
		left     int
		use      [3]int // open, in use, max
		has      bool
		restarts map[string]uint64
	}
	var dbs []pool
	for _, src := range m.set.Sources() {
		p := pool{name: src.Config.Name}
		if db := src.DB(); db != nil {
			p.open = true
			p.left, _ = db.LeftRunning()
			if s, ok := db.PoolStats(); ok {
				p.use, p.has = [3]int{s.Open, s.InUse, s.Max}, true
			}
			p.restarts, _ = db.Restarts()
		}
		dbs = append(dbs, p)
	}
	header(w, "sqlmcp_database_open", "gauge", "Whether the database is open now (1) or not opened yet or failed (0).")
	for _, p := range dbs {
		series(w, "sqlmcp_database_open", []string{"database", p.name}, b2f(p.open))
	}
	header(w, "sqlmcp_statements_left_running", "gauge", "Statements sqlmcp gave up on that the database may still be running (PostgreSQL, MySQL), by database.")
	for _, p := range dbs {
		if p.open {
			series(w, "sqlmcp_statements_left_running", []string{"database", p.name}, float64(p.left))
		}
	}
	header(w, "sqlmcp_engine_restarts_total", "counter", "Engine processes sqlmcp replaced after they ended while serving (DuckDB's worker), by database and reason: timeout, memory, ended.")
	for _, p := range dbs {
		for _, reason := range []string{"timeout", "memory", "ended"} {
			if p.restarts != nil {
				series(w, "sqlmcp_engine_restarts_total", []string{"database", p.name, "reason", reason}, float64(p.restarts[reason]))
			}
		}
	}
	header(w, "sqlmcp_pool_connections", "gauge", "Connections of the database's pool, by state: open (idle or held) and in_use (PostgreSQL, MySQL).")
	for _, p := range dbs {
		if p.has {
			series(w, "sqlmcp_pool_connections", []string{"database", p.name, "state", "open"}, float64(p.use[0]))
			series(w, "sqlmcp_pool_connections", []string{"database", p.name, "state", "in_use"}, float64(p.use[1]))
		}
	}
	header(w, "sqlmcp_pool_max_connections", "gauge", "The most connections the database's pool opens (PostgreSQL, MySQL).")
	for _, p := range dbs {
		if p.has {
			series(w, "sqlmcp_pool_max_connections", []string{"database", p.name}, float64(p.use[2]))
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// header writes a metric's HELP and TYPE lines.
func header(w *bufio.Writer, name, typ, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, escapeHelp(help), name, typ)
}

// series writes one sample: name{label="value",...} value. labels
// alternate names and values.
func series(w *bufio.Writer, name string, labels []string, v float64) {
	w.WriteString(name)
	if len(labels) > 0 {
		w.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(labels[i])
			w.WriteString(`="`)
			w.WriteString(escapeLabel(labels[i+1]))
			w.WriteByte('"')
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatValue(v))
	w.WriteByte('\n')
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }

// formatValue writes a sample value as the text format reads it.
func formatValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
