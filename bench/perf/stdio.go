package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	_ "github.com/mattn/go-sqlite3" // the driver sqlmcp uses: the SQLite floor
	"github.com/sqlmcp/sqlmcp/bench/internal/mcpbench"
)

// op is one call of a workload on one server; i numbers the calls.
type op func(ctx context.Context, i int) (mcpbench.Reply, error)

func fill(sql string, i int) string { return strings.ReplaceAll(sql, "{i}", strconv.Itoa(i)) }

func (b *bench) pointSQL() string {
	return fmt.Sprintf("SELECT * FROM customers WHERE id = 1 + ({i} * 7919) %% %d", b.customers)
}

func sqlOp(c mcpbench.Caller, name, sql string) op {
	return func(ctx context.Context, i int) (mcpbench.Reply, error) {
		tool, args := sqlCall(name, fill(sql, i))
		return mcpbench.CallTool(ctx, c, tool, args)
	}
}

// stdio is the stdio section on one engine: SELECT 1 and a point lookup
// (p50, overhead above the floor, server CPU per call), eight calls in
// flight on one pipe, describe_table on the shop's biggest table, and a
// cold start (start-up time, tools/list size, RSS).
func (b *bench) stdio(ctx context.Context, engine string) error {
	db, err := b.database(ctx, engine, "shop")
	if err != nil {
		return err
	}
	section := "stdio-" + engine
	names := peers(engine)
	clients := map[string]*mcpbench.Stdio{}
	for _, n := range names {
		s, stop, err := b.start(ctx, n, engine, db, section+"-"+n)
		if err != nil {
			return err
		}
		defer stop()
		clients[n] = s
	}
	fl, err := openFloor(ctx, engine, b.floorDSN(engine, db))
	if err != nil {
		return err
	}
	defer fl.close()
	describe := map[string]op{}
	for _, n := range names {
		if describe[n], err = schemaOp(ctx, clients[n], n, engine, db, "describe_table", "customers"); err != nil {
			return err
		}
	}
	queries := []struct{ workload, sql string }{{"select1", "SELECT 1"}, {"point", b.pointSQL()}}
	for r := 1; r <= b.rounds; r++ {
		logf("%s round %d/%d", section, r, b.rounds)
		for _, q := range queries {
			p50 := map[string]float64{}
			for _, n := range rotate(append(append([]string{}, names...), floor), r-1) {
				call, pid := fl.op(q.sql), 0
				if n != floor {
					call, pid = sqlOp(clients[n], n, q.sql), clients[n].Pid()
				}
				lat, cpu, _, err := sequential(ctx, call, pid, 20, b.stdioCalls)
				if err != nil {
					return fmt.Errorf("%s %s on %s: %w", section, q.workload, n, err)
				}
				p50[n] = mcpbench.Quantile(lat, 0.5)
				b.emit(section, q.workload, "p50_ms", n, r, p50[n], map[string]any{"p99_ms": mcpbench.Quantile(lat, 0.99)})
				if n != floor {
					b.emit(section, q.workload, "cpu_ms_per_call", n, r, cpu, nil)
				}
			}
			for _, n := range names {
				b.emit(section, q.workload, "overhead_ms", n, r, p50[n]-p50[floor], nil)
			}
		}
		for _, n := range rotate(names, r-1) {
			cps, cpu, err := inFlight(ctx, sqlOp(clients[n], n, "SELECT 1"), clients[n].Pid(), 8, b.pipeCalls)
			if err != nil {
				return fmt.Errorf("%s eight in flight on %s: %w", section, n, err)
			}
			b.emit(section, "pipe8", "calls_per_s", n, r, cps, nil)
			b.emit(section, "pipe8", "cpu_ms_per_call", n, r, cpu, nil)
		}
		for _, n := range rotate(names, r-1) {
			lat, _, _, err := sequential(ctx, describe[n], 0, 3, b.schemaCalls)
			if err != nil {
				return fmt.Errorf("%s describe customers on %s: %w", section, n, err)
			}
			b.emit(section, "describe_customers", "p50_ms", n, r, mcpbench.Quantile(lat, 0.5), nil)
		}
		for _, n := range rotate(names, r-1) {
			if err := b.coldStart(ctx, section, n, engine, db, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// coldStart starts server name once: spawn to the end of the first
// tools/list, the tools/list result's size, and the RSS right after.
func (b *bench) coldStart(ctx context.Context, section, name, engine, db string, round int) error {
	t0 := time.Now()
	s, stop, err := b.start(ctx, name, engine, db, section+"-"+name+"-cold")
	if err != nil {
		return err
	}
	defer stop()
	rep, err := s.Call(ctx, "tools/list", map[string]any{})
	ms := mcpbench.Ms(time.Since(t0))
	if err == nil && rep.Error != nil {
		err = rep.Error
	}
	if err != nil {
		return fmt.Errorf("%s tools/list on %s: %w", section, name, err)
	}
	size, rss := len(rep.Result), mcpbench.RSS(s.Pid())
	b.emit(section, "startup", "to_first_list_ms", name, round, ms, nil)
	b.emit(section, "startup", "tools_list_bytes", name, round, float64(size), nil)
	b.emit(section, "startup", "rss_mib", name, round, float64(rss)/1024, nil)
	return nil
}

// inFlight makes n calls with k in flight at once (after a warm-up) and
// returns calls/s and the server's CPU per call.
func inFlight(ctx context.Context, call op, pid, k, n int) (cps, cpu float64, err error) {
	for i := 0; i < 2*k; i++ {
		if _, err := call(ctx, i); err != nil {
			return 0, 0, err
		}
	}
	c0, t0 := cpuOf(pid), time.Now()
	var wg sync.WaitGroup
	errs := make([]error, k)
	for w := 0; w < k; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n && errs[w] == nil; i += k {
				_, errs[w] = call(ctx, 1000+i)
			}
		}()
	}
	wg.Wait()
	wall := time.Since(t0).Seconds()
	for _, e := range errs {
		if e != nil {
			return 0, 0, e
		}
	}
	return float64(n) / wall, (cpuOf(pid) - c0) / float64(n), nil
}

// schemaOp is workload (describe_table, list_tables, search_schema) on
// server name, serving database db, in its own terms: DBHub's
// search_objects, server-postgres's resources (it has no search: nil).
func schemaOp(ctx context.Context, c mcpbench.Caller, name, engine, db, workload, table string) (op, error) {
	tool := func(t string, args map[string]any) op {
		return func(ctx context.Context, _ int) (mcpbench.Reply, error) { return mcpbench.CallTool(ctx, c, t, args) }
	}
	schema := map[string]string{"sqlite": "main", "pg": "public", "mysql": db}[engine]
	switch name {
	case sqlmcp:
		return map[string]op{
			"describe_table": tool("describe_table", map[string]any{"table": table}),
			"list_tables":    tool("list_tables", map[string]any{}),
			"search_schema":  tool("search_schema", map[string]any{"query": "zebra"}),
		}[workload], nil
	case dbhub:
		return map[string]op{
			"describe_table": tool("search_objects", map[string]any{"object_type": "column", "schema": schema, "table": table, "detail_level": "full"}),
			"list_tables":    tool("search_objects", map[string]any{"object_type": "table", "detail_level": "summary"}),
			"search_schema":  tool("search_objects", map[string]any{"object_type": "column", "pattern": "%zebra%", "detail_level": "summary"}),
		}[workload], nil
	}
	resource := func(method string, params map[string]any) op {
		return func(ctx context.Context, _ int) (mcpbench.Reply, error) {
			r, err := c.Call(ctx, method, params)
			if err == nil && r.Error != nil {
				err = r.Error
			}
			return r, err
		}
	}
	switch workload {
	case "list_tables":
		return resource("resources/list", map[string]any{}), nil
	case "describe_table":
		// The resource's URI, as its list names it.
		r, err := resource("resources/list", map[string]any{})(ctx, 0)
		if err != nil {
			return nil, err
		}
		var list struct {
			Resources []struct {
				URI string `json:"uri"`
			} `json:"resources"`
		}
		json.Unmarshal(r.Result, &list)
		for _, x := range list.Resources {
			if strings.Contains(x.URI, "/"+table+"/") {
				return resource("resources/read", map[string]any{"uri": x.URI}), nil
			}
		}
		return nil, fmt.Errorf("server-postgres lists no resource for %s", table)
	}
	return nil, nil
}

// floorDB runs SQL through the bare driver sqlmcp uses, reading every
// value: the floor a server's overhead is measured above.
type floorDB struct {
	query func(ctx context.Context, sql string) error
	close func()
}

func (b *bench) floorDSN(engine, db string) string {
	switch engine {
	case "pg":
		return b.cluster.DSNFor("bench_ro", db)
	case "mysql":
		return b.maria.URL("bench_ro", db)
	}
	return "file:" + db + "?mode=ro"
}

func openFloor(ctx context.Context, engine, dsn string) (*floorDB, error) {
	switch engine {
	case "sqlite":
		d, err := sql.Open("sqlite3", dsn)
		if err != nil {
			return nil, err
		}
		return sqlFloor(d), nil
	case "mysql":
		// The driver's defaults: no client-side interpolation, so a
		// statement without parameters is one COM_QUERY, one round trip,
		// as the Node driver DBHub uses sends it; the same account as sqlmcp.
		c, err := mcpbench.MySQLConfig(dsn)
		if err != nil {
			return nil, err
		}
		conn, err := mysql.NewConnector(c)
		if err != nil {
			return nil, err
		}
		return sqlFloor(sql.OpenDB(conn)), nil
	}
	// The simple protocol: one round trip per statement, as the Node
	// driver the peers use sends a statement without parameters.
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &floorDB{close: func() { conn.Close(context.Background()) }, query: func(ctx context.Context, q string) error {
		rows, err := conn.Query(ctx, q)
		if err != nil {
			return err
		}
		for rows.Next() {
			if _, err := rows.Values(); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		return rows.Err()
	}}, nil
}

// sqlFloor runs the SQL on one connection of d, scanning every value.
func sqlFloor(d *sql.DB) *floorDB {
	d.SetMaxOpenConns(1)
	return &floorDB{close: func() { d.Close() }, query: func(ctx context.Context, q string) error {
		rows, err := d.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
		for k := range vals {
			ptrs[k] = &vals[k]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
		}
		return rows.Err()
	}}
}

func (f *floorDB) op(sql string) op {
	return func(ctx context.Context, i int) (mcpbench.Reply, error) {
		return mcpbench.Reply{}, f.query(ctx, fill(sql, i))
	}
}
