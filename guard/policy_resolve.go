package guard

import (
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqlmcp/sqlmcp"
)

// The policy resolver judges a query the guard already accepted against a
// PolicyCatalog, resolving every column reference of PostgreSQL's parse
// tree as PostgreSQL's own parser does (parse_relation.c): one scope per
// query level, holding its FROM items (tables and views, subqueries,
// functions, joins with USING and NATURAL, JSON_TABLE and XMLTABLE, CTEs,
// which shadow tables of the same name), searched from the innermost level
// outward; a bare name is a column before it is a whole-row reference.
//
// What it refuses, besides any use of a relation or column the policy
// denies:
//
//   - a masked column used for anything but being returned bare (see
//     Masked), and a whole-row reference (t, t.*, row_to_json(t), t::text,
//     ROW(t.*)) to a relation with a denied or masked column;
//   - SELECT * or t.* reaching a denied column;
//   - NATURAL JOIN of a relation with a denied or masked column (the
//     columns it joins on are not written, so name them with USING or ON);
//   - an unqualified column name that does not resolve in its own query's
//     FROM, whether it would resolve in an outer query's or nowhere, or
//     when that FROM holds a function whose columns are not known: the
//     refusal must not depend on whether a denied column of that name
//     exists, so the rule is the same either way (qualify the name);
//   - EXPLAIN, whose plan names what views read;
//   - on PostgreSQL, the catalog's existence oracles: casts and typed
//     literals to the reg* types (regclass, regtype, regproc, ...) and to
//     domains over them; every function PostgresFunction.Lookup marks
//     (one with an argument or result of a reg* type, or of the catalog's
//     families, pg_*, has_* and *_description, with an oid or name
//     argument: to_regclass, pg_relation_size, pg_get_viewdef,
//     has_table_privilege, obj_description); the few that take an
//     object's name as text (pg_get_serial_sequence, pg_input_is_valid,
//     pg_input_error_info, pg_get_object_address); the families pg_stat_*
//     and pg_get_*, and pg_lock_status, whatever their arguments; and a
//     cast to the row type of a relation the policy hides, refused in the
//     words used for a type that does not exist;
//   - on PostgreSQL, a call of a function (or an operator or a type whose
//     values it makes) that the operator allowed but that is neither
//     built in nor from a vetted extension: its body may read what the
//     policy hides;
//   - a column reference the walk did not reach (a construct it does not
//     know), rather than let it through unjudged.
//
// Every refusal of a denied relation or column is worded as for one that
// does not exist. One case cannot be: an unqualified name that matches
// both an allowed and a denied column of the same query level (two joined
// tables) is refused ("qualify it"), where without the denied column it
// would have been accepted.

// CheckPolicySQL parses sql with PostgreSQL's parser and judges it against
// pol, for a query the dialect d's guard already accepted (for SQLite,
// the text as SQLite reads it: sqliteForPostgres): it returns the
// result columns that carry masked values, by position, or an *Error
// saying what was refused (worded the same for a denied relation or column
// as for one that does not exist), or a *SyntaxError when PostgreSQL's
// parser cannot read sql. For sqlmcp.SQLite, names compare
// case-insensitively and an unqualified relation is looked up with schema
// "". It is safe for concurrent use when pol is.
func CheckPolicySQL(sql string, pol PolicyCatalog, d sqlmcp.Dialect) ([]MaskedColumn, error) {
	if err := checkText(sql); err != nil {
		return nil, err
	}
	if d == sqlmcp.SQLite {
		text, ok := sqliteForPostgres(sql)
		if !ok {
			return nil, &Error{
				Reason: "the query's comments, strings or quoted names read differently in the grammar the check of masked columns uses",
				Hint:   `Write it without nested comments, dollar-quoted or E'' strings, and quote names with "double quotes"`,
			}
		}
		sql = text
	}
	stmts, err := parsePostgres(sql, 0)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, &Error{Reason: "found more than one statement", Hint: "Send exactly one statement per call"}
	}
	r := &policyResolver{pol: pol, sqlite: d == sqlmcp.SQLite}
	masked, e := r.statement(stmts[0].Stmt)
	if e != nil {
		return nil, e
	}
	return masked, nil
}

// policyResolver judges one statement against a policy.
type policyResolver struct {
	pol    PolicyCatalog
	cat    PostgresCatalog // nil off PostgreSQL: no catalog oracles to refuse
	sqlite bool
	seen   map[*pg.ColumnRef]bool // the column references resolved
	steps  int                    // name comparisons and items copied, bounded by maxPolicySteps
	width  int                    // the statement's result columns, as counted
}

// maxPolicySteps bounds the resolver's work on one statement. It finds
// names by comparing them along the columns and FROM items in scope,
// which is quick for a real query but quadratic in a made one: 20,000
// tables in one FROM, each column reference compared against all of them,
// took 3.6 s in 157 KB. The bound is about 50 ms.
const maxPolicySteps = 5_000_000

// policyTooBig is what step panics with past maxPolicySteps; statement
// recovers it as a refusal.
type policyTooBig struct{}

// step counts n steps of work, and stops the resolver once they pass the
// bound: every loop that is not linear in the statement goes through it.
func (r *policyResolver) step(n int) {
	r.steps += n
	if r.steps > maxPolicySteps {
		panic(policyTooBig{})
	}
}

// statement judges a parsed statement: a query, or EXPLAIN, which a policy
// refuses.
func (r *policyResolver) statement(n *pg.Node) (masked []MaskedColumn, err *Error) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(policyTooBig); !ok {
				panic(p)
			}
			masked, err = nil, &Error{
				Reason: "the query is too large to check against this database's policy: its names reach too many columns and tables",
				Hint:   "Join fewer tables and name fewer columns in one query, or qualify each column with its table",
			}
		}
	}()
	if n.GetExplainStmt() != nil {
		return nil, &Error{
			Reason: "EXPLAIN is not allowed on this database, whose tables and columns are restricted",
			Hint:   "Send the query itself",
		}
	}
	q := n.GetSelectStmt()
	if q == nil {
		return nil, &Error{Reason: "only a query can be checked against this database's policy", Hint: "Send one SELECT statement"}
	}
	r.seen = map[*pg.ColumnRef]bool{}
	out, e := r.query(q, nil)
	if e != nil {
		return nil, e
	}
	// Every column reference of the tree must have been resolved: one the
	// walk above did not reach stands where the resolver does not look.
	var missed *Error
	var find func(m protoreflect.Message) bool
	find = func(m protoreflect.Message) bool {
		if c, ok := m.Interface().(*pg.ColumnRef); ok && !r.seen[c] {
			missed = notUnderstood("a column reference in a place the check does not read")
			return false
		}
		children(m, find)
		return missed == nil
	}
	find(q.ProtoReflect())
	if missed != nil {
		return nil, missed
	}
	r.width = len(out)
	unknown := false
	for i, c := range out {
		switch {
		case c.unknown:
			unknown = true
		case c.acc == Masked && unknown:
			return nil, &Error{
				Reason: fmt.Sprintf("the masked column %s of %s comes after a function's columns, whose number is not known", c.origin.Column, c.origin.Table),
				Hint:   "Name the columns of the result instead of using *",
			}
		case c.acc == Masked:
			m := c.origin
			m.Position = i
			masked = append(masked, m)
		}
	}
	return masked, nil
}

// pcol is one column of a FROM item or of a query's result.
type pcol struct {
	name   string
	acc    Access
	origin MaskedColumn // the masked column it carries, when acc is Masked
	// unknown marks, in a result, where a function's columns of unknown
	// number stand (SELECT * over it); name and acc are then unset.
	unknown bool
	// hidden is a column a name reaches but * leaves out (SQLite's
	// json_each(...).json).
	hidden bool
}

// pitem is one FROM item as a column reference sees it.
type pitem struct {
	name            string // the name that qualifies its columns; "" for none
	schema, relname string // a relation named without an alias, for s.t.c
	table           bool   // a stored relation: it has system columns
	relVisible      bool   // its name qualifies columns
	colsVisible     bool   // its columns resolve unqualified names
	cols            []pcol
	opaque          bool // it may have columns cols does not list (a function's)
	restricted      bool // a column is denied or masked: its whole row is refused
}

// pscope is one query level: its FROM items and its WITH queries.
type pscope struct {
	parent *pscope
	items  []*pitem
	ctes   []*pcte
}

// pcte is a WITH query as the queries after it see it.
type pcte struct {
	name    string
	cols    []pcol
	opaque  bool
	pending bool // WITH RECURSIVE: not yet resolved
}

func (r *policyResolver) eq(a, b string) bool {
	r.step(1)
	if r.sqlite {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// query judges a query at a new level under parent and returns its result
// columns.
func (r *policyResolver) query(q *pg.SelectStmt, parent *pscope) ([]pcol, *Error) {
	if q == nil {
		return nil, notUnderstood("an empty query")
	}
	sc := &pscope{parent: parent}
	if q.WithClause != nil {
		if e := r.with(q.WithClause, sc); e != nil {
			return nil, e
		}
	}
	switch {
	case q.Op != pg.SetOperation_SETOP_NONE && q.Op != pg.SetOperation_SET_OPERATION_UNDEFINED:
		l, e := r.query(q.Larg, sc)
		if e != nil {
			return nil, e
		}
		rr, e := r.query(q.Rarg, sc)
		if e != nil {
			return nil, e
		}
		for _, c := range append(slices.Clip(l), rr...) {
			if c.acc == Masked {
				return nil, maskedError(c.origin)
			}
		}
		out := make([]pcol, len(l))
		for i, c := range l {
			out[i] = pcol{name: c.name, unknown: c.unknown}
		}
		return out, r.tail(q, &pscope{parent: sc, items: []*pitem{{colsVisible: true, cols: out}}}, out)
	case len(q.ValuesLists) > 0:
		var out []pcol
		for _, row := range q.ValuesLists {
			items := row.GetList().GetItems()
			for _, v := range items {
				if e := r.expr(v, sc); e != nil {
					return nil, e
				}
			}
			for len(out) < len(items) {
				out = append(out, pcol{name: fmt.Sprintf("column%d", len(out)+1)})
			}
		}
		return out, r.tail(q, &pscope{parent: sc, items: []*pitem{{colsVisible: true, cols: out}}}, out)
	}
	for _, f := range q.FromClause {
		items, _, e := r.fromItem(f, sc, sc.items)
		if e != nil {
			return nil, e
		}
		sc.items = append(sc.items, items...)
	}
	if e := r.expr(q.WhereClause, sc); e != nil {
		return nil, e
	}
	var out []pcol
	for _, t := range q.TargetList {
		rt := t.GetResTarget()
		if rt == nil {
			return nil, notUnderstood("a select list entry")
		}
		cols, e := r.target(rt, sc)
		if e != nil {
			return nil, e
		}
		out = append(out, cols...)
	}
	for _, g := range q.GroupClause {
		if e := r.groupItem(g, sc, out); e != nil {
			return nil, e
		}
	}
	if e := r.expr(q.HavingClause, sc); e != nil {
		return nil, e
	}
	for _, w := range q.WindowClause {
		if e := r.expr(w, sc); e != nil {
			return nil, e
		}
	}
	if len(q.DistinctClause) > 0 {
		for _, c := range out {
			if c.acc == Masked {
				return nil, maskedError(c.origin)
			}
		}
		for _, d := range q.DistinctClause {
			if d != nil && d.GetNode() != nil {
				if e := r.sortKey(d, sc, out); e != nil {
					return nil, e
				}
			}
		}
	}
	return out, r.tail(q, sc, out)
}

// tail judges ORDER BY, LIMIT and OFFSET of q, whose result is out.
func (r *policyResolver) tail(q *pg.SelectStmt, sc *pscope, out []pcol) *Error {
	for _, s := range q.SortClause {
		sb := s.GetSortBy()
		if sb == nil {
			return notUnderstood("an ORDER BY entry")
		}
		if e := r.sortKey(sb.Node, sc, out); e != nil {
			return e
		}
		for _, op := range sb.UseOp {
			if e := r.expr(op, sc); e != nil {
				return e
			}
		}
	}
	if e := r.expr(q.LimitCount, sc); e != nil {
		return e
	}
	if e := r.expr(q.LimitOffset, sc); e != nil {
		return e
	}
	for _, l := range q.LockingClause {
		if e := r.expr(l, sc); e != nil {
			return e
		}
	}
	return nil
}

// sortKey judges an ORDER BY or DISTINCT ON key: a result column's
// position or name (which PostgreSQL tries first), or an expression.
func (r *policyResolver) sortKey(n *pg.Node, sc *pscope, out []pcol) *Error {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		i := int(c.GetIval().Ival) - 1
		if i >= 0 && i < len(out) && out[i].acc == Masked {
			return maskedError(out[i].origin)
		}
		// After a function's columns of unknown number, a position may
		// reach any column.
		before := out[:min(max(i, 0), len(out))]
		r.step(len(before))
		if slices.ContainsFunc(before, func(c pcol) bool { return c.unknown }) {
			r.step(len(out))
			for _, c := range out {
				if c.acc == Masked {
					return maskedError(c.origin)
				}
			}
		}
		return nil
	}
	key := n
	if r.sqlite {
		key = sqliteSortTerm(n)
	}
	if name, ok := bareName(key); ok {
		r.seen[key.GetColumnRef()] = true
		found := false
		r.step(len(out))
		for _, c := range out {
			if !c.unknown && r.eq(c.name, name) {
				if c.acc == Masked {
					return maskedError(c.origin)
				}
				found = true
			}
		}
		if found {
			return nil
		}
	}
	return r.expr(n, sc)
}

// sqliteSortTerm is an ORDER BY term as SQLite matches it against the
// result's names: without COLLATE and the likely(), unlikely() and
// likelihood() around it, so that ORDER BY x COLLATE NOCASE sorts by the
// result column x when there is one.
func sqliteSortTerm(n *pg.Node) *pg.Node {
	for n != nil {
		if c := n.GetCollateClause(); c != nil {
			n = c.Arg
			continue
		}
		if f := n.GetFuncCall(); f != nil && len(f.Args) > 0 && len(f.Funcname) == 1 {
			switch strings.ToLower(f.Funcname[0].GetString_().GetSval()) {
			case "likely", "unlikely", "likelihood":
				n = f.Args[0]
				continue
			}
		}
		return n
	}
	return n
}

// groupItem judges a GROUP BY entry: an input column first, as PostgreSQL
// tries, then a result column's name or position, or an expression.
func (r *policyResolver) groupItem(n *pg.Node, sc *pscope, out []pcol) *Error {
	if gs := n.GetGroupingSet(); gs != nil {
		for _, c := range gs.Content {
			if e := r.groupItem(c, sc, out); e != nil {
				return e
			}
		}
		return nil
	}
	if name, ok := bareName(n); ok && !r.inputHas(sc, name) {
		return r.sortKey(n, sc, out)
	}
	if n.GetAConst() != nil {
		return r.sortKey(n, sc, out)
	}
	return r.expr(n, sc)
}

// inputHas reports whether a column named name, of any access, is one an
// unqualified reference at sc's level can reach.
func (r *policyResolver) inputHas(sc *pscope, name string) bool {
	r.step(len(sc.items))
	for _, it := range sc.items {
		if !it.colsVisible {
			continue
		}
		if it.opaque {
			return true
		}
		r.step(len(it.cols))
		for _, c := range it.cols {
			if r.eq(c.name, name) {
				return true
			}
		}
	}
	return false
}

// bareName returns the name of a ColumnRef of one field.
func bareName(n *pg.Node) (string, bool) {
	c := n.GetColumnRef()
	if c == nil || len(c.Fields) != 1 || c.Fields[0].GetString_() == nil {
		return "", false
	}
	return c.Fields[0].GetString_().Sval, true
}

// with registers the WITH queries of a query level, judging each.
func (r *policyResolver) with(w *pg.WithClause, sc *pscope) *Error {
	if w.Recursive {
		for _, n := range w.Ctes {
			if c := n.GetCommonTableExpr(); c != nil {
				sc.ctes = append(sc.ctes, &pcte{name: c.Ctename, pending: true})
			}
		}
	}
	for _, n := range w.Ctes {
		c := n.GetCommonTableExpr()
		if c == nil {
			return notUnderstood("a WITH entry")
		}
		q := c.Ctequery.GetSelectStmt()
		if q == nil {
			return notUnderstood("a WITH query that is not a SELECT")
		}
		var entry *pcte
		if w.Recursive {
			for _, e := range sc.ctes {
				if e.name == c.Ctename && e.pending {
					entry = e
					break
				}
			}
		}
		if entry == nil {
			entry = &pcte{name: c.Ctename}
		}
		if w.Recursive && q.Op != pg.SetOperation_SETOP_NONE && q.Larg != nil {
			// The non-recursive arm defines the columns the recursive
			// arm reads.
			l, e := r.query(q.Larg, sc)
			if e != nil {
				return e
			}
			entry.cols, entry.opaque = renamePcols(l, c.Aliascolnames)
			entry.pending = false
		}
		out, e := r.query(q, sc)
		if e != nil {
			return e
		}
		cols, opaque := renamePcols(out, c.Aliascolnames)
		if s := c.SearchClause; s != nil {
			if e := r.cteColumns(s.SearchColList, cols); e != nil {
				return e
			}
			cols = append(cols, pcol{name: s.SearchSeqColumn})
		}
		if y := c.CycleClause; y != nil {
			if e := r.cteColumns(y.CycleColList, cols); e != nil {
				return e
			}
			cols = append(cols, pcol{name: y.CycleMarkColumn}, pcol{name: y.CyclePathColumn})
		}
		entry.cols, entry.opaque, entry.pending = cols, opaque, false
		if !w.Recursive {
			sc.ctes = append(sc.ctes, entry)
		}
	}
	return nil
}

// cteColumns judges the columns a SEARCH or CYCLE clause orders or
// compares by: none may be masked.
func (r *policyResolver) cteColumns(names []*pg.Node, cols []pcol) *Error {
	for _, n := range names {
		name := n.GetString_().GetSval()
		for _, c := range cols {
			if r.eq(c.name, name) && c.acc == Masked {
				return maskedError(c.origin)
			}
		}
	}
	return nil
}

// renamePcols applies an alias's column names to a query's result columns,
// dropping what follows a function's columns of unknown number, whose
// names the alias may change.
func renamePcols(out []pcol, names []*pg.Node) (cols []pcol, opaque bool) {
	for _, c := range out {
		if c.unknown {
			opaque = true
			break
		}
		cols = append(cols, c)
	}
	for i, n := range names {
		if i < len(cols) {
			cols[i].name = n.GetString_().GetSval()
		} else if opaque {
			cols = append(cols, pcol{name: n.GetString_().GetSval()})
		}
	}
	return cols, opaque
}

// findCTE returns the WITH query an unqualified relation name reaches.
func (r *policyResolver) findCTE(sc *pscope, name string) *pcte {
	for s := sc; s != nil; s = s.parent {
		for i := len(s.ctes) - 1; i >= 0; i-- {
			if r.eq(s.ctes[i].name, name) {
				return s.ctes[i]
			}
		}
	}
	return nil
}

// fromItem resolves one FROM item under sc, whose items before it are
// left (visible to LATERAL and to functions). It returns the items it adds
// to the level and the columns it shows as a whole.
func (r *policyResolver) fromItem(n *pg.Node, sc *pscope, left []*pitem) ([]*pitem, *pitem, *Error) {
	lat := &pscope{parent: sc.parent, ctes: sc.ctes, items: left}
	plain := &pscope{parent: sc.parent, ctes: sc.ctes}
	switch f := n.GetNode().(type) {
	case *pg.Node_RangeVar:
		it, e := r.relation(f.RangeVar, sc)
		if e != nil {
			return nil, nil, e
		}
		return []*pitem{it}, it, nil
	case *pg.Node_RangeSubselect:
		q := f.RangeSubselect.Subquery.GetSelectStmt()
		if q == nil {
			return nil, nil, notUnderstood("a subquery in FROM")
		}
		under := plain
		if f.RangeSubselect.Lateral {
			under = lat
		}
		out, e := r.query(q, under)
		if e != nil {
			return nil, nil, e
		}
		it := &pitem{colsVisible: true}
		var names []*pg.Node
		if a := f.RangeSubselect.Alias; a != nil {
			it.name, it.relVisible, names = a.Aliasname, true, a.Colnames
		}
		it.cols, it.opaque = renamePcols(out, names)
		if it.opaque {
			for _, c := range out {
				if c.acc == Masked {
					return nil, nil, &Error{
						Reason: fmt.Sprintf("the subquery returns the masked column %s of %s beside a function's columns, whose number is not known", c.origin.Column, c.origin.Table),
						Hint:   "Name the subquery's columns instead of using *",
					}
				}
			}
		}
		it.restricted = anyRestricted(it.cols)
		return []*pitem{it}, it, nil
	case *pg.Node_RangeFunction:
		it, e := r.function(f.RangeFunction, lat)
		if e != nil {
			return nil, nil, e
		}
		return []*pitem{it}, it, nil
	case *pg.Node_RangeTableFunc:
		t := f.RangeTableFunc
		for _, x := range []*pg.Node{t.Docexpr, t.Rowexpr} {
			if e := r.expr(x, lat); e != nil {
				return nil, nil, e
			}
		}
		for _, x := range t.Namespaces {
			if e := r.expr(x, lat); e != nil {
				return nil, nil, e
			}
		}
		it := &pitem{colsVisible: true}
		for _, x := range t.Columns {
			c := x.GetRangeTableFuncCol()
			if c == nil {
				return nil, nil, notUnderstood("an XMLTABLE column")
			}
			for _, y := range []*pg.Node{c.Colexpr, c.Coldefexpr} {
				if e := r.expr(y, lat); e != nil {
					return nil, nil, e
				}
			}
			if e := r.typeName(c.TypeName); e != nil {
				return nil, nil, e
			}
			it.cols = append(it.cols, pcol{name: c.Colname})
		}
		r.alias(it, t.Alias, "xmltable")
		return []*pitem{it}, it, nil
	case *pg.Node_JsonTable:
		t := f.JsonTable
		if t.ContextItem != nil {
			if e := r.expr(t.ContextItem.RawExpr, lat); e != nil {
				return nil, nil, e
			}
		}
		for _, x := range t.Passing {
			if e := r.expr(x, lat); e != nil {
				return nil, nil, e
			}
		}
		it := &pitem{colsVisible: true}
		if e := r.jsonColumns(t.Columns, lat, it); e != nil {
			return nil, nil, e
		}
		if e := r.expr(pgNode(t.OnError), lat); e != nil {
			return nil, nil, e
		}
		r.alias(it, t.Alias, "json_table")
		return []*pitem{it}, it, nil
	case *pg.Node_RangeTableSample:
		t := f.RangeTableSample
		for _, x := range append(slices.Clip(t.Args), t.Repeatable) {
			if e := r.expr(x, plain); e != nil {
				return nil, nil, e
			}
		}
		rv := t.Relation.GetRangeVar()
		if rv == nil {
			return nil, nil, notUnderstood("TABLESAMPLE of something that is not a table")
		}
		it, e := r.relation(rv, sc)
		if e != nil {
			return nil, nil, e
		}
		return []*pitem{it}, it, nil
	case *pg.Node_JoinExpr:
		return r.join(f.JoinExpr, sc, left)
	}
	return nil, nil, notUnderstood("a FROM item")
}

// pgNode wraps a JsonBehavior, or nil, as a node for expr.
func pgNode(b *pg.JsonBehavior) *pg.Node {
	if b == nil {
		return nil
	}
	return &pg.Node{Node: &pg.Node_JsonBehavior{JsonBehavior: b}}
}

// jsonColumns adds JSON_TABLE's columns, nested ones too, to it.
func (r *policyResolver) jsonColumns(cols []*pg.Node, lat *pscope, it *pitem) *Error {
	for _, x := range cols {
		c := x.GetJsonTableColumn()
		if c == nil {
			return notUnderstood("a JSON_TABLE column")
		}
		if c.Coltype == pg.JsonTableColumnType_JTC_NESTED {
			if e := r.jsonColumns(c.Columns, lat, it); e != nil {
				return e
			}
			continue
		}
		if e := r.typeName(c.TypeName); e != nil {
			return e
		}
		for _, b := range []*pg.JsonBehavior{c.OnEmpty, c.OnError} {
			if e := r.expr(pgNode(b), lat); e != nil {
				return e
			}
		}
		it.cols = append(it.cols, pcol{name: c.Name})
	}
	return nil
}

// alias names a FROM item that is not a relation by its alias, renaming
// its columns; without one, PostgreSQL names it by what it is.
func (r *policyResolver) alias(it *pitem, a *pg.Alias, def string) {
	it.name, it.relVisible = def, true
	if a == nil {
		return
	}
	it.name = a.Aliasname
	it.cols, _ = renamePcols(it.cols, a.Colnames)
}

// relation resolves a table, view or WITH query named in FROM.
func (r *policyResolver) relation(rv *pg.RangeVar, sc *pscope) (*pitem, *Error) {
	it := &pitem{relVisible: true, colsVisible: true}
	var names []*pg.Node
	if rv.Alias != nil {
		it.name, names = rv.Alias.Aliasname, rv.Alias.Colnames
	}
	if rv.Schemaname == "" && rv.Catalogname == "" {
		if c := r.findCTE(sc, rv.Relname); c != nil {
			if c.pending {
				return nil, &Error{
					Reason: "the WITH query " + rv.Relname + " is used before it is defined",
					Hint:   "Define each WITH query before the queries that read it",
				}
			}
			if it.name == "" {
				it.name = c.name
			}
			it.cols, it.opaque = renamePcols(c.cols, names)
			it.opaque = it.opaque || c.opaque
			it.restricted = anyRestricted(it.cols)
			return it, nil
		}
	}
	rel, ok := r.pol.Relation(rv.Schemaname, rv.Relname)
	if !ok {
		return nil, noTable(qualified(rv.Schemaname, rv.Relname))
	}
	if it.name == "" {
		it.name, it.schema, it.relname = rel.Name, rel.Schema, rel.Name
	}
	it.table = true
	if len(names) > 0 && slices.ContainsFunc(rel.Columns, func(c PolicyColumn) bool { return c.Access == Denied }) {
		// The list renames columns by position, and positions count the
		// denied columns: how many names fit, and which one lands on a
		// denied column, would tell where they are.
		name := qualified(rv.Schemaname, rv.Relname)
		return nil, &Error{
			Reason: fmt.Sprintf("a list of column names after %s would count columns of it that you may not read", name),
			Hint:   fmt.Sprintf("Rename the columns in the SELECT list instead (SELECT %s AS a FROM %s)", readableColumn(rel), name),
		}
	}
	for _, c := range rel.Columns {
		pc := pcol{name: c.Name, acc: c.Access}
		if c.Access == Masked {
			pc.origin = MaskedColumn{Schema: rel.Schema, Table: rel.Name, Column: c.Name}
		}
		it.cols = append(it.cols, pc)
	}
	it.cols, _ = renamePcols(it.cols, names)
	it.restricted = anyRestricted(it.cols)
	return it, nil
}

// readableColumn is the first column of rel that is not Denied, for a hint.
func readableColumn(rel PolicyRelation) string {
	for _, c := range rel.Columns {
		if c.Access != Denied {
			return c.Name
		}
	}
	return "col"
}

func qualified(schema, name string) string {
	if schema == "" {
		return name
	}
	return schema + "." + name
}

func anyRestricted(cols []pcol) bool {
	for _, c := range cols {
		if c.acc != Allowed {
			return true
		}
	}
	return false
}

// tableFunctions are the built-in set-returning functions whose columns
// the resolver knows on PostgreSQL: nil for one column named after the
// alias or the function.
var tableFunctions = map[string][]string{
	"generate_series": nil, "generate_subscripts": nil, "regexp_matches": nil, "regexp_split_to_table": nil,
	"string_to_table": nil, "json_array_elements": nil, "json_array_elements_text": nil,
	"jsonb_array_elements": nil, "jsonb_array_elements_text": nil, "json_object_keys": nil,
	"jsonb_object_keys": nil, "jsonb_path_query": nil,
	"json_each": {"key", "value"}, "json_each_text": {"key", "value"},
	"jsonb_each": {"key", "value"}, "jsonb_each_text": {"key", "value"},
}

// sqliteTableFunctions are SQLite's json1 table-valued functions'
// columns; json and root, after them, are hidden (see sqliteHidden).
var sqliteTableFunctions = map[string][]string{
	"json_each":  {"key", "value", "type", "atom", "id", "parent", "fullkey", "path"},
	"json_tree":  {"key", "value", "type", "atom", "id", "parent", "fullkey", "path"},
	"jsonb_each": {"key", "value", "type", "atom", "id", "parent", "fullkey", "path"},
	"jsonb_tree": {"key", "value", "type", "atom", "id", "parent", "fullkey", "path"},
}

// sqliteHidden are the hidden columns of SQLite's json1 table-valued
// functions: a name reaches them, * does not.
var sqliteHidden = []string{"json", "root"}

// function resolves a function in FROM (ROWS FROM too): its arguments are
// judged at the level of the FROM (they may read the items before it), and
// its columns are its column definition list's, the alias's, or known for
// a few built-in functions; otherwise the item is opaque.
func (r *policyResolver) function(f *pg.RangeFunction, lat *pscope) (*pitem, *Error) {
	it := &pitem{relVisible: true, colsVisible: true}
	var known []pcol
	single := len(f.Functions) == 1 && !f.IsRowsfrom
	for _, fn := range f.Functions {
		parts := fn.GetList().GetItems()
		if len(parts) == 0 {
			return nil, notUnderstood("a function in FROM")
		}
		if e := r.expr(parts[0], lat); e != nil {
			return nil, e
		}
		defs := f.Coldeflist
		if len(parts) > 1 && parts[1] != nil {
			defs = parts[1].GetList().GetItems()
		}
		if it.opaque {
			continue // what follows stands at positions not known
		}
		if len(defs) > 0 {
			for _, d := range defs {
				cd := d.GetColumnDef()
				if cd == nil {
					return nil, notUnderstood("a column definition list")
				}
				if e := r.typeName(cd.TypeName); e != nil {
					return nil, e
				}
				known = append(known, pcol{name: cd.Colname})
			}
			continue
		}
		call := parts[0].GetFuncCall()
		name := ""
		if call != nil {
			var schema string
			schema, name = qualifiedName(call.Funcname)
			if schema != "" && schema != "pg_catalog" {
				name = ""
			}
		}
		cols, ok := r.knownFunction(name, call)
		switch {
		case !ok:
			it.opaque = true
		case cols == nil:
			col := name
			if single && f.Alias != nil {
				col = f.Alias.Aliasname
			}
			known = append(known, pcol{name: col})
		default:
			for _, c := range cols {
				known = append(known, pcol{name: c})
			}
			if r.sqlite {
				for _, c := range sqliteHidden {
					known = append(known, pcol{name: c, hidden: true})
				}
			}
		}
	}
	if f.Ordinality && !it.opaque {
		known = append(known, pcol{name: "ordinality"})
	}
	it.cols = known
	it.name = ""
	if len(f.Functions) > 0 {
		if call := f.Functions[0].GetList().GetItems()[0].GetFuncCall(); call != nil {
			_, it.name = qualifiedName(call.Funcname)
		}
	}
	if f.Alias != nil {
		it.name = f.Alias.Aliasname
		cols, _ := renamePcols(known, f.Alias.Colnames)
		if it.opaque {
			cols, _ = renamePcols(append(known, pcol{unknown: true}), f.Alias.Colnames)
		}
		it.cols = cols
	}
	return it, nil
}

// knownFunction returns the columns of a function in FROM the resolver
// knows: ok false when it does not, cols nil for one column.
func (r *policyResolver) knownFunction(name string, call *pg.FuncCall) (cols []string, ok bool) {
	if name == "" || call == nil {
		return nil, false
	}
	lower := strings.ToLower(name)
	if r.sqlite {
		cols, ok = sqliteTableFunctions[lower]
		return cols, ok
	}
	if lower == "unnest" && len(call.Args) == 1 {
		return nil, true
	}
	cols, ok = tableFunctions[lower]
	if ok && r.cat != nil {
		// A function of that name outside pg_catalog may be the one the
		// search path reaches.
		for _, f := range r.cat.Functions("", name) {
			if f.Schema != "pg_catalog" {
				return nil, false
			}
		}
	}
	return cols, ok
}

// join resolves a JOIN: its two sides, USING and NATURAL, its ON clause,
// and the items a reference outside it sees.
func (r *policyResolver) join(j *pg.JoinExpr, sc *pscope, left []*pitem) ([]*pitem, *pitem, *Error) {
	litems, lshow, e := r.fromItem(j.Larg, sc, left)
	if e != nil {
		return nil, nil, e
	}
	r.step(len(left) + len(litems))
	ritems, rshow, e := r.fromItem(j.Rarg, sc, append(slices.Clip(left), litems...))
	if e != nil {
		return nil, nil, e
	}
	var using []string
	for _, u := range j.UsingClause {
		using = append(using, u.GetString_().GetSval())
	}
	if j.IsNatural {
		if lshow.opaque || rshow.opaque || lshow.restricted || rshow.restricted {
			return nil, nil, &Error{
				Reason: "NATURAL JOIN cannot be checked against this database's policy",
				Hint:   "Name the columns to join on: JOIN ... USING (col) or JOIN ... ON a.col = b.col",
			}
		}
		for _, lc := range lshow.cols {
			for _, rc := range rshow.cols {
				if r.eq(lc.name, rc.name) && !slices.Contains(using, lc.name) {
					using = append(using, lc.name)
				}
			}
		}
	}
	jit := &pitem{colsVisible: true, opaque: lshow.opaque || rshow.opaque}
	inUsing := func(name string) bool {
		return slices.ContainsFunc(using, func(u string) bool { return r.eq(u, name) })
	}
	for _, u := range using {
		for _, side := range []*pitem{lshow, rshow} {
			c, found := r.column(side, u)
			switch {
			case !found && !side.opaque:
				return nil, nil, noColumn(u, side)
			case found && c.acc == Denied:
				return nil, nil, noColumn(u, side)
			case found && c.acc == Masked:
				return nil, nil, maskedError(c.origin)
			}
		}
		if !r.sqlite {
			jit.cols = append(jit.cols, pcol{name: u})
		}
	}
	// PostgreSQL puts the merged columns first, then each side's others;
	// SQLite keeps the left side's columns where they stand and leaves the
	// merged ones out of the right side's.
	for i, side := range []*pitem{lshow, rshow} {
		for _, c := range side.cols {
			if !inUsing(c.name) || r.sqlite && i == 0 {
				jit.cols = append(jit.cols, c)
			}
		}
	}
	jit.restricted = lshow.restricted || rshow.restricted
	if j.Quals != nil {
		// ON sees the two sides, not the join's merged columns.
		on := &pscope{parent: sc.parent, ctes: sc.ctes, items: append(slices.Clip(litems), ritems...)}
		if e := r.expr(j.Quals, on); e != nil {
			return nil, nil, e
		}
	}
	if j.Alias != nil {
		jit.name, jit.relVisible = j.Alias.Aliasname, true
		jit.cols, _ = renamePcols(jit.cols, j.Alias.Colnames)
		return []*pitem{jit}, jit, nil
	}
	var items []*pitem
	for _, it := range append(slices.Clip(litems), ritems...) {
		hidden := *it
		hidden.colsVisible = false
		items = append(items, &hidden)
	}
	if a := j.JoinUsingAlias; a != nil {
		ua := &pitem{name: a.Aliasname, relVisible: true}
		for _, u := range using {
			ua.cols = append(ua.cols, pcol{name: u})
		}
		items = append(items, ua)
	}
	return append(items, jit), jit, nil
}

// column finds a column of it by name.
func (r *policyResolver) column(it *pitem, name string) (pcol, bool) {
	r.step(1)
	for _, c := range it.cols {
		if r.eq(c.name, name) {
			return c, true
		}
	}
	return pcol{}, false
}

// systemColumn reports whether name is a system column of a stored
// relation: PostgreSQL's ctid, xmin and the rest, SQLite's rowid.
func (r *policyResolver) systemColumn(it *pitem, name string) bool {
	if !it.table {
		return false
	}
	if r.sqlite {
		switch strings.ToLower(name) {
		case "rowid", "oid", "_rowid_":
			return true
		}
		return false
	}
	switch name {
	case "ctid", "xmin", "xmax", "cmin", "cmax", "tableoid":
		return true
	}
	return false
}

// target judges one entry of a select list and returns the result columns
// it makes: a bare column keeps its access (a masked one is returned as it
// is), * and t.* expand, anything else is an expression.
func (r *policyResolver) target(rt *pg.ResTarget, sc *pscope) ([]pcol, *Error) {
	if c := rt.Val.GetColumnRef(); c != nil {
		if isStar(c) {
			r.seen[c] = true
			return r.expand(c.Fields[:len(c.Fields)-1], sc)
		}
		res, e := r.resolve(c, sc)
		if e != nil {
			return nil, e
		}
		if res.item != nil {
			if e := wholeRow(res.item); e != nil {
				return nil, e
			}
			return []pcol{{name: pick(rt.Name, res.item.name)}}, nil
		}
		col := res.col
		col.name, col.hidden = pick(rt.Name, col.name), false
		return []pcol{col}, nil
	}
	if ind := rt.Val.GetAIndirection(); ind != nil {
		if ref := ind.Arg.GetColumnRef(); ref != nil && !isStar(ref) && len(ind.Indirection) == 1 {
			res, e := r.resolve(ref, sc)
			if e != nil {
				return nil, e
			}
			if res.item != nil {
				switch x := ind.Indirection[0].GetNode().(type) {
				case *pg.Node_String_: // (t).c
					col, e := r.qualifiedColumn(res.item, x.String_.Sval)
					if e != nil {
						return nil, e
					}
					col.name, col.hidden = pick(rt.Name, col.name), false
					return []pcol{col}, nil
				case *pg.Node_AStar: // (t).*
					return r.starOf(res.item, "("+res.item.name+").*")
				}
			}
		}
	}
	if sl := rt.Val.GetSubLink(); sl != nil && sl.SubLinkType == pg.SubLinkType_EXPR_SUBLINK {
		out, e := r.query(sl.Subselect.GetSelectStmt(), sc)
		if e != nil {
			return nil, e
		}
		if len(out) == 1 && !out[0].unknown {
			col := out[0]
			col.name = pick(rt.Name, col.name)
			return []pcol{col}, nil
		}
		for _, c := range out {
			if c.acc == Masked {
				return nil, maskedError(c.origin)
			}
		}
		return []pcol{{name: rt.Name}}, nil
	}
	if e := r.expr(rt.Val, sc); e != nil {
		return nil, e
	}
	return []pcol{{name: pick(rt.Name, r.figureName(rt.Val, sc))}}, nil
}

func pick(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// figureName names an expression's result column as the engine will, for
// the cases a later reference is likely to name; "" (which no reference
// can name) for the rest. A wrong name would bind a later reference to
// another column than the engine's, so where unsure it is "".
func (r *policyResolver) figureName(n *pg.Node, sc *pscope) string {
	if r.sqlite {
		// SQLite names a column reference by the column, and anything
		// else by its text as written ("CAST(1 AS salary)").
		if c := n.GetColumnRef(); c != nil && len(c.Fields) > 0 {
			return c.Fields[len(c.Fields)-1].GetString_().GetSval()
		}
		return ""
	}
	name, _ := figureColname(n)
	return name
}

// figureColname is PostgreSQL's FigureColnameInternal for the nodes it
// names: the name and its strength (2: from the expression itself, 1: a
// fallback a cast overrides with its type's name, 0: none).
func figureColname(n *pg.Node) (string, int) {
	switch x := n.GetNode().(type) {
	case *pg.Node_ColumnRef:
		if k := len(x.ColumnRef.Fields); k > 0 {
			if s := x.ColumnRef.Fields[k-1].GetString_(); s != nil {
				return s.Sval, 2
			}
		}
	case *pg.Node_FuncCall:
		_, name := qualifiedName(x.FuncCall.Funcname)
		return name, 2
	case *pg.Node_TypeCast:
		name, strength := figureColname(x.TypeCast.Arg)
		if strength <= 1 && x.TypeCast.TypeName != nil {
			if names := x.TypeCast.TypeName.Names; len(names) > 0 {
				return names[len(names)-1].GetString_().GetSval(), 1
			}
		}
		return name, strength
	case *pg.Node_CaseExpr:
		return "case", 1
	case *pg.Node_CoalesceExpr:
		return "coalesce", 2
	}
	return "", 0
}

func isStar(c *pg.ColumnRef) bool {
	k := len(c.Fields)
	return k > 0 && c.Fields[k-1].GetAStar() != nil
}

// expand expands * (qual empty) or qual.* in a select list.
func (r *policyResolver) expand(qual []*pg.Node, sc *pscope) ([]pcol, *Error) {
	if len(qual) == 0 {
		var out []pcol
		r.step(len(sc.items))
		for _, it := range sc.items {
			if !it.colsVisible {
				continue
			}
			cols, e := r.starOf(it, "*")
			if e != nil {
				return nil, e
			}
			out = append(out, cols...)
		}
		if len(out) == 0 {
			return nil, &Error{Reason: "SELECT * with no table in FROM", Hint: "Name the values to return"}
		}
		return out, nil
	}
	it, e := r.findItem(qual, sc)
	if e != nil {
		return nil, e
	}
	return r.starOf(it, it.name+".*")
}

// starOf is an item's columns as * expands them: refused when one is
// denied. star is how the query wrote it, for the message.
func (r *policyResolver) starOf(it *pitem, star string) ([]pcol, *Error) {
	var out []pcol
	r.step(len(it.cols))
	for _, c := range it.cols {
		if c.hidden {
			continue
		}
		if c.acc == Denied {
			name := it.name
			if name == "" {
				name = "the join"
			}
			return nil, &Error{
				Reason: fmt.Sprintf("%s would read columns of %s that you may not read", star, name),
				Hint:   "Name the columns instead: " + readable(it),
			}
		}
		out = append(out, c)
	}
	if it.opaque {
		out = append(out, pcol{unknown: true})
	}
	return out, nil
}

// readable lists an item's columns a query may name.
func readable(it *pitem) string {
	var names []string
	for _, c := range it.cols {
		if c.acc != Denied {
			names = append(names, c.name)
		}
	}
	if len(names) > 40 {
		names = append(names[:40], "...")
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// wholeRow judges a whole-row reference to it.
func wholeRow(it *pitem) *Error {
	if !it.restricted {
		return nil
	}
	name := it.name
	if name == "" {
		name = "the join"
	}
	return &Error{
		Reason: fmt.Sprintf("the whole row of %s (%s, %s.*, row_to_json(%s) and the like) holds columns that cannot be used this way", name, name, name, name),
		Hint:   "Name the columns instead: " + readable(it),
	}
}

// resolved is what a column reference reaches: a column, or the whole row
// of an item.
type resolved struct {
	col  pcol
	item *pitem
}

// findItem finds the item a qualifier (t, s.t or db.s.t) names, from the
// innermost level outward.
func (r *policyResolver) findItem(qual []*pg.Node, sc *pscope) (*pitem, *Error) {
	var parts []string
	for _, q := range qual {
		s := q.GetString_()
		if s == nil {
			return nil, notUnderstood("a qualified name")
		}
		parts = append(parts, s.Sval)
	}
	if len(parts) > 3 {
		return nil, notUnderstood("a name of more than four parts")
	}
	name := parts[len(parts)-1]
	schema := ""
	if len(parts) >= 2 {
		schema = parts[len(parts)-2]
	}
	for s := sc; s != nil; s = s.parent {
		r.step(len(s.items))
		for _, it := range s.items {
			if !it.relVisible {
				continue
			}
			if schema == "" && r.eq(it.name, name) {
				return it, nil
			}
			if schema != "" && it.relname != "" && r.eq(it.relname, name) && r.eq(it.schema, schema) {
				return it, nil
			}
		}
	}
	return nil, &Error{
		Reason: fmt.Sprintf("no table or alias named %s in the query's FROM", strings.Join(parts, ".")),
		Hint:   "Qualify columns with a table or alias that the FROM clause names",
	}
}

// qualifiedColumn resolves t.c once t is found.
func (r *policyResolver) qualifiedColumn(it *pitem, name string) (pcol, *Error) {
	c, found := r.column(it, name)
	switch {
	case found && c.acc != Denied:
		return c, nil
	case found:
		return pcol{}, noColumn(name, it)
	case r.systemColumn(it, name), it.opaque:
		return pcol{name: name}, nil
	}
	return pcol{}, noColumn(name, it)
}

// resolve resolves a column reference that is not a star, as PostgreSQL
// does (see the rules at the top of the file).
func (r *policyResolver) resolve(c *pg.ColumnRef, sc *pscope) (resolved, *Error) {
	r.seen[c] = true
	if len(c.Fields) == 0 {
		return resolved{}, notUnderstood("an empty column reference")
	}
	last := c.Fields[len(c.Fields)-1].GetString_()
	if last == nil {
		return resolved{}, notUnderstood("a column reference")
	}
	if len(c.Fields) > 1 {
		it, e := r.findItem(c.Fields[:len(c.Fields)-1], sc)
		if e != nil {
			return resolved{}, e
		}
		col, e := r.qualifiedColumn(it, last.Sval)
		return resolved{col: col}, e
	}
	name := last.Sval
	// The current level: PostgreSQL binds the name to the first level
	// that has a column of that name.
	var match *pcol
	denied, opaque := false, false
	r.step(len(sc.items))
	for _, it := range sc.items {
		if !it.colsVisible {
			continue
		}
		opaque = opaque || it.opaque
		c, found := r.column(it, name)
		if !found && r.systemColumn(it, name) {
			c, found = pcol{name: name}, true
		}
		switch {
		case !found:
		case c.acc == Denied:
			denied = true
		case match == nil || c.acc == Masked:
			cc := c
			match = &cc
		}
	}
	switch {
	case match != nil && denied:
		return resolved{}, &Error{
			Reason: "the column " + name + " cannot be resolved for certain here",
			Hint:   "Qualify it with its table or alias (t." + name + ")",
		}
	case match != nil:
		return resolved{col: *match}, nil
	case opaque:
		return resolved{}, &Error{
			Reason: "the column " + name + " may be a column of a function in FROM whose columns are not known",
			Hint:   "Qualify it with the function's alias (f." + name + "), or give the function a column list: FROM f(...) AS f(" + name + " type, ...)",
		}
	}
	// Not a column of this level: whatever an outer level holds, the
	// refusal is the same, so that it never tells a denied column from
	// none.
	outer := false
	for s := sc.parent; s != nil && !outer; s = s.parent {
		r.step(len(s.items))
		for _, it := range s.items {
			if it.colsVisible && it.opaque {
				outer = true
			}
			if c, found := r.column(it, name); it.colsVisible && found && c.acc != Denied {
				outer = true
			}
		}
	}
	if outer {
		return resolved{}, &Error{
			Reason: "the column " + name + " is not a column of its own query's FROM",
			Hint:   "Qualify a column of an outer query with its table or alias (t." + name + ")",
		}
	}
	// A bare name that is no column may be a whole-row reference, unless
	// PostgreSQL, which tries columns at every level first, would bind it
	// to a denied column of an outer level.
	for s := sc.parent; s != nil && !denied; s = s.parent {
		r.step(len(s.items))
		for _, it := range s.items {
			if c, found := r.column(it, name); it.colsVisible && found && c.acc == Denied {
				denied = true
			}
		}
	}
	for s := sc; s != nil; s = s.parent {
		r.step(len(s.items))
		for _, it := range s.items {
			if it.relVisible && r.eq(it.name, name) {
				if denied {
					return resolved{}, &Error{
						Reason: "the name " + name + " cannot be resolved for certain here",
						Hint:   "Name the columns of " + name + " instead",
					}
				}
				return resolved{item: it}, nil
			}
		}
	}
	var names []string
	r.step(len(sc.items))
	for _, it := range sc.items {
		if it.colsVisible {
			r.step(len(it.cols))
			for _, c := range it.cols {
				if c.acc != Denied {
					names = append(names, c.name)
				}
			}
		}
	}
	hint := "Check the spelling; describe_table shows the columns you may read"
	if len(names) > 0 {
		if len(names) > 40 {
			names = append(names[:40], "...")
		}
		hint = "The columns you may read here: " + strings.Join(names, ", ")
	}
	return resolved{}, &Error{Reason: "no column named " + name + " that you may read", Hint: hint}
}

// expr judges an expression at the level sc: every column it reads must
// be allowed (a masked one is refused, since an expression computes on
// it), every whole-row reference unrestricted, every subquery resolved.
func (r *policyResolver) expr(n *pg.Node, sc *pscope) *Error {
	if n == nil || n.GetNode() == nil {
		return nil
	}
	return r.walkExpr(n.ProtoReflect(), sc)
}

func (r *policyResolver) walkExpr(m protoreflect.Message, sc *pscope) *Error {
	switch x := m.Interface().(type) {
	case *pg.ColumnRef:
		if isStar(x) {
			r.seen[x] = true
			if len(x.Fields) == 1 {
				r.step(len(sc.items))
				for _, it := range sc.items {
					if it.colsVisible {
						if e := wholeRow(it); e != nil {
							return e
						}
					}
				}
				return nil
			}
			it, e := r.findItem(x.Fields[:len(x.Fields)-1], sc)
			if e != nil {
				return e
			}
			return wholeRow(it)
		}
		res, e := r.resolve(x, sc)
		if e != nil {
			return e
		}
		if res.item != nil {
			return wholeRow(res.item)
		}
		if res.col.acc == Masked {
			return maskedError(res.col.origin)
		}
		return nil
	case *pg.A_Indirection:
		if ref := x.Arg.GetColumnRef(); ref != nil && !isStar(ref) && len(x.Indirection) > 0 {
			if s := x.Indirection[0].GetString_(); s != nil {
				res, e := r.resolve(ref, sc)
				if e != nil {
					return e
				}
				if res.item != nil {
					col, e := r.qualifiedColumn(res.item, s.Sval)
					if e != nil {
						return e
					}
					if col.acc == Masked {
						return maskedError(col.origin)
					}
					for _, ind := range x.Indirection[1:] {
						if e := r.expr(ind, sc); e != nil {
							return e
						}
					}
					return nil
				}
			}
		}
	case *pg.SubLink:
		out, e := r.query(x.Subselect.GetSelectStmt(), sc)
		if e != nil {
			return e
		}
		r.step(len(out))
		for _, c := range out {
			if c.acc == Masked {
				return maskedError(c.origin)
			}
		}
		if e := r.expr(x.Testexpr, sc); e != nil {
			return e
		}
		return nil
	case *pg.FuncCall:
		if e := r.oracleFunction(x.Funcname); e != nil {
			return e
		}
	case *pg.A_Expr:
		if r.cat != nil && len(x.Name) > 0 {
			schema, name := qualifiedName(x.Name)
			if e := uncheckedBodies("the operator "+name, r.cat.Operators(schema, name)); e != nil {
				return e
			}
		}
	case *pg.TypeName:
		return r.typeName(x)
	case *pg.SelectStmt, *pg.RangeVar, *pg.JoinExpr, *pg.RangeSubselect, *pg.RangeFunction,
		*pg.RangeTableFunc, *pg.JsonTable, *pg.RangeTableSample, *pg.CommonTableExpr, *pg.WithClause:
		return notUnderstood("a " + nodeWords(string(m.Descriptor().Name())) + " inside an expression")
	}
	var e *Error
	children(m, func(c protoreflect.Message) bool {
		e = r.walkExpr(c, sc)
		return e == nil
	})
	return e
}

// regTypes are the object identifier types whose input looks a catalog
// object up by name.
var regTypes = map[string]bool{
	"regclass": true, "regtype": true, "regproc": true, "regprocedure": true, "regoper": true,
	"regoperator": true, "regnamespace": true, "regrole": true, "regconfig": true,
	"regdictionary": true, "regcollation": true,
}

// lookupByText are the built-in functions that look a catalog object up by
// a name given as text and return no object identifier, so that
// PostgresFunction.Lookup does not mark them. Besides them, the families
// pg_stat_* and pg_get_*, and pg_lock_status, are refused whatever their
// arguments: they report on relations (their statistics, definitions and
// locks) and on other sessions' queries.
var lookupByText = map[string]bool{
	"pg_get_serial_sequence": true, "pg_input_is_valid": true, "pg_input_error_info": true,
	"pg_get_object_address": true,
}

// typeName refuses, on PostgreSQL, a type whose values look catalog objects
// up by name: an existence oracle for relations the policy hides.
func (r *policyResolver) typeName(t *pg.TypeName) *Error {
	if t == nil || r.sqlite {
		return nil
	}
	var names []string
	for _, n := range t.Names {
		names = append(names, n.GetString_().GetSval())
	}
	schema, name := "", ""
	if k := len(names); k > 0 {
		name = names[k-1]
		if k > 1 {
			schema = names[k-2]
		}
	}
	if regTypes[strings.ToLower(strings.TrimPrefix(name, "_"))] && (schema == "" || schema == "pg_catalog") {
		return oracleError("the type " + name)
	}
	if r.cat == nil {
		return nil
	}
	ty, ok := r.cat.Type(schema, name)
	if ok && ty.Relation[1] != "" && !rowTypeVisible(r.pol, ty) {
		return missingType(qualified(schema, name))
	}
	if ok {
		if e := uncheckedBodies("a value of the type "+name, ty.Calls); e != nil {
			return e
		}
	}
	// A domain over a reg* type looks objects up as its base does.
	for depth := 0; ok && ty.Base[1] != "" && depth < 32; depth++ {
		if regTypes[strings.ToLower(strings.TrimPrefix(ty.Base[1], "_"))] && ty.Base[0] == "pg_catalog" {
			return oracleError("the type " + name)
		}
		ty, ok = r.cat.Type(ty.Base[0], ty.Base[1])
	}
	return nil
}

// oracleFunction refuses, on PostgreSQL, a function that looks catalog
// objects up by name or OID.
func (r *policyResolver) oracleFunction(names []*pg.Node) *Error {
	if r.sqlite {
		return nil
	}
	schema, name := qualifiedName(names)
	lower := strings.ToLower(name)
	if lookupByText[lower] || regTypes[lower] || strings.HasPrefix(lower, "to_reg") ||
		strings.HasPrefix(lower, "pg_stat_") || strings.HasPrefix(lower, "pg_get_") || lower == "pg_lock_status" {
		return oracleError("the function " + name + "()")
	}
	if r.cat == nil {
		return nil
	}
	fns := r.cat.Functions(schema, name)
	for _, f := range fns {
		if f.Lookup {
			return oracleError("the function " + name + "()")
		}
	}
	return uncheckedBodies("the function "+name+"()", fns)
}

// uncheckedBodies refuses, under a policy, a call that can reach a
// function the operator allowed but that is neither built in nor from a
// vetted extension: its body may read what the policy hides, and the
// resolver cannot see into it.
func uncheckedBodies(what string, fns []PostgresFunction) *Error {
	for _, f := range fns {
		if f.Origin == OriginUser || f.Origin != "" && VettedExtensions[f.Origin] == "" {
			return &Error{
				Reason: fmt.Sprintf("%s can reach %s.%s(), whose body cannot be checked against this database's policy", what, f.Schema, f.Name),
				Hint:   "Write the query with built-in functions",
			}
		}
	}
	return nil
}

func oracleError(what string) *Error {
	return &Error{
		Reason: what + " looks up the database's catalog and is not allowed on this database, whose tables and columns are restricted",
		Hint:   "Query the tables themselves; list_tables and describe_table show what you may read",
	}
}

// noTable refuses a relation the policy does not let a query read, worded
// as for one that does not exist.
func noTable(name string) *Error {
	return &Error{
		Reason: "no table named " + name + " that you may read",
		Hint:   "list_tables shows the tables you may read",
	}
}

// noColumn refuses a column of it the policy denies, worded as for one it
// does not have.
func noColumn(name string, it *pitem) *Error {
	t := it.name
	if t == "" {
		t = "the join"
	}
	return &Error{
		Reason: fmt.Sprintf("no column named %s that you may read in %s", name, t),
		Hint:   fmt.Sprintf("The columns of %s you may read: %s", t, readable(it)),
	}
}

// maskedError refuses a use of a masked column other than returning it.
func maskedError(c MaskedColumn) *Error {
	return &Error{
		Reason: fmt.Sprintf("the column %s of %s is masked: it can be returned only as it is (SELECT %s FROM %s), not computed on, compared, sorted or grouped",
			c.Column, c.Table, c.Column, c.Table),
		Hint: "Return it as a bare column of the outermost SELECT, and filter, join, sort and group by other columns",
	}
}

// notUnderstood refuses a construct the resolver cannot resolve for
// certain.
func notUnderstood(what string) *Error {
	return &Error{
		Reason: "the query uses " + what + ", which cannot be checked against this database's policy",
		Hint:   "Write it with plain SELECT, FROM, JOIN, WHERE and subqueries, naming the columns",
	}
}
