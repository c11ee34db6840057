package guard

import (
	"fmt"
	"math"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// PostgreSQL's planner does work that statement_timeout cannot interrupt:
// it inlines a WITH query referenced once (or marked NOT MATERIALIZED, once
// per reference), pulls subqueries in FROM up into the query around them,
// and replaces every reference to their columns by a copy of the
// expression that defines the column. Each copy is made before a single
// row is read. So a 1 KB chain of WITH queries, each using the previous
// one's column twice (x + x), doubles the tree at every level: 16 levels
// took 100 MB of backend memory, 24 levels 18.6 GB, and the kernel killed
// the backend, which restarts every session on the server. Parse analysis
// copies too, as uninterruptibly: the left side of x BETWEEN a AND b twice
// (four times with SYMMETRIC, a and b twice), of x IN (a, b, ...) once per
// item that is not a constant, and expr in (expr).* once per field; nested,
// those multiply (8 levels of BETWEEN SYMMETRIC, 300 bytes of SQL, took
// 73 MB and 0.8 s; each level more is four times that).
//
// The guard therefore estimates, from the parse tree, how much the
// planner will build beyond the statement as written (which its length
// bounds: 1 MiB of linear SQL took 160 MB to parse and analyse), and
// refuses a statement whose reuse adds more than maxPostgresPlanUnits. One
// unit is one node of an expression tree after the planner's
// substitutions, a string constant's every 512 bytes, or a 100th of a
// relation to plan. Measured on PostgreSQL 15 as backend peak memory over
// the estimate: the doubling chains through WITH, derived tables, nested
// CASE and NOT MATERIALIZED self-joins cost 250 to 490 bytes a unit; so at
// the bound of 100,000 units no accepted statement makes the planner build
// more than about 50 MB beyond what its text costs (100 MB is the stated
// budget, with room for the error of the estimate).
//
// The estimate errs high: it substitutes every subquery's columns, even
// where the planner would not pull the subquery up (aggregates, LIMIT,
// DISTINCT), takes the largest of the candidates for an ambiguous name,
// and sums the arms of a set operation. Views and functions are opaque to
// it: a table's or view's column counts as one node. PostgreSQL bounds
// GROUP BY CUBE and GROUPING SETS itself (4,096 sets).
const (
	// maxPostgresPlanUnits bounds the estimate.
	maxPostgresPlanUnits = 100_000
	// pgRelationUnits is what one relation to plan (a table, a function
	// in FROM, VALUES, an inlined copy of a subquery) costs.
	pgRelationUnits = 100
	// pgConstBytesPerUnit is how many bytes of a constant make one unit.
	pgConstBytesPerUnit = 512
	// maxPostgresJoined bounds the relations one query level joins, with
	// the relations of every subquery the planner may pull up into it (in
	// FROM, an inlined WITH query, EXISTS and IN), since it keeps every
	// join of them in memory until the plan is made, in a time
	// statement_timeout reaches late: on PostgreSQL 15, a chain of 100
	// JOIN (SELECT ...) ON true took 50 MB, 200 took 380 MB and 400 took
	// 2.9 GB, answering a cancel 4 s late. The join search itself is
	// bounded by the connection's settings (see pgStartup).
	maxPostgresJoined = 100
	// maxPostgresPlanned bounds the relations a statement plans in all,
	// every UNION arm's and subquery's, pulled up or planned apart: the
	// planner keeps each one's paths until the plan is made, some 60 to
	// 150 kB a relation on PostgreSQL 15 (a VALUES list of 1,000 scalar
	// subqueries reading a table took 70 MB, 5,000 took 730 MB, 20,000
	// 1.2 GB by a 5 s timeout).
	maxPostgresPlanned = 1000
	// maxPostgresEstimateSteps bounds the estimate's own work: the
	// columns it copies into results and scopes, and the FROM items a *
	// walks. Each * copies every column it expands to, so a few hundred
	// bytes of SELECT *, * FROM (SELECT *, * FROM (...)) double the
	// columns at every level (22 levels, 453 bytes, took 1.6 s and 525 MB
	// before the bound); k stars over k FROM items walk k² items. A real
	// query takes a few thousand steps; the bound, about 50 ms.
	maxPostgresEstimateSteps = 1_000_000
)

// checkPostgresCost refuses a query whose planning would build more than
// maxPostgresPlanUnits; stmt is the parsed statement, and only queries
// and EXPLAIN of one are measured.
func checkPostgresCost(stmt *pg.Node) error {
	cost, copies, joined, planned := postgresPlanUnits(stmt)
	if cost <= maxPostgresPlanUnits {
		if planned > maxPostgresPlanned {
			return &Error{
				Reason: fmt.Sprintf("the query plans %d relations in all (each table, function, VALUES and inlined WITH query's, in every subquery and UNION arm); the limit is %d", planned, maxPostgresPlanned),
				Hint:   "Read fewer tables in one statement: fold UNION ALL arms that read the same table into one query with OR or IN, or send it in parts",
			}
		}
		if joined > maxPostgresJoined {
			return &Error{
				Reason: fmt.Sprintf("the query joins %d relations in one plan (its subqueries' included); the limit is %d", joined, maxPostgresJoined),
				Hint:   "Join fewer tables in one query; UNION ALL arms and WITH queries marked MATERIALIZED are planned apart",
			}
		}
		return nil
	}
	if copies&copyTooWide != 0 {
		return &Error{
			Reason: fmt.Sprintf("the query expands to too many columns to check: its *, t.* and joins reach more than %d columns and FROM items across its subqueries", maxPostgresEstimateSteps),
			Hint:   "Select the columns you need by name rather than *, and join fewer relations",
		}
	}
	var hints []string
	for _, k := range []pgCopy{copyNotMaterialized, copyColumn, copyBetween, copyIn, copyRowStar} {
		if copies&k != 0 {
			hints = append(hints, pgCopyHints[k])
		}
	}
	if len(hints) == 0 {
		hints = append(hints, pgCopyHints[copyColumn])
	}
	return &Error{
		Reason: fmt.Sprintf("the query is too costly to plan: the planner would build about %s expression nodes, more than the %d allowed", units(cost), maxPostgresPlanUnits),
		Hint:   strings.Join(hints, ". "),
	}
}

// pgCopy is a set of the ways PostgreSQL copies parts of a statement.
type pgCopy uint8

const (
	copyColumn pgCopy = 1 << iota
	copyNotMaterialized
	copyBetween
	copyIn
	copyRowStar
	copyTooWide // not a copy: the estimate gave up, past maxPostgresEstimateSteps
)

// pgCopyHints say what to simplify for each way.
var pgCopyHints = map[pgCopy]string{
	copyColumn: "Every use of a column of a WITH query or a subquery in FROM copies the expression that defines it: " +
		"add MATERIALIZED to the WITH queries whose columns are used more than once (WITH a AS MATERIALIZED (...)), or use each computed column fewer times",
	copyNotMaterialized: "A WITH query marked NOT MATERIALIZED is copied into every place that reads it: drop NOT MATERIALIZED (or write MATERIALIZED)",
	copyBetween: "x BETWEEN a AND b copies x (four times, and a and b twice, with SYMMETRIC): do not nest BETWEEN; " +
		"compute x once in a WITH query marked MATERIALIZED",
	copyIn:      "x IN (a, b, ...) copies x for every item that is not a constant: do not nest IN lists; use constants, or x = ANY (ARRAY[...])",
	copyRowStar: "(expr).* copies expr for every field: select the fields you need from a WITH query marked MATERIALIZED",
}

// postgresPlanUnits estimates what planning stmt builds beyond the
// statement as written, and reports the ways of copying that made it; 0
// for a statement that is not a query.
func postgresPlanUnits(stmt *pg.Node) (cost float64, copies pgCopy, joined, planned int) {
	q := stmt.GetSelectStmt()
	if e := stmt.GetExplainStmt(); e != nil {
		q = e.Query.GetSelectStmt()
	}
	if q == nil {
		return 0, 0, 0, 0
	}
	// The first pass counts the references to each WITH query, which
	// decide whether the planner inlines it. What the statement holds as
	// written is bounded by its length, not here: the second pass
	// measures it (every reference one node, every WITH query planned
	// once), the third what the planner builds, and only the difference,
	// what reuse adds, counts.
	c := &pgCost{refs: map[*pg.CommonTableExpr]int{}, counting: true}
	c.query(q, nil)
	c.counting, c.flat = false, true
	written := c.query(q, nil).cost
	if c.copies&copyTooWide != 0 {
		return math.Inf(1), copyTooWide, c.joined, c.planned
	}
	c.flat, c.copies = false, 0
	cost = c.query(q, nil).cost
	if c.copies&copyTooWide != 0 {
		return math.Inf(1), copyTooWide, c.joined, c.planned
	}
	return max(cost-written, 0), c.copies, c.joined, c.planned
}

// units spells an estimate for a message.
func units(v float64) string {
	if v >= 1e15 || math.IsInf(v, 0) {
		return fmt.Sprintf("%.1e", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// pgCost measures one statement.
type pgCost struct {
	refs     map[*pg.CommonTableExpr]int // references to each WITH query, from the first pass
	counting bool                        // the first pass: count references, treat every WITH query as materialized
	flat     bool                        // the statement as written: no substitutions, no WITH query inlined
	// done holds each WITH query's measure, from its definition.
	done    map[*pg.CommonTableExpr]pgRel
	copies  pgCopy // the ways of copying met
	steps   int    // the estimate's work so far, bounded by maxPostgresEstimateSteps
	joined  int    // the most relations one query level joins (see maxPostgresJoined)
	planned int    // the relations the statement plans in all, from the last pass (see maxPostgresPlanned)
	// pullable: the subquery being measured is one the planner may pull
	// up into the query around it (EXISTS, IN).
	pullable bool
}

// step counts n steps of the estimate's work and reports whether it may
// go on; once it may not, the estimate is infinite.
func (c *pgCost) step(n int) bool {
	c.steps += n
	if c.steps <= maxPostgresEstimateSteps {
		return true
	}
	c.copies |= copyTooWide
	return false
}

// pgRel is what a query or FROM item yields: its columns in order, each
// with the size of the expression a reference to it becomes, whether it
// has columns the guard cannot see (a table's), and what planning it
// costs.
type pgRel struct {
	alias  string
	cols   []pgCol
	opaque bool
	cost   float64
	// rels is how many relations its plan joins in one problem, every
	// subquery pulled up (see maxPostgresJoined).
	rels int
	// anyCol is the size of a column whose name the guard cannot tell,
	// as those (expr).* makes: any name not in cols may be one.
	anyCol float64
	// byName and width are filled in when the item joins a scope: the
	// largest column of each name, and what a whole-row reference costs.
	byName map[string]float64
	width  float64
}

type pgCol struct {
	name string
	size float64
}

// pgScope is the FROM items and WITH queries one query level sees, and
// the level around it, indexed so a reference costs one look-up a level.
type pgScope struct {
	ctes    map[string]*pg.CommonTableExpr
	outer   *pgScope
	items   []*pgRel
	colMax  map[string]float64 // the largest column of each name, over items
	anyMax  float64            // the largest anyCol, over items
	aliases map[string]*pgAlias
	width   float64 // what * expands to
	rels    int     // the relations the level joins, pulled-up subqueries' too
}

// pgAlias is the FROM items of one level that share an alias (the server
// refuses that, but the guard judges first), with their largest measures,
// so a reference costs one look-up however many there are.
type pgAlias struct {
	items  []*pgRel
	width  float64            // the widest item's whole-row reference
	byName map[string]float64 // the largest column of each name
	anyCol float64
}

// add puts a FROM item in sc, one step a column.
func (c *pgCost) add(sc *pgScope, it *pgRel) {
	if sc.colMax == nil {
		sc.colMax, sc.aliases = map[string]float64{}, map[string]*pgAlias{}
	}
	a := sc.aliases[it.alias]
	if a == nil {
		a = &pgAlias{byName: map[string]float64{}}
		sc.aliases[it.alias] = a
	}
	sc.items = append(sc.items, it)
	a.items = append(a.items, it)
	if !c.step(len(it.cols) + 1) {
		return
	}
	it.byName, it.width = map[string]float64{}, 1
	for _, col := range it.cols {
		it.byName[col.name] = max(it.byName[col.name], col.size)
		sc.colMax[col.name] = max(sc.colMax[col.name], col.size)
		a.byName[col.name] = max(a.byName[col.name], col.size)
		it.width += col.size
	}
	sc.anyMax = max(sc.anyMax, it.anyCol)
	a.width, a.anyCol = max(a.width, it.width), max(a.anyCol, it.anyCol)
	sc.width += it.width
}

// cte finds the WITH query a table name refers to, innermost first.
func (s *pgScope) cte(name string) *pg.CommonTableExpr {
	for ; s != nil; s = s.outer {
		if c, ok := s.ctes[name]; ok {
			return c
		}
	}
	return nil
}

// column is the size a column reference becomes: the largest of every
// column it could name at any level (a column, a whole row, a field of a
// composite column), so the estimate never undercounts a name the server
// resolves differently; 1 for a column of a table.
func (s *pgScope) column(fields []*pg.Node) float64 {
	var names []string
	for _, f := range fields {
		if f.GetAStar() != nil {
			return s.star(names)
		}
		names = append(names, f.GetString_().GetSval())
	}
	size := 1.0
	if len(names) == 0 {
		return size
	}
	col := names[len(names)-1]
	for sc := s; sc != nil; sc = sc.outer {
		if len(names) == 1 {
			size = max(size, sc.colMax[col], sc.anyMax)
			if a := sc.aliases[col]; a != nil {
				size = max(size, a.width)
			}
			if _, ok := sc.colMax[col]; ok {
				return size // the innermost level that has the name is the one
			}
			continue
		}
		if a := sc.aliases[names[len(names)-2]]; a != nil {
			size = max(size, a.byName[col], a.anyCol)
		}
		if v, ok := sc.colMax[names[0]]; ok {
			size = max(size, v+1)
		}
		if a := sc.aliases[names[0]]; a != nil {
			size = max(size, a.width+1)
		}
	}
	return size
}

// star is the size of rel.* (or * when rel is empty): every column it
// expands to.
func (s *pgScope) star(names []string) float64 {
	if len(names) == 0 {
		return 1 + s.width
	}
	size := 1.0
	for sc := s; sc != nil; sc = sc.outer {
		if a := sc.aliases[names[len(names)-1]]; a != nil {
			size = max(size, a.width)
		}
	}
	return size
}

// query measures a SELECT, VALUES or set operation seen from outer.
func (c *pgCost) query(q *pg.SelectStmt, outer *pgScope) pgRel {
	sc := &pgScope{outer: outer}
	var res pgRel
	if w := q.WithClause; w != nil {
		res.cost += c.with(w, sc)
	}
	switch {
	case q.Op != pg.SetOperation_SET_OPERATION_UNDEFINED && q.Op != pg.SetOperation_SETOP_NONE:
		// A condition on a UNION ALL is pushed into every arm, with each
		// arm's columns substituted: count the arms' columns summed.
		l, r := c.query(q.Larg, sc), c.query(q.Rarg, sc)
		res.cost += l.cost + r.cost
		// Each arm is planned apart, a member of an append relation.
		res.rels = max(l.rels, r.rels)
		if !c.step(len(l.cols)) {
			return pgRel{cost: math.Inf(1)}
		}
		res.cols = append([]pgCol(nil), l.cols...)
		for i := range res.cols {
			if i < len(r.cols) {
				res.cols[i].size += r.cols[i].size
			}
		}
		res.opaque = l.opaque || r.opaque
		c.add(sc, &pgRel{cols: res.cols})
	case len(q.ValuesLists) > 0:
		res.cost += pgRelationUnits
		res.rels = 1
		c.plan(1)
		for _, row := range q.ValuesLists {
			for i, v := range row.GetList().GetItems() {
				n := c.size(v, sc)
				res.cost += n
				if i >= len(res.cols) {
					res.cols = append(res.cols, pgCol{name: fmt.Sprintf("column%d", i+1)})
				}
				res.cols[i].size = max(res.cols[i].size, n)
			}
		}
	default:
		for _, f := range q.FromClause {
			res.cost += c.from(f, sc)
		}
		for _, t := range q.TargetList {
			rt := t.GetResTarget()
			if rt == nil {
				res.cost += c.size(t, sc)
				continue
			}
			n := c.size(rt.Val, sc)
			res.cost += n
			if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
				// * and t.* become the columns they expand to.
				items := sc.items
				if len(cr.Fields) > 1 {
					items = nil
					if a := sc.aliases[cr.Fields[len(cr.Fields)-2].GetString_().GetSval()]; a != nil {
						items = a.items
					}
				}
				for _, it := range items {
					if !c.step(len(it.cols) + 1) {
						return pgRel{cost: math.Inf(1)}
					}
					res.cols = append(res.cols, it.cols...)
					res.opaque = res.opaque || it.opaque
				}
				continue
			}
			if ind := rt.Val.GetAIndirection(); ind != nil && ind.Indirection[len(ind.Indirection)-1].GetAStar() != nil {
				res.anyCol = max(res.anyCol, n)
			}
			res.cols = append(res.cols, pgCol{name: outputName(rt), size: n})
		}
		for _, n := range q.DistinctClause {
			res.cost += c.size(n, sc)
		}
		res.cost += c.size(q.WhereClause, sc) + c.size(q.HavingClause, sc)
		for _, n := range q.GroupClause {
			res.cost += c.size(n, sc)
		}
		for _, n := range q.WindowClause {
			res.cost += c.size(n, sc)
		}
	}
	for _, n := range q.SortClause {
		res.cost += c.size(n, sc)
	}
	res.cost += c.size(q.LimitCount, sc) + c.size(q.LimitOffset, sc)
	res.rels = max(res.rels, sc.rels)
	c.joined = max(c.joined, res.rels)
	return res
}

// outputName is the name a select-list item gives its column.
func outputName(rt *pg.ResTarget) string {
	if rt.Name != "" {
		return rt.Name
	}
	if cr := rt.Val.GetColumnRef(); cr != nil {
		return cr.Fields[len(cr.Fields)-1].GetString_().GetSval()
	}
	return ""
}

// with measures a WITH clause's queries and makes them visible in sc. A
// query the planner keeps apart (MATERIALIZED, recursive, or read more
// than once) is planned once, here; one it inlines costs its plan at
// every reference instead.
func (c *pgCost) with(w *pg.WithClause, sc *pgScope) float64 {
	if c.done == nil {
		c.done = map[*pg.CommonTableExpr]pgRel{}
	}
	sc.ctes = map[string]*pg.CommonTableExpr{}
	var ctes []*pg.CommonTableExpr
	for _, n := range w.Ctes {
		if cte := n.GetCommonTableExpr(); cte != nil {
			ctes = append(ctes, cte)
			if w.Recursive {
				sc.ctes[cte.Ctename] = cte
			}
		}
	}
	var cost float64
	for _, cte := range ctes {
		// A recursive query's reference to itself reads a work table:
		// its columns count as a table's.
		c.done[cte] = pgRel{opaque: true}
		var body pgRel
		if q := cte.Ctequery.GetSelectStmt(); q != nil {
			body = c.query(q, sc)
		} else {
			body.cost = c.size(cte.Ctequery, sc)
		}
		// Later queries of the list see it (all of them do, recursive).
		sc.ctes[cte.Ctename] = cte
		for i, n := range cte.Aliascolnames {
			if i < len(body.cols) {
				body.cols[i].name = n.GetString_().GetSval()
			}
		}
		c.done[cte] = body
		if !c.inlined(cte) {
			cost += body.cost
		}
	}
	return cost
}

// inlined reports whether the planner copies cte into each query that
// reads it, as PostgreSQL decides: NOT MATERIALIZED, or not MATERIALIZED
// and read once. (A recursive query is never inlined, but it reads
// itself, so it counts as read more than once.)
func (c *pgCost) inlined(cte *pg.CommonTableExpr) bool {
	switch {
	case c.counting || c.flat:
		return false
	case cte.Ctematerialized == pg.CTEMaterialize_CTEMaterializeNever:
		return c.refs[cte] > 0
	case cte.Ctematerialized == pg.CTEMaterialize_CTEMaterializeAlways:
		return false
	}
	return c.refs[cte] == 1
}

// from measures one FROM item and adds it to sc.
func (c *pgCost) from(n *pg.Node, sc *pgScope) float64 {
	switch f := n.GetNode().(type) {
	case *pg.Node_RangeVar:
		rv := f.RangeVar
		it := &pgRel{alias: rv.Relname, opaque: true}
		if rv.Alias != nil {
			it.alias = rv.Alias.Aliasname
		}
		cost := float64(pgRelationUnits)
		if cte := sc.cte(rv.Relname); rv.Schemaname == "" && cte != nil {
			if c.counting {
				c.refs[cte]++
			}
			body := c.done[cte]
			it.opaque = body.opaque
			if !c.step(len(body.cols)) {
				return math.Inf(1)
			}
			it.cols = append(it.cols, body.cols...)
			it.anyCol = body.anyCol
			if c.inlined(cte) {
				cost += body.cost
				it.rels = body.rels
				if c.refs[cte] > 1 {
					c.copies |= copyNotMaterialized
				}
			} else {
				for i := range it.cols {
					it.cols[i].size = 1
				}
				it.anyCol = min(it.anyCol, 1)
			}
		}
		renameCols(it, rv.Alias)
		c.add(sc, it)
		sc.rels += max(it.rels, 1)
		c.plan(max(it.rels, 1))
		return cost
	case *pg.Node_RangeSubselect:
		rs := f.RangeSubselect
		var body pgRel
		if q := rs.Subquery.GetSelectStmt(); q != nil {
			// Only LATERAL sees the FROM items before it.
			outer := sc.outer
			if rs.Lateral {
				outer = sc
			}
			body = c.query(q, &pgScope{ctes: sc.ctes, outer: outer})
		}
		it := &pgRel{alias: rs.Alias.GetAliasname(), cols: body.cols, opaque: body.opaque, anyCol: body.anyCol}
		renameCols(it, rs.Alias)
		c.add(sc, it)
		sc.rels += max(body.rels, 1) // pulled up, its relations join this level's
		return body.cost
	case *pg.Node_JoinExpr:
		j := f.JoinExpr
		cost := c.from(j.Larg, sc)
		left := sc.items[len(sc.items)-1] // every FROM item adds itself last
		cost += c.from(j.Rarg, sc)
		right := sc.items[len(sc.items)-1]
		cost += c.size(j.Quals, sc)
		// USING and NATURAL merge same-named columns (COALESCE for FULL),
		// and an alias names both sides' columns: add the join as an item
		// with each name's columns summed.
		merged := &pgRel{}
		if j.Alias != nil {
			merged.alias = j.Alias.Aliasname
		}
		at := map[string]int{}
		for _, it := range []*pgRel{left, right} {
			if !c.step(len(it.cols)) {
				return math.Inf(1)
			}
			merged.opaque = merged.opaque || it.opaque
			for _, col := range it.cols {
				if i, ok := at[col.name]; ok {
					merged.cols[i].size += col.size + 1
					continue
				}
				at[col.name] = len(merged.cols)
				merged.cols = append(merged.cols, col)
			}
		}
		renameCols(merged, j.Alias)
		c.add(sc, merged)
		return cost
	}
	// Functions, ROWS FROM, XMLTABLE, JSON_TABLE, TABLESAMPLE: their
	// arguments, and columns the guard cannot see.
	it := &pgRel{opaque: true}
	m := n.ProtoReflect()
	if fd := m.WhichOneof(m.Descriptor().Oneofs().Get(0)); fd != nil {
		inner := m.Get(fd).Message()
		if a := inner.Descriptor().Fields().ByName("alias"); a != nil && inner.Has(a) {
			if al, ok := inner.Get(a).Message().Interface().(*pg.Alias); ok {
				it.alias = al.Aliasname
			}
		}
	}
	cost := pgRelationUnits + c.size(n, sc)
	c.add(sc, it)
	sc.rels++
	c.plan(1)
	return cost
}

// plan counts n relations the statement plans, in the last pass, where
// WITH queries are inlined as the planner inlines them.
func (c *pgCost) plan(n int) {
	if !c.counting && !c.flat {
		c.planned += n
	}
}

// pgConstant reports whether n is a constant, a parameter or a cast or
// negation of one: what IN (...) compares as one array. Anything else
// counts as holding a column, which IN compares on its own.
func pgConstant(n *pg.Node) bool {
	switch v := n.GetNode().(type) {
	case *pg.Node_AConst, *pg.Node_ParamRef:
		return true
	case *pg.Node_TypeCast:
		return pgConstant(v.TypeCast.Arg)
	case *pg.Node_AExpr:
		return v.AExpr.Lexpr == nil && pgConstant(v.AExpr.Rexpr)
	}
	return false
}

// renameCols applies an alias's column names, as FROM t AS a(x, y) does.
func renameCols(it *pgRel, a *pg.Alias) {
	if a == nil {
		return
	}
	it.cols = append([]pgCol(nil), it.cols...) // they may be a WITH query's
	for i, n := range a.Colnames {
		if i < len(it.cols) {
			it.cols[i].name = n.GetString_().GetSval()
		}
	}
}

// size is the number of nodes the expression n becomes once the planner
// has substituted the columns it references; 0 for nil.
func (c *pgCost) size(n *pg.Node, sc *pgScope) float64 {
	if n == nil {
		return 0
	}
	return c.sizeOf(n.ProtoReflect(), sc)
}

func (c *pgCost) sizeOf(m protoreflect.Message, sc *pgScope) float64 {
	switch n := m.Interface().(type) {
	case *pg.Node:
		if inner := nodeInner(n); inner != nil {
			return c.sizeOf(inner, sc)
		}
		return 0
	case *pg.ColumnRef:
		if c.flat {
			return 1
		}
		size := sc.column(n.Fields)
		if size > 1 {
			c.copies |= copyColumn
		}
		return size
	case *pg.A_Const:
		return 1 + float64(len(n.GetSval().GetSval())+len(n.GetBsval().GetBsval()))/pgConstBytesPerUnit
	case *pg.SelectStmt:
		// A subquery in an expression is copied wherever the expression
		// is, plan and all; EXISTS and IN may pull its relations up into
		// the query around it.
		body := c.query(n, sc)
		if sc != nil && c.pullable {
			sc.rels += body.rels
		}
		return 1 + body.cost
	case *pg.SubLink:
		// EXISTS and IN (x = ANY) may be pulled up into a join; a scalar,
		// ARRAY or ALL subquery is planned apart.
		was := c.pullable
		c.pullable = n.SubLinkType == pg.SubLinkType_EXISTS_SUBLINK || n.SubLinkType == pg.SubLinkType_ANY_SUBLINK
		size := 1 + c.size(n.Testexpr, sc) + c.size(n.Subselect, sc)
		c.pullable = was
		return size
	case *pg.String:
		return 0
	case *pg.A_Expr:
		// Parse analysis copies the left side of BETWEEN (twice; four
		// times for SYMMETRIC, the bounds twice) and of IN, once per
		// element that is not a constant: nested, they multiply.
		lhs, rhs := c.size(n.Lexpr, sc), c.size(n.Rexpr, sc)
		if c.flat {
			return 1 + lhs + rhs
		}
		switch n.Kind {
		case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
			c.copies |= copyBetween
			return 4 + 2*lhs + rhs
		case pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
			c.copies |= copyBetween
			return 8 + 4*lhs + 2*rhs
		case pg.A_Expr_Kind_AEXPR_IN:
			// Constants go into one array, compared once.
			k := 1.0
			for _, item := range n.Rexpr.GetList().GetItems() {
				if !pgConstant(item) {
					k++
				}
			}
			if k > 1 {
				c.copies |= copyIn
			}
			return 2*k + k*lhs + rhs
		}
		return 1 + lhs + rhs
	case *pg.A_Indirection:
		// (expr).* becomes one column per field, each with its own copy
		// of expr: as many as a ROW has arguments, a row variable's
		// columns (its size), or up to 100 for anything else.
		if k := len(n.Indirection); k > 0 && n.Indirection[k-1].GetAStar() != nil && !c.flat {
			arg := c.size(n.Arg, sc)
			c.copies |= copyRowStar
			switch {
			case n.Arg.GetRowExpr() != nil:
				return 1 + arg*float64(max(len(n.Arg.GetRowExpr().Args), 1))
			case n.Arg.GetColumnRef() != nil:
				return 1 + arg
			}
			return 1 + 100*arg
		}
	}
	size := 1.0
	children(m, func(child protoreflect.Message) bool {
		size += c.sizeOf(child, sc)
		return true
	})
	return size
}

// The planner turns each OR of a query's conditions into bitmap index
// paths, arm by arm, and combines the paths of every OR that restricts
// the same relation with those of the others, before a row is read and
// in time statement_timeout reaches late: on PostgreSQL 15, with a table
// of three indexes, 1,000 conditions x > 0 AND (y > i OR z > i) took
// 180 MB, 5,000 took 2.2 GB and answered the cancel 2 s late, and 20,000
// ran out of memory; one OR of 20,000 arms took 400 MB, and an OR of
// 2,000 arms in a join condition 50 MB. NOT (a AND b) is an OR to the
// planner. So a query may hold at most maxPostgresOrs of them and
// maxPostgresOrArms arms in all, counting those of every subquery the
// planner may pull up into it; the arms of a set operation are planned
// apart. Only arms that name a column count, and only ORs with one: the
// planner folds the others before it looks for index paths.
const (
	maxPostgresOrs    = 100
	maxPostgresOrArms = 4000
)

// pgOrLoad is the ORs a query's planning combines, and their arms.
type pgOrLoad struct{ ors, arms int }

// check refuses a query holding more ORs, or OR arms, than the
// planner's index paths are bounded for.
func (l pgOrLoad) check() *Error {
	switch {
	case l.ors > maxPostgresOrs:
		return &Error{
			Reason: fmt.Sprintf("the query combines %d OR conditions (NOT (... AND ...) and IN lists of columns count too) in one plan; the limit is %d", l.ors, maxPostgresOrs),
			Hint:   "Write fewer OR conditions: x IN (...) of constants, or x = ANY(ARRAY[...]), is one condition however many values it lists",
		}
	case l.arms > maxPostgresOrArms:
		return &Error{
			Reason: fmt.Sprintf("the query's OR conditions have %d alternatives in one plan; the limit is %d", l.arms, maxPostgresOrArms),
			Hint:   "Write fewer alternatives: x IN (...) of constants, or x = ANY(ARRAY[...]), is one condition however many values it lists",
		}
	}
	return nil
}

// pgOrWays says whether m is an OR to the planner, and updates negated
// for m's children. arms is -1 when each child of m that names a column
// is an arm, or how many arms m has: an OR is BoolExpr OR, an AND under a
// NOT (which the planner turns into an OR of NOTs), x IN (a, b, ...),
// which parse analysis turns into x = a OR x = b ... for each item that is
// not a constant, the constants being compared as one array, one arm, and
// a comparison of rows that parse analysis turns into an OR, an arm a
// field.
func pgOrWays(m protoreflect.Message, negated *bool) (or bool, arms int) {
	switch n := m.Interface().(type) {
	case *pg.BoolExpr:
		or = n.Boolop == pg.BoolExprType_OR_EXPR || n.Boolop == pg.BoolExprType_AND_EXPR && *negated
		*negated = n.Boolop == pg.BoolExprType_NOT_EXPR != *negated
		return or, -1
	case *pg.A_Expr:
		neg := *negated
		*negated = false
		if l, r := n.Lexpr.GetRowExpr(), n.Rexpr.GetRowExpr(); l != nil && r != nil {
			// (a, b) <> (c, d) is a <> c OR b <> d; so are IS DISTINCT
			// FROM, and = or IS NOT DISTINCT FROM under a NOT.
			op := ""
			if len(n.Name) > 0 {
				op = n.Name[len(n.Name)-1].GetString_().GetSval()
			}
			switch {
			case n.Kind == pg.A_Expr_Kind_AEXPR_OP && (op == "<>" || op == "=" && neg),
				n.Kind == pg.A_Expr_Kind_AEXPR_DISTINCT, n.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT && neg:
				return len(l.Args) > 1, len(l.Args)
			}
			return false, 0
		}
		if n.Kind != pg.A_Expr_Kind_AEXPR_IN {
			return false, 0
		}
		constants := 0
		for _, item := range n.Rexpr.GetList().GetItems() {
			if pgConstant(item) {
				constants = 1
			} else {
				arms++
			}
		}
		arms += constants
		return arms > 1, arms
	case *pg.Node:
	default:
		*negated = false
	}
	return false, 0
}
