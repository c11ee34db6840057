package guard

import (
	"fmt"
	"strings"
)

// DuckDB binds and plans every query of a statement before it runs any of
// it, in time its interrupt does not reach and in memory its memory_limit
// does not count, and both grow faster than the number of queries: SELECT
// branches of one UNION ALL took 97 ms and 70 MB of peak memory at 1,000,
// 1.5 s and 375 MB at 4,000, and 19.6 s and 1.4 GiB at 8,000 (DuckDB 1.4,
// measured as process peak RSS). A WITH query is bound again at every
// reference when it is inlined, and json_serialize_sql does not say which
// are (NOT MATERIALIZED reads as the default): a chain of 16 WITH queries,
// each naming the one before twice, took 2.8 s and 389 MB, and each level
// more doubles that.
//
// So the guard counts the queries DuckDB will bind, as if every WITH query
// were inlined at every reference (a SELECT, a table, a table function
// each count one; a reference to a WITH query counts that query's whole
// count, and one nothing names counts once), and refuses a statement over maxDuckDBQueries. The estimate errs
// high: DuckDB materializes a WITH query named more than once unless told
// not to, so a doubling chain it would run cheaply is refused too.
const maxDuckDBQueries = 1000

// maxDuckDBJoins bounds the joins of a statement (a comma in FROM is one),
// counted as the queries are, every WITH query inlined. DuckDB's join
// order optimizer takes time that grows with about the fourth power of
// the joins it orders and looks at its interrupt only when it is done: a
// join of 100 tables on one key took 1 to 1.9 s to plan, 150 took 58 s
// under a 2 s timeout, 200 about 17 s with no timeout at all. 64 take
// about 0.3 s.
const maxDuckDBJoins = 64

// checkDuckDBSize refuses a parse tree whose queries, counted as above,
// are more than maxDuckDBQueries, or whose joins are more than
// maxDuckDBJoins.
func checkDuckDBSize(tree any) *Error {
	c := &duckCount{}
	n := c.count(tree)
	if n > maxDuckDBQueries {
		return &Error{
			Reason: fmt.Sprintf("the statement makes DuckDB bind about %s queries (each SELECT, table and use of a WITH query), more than the %d allowed", units(n), maxDuckDBQueries),
			Hint:   "Write it with fewer UNION branches and WITH references, or send it in parts",
		}
	}
	if c.joins > maxDuckDBJoins {
		return &Error{
			Reason: fmt.Sprintf("the statement makes DuckDB order about %s joins (each JOIN, comma in FROM and use of a WITH query's), more than the %d allowed", units(c.joins), maxDuckDBJoins),
			Hint:   "Join fewer tables in one statement, or send it in parts",
		}
	}
	return nil
}

// duckCount counts a parse tree's queries. scopes are the WITH queries in
// scope, innermost last.
type duckCount struct {
	scopes []map[string]*duckWith
	joins  float64 // the joins counted so far
}

// duckWith is one WITH query: what it counts, and how often it was named.
type duckWith struct {
	count, joins float64
	named        int
}

// count is what node n and everything under it count.
func (c *duckCount) count(n any) float64 {
	switch n := n.(type) {
	case []any:
		total := 0.0
		for _, v := range n {
			total += c.count(v)
		}
		return total
	case map[string]any:
		total := 0.0
		ctes := cteEntries(n)
		if len(ctes) > 0 {
			c.with(ctes)
		}
		switch n["type"] {
		case "SELECT_NODE", "TABLE_FUNCTION":
			total++
		case "BASE_TABLE":
			total += c.table(n)
		case "JOIN":
			if _, ok := n["left"]; ok {
				c.joins++
			}
		}
		for k, v := range n {
			if k != "cte_map" {
				total += c.count(v)
			}
		}
		if len(ctes) > 0 {
			total += c.unnamed()
		}
		return total
	}
	return 0
}

// with puts the WITH queries ctes in a new scope, each counted with the
// ones before it in scope (a recursive one's reference to itself counts
// one).
func (c *duckCount) with(ctes []map[string]any) {
	scope := map[string]*duckWith{}
	c.scopes = append(c.scopes, scope)
	for _, e := range ctes {
		name, _ := e["key"].(string)
		w := &duckWith{count: 1}
		scope[strings.ToLower(name)] = w
		value, _ := e["value"].(map[string]any)
		before := c.joins
		w.count = c.count(value["query"])
		// Its joins count where it is named, or once if nothing names it.
		w.joins, c.joins = c.joins-before, before
	}
}

// unnamed takes the innermost scope away and returns what its WITH
// queries that nothing named count: DuckDB binds them once, where they
// are defined.
func (c *duckCount) unnamed() float64 {
	scope := c.scopes[len(c.scopes)-1]
	c.scopes = c.scopes[:len(c.scopes)-1]
	total := 0.0
	for _, w := range scope {
		if w.named == 0 {
			total += w.count
			c.joins += w.joins
		}
	}
	return total
}

// table counts a table name: one, or a WITH query's count when it names
// one in scope.
func (c *duckCount) table(n map[string]any) float64 {
	name, _ := n["table_name"].(string)
	if schema, _ := n["schema_name"].(string); schema == "" {
		for i := len(c.scopes) - 1; i >= 0; i-- {
			if w, ok := c.scopes[i][strings.ToLower(name)]; ok {
				w.named++
				c.joins += w.joins
				return w.count
			}
		}
	}
	return 1
}

// cteEntries are the WITH queries a query node defines, in order.
func cteEntries(n map[string]any) []map[string]any {
	m, _ := n["cte_map"].(map[string]any)
	list, _ := m["map"].([]any)
	var out []map[string]any
	for _, e := range list {
		if e, ok := e.(map[string]any); ok {
			out = append(out, e)
		}
	}
	return out
}
