package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/internal/text"
	"github.com/sqlmcp/sqlmcp/notes"
	"github.com/sqlmcp/sqlmcp/schema"
)

// ExploreOptions configure Explore. Model is required; a zero or negative
// count means its default.
type ExploreOptions struct {
	Model agent.Model
	// PerFragment is how many queries the model is asked for per
	// fragment; more in a reply are ignored. Default 3.
	PerFragment int
	// PerCluster is how many triplets are kept per cluster (a hub table
	// and the tables reached from it); a full cluster's other fragments
	// are not asked about. Default 10.
	PerCluster int
	// MaxFragments is how many fragments are asked about in all. Default 40.
	MaxFragments int
	// MaxJoins is the longest join path, in joins. Default 2 (three tables).
	MaxJoins int
	// OnFragment is told of each fragment the model answered: how many are
	// done, how many there will be at most (it can shrink as clusters
	// fill), the fragment's tables and how many triplets are kept so far.
	// Nil for none.
	OnFragment func(done, total int, tables []string, kept int)
}

// ExploreStats count what happened. Fragments counts model replies;
// Written the queries taken from them (at most PerFragment each); Failed
// the replies that held no list of queries and the queries the server
// refused or could not run; Empty the queries that returned no row with a
// value; Kept the triplets. Written queries that repeat an earlier one, or
// come after their cluster is full, are not run.
type ExploreStats struct{ Fragments, Written, Failed, Empty, Kept int }

// Explore explores a database before any question, through the sqlmcp
// server behind cs, and returns (tables, join path, SQL, description)
// triplets whose SQL ran and returned a row with a value.
//
// It reads every table and view with list_tables and describe_table, and
// walks the graph of foreign keys: hubs in order of how many keys they
// take part in (most first, ties by name), each hub a cluster of join
// paths grown one join at a time from it, [hub], [hub, n1], [hub, n1, n2]
// up to MaxJoins, over keys no earlier cluster took at its hub. Every key
// joins at most one two-table path, and a table without keys is a cluster
// of one. For each path the model, given the tables' descriptions
// and the join conditions and no tools, writes queries as a JSON list;
// each runs through run_query, and is kept when it returned a row with a
// non-NULL cell and is not a repeat. A triplet's Tables are in join order,
// starting at its cluster's hub.
//
// A reply that holds no list of queries counts as Failed. A failed model
// call, a failed tool call (not a tool's error result) or the end of ctx
// stops Explore: it returns the triplets kept so far, the stats and the
// error, which names the fragment's tables.
func Explore(ctx context.Context, cs *mcp.ClientSession, o *ExploreOptions) ([]notes.Triplet, *ExploreStats, error) {
	st := &ExploreStats{}
	if o == nil || o.Model == nil {
		return nil, st, errors.New("exploring: a Model is required")
	}
	perFragment := exploreDefault(o.PerFragment, 3)
	perCluster := exploreDefault(o.PerCluster, 10)
	maxFragments := exploreDefault(o.MaxFragments, 40)
	maxJoins := exploreDefault(o.MaxJoins, 2)

	client := agent.NewClient(cs)
	dialect := client.Dialect(ctx)
	tables, edges, err := exploreSchema(ctx, client, dialect)
	if err != nil {
		return nil, st, fmt.Errorf("exploring: %w", err)
	}
	plan := explorePlan(tables, edges, maxJoins)

	var kept []notes.Triplet
	seen := map[string]bool{}
	inCluster := map[int]int{}
	// total is how many fragments there will be at most: those done and
	// those from plan[from] on whose clusters are not full.
	total := func(from int) int {
		n := st.Fragments
		for _, f := range plan[from:] {
			if n == maxFragments {
				break
			}
			if inCluster[f.cluster] < perCluster {
				n++
			}
		}
		return n
	}
	for i, f := range plan {
		if st.Fragments == maxFragments {
			break
		}
		if inCluster[f.cluster] >= perCluster {
			continue
		}
		fail := func(err error) ([]notes.Triplet, *ExploreStats, error) {
			return kept, st, fmt.Errorf("exploring %s: %w", strings.Join(f.tables, ", "), err)
		}
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		resp, err := o.Model.Complete(ctx, explorePrompt(f, tables, dialect, perFragment))
		if err != nil {
			return fail(err)
		}
		st.Fragments++
		queries := parseExploreReply(resp.Text())
		if queries == nil {
			st.Failed++
		}
		if len(queries) > perFragment {
			queries = queries[:perFragment]
		}
		st.Written += len(queries)
		for _, q := range queries {
			if inCluster[f.cluster] >= perCluster {
				break
			}
			key := exploreKey(q.SQL)
			if seen[key] {
				continue
			}
			seen[key] = true
			outcome, err := exploreRun(ctx, client, q.SQL)
			if err != nil {
				return fail(err)
			}
			switch outcome {
			case exploreFailed:
				st.Failed++
			case exploreEmpty:
				st.Empty++
			case exploreRows:
				st.Kept++
				inCluster[f.cluster]++
				kept = append(kept, notes.Triplet{
					Tables:      slices.Clone(f.tables),
					Join:        f.join(tables),
					Description: strings.Join(strings.Fields(q.Description), " "),
					SQL:         strings.TrimSpace(q.SQL),
				})
			}
		}
		if o.OnFragment != nil {
			o.OnFragment(st.Fragments, total(i+1), slices.Clone(f.tables), len(kept))
		}
	}
	return kept, st, nil
}

func exploreDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// A table's sample in the prompt: at most this many rows and bytes.
const (
	exploreSampleRows  = 3
	exploreSampleBytes = 1500
)

// exploreTable is a table or view as describe_table gives it.
type exploreTable struct {
	name   string // as list_tables names it: schema.table outside the search path
	schema string // PostgreSQL's schema; "" for SQLite
	text   string // describe_table's text for models
	sample string // a few of its rows, as run_query shows them; "" if none
	// ident writes a name as the engine's SQL does (backticks on MySQL).
	ident func(string) string
}

// sql writes the table's name as a query may: quoted where it must be.
func (t *exploreTable) sql() string {
	if t.schema != "" && strings.HasPrefix(t.name, t.schema+".") {
		return t.ident(t.schema) + "." + t.ident(t.name[len(t.schema)+1:])
	}
	return t.ident(t.name)
}

// exploreEdge is one foreign key: from's cols reference to's refCols.
type exploreEdge struct {
	from, to      string
	cols, refCols []string
}

func (e *exploreEdge) other(t string) string {
	if t == e.from {
		return e.to
	}
	return e.from
}

// condition spells the key out as a join condition.
func (e *exploreEdge) condition(tables map[string]*exploreTable) string {
	parts := make([]string, len(e.cols))
	for i := range e.cols {
		from, to := tables[e.from], tables[e.to]
		parts[i] = from.sql() + "." + from.ident(e.cols[i]) + " = " + to.sql() + "." + to.ident(e.refCols[i])
	}
	return strings.Join(parts, " AND ")
}

// exploreFragment is a join path: tables[i] and tables[i+1] join on
// edges[i]. tables[0] is its cluster's hub.
type exploreFragment struct {
	cluster int
	tables  []string
	edges   []*exploreEdge
}

// join is the join path's conditions, "" for one table.
func (f *exploreFragment) join(tables map[string]*exploreTable) string {
	conds := make([]string, len(f.edges))
	for i, e := range f.edges {
		conds[i] = e.condition(tables)
	}
	return strings.Join(conds, " AND ")
}

// from is the join path as a FROM clause.
func (f *exploreFragment) from(tables map[string]*exploreTable) string {
	var b strings.Builder
	b.WriteString("FROM " + tables[f.tables[0]].sql())
	for i, e := range f.edges {
		fmt.Fprintf(&b, " JOIN %s ON %s", tables[f.tables[i+1]].sql(), e.condition(tables))
	}
	return b.String()
}

// exploreSchema reads every table's description and the foreign keys
// between them. A table that cannot be described is left out, with its
// keys; so is a key to a table not listed, or to itself.
func exploreSchema(ctx context.Context, c *agent.Client, dialect string) (map[string]*exploreTable, []*exploreEdge, error) {
	ident := func(name string) string { return schema.IdentifierFor(sqlmcp.Dialect(dialect), name) }
	listed, err := c.ListTables(ctx)
	if err != nil {
		return nil, nil, err
	}
	tables := map[string]*exploreTable{}
	var keys []agent.ForeignKey
	for _, lt := range listed.Tables {
		name := lt.Name
		d, err := c.DescribeTable(ctx, name)
		var te *agent.ToolError
		if errors.As(err, &te) {
			continue // a table that went away, say
		}
		if err != nil {
			return nil, nil, err
		}
		t := &exploreTable{name: name, schema: d.Schema, text: strings.TrimRight(d.Text, "\n"), ident: ident}
		tables[name] = t
		keys = append(append(keys, d.ForeignKeys...), d.ReferencedBy...)
		// A few real rows, so that the model filters on values that exist.
		r, err := c.Query(ctx, "SELECT * FROM "+t.sql()+" LIMIT "+fmt.Sprint(exploreSampleRows), exploreSampleRows)
		switch {
		case errors.As(err, &te):
		case err != nil:
			return nil, nil, fmt.Errorf("sampling %s: %w", name, err)
		default:
			t.sample = text.Cut(strings.TrimRight(r.Text, "\n"), exploreSampleBytes)
		}
	}
	// Keys name tables as list_tables does; a name qualified where the
	// listing's is not is matched through the table's schema.
	names := map[string]string{}
	for name, t := range tables {
		names[name] = name
		if t.schema != "" && !strings.HasPrefix(name, t.schema+".") {
			names[t.schema+"."+name] = name
		}
	}
	var edges []*exploreEdge
	seen := map[string]bool{}
	for _, k := range keys {
		from, to := names[k.Table], names[k.RefTable]
		if from == "" || to == "" || from == to || len(k.Columns) == 0 || len(k.Columns) != len(k.RefColumns) {
			continue
		}
		id := strings.Join([]string{from, strings.Join(k.Columns, "\x01"), to, strings.Join(k.RefColumns, "\x01")}, "\x00")
		if seen[id] {
			continue // each key is listed by both its tables
		}
		seen[id] = true
		edges = append(edges, &exploreEdge{from: from, to: to, cols: k.Columns, refCols: k.RefColumns})
	}
	return tables, edges, nil
}

// explorePlan orders the fragments: every table is a hub once, those with
// the most keys first, ties by name; a hub's cluster is the hub alone,
// then each two-table path over a key at the hub that no earlier cluster
// took, then those paths grown by one more key at a time, breadth first,
// up to maxJoins joins, never visiting a table twice.
func explorePlan(tables map[string]*exploreTable, edges []*exploreEdge, maxJoins int) []*exploreFragment {
	at := map[string][]*exploreEdge{}
	for _, e := range edges {
		at[e.from] = append(at[e.from], e)
		at[e.to] = append(at[e.to], e)
	}
	for name, es := range at {
		slices.SortFunc(es, func(a, b *exploreEdge) int {
			return cmp.Or(strings.Compare(a.other(name), b.other(name)),
				strings.Compare(a.condition(tables), b.condition(tables)))
		})
	}
	hubs := make([]string, 0, len(tables))
	for name := range tables {
		hubs = append(hubs, name)
	}
	slices.SortFunc(hubs, func(a, b string) int {
		return cmp.Or(len(at[b])-len(at[a]), strings.Compare(a, b))
	})
	covered := map[*exploreEdge]bool{}
	var plan []*exploreFragment
	for c, hub := range hubs {
		level := []*exploreFragment{{cluster: c, tables: []string{hub}}}
		plan = append(plan, level[0])
		for j := 1; j <= maxJoins; j++ {
			var next []*exploreFragment
			for _, p := range level {
				last := p.tables[len(p.tables)-1]
				for _, e := range at[last] {
					n := e.other(last)
					if covered[e] || slices.Contains(p.tables, n) {
						continue
					}
					if j == 1 {
						// Only a hub's own keys are used up: a key deeper
						// in the path still gets its own two-table
						// fragment when one of its tables is the hub.
						covered[e] = true
					}
					next = append(next, &exploreFragment{cluster: c,
						tables: append(slices.Clone(p.tables), n), edges: append(slices.Clone(p.edges), e)})
				}
			}
			plan = append(plan, next...)
			level = next
		}
	}
	return plan
}

// explorePrompt asks for n queries over the fragment's tables.
func explorePrompt(f *exploreFragment, tables map[string]*exploreTable, dialect string, n int) *agent.Request {
	var b strings.Builder
	fmt.Fprintf(&b, `You explore a SQL database before anyone asks it a question. Write %d example queries over the tables below, of the kind a person might ask, each with one line saying what it returns. Each query is run, and only those that return rows are kept, as examples for answering questions later.

Rules:
- Each query is one read-only SELECT statement (WITH ... SELECT is fine); nothing that changes the database.
- %s
- Use only the tables below`, n, agent.DialectRule(dialect))
	if len(f.edges) > 0 {
		b.WriteString(", all of them, joined on exactly the join path given")
	}
	b.WriteString(`.
- Vary the queries: a count, a grouping with an aggregate, a filter on a real value (one the schema names: a listed value, a default, a description), a top-N with ORDER BY and LIMIT.
- Select named columns, not *, and keep results small.

Reply with a JSON list and nothing else:
[{"sql": "SELECT ...", "description": "one line saying what it returns"}]
`)
	if len(f.tables) == 1 {
		b.WriteString("\nThe table:\n")
	} else {
		b.WriteString("\nThe tables:\n")
	}
	for _, name := range f.tables {
		t := tables[name]
		fmt.Fprintf(&b, "\n%s\n", t.text)
		if t.sample != "" {
			fmt.Fprintf(&b, "sample rows:\n%s\n", t.sample)
		}
	}
	if len(f.edges) > 0 {
		fmt.Fprintf(&b, "\nJoin path: %s\nAs a FROM clause: %s\n", f.join(tables), f.from(tables))
	}
	names := make([]string, len(f.tables))
	for i, name := range f.tables {
		names[i] = tables[name].sql()
	}
	ask := fmt.Sprintf("Write %d queries over %s as a JSON list.", n, strings.Join(names, ", "))
	return &agent.Request{System: b.String(), Messages: []agent.Message{{Role: "user", Blocks: []agent.Block{{Type: "text", Text: ask}}}}}
}

// exploreQuery is one query in the model's reply.
type exploreQuery struct {
	SQL         string `json:"sql"`
	Query       string `json:"query"` // what some models call sql
	Description string `json:"description"`
}

// parseExploreReply finds the queries in a reply: it drops reasoning
// (<think> blocks, and anything before a lone </think>), prefers the first
// code fence, and takes the first JSON array of objects holding SQL. It
// returns nil when there is none.
func parseExploreReply(reply string) []exploreQuery {
	s := thinkBlock.ReplaceAllString(reply, "")
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	}
	texts := []string{s}
	if m := fenced.FindStringSubmatch(s); m != nil {
		texts = []string{m[1], s}
	}
	for _, text := range texts {
		for i := strings.IndexByte(text, '['); i >= 0; {
			var items []exploreQuery
			if json.NewDecoder(strings.NewReader(text[i:])).Decode(&items) == nil {
				var qs []exploreQuery
				for _, q := range items {
					if q.SQL == "" {
						q.SQL = q.Query
					}
					if strings.TrimSpace(q.SQL) != "" {
						qs = append(qs, q)
					}
				}
				if len(qs) > 0 {
					return qs
				}
			}
			j := strings.IndexByte(text[i+1:], '[')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return nil
}

// exploreKey is the key that finds a repeated query: outside quotes,
// case and runs of space do not matter, nor trailing semicolons.
func exploreKey(sql string) string {
	sql = strings.TrimRight(strings.TrimSpace(sql), "; \t\r\n")
	var b strings.Builder
	var quote rune
	space := false
	for _, r := range sql {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ' || r == '\t' || r == '\r' || r == '\n':
			space = true
			continue
		default:
			r = unicode.ToLower(r)
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// exploreMaxRows is how many rows a query's check reads.
const exploreMaxRows = 5

type exploreOutcome int

const (
	exploreFailed exploreOutcome = iota // refused or failed: an error result
	exploreEmpty                        // no row with a non-NULL cell
	exploreRows
)

// exploreRun runs sql through run_query. The error is for a call that
// failed (ctx ended, the session broke), not for an error result.
func exploreRun(ctx context.Context, c *agent.Client, sql string) (exploreOutcome, error) {
	r, err := c.Query(ctx, sql, exploreMaxRows)
	var te *agent.ToolError
	switch {
	case errors.As(err, &te):
		return exploreFailed, nil
	case err != nil:
		return exploreFailed, fmt.Errorf("running a query: %w", err)
	case r.Empty():
		return exploreEmpty, nil
	}
	return exploreRows, nil
}
