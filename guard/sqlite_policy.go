package guard

import (
	"database/sql/driver"
	"fmt"
	"sort"
	"strings"

	"github.com/sqlmcp/sqlmcp"
)

// A policy on SQLite is enforced with SQLite's own name resolution: while
// the model's statement compiles, the authorizer is told of every column
// it reads (SQLITE_READ: the table, the column, the database and the
// innermost view the read comes from), and the guard judges each one once
// the compiler is done. What SQLite 3.54 reports, found by compiling each
// form (the tests in source/sqlite hold them):
//
//   - A column named anywhere (result, WHERE, ON, GROUP BY, HAVING, ORDER
//     BY, window PARTITION/ORDER, FILTER, an aggregate's ORDER BY, a
//     subquery, a row value (a, b) = (1, 2), x IN t, LIMIT) is one READ of
//     its table and column per reference; ORDER BY an alias or a position
//     adds none. rowid is reported as the INTEGER PRIMARY KEY column, or
//     as "ROWID" on a table without one.
//   - * and t.* are one READ per column they expand to.
//   - A table from which no column is read (count(*), SELECT 1 FROM t) is
//     one READ with column "", under the name its FROM item has: a table,
//     a view that is not flattened, a materialized CTE's own name, an
//     eponymous virtual table (json_each).
//   - A view's body is resolved where the view is used: its reads come
//     with the view as the fourth argument (the innermost one, for views
//     over views), and the outer query's reads of the view's columns are
//     READs of the view itself. A flattened view can add, for count(*), a
//     READ of its base table with column "" and no view.
//   - A CTE's body is resolved the same way, with the CTE's name as the
//     fourth argument; a FROM subquery's reads keep the context around it.
//     Reads of a subquery's or CTE's columns are not reported.
//   - USING and NATURAL JOIN columns are not reported at all, on either
//     side: SELECT 1 FROM a JOIN b USING (k) reports a's rows only, and
//     nothing of b.
//   - sqlite_schema is reported as sqlite_master (sqlite_temp_master in
//     temp); the table-valued pragma functions as READs of pragma_NAME at
//     compile time, then an SQLITE_PRAGMA action while the query steps.
//
// Hence the rules below. A read from a view of the main database that the
// policy returns is not judged (the policy returns only views whose reads
// are harmless or that the operator allowed); nor, when the policy returns
// every view the statement names, is a read from a view the statement does
// not name, which only those views can reach. A CTE's name vouches for
// nothing: its body is the statement's own text, judged like the rest, and
// a CTE named like a view takes that view's trust away. USING and NATURAL
// JOIN, which SQLite does not report, go to the parse-tree resolver
// (CheckPolicySQL), as do masked columns, whose READ count must match the
// bare references the resolver finds. A name in FROM that the policy does
// not return is refused even when SQLite reports nothing of it (a
// flattened view counted, the right side of USING). A virtual table with a
// column that is not Allowed is refused whole: its module reads every
// column (FTS's MATCH takes column filters in its text). A statement
// compiled again as it steps (the schema changed meanwhile) may read only
// what was judged.
//
// Refusals are worded from the statement's text, never from what exists:
// a missing table or column and a denied one get the same words, and a
// statement that fails for another reason after SQLite looked up a denied
// table is refused for the table, as it would be were the table missing.

// SQLiteContextAuthorizer is what a SQLiteConn implements when it can hand
// the authorizer all four of SQLite's arguments: for a read, the table, the
// column, the database, and the innermost view or trigger the read comes
// from ("" when from the statement itself). A policy needs the fourth;
// go-sqlite3's RegisterAuthorizer passes only three.
type SQLiteContextAuthorizer interface {
	RegisterContextAuthorizer(callback func(action int, arg1, arg2, database, inner string) int)
}

// sqliteRead is one SQLITE_READ the authorizer saw while compiling.
type sqliteRead struct{ table, column, database, inner string }

// sqliteEponymous are the virtual tables SQLite offers under their own
// name that a query under a policy may read: they read only their
// arguments, whose columns are judged like any other.
var sqliteEponymous = map[string]bool{"json_each": true, "json_tree": true}

// PreparePolicy compiles sql like Prepare and, when p is not nil, also
// judges what it reads against p: a relation p does not return, a Denied
// column, or a masked column used for anything but returning it bare, is
// refused with an *Error worded as for a table or column that does not
// exist. It returns the result columns that carry masked values. Until the
// next Prepare or PreparePolicy, while the statement steps, it may read
// only what was judged (and the shadow tables of virtual tables) and run
// no pragma; StepRefusal reports a refusal then. A nil p is Prepare.
func (g *SQLite) PreparePolicy(sql string, p PolicyCatalog) (driver.Stmt, []MaskedColumn, error) {
	if p != nil && !g.inner {
		return nil, nil, fmt.Errorf("guard: this SQLite connection does not report the view a read comes from, so a policy cannot be enforced on it")
	}
	g.policy, g.record, g.judged = p, p != nil, nil
	g.reads = g.reads[:0]
	if p != nil {
		if e := sqliteWrite(sql); e != nil {
			return nil, nil, e
		}
	}
	ds, err := g.prepare(sql)
	if err != nil && p != nil {
		return nil, nil, g.reword(err, sql, p)
	}
	if err != nil || p == nil {
		return ds, nil, err
	}
	masked, err := g.judgeReads(sql, p)
	if err == nil {
		if e := g.indexOrder(sql, p); e != nil {
			err = e
		}
	}
	if err != nil {
		ds.Close()
		return nil, nil, err
	}
	g.judged = make(map[sqliteRead]bool, len(g.reads))
	for _, r := range g.reads {
		g.judged[r] = true
	}
	return ds, masked, nil
}

// StepsUnpoliced readies the authorizer for the steps of a statement that
// PreparePolicy judged under no policy on an earlier call, and that the
// caller kept to run again: it answers them as it did right after that
// call, whatever was prepared since.
func (g *SQLite) StepsUnpoliced() {
	g.policy, g.record, g.judged = nil, false, nil
	g.denials = g.denials[:0]
}

// StepRefusal reports whether the statement PreparePolicy returned last
// was refused as it stepped: the authorizer refused a read it did not
// judge, when SQLite compiled it again after the schema changed, or a
// pragma; or recompiled says the caller stopped it because SQLite compiled
// it again. The engine's error then names what was refused, and this one
// is to be returned instead. It returns nil when nothing was refused. A
// view too costly to compile is refused as it steps with no policy too.
func (g *SQLite) StepRefusal(recompiled bool) *Error {
	// A view too costly to compile, which a table-valued pragma
	// function named while it stepped, under a policy or not.
	for _, d := range g.denials {
		if isHeavyViewDenial(d) {
			return &Error{Reason: d + " is not allowed", Hint: heavyViewHint}
		}
	}
	if g.judged == nil || len(g.denials) == 0 && !recompiled {
		return nil
	}
	return &Error{
		Reason: "the database's schema changed while the query ran",
		Hint:   "Send the query again",
	}
}

// SQLiteRead is a column a statement reads, as SQLite's authorizer reports
// it: Column "" when it reads the table's rows only (count(*)), View the
// innermost view (or CTE) whose definition reads it, "" for the statement
// itself.
type SQLiteRead struct{ Table, Column, View string }

// Reads compiles sql as Prepare does, without running it, and returns
// every read SQLite resolves it to, in the order SQLite reports them:
// for SELECT * FROM v, what the view v reads, through the views it reads.
// It returns Prepare's errors.
func (g *SQLite) Reads(sql string) ([]SQLiteRead, error) {
	g.policy, g.record, g.judged = nil, true, nil
	g.reads = g.reads[:0]
	ds, err := g.prepare(sql)
	g.record = false
	if err != nil {
		return nil, err
	}
	ds.Close()
	out := make([]SQLiteRead, len(g.reads))
	for i, r := range g.reads {
		out[i] = SQLiteRead{Table: r.table, Column: r.column, View: r.inner}
	}
	return out, nil
}

// reword turns an error from compiling sql under p into what the model
// may be told. SQLite looks a statement's tables up before anything else
// that can fail (its columns, its functions, the authorizer's refusals, a
// second statement), so a statement that reads a denied table and fails
// for another reason must be refused as reading the table, as it would
// be if the table did not exist. Missing tables and columns are worded as
// the policy's refusals are, so that what does not exist cannot be told
// from what is denied. A syntax error comes before any lookup, and is
// returned as it is.
func (g *SQLite) reword(err error, sql string, p PolicyCatalog) error {
	msg := err.Error()
	// Remembered for the statement: it may name the same table a hundred
	// thousand times (FROM t, t, t, ...), each look a query of
	// sqlite_schema.
	objectType := byFoldedName(g.objectType)
	// With double-quoted strings off (as the engine runs a policy's
	// statements), SQLite words a missing column written "x" as
	// no such column: "x" - should this be a string literal in
	// single-quotes?
	if rest, ok := strings.CutPrefix(msg, `no such column: "`); ok {
		if name, ok := strings.CutSuffix(rest, `" - should this be a string literal in single-quotes?`); ok {
			msg = "no such column: " + strings.ReplaceAll(name, `""`, `"`)
		}
	}
	if strings.HasSuffix(msg, ": syntax error") || msg == "incomplete input" || strings.HasPrefix(msg, "unrecognized token: ") {
		return err
	}
	lx := lexSQLite(sql)
	// Only what SQLite read before it failed is judged, read by read: the
	// resolver's judgment of the whole statement (a masked column used,
	// in its own words) would come first for a missing column and never
	// for a denied one, which SQLite resolves and the reads refuse.
	if _, jerr := g.judgeEach(sql, p, false); jerr != nil {
		return jerr
	}
	missing := ""
	if name, ok := strings.CutPrefix(msg, "no such column: "); ok {
		missing = name
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			missing = name[i+1:]
		}
	}
	for _, t := range lx.tables {
		if fold(t.name) == fold(missing) || lx.cte(t) || t.other() {
			continue
		}
		if _, ok := p.Relation("", t.name); !ok && objectType(t.name) != "" {
			return noTable(t.name)
		}
	}
	if name, ok := strings.CutPrefix(msg, "no such table: "); ok {
		name = strings.TrimPrefix(name, "main.")
		return noTable(lx.written(name))
	}
	if lx.star {
		// SQLite expands * before it fails on how many columns came
		// ("row value misused", "table x has 5 values for 4 columns"):
		// the count would include the denied ones.
		for _, t := range lx.tables {
			if rel, ok := p.Relation("", t.name); ok && !lx.cte(t) && !t.other() && hasDenied(rel) {
				return sqliteStar(lx, rel)
			}
		}
	}
	if strings.HasPrefix(msg, "cannot join using column ") {
		// SQLite finds a denied USING column, which the resolver refuses
		// as missing; the resolver words a missing one the same way.
		if _, rerr := CheckPolicySQL(sql, p, sqlmcp.SQLite); rerr != nil {
			if e, ok := rerr.(*Error); ok {
				return e
			}
		}
	}
	if name, ok := strings.CutPrefix(msg, "ambiguous column name: "); ok && !visibleTwice(lx, p, name) {
		// SQLite found the column in two of the statement's tables, one
		// of which hides it: without it, the name would not be ambiguous.
		qualifier, column := "", name
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			qualifier, column = name[:i], name[i+1:]
		}
		return sqliteNoColumn(lx, p, qualifier, lx.written(column))
	}
	if missing != "" {
		name := strings.TrimPrefix(msg, "no such column: ")
		qualifier := ""
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			qualifier = name[:i]
		}
		return sqliteNoColumn(lx, p, qualifier, lx.written(missing))
	}
	return err
}

// visibleTwice reports whether two of the relations the statement names
// in FROM show a column named column (maybe qualified) that may be read:
// SQLite's "ambiguous column name" then tells nothing the policy hides.
// A name in FROM that is no relation p returns (a CTE, a subquery's
// alias) counts, since its columns may be anything.
func visibleTwice(lx sqliteLex, p PolicyCatalog, column string) bool {
	if i := strings.LastIndexByte(column, '.'); i >= 0 {
		column = column[i+1:]
	}
	n := 0
	for _, t := range lx.tables {
		rel, ok := p.Relation("", t.name)
		if lx.cte(t) || !ok {
			n++
			continue
		}
		if access, found := columnAccess(rel, column); found && access != Denied {
			n++
		}
	}
	return n >= 2
}

// sqliteWrite refuses, before SQLite looks any name up, a statement that
// would write or change the schema: compiled, a missing column would be
// reported as missing, and a denied one, which SQLite finds, as a write
// that is not allowed. A WITH clause may lead INSERT, UPDATE, DELETE and
// REPLACE; the first of those or SELECT or VALUES outside parentheses is
// the statement's own.
func sqliteWrite(sql string) *Error {
	lx := lexSQLite(sql)
	writes := map[string]bool{"insert": true, "update": true, "delete": true, "replace": true,
		"create": true, "drop": true, "alter": true, "reindex": true, "analyze": true, "vacuum": true}
	depth := 0
	for i, t := range lx.toks {
		switch {
		case t.kind == 'p' && t.text == "(":
			depth++
		case t.kind == 'p' && t.text == ")":
			depth--
		case t.kind != 'w' || depth != 0:
		case i == 0 && !strings.EqualFold(t.text, "with"):
			if !writes[strings.ToLower(t.text)] {
				return nil
			}
			return &Error{Reason: strings.ToUpper(t.text) + " would change the database and is not allowed", Hint: readOnlyHint}
		case i > 0 && (strings.EqualFold(t.text, "select") || strings.EqualFold(t.text, "values")):
			return nil
		case i > 0 && writes[strings.ToLower(t.text)]:
			return &Error{Reason: strings.ToUpper(t.text) + " would change the database and is not allowed", Hint: readOnlyHint}
		}
	}
	return nil
}

// judgeReads judges the reads the authorizer recorded for sql under p, and
// returns the masked result columns.
func (g *SQLite) judgeReads(sql string, p PolicyCatalog) ([]MaskedColumn, error) {
	return g.judgeEach(sql, p, true)
}

// judgeEach judges each read the authorizer recorded for sql under p and,
// when resolve is set, has the parse-tree resolver judge the masked
// columns and the joins SQLite does not report.
func (g *SQLite) judgeEach(sql string, p PolicyCatalog, resolve bool) ([]MaskedColumn, error) {
	lx := lexSQLite(sql)
	// Remembered for the statement: it may name the same table a hundred
	// thousand times (FROM t, t, t, ...), each look a query of
	// sqlite_schema.
	objectType := byFoldedName(g.objectType)
	if len(lx.toks) > 0 && lx.toks[0].kind == 'w' && strings.EqualFold(lx.toks[0].text, "explain") {
		// The plan names the tables a view reads.
		return nil, &Error{
			Reason: "EXPLAIN is not allowed on this database, whose tables and columns are restricted",
			Hint:   "Send the query itself",
		}
	}
	honored := map[string]bool{} // view contexts whose reads p vouches for
	vouches := func(inner string) bool {
		key := fold(inner)
		if v, ok := honored[key]; ok {
			return v
		}
		_, ok := p.Relation("", inner)
		v := ok && !lx.ctes[key] && objectType(inner) == "view"
		honored[key] = v
		return v
	}
	// A relation the statement names in FROM that p does not return is
	// refused, even when SQLite reports no read of it: a flattened view
	// read for its rows only, the right side of USING.
	for _, t := range lx.tables {
		if lx.cte(t) || t.other() {
			continue
		}
		if _, ok := p.Relation("", t.name); !ok && objectType(t.name) != "" {
			return nil, noTable(t.name)
		}
	}
	// A view the statement names whose reads p does not vouch for is a
	// relation it may not read, whatever its body reads.
	for _, r := range g.reads {
		if r.inner != "" && !lx.ctes[fold(r.inner)] && lx.words[fold(r.inner)] && !vouches(r.inner) {
			return nil, noTable(lx.written(r.inner))
		}
	}
	// When p vouches for every view the statement names, whatever the
	// views it does not name read is read on their behalf: the views
	// they read, and a flattened view's table read for its rows only. A
	// name the statement does not name cannot be one of its CTEs.
	virtual := byFoldedName(g.virtualTable)
	var checked, all bool
	allVouched := func() bool {
		if !checked {
			checked = true
			views, err := g.viewNames()
			all = err == nil
			for w := range lx.words {
				if views[w] && !vouches(w) {
					all = false
				}
			}
		}
		return all
	}
	onBehalf := func(r sqliteRead) bool {
		if r.inner != "" {
			return !lx.words[fold(r.inner)] && objectType(r.inner) == "view" && allVouched()
		}
		return r.column == "" && r.database == "main" && !lx.words[fold(r.table)] && allVouched()
	}
	maskedReads := map[[2]string]int{}
	maskedName := map[[2]string][2]string{}
	// A materialized CTE read for its rows only is judged last, so that
	// what its body reads is refused in its own words first.
	reads := make([]sqliteRead, 0, len(g.reads))
	var rowsOnly []sqliteRead
	for _, r := range g.reads {
		if r.column == "" && r.database == "" && lx.ctes[fold(r.table)] {
			rowsOnly = append(rowsOnly, r)
		} else {
			reads = append(reads, r)
		}
	}
	for _, r := range append(reads, rowsOnly...) {
		direct := r.inner == "" || lx.ctes[fold(r.inner)]
		if !direct && vouches(r.inner) || onBehalf(r) {
			continue
		}
		// Every name the authorizer reports is the catalog's spelling,
		// except a FROM item's own name for column "": a materialized
		// CTE read for its rows only.
		if r.column == "" && r.database == "" && lx.ctes[fold(r.table)] {
			if _, ok := p.Relation("", r.table); !ok {
				return nil, &Error{
					Reason: fmt.Sprintf("the query reads rows of %s without reading any of its columns, which cannot be checked against this database's policy", r.table),
					Hint:   fmt.Sprintf("Name a column of %s in the query (count(%s.col) instead of count(*)), or give the CTE a name that is not a table's", r.table, r.table),
				}
			}
			continue
		}
		named := direct && lx.words[fold(r.table)]
		low := fold(r.table)
		if r.database != "" && r.database != "main" || strings.HasPrefix(low, "sqlite_") || strings.HasPrefix(low, "pragma_") {
			return nil, g.readRefusal(r, named, lx)
		}
		rel, ok := p.Relation("", r.table)
		if !ok {
			if sqliteEponymous[low] && objectType(r.table) == "" {
				continue
			}
			return nil, g.readRefusal(r, named, lx)
		}
		if !allAllowed(rel) && virtual(r.table) {
			// A module may read every column for any query: FTS's MATCH
			// on one column takes column filters in its query text.
			name := lx.written(rel.Name)
			return nil, &Error{
				Reason: fmt.Sprintf("the virtual table %s has columns you may not read, which its module reads for any query", name),
				Hint:   "Query the tables and views you may read instead; list_tables shows them",
			}
		}
		if r.column == "" {
			continue
		}
		access, found := columnAccess(rel, r.column)
		if !found && virtual(r.table) {
			// A virtual table's hidden columns: FTS's, named as the
			// table (MATCH, snippet()) and docid, the rowid. Every
			// column may be read, or the module had refused above.
			access, found = Allowed, true
		}
		switch {
		case !found || access == Denied:
			return nil, g.readRefusal(r, named, lx)
		case access == Masked && !direct:
			// A masked column read by a view the policy does not vouch
			// for: that view may compute on it.
			return nil, g.readRefusal(r, false, lx)
		case access == Masked:
			key := [2]string{fold(rel.Name), fold(r.column)}
			maskedReads[key]++
			maskedName[key] = [2]string{rel.Name, r.column}
		}
	}
	if !resolve || len(maskedReads) == 0 && !lx.joinUsing {
		return nil, nil
	}
	cols, err := CheckPolicySQL(sql, p, sqlmcp.SQLite)
	if err != nil {
		if e, ok := err.(*Error); ok {
			return nil, e
		}
		return nil, sqliteUnresolved(maskedName)
	}
	found := map[[2]string]int{}
	for _, c := range cols {
		found[[2]string{fold(c.Table), fold(c.Column)}]++
	}
	for _, key := range sortedKeys(maskedReads, found) {
		if maskedReads[key] != found[key] {
			name, ok := maskedName[key]
			if !ok {
				name = key
			}
			return nil, maskedError(MaskedColumn{Table: name[0], Column: name[1]})
		}
	}
	return cols, nil
}

// sortedKeys are the keys of a and b, sorted, so a refusal names the same
// column every time.
func sortedKeys(a, b map[[2]string]int) [][2]string {
	var keys [][2]string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	return keys
}

// allAllowed reports whether every column of rel is Allowed.
func allAllowed(rel PolicyRelation) bool {
	for _, c := range rel.Columns {
		if c.Access != Allowed {
			return false
		}
	}
	return true
}

// columnAccess finds column in rel as SQLite matches names: ignoring
// case. rowid on a table without an INTEGER PRIMARY KEY (reported as
// "ROWID") is the row's number, not a column, and may be read.
func columnAccess(rel PolicyRelation, column string) (Access, bool) {
	for _, c := range rel.Columns {
		if strings.EqualFold(c.Name, column) {
			return c.Access, true
		}
	}
	if column == "ROWID" {
		return Allowed, true
	}
	return 0, false
}

// readRefusal words the refusal of r. A relation or column the statement
// names is refused as one that does not exist; a column read through *
// asks for the columns by name; a read the statement does not name
// (inside a view it reads) says no more than that.
func (g *SQLite) readRefusal(r sqliteRead, named bool, lx sqliteLex) *Error {
	if !named {
		return &Error{
			Reason: "the query reads, through a view, data that you may not read",
			Hint:   "Query the tables and views you may read directly; list_tables shows them",
		}
	}
	rel, ok := g.policy.Relation("", r.table)
	low := fold(r.table)
	if !ok || r.column == "" || r.database != "" && r.database != "main" || strings.HasPrefix(low, "sqlite_") || strings.HasPrefix(low, "pragma_") {
		return noTable(lx.written(r.table))
	}
	// A column read through * (or x IN t) is refused as such whether or
	// not the statement also names it, so the words never depend on
	// which column is denied.
	if lx.star || !lx.words[fold(r.column)] {
		return sqliteStar(lx, rel)
	}
	return sqliteNoColumn(lx, g.policy, "", lx.written(r.column))
}

// sqliteStar refuses * (or x IN t) over rel, which has a column that may
// not be read.
func sqliteStar(lx sqliteLex, rel PolicyRelation) *Error {
	name := lx.written(rel.Name)
	return &Error{
		Reason: fmt.Sprintf("%s.* would read columns of %s that you may not read", name, name),
		Hint:   "Name the columns instead: " + readableColumns(rel),
	}
}

// sqliteNoColumn refuses a column the statement names that is denied or
// does not exist, in the same words either way: the table it is named
// in is found from the statement's text alone (its qualifier, or the one
// relation the statement names), never from the catalog.
func sqliteNoColumn(lx sqliteLex, p PolicyCatalog, qualifier, column string) *Error {
	if rel, ok := lx.columnTable(p, qualifier, column); ok {
		return &Error{
			Reason: fmt.Sprintf("no column named %s that you may read in %s", column, lx.written(rel.Name)),
			Hint:   fmt.Sprintf("The columns of %s you may read: %s", lx.written(rel.Name), readableColumns(rel)),
		}
	}
	return &Error{
		Reason: fmt.Sprintf("no column named %s that you may read", column),
		Hint:   "Qualify the column with its table (t." + column + "); describe_table lists the columns of a table you may read",
	}
}

// columnTable finds, from the statement's text, the relation a column is
// named in: by its qualifier (a table or an alias of one), or, unqualified,
// the one relation p returns that the statement names.
func (lx sqliteLex) columnTable(p PolicyCatalog, qualifier, column string) (PolicyRelation, bool) {
	name := func(k int) bool { return k >= 0 && k < len(lx.toks) && lx.toks[k].kind != 'p' }
	dot := func(k int) bool {
		return k >= 0 && k < len(lx.toks) && lx.toks[k].kind == 'p' && lx.toks[k].text == "."
	}
	if qualifier == "" {
		quals, bare := map[string]bool{}, false
		for i, t := range lx.toks {
			if t.kind == 'p' || fold(t.text) != fold(column) {
				continue
			}
			if dot(i-1) && name(i-2) {
				quals[fold(lx.toks[i-2].text)] = true
			} else {
				bare = true
			}
		}
		if len(quals) == 1 && !bare {
			for q := range quals {
				qualifier = q
			}
		}
	}
	relation := func(n string) (PolicyRelation, bool) {
		if lx.ctes[fold(n)] {
			return PolicyRelation{}, false
		}
		return p.Relation("", n)
	}
	if qualifier != "" {
		if i := strings.LastIndexByte(qualifier, '.'); i >= 0 {
			qualifier = qualifier[i+1:]
		}
		if rel, ok := relation(qualifier); ok {
			return rel, true
		}
		// An alias: FROM t q or FROM t AS q.
		for i, t := range lx.toks {
			if t.kind == 'p' || fold(t.text) != fold(qualifier) {
				continue
			}
			k := i - 1
			if k >= 0 && lx.toks[k].kind == 'w' && strings.EqualFold(lx.toks[k].text, "as") {
				k--
			}
			if name(k) {
				if rel, ok := relation(lx.toks[k].text); ok {
					return rel, true
				}
			}
		}
		return PolicyRelation{}, false
	}
	var found []PolicyRelation
	seen := map[string]bool{}
	for _, t := range lx.toks {
		key := fold(t.text)
		if t.kind == 'p' || seen[key] || key == fold(column) {
			continue
		}
		seen[key] = true
		if rel, ok := relation(t.text); ok {
			found = append(found, rel)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return PolicyRelation{}, false
}

// hasDenied reports whether rel has a Denied column.
func hasDenied(rel PolicyRelation) bool {
	for _, c := range rel.Columns {
		if c.Access == Denied {
			return true
		}
	}
	return false
}

// readableColumns lists the columns of rel that are not Denied.
func readableColumns(rel PolicyRelation) string {
	var names []string
	for _, c := range rel.Columns {
		if c.Access != Denied {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// sqliteUnresolved refuses a statement the resolver could not read when it
// had to: one with a masked column, or with USING or NATURAL JOIN.
func sqliteUnresolved(masked map[[2]string][2]string) *Error {
	if keys := sortedKeys(nil, keysOf(masked)); len(keys) > 0 {
		name := masked[keys[0]]
		return maskedError(MaskedColumn{Table: name[0], Column: name[1]})
	}
	return &Error{
		Reason: "this JOIN ... USING or NATURAL JOIN cannot be checked against this database's column policy",
		Hint:   "Write the join with ON and qualified columns (JOIN b ON b.id = a.id)",
	}
}

// keysOf counts each key of m once.
func keysOf(m map[[2]string][2]string) map[[2]string]int {
	out := make(map[[2]string]int, len(m))
	for k := range m {
		out[k] = 1
	}
	return out
}

// viewNames lists the views of the main database, folded.
func (g *SQLite) viewNames() (map[string]bool, error) {
	rows, err := g.conn.Query("SELECT name FROM main.sqlite_schema WHERE type = 'view'", nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	views := map[string]bool{}
	dest := make([]driver.Value, 1)
	for rows.Next(dest) == nil {
		if name, ok := dest[0].(string); ok {
			views[fold(name)] = true
		}
	}
	return views, nil
}

// virtualTable reports whether name is a virtual table of the main
// database; true when that cannot be told, which refuses more.
func (g *SQLite) virtualTable(name string) bool {
	rows, err := g.conn.Query("SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE AND sql LIKE 'CREATE VIRTUAL TABLE%'", []driver.Value{name})
	if err != nil {
		return true
	}
	defer rows.Close()
	return rows.Next(make([]driver.Value, 1)) == nil
}

// byFoldedName is f remembering its answer for each name, names compared
// as SQLite compares them.
func byFoldedName[T any](f func(name string) T) func(name string) T {
	seen := map[string]T{}
	return func(name string) T {
		key := fold(name)
		if v, ok := seen[key]; ok {
			return v
		}
		v := f(name)
		seen[key] = v
		return v
	}
}

// objectType is the type of the schema object of the main database named
// name ("table", "view"), "" when there is none. It runs on the guarded
// connection between compiling and stepping.
func (g *SQLite) objectType(name string) string {
	rows, err := g.conn.Query("SELECT type FROM main.sqlite_schema WHERE name = ?1 COLLATE NOCASE AND type IN ('table', 'view')", []driver.Value{name})
	if err != nil {
		return "?"
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	if rows.Next(dest) != nil {
		return ""
	}
	t, _ := dest[0].(string)
	return t
}

// fold is a name as SQLite compares names, for map keys; it folds more
// than ASCII, which only ever makes two names the same that SQLite would
// keep apart, and so judges more reads.
func fold(name string) string { return strings.ToLower(name) }

// sqliteLex is what the guard needs of a statement's tokens under a
// policy: every name and string in it, the names WITH defines, and whether
// it joins with USING or NATURAL.
type sqliteLex struct {
	toks        []sqliteToken
	words, ctes map[string]bool   // folded
	spelled     map[string]string // folded: as first written
	tables      []sqliteTable     // the names FROM, JOIN, INTO, UPDATE and the like are followed by
	joinUsing   bool
	star        bool // a * of columns (SELECT *, t.*) or x IN t, which reads every column of t
}

// sqliteToken is one token of a statement: a bare word (maybe a keyword),
// a quoted name or a string (kind 'n', unquoted), or punctuation.
type sqliteToken struct {
	text string
	kind byte // 'w', 'n' or 'p'
}

// sqliteTable is a name in a statement's FROM (or the like), as written;
// qualified with a schema, it names no CTE.
type sqliteTable struct {
	name      string
	qualified bool
	schema    string // the schema it is qualified with, as written
}

// other reports whether t is qualified with a schema other than main, and
// so names no relation of the main database.
func (t sqliteTable) other() bool { return t.qualified && !strings.EqualFold(t.schema, "main") }

// cte reports whether t may name one of the statement's CTEs.
func (lx sqliteLex) cte(t sqliteTable) bool { return !t.qualified && lx.ctes[fold(t.name)] }

// written is name as the statement spells it, or name when it does not.
func (lx sqliteLex) written(name string) string {
	if w, ok := lx.spelled[fold(name)]; ok {
		return w
	}
	return name
}

// sqliteScan calls f with each token of sql as SQLite's tokenizer splits
// it, comments and white space left out: kind 'w' for a bare word, with
// its text; 'n' for a string ('...') or quoted name ("...", `...`, [...]),
// with its text unquoted; 'p' for any other byte.
func sqliteScan(sql string, f func(kind byte, text string)) {
	sqliteTokens(sql, func(kind byte, text string, _, _ int) {
		if kind != 'c' {
			f(kind, text)
		}
	})
}

// sqliteTokens is sqliteScan with comments too (kind 'c', text ""), and
// where in sql each token starts and ends.
func sqliteTokens(sql string, f func(kind byte, text string, start, end int)) {
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(sql[i:], "--"):
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				end = len(sql) - i
			}
			f('c', "", i, i+end)
			i += end
		case strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				f('c', "", i, len(sql))
				i = len(sql)
			} else {
				f('c', "", i, i+2+end+2)
				i += 2 + end + 2
			}
		case c == '\'' || c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			var b strings.Builder
			j := i + 1
			for j < len(sql) {
				if sql[j] == closer {
					if closer != ']' && j+1 < len(sql) && sql[j+1] == closer {
						b.WriteByte(closer)
						j += 2
						continue
					}
					j++
					break
				}
				b.WriteByte(sql[j])
				j++
			}
			f('n', b.String(), i, j)
			i = j
		case wordByte(c):
			j := i
			for j < len(sql) && wordByte(sql[j]) {
				j++
			}
			f('w', sql[i:j], i, j)
			i = j
		default:
			f('p', sql[i:i+1], i, i+1)
			i++
		}
	}
}

// lexSQLite reads sql's tokens as SQLite's tokenizer does: comments,
// strings ('...'), quoted names ("...", `...`, [...]) and bare words. A
// CTE is a name followed by an optional column list, AS, an optional [NOT]
// MATERIALIZED and "(": SQLite takes a string or any keyword it can fall
// back on as the name, so every name-like token counts. A WINDOW w AS (...)
// counts too; it only makes the guard judge more reads.
func lexSQLite(sql string) sqliteLex {
	var toks []sqliteToken
	sqliteScan(sql, func(kind byte, text string) { toks = append(toks, sqliteToken{text: text, kind: kind}) })
	lx := sqliteLex{toks: toks, words: map[string]bool{}, ctes: map[string]bool{}, spelled: map[string]string{}}
	punct := func(k int, s string) bool { return k >= 0 && k < len(toks) && toks[k].kind == 'p' && toks[k].text == s }
	word := func(k int, w string) bool {
		return k >= 0 && k < len(toks) && toks[k].kind == 'w' && strings.EqualFold(toks[k].text, w)
	}
	// past[k] is, for a "(" at token k, the token after its matching ")",
	// or len(toks) when it has none: found once, since looking for it from
	// every name made a text of nested calls quadratic (f(f(f(... : 46 s
	// at 256 KiB).
	past := make([]int, len(toks))
	var open []int
	for k := range toks {
		switch {
		case punct(k, "("):
			open = append(open, k)
		case punct(k, ")") && len(open) > 0:
			past[open[len(open)-1]] = k + 1
			open = open[:len(open)-1]
		}
	}
	for _, k := range open {
		past[k] = len(toks)
	}
	for i, t := range toks {
		if t.kind == 'p' {
			continue
		}
		lx.words[fold(t.text)] = true
		if _, ok := lx.spelled[fold(t.text)]; !ok {
			lx.spelled[fold(t.text)] = t.text
		}
		// SQLite reports a read of sqlite_schema as one of its old name.
		if old, ok := sqliteSchemaNames[fold(t.text)]; ok {
			lx.words[old] = true
			if _, ok := lx.spelled[old]; !ok {
				lx.spelled[old] = t.text
			}
		}
		if word(i, "using") || word(i, "natural") {
			lx.joinUsing = true
		}
		j := i + 1
		if punct(j, "(") {
			j = past[j]
		}
		if !word(j, "as") {
			continue
		}
		j++
		if word(j, "not") {
			j++
		}
		if word(j, "materialized") {
			j++
		}
		if punct(j, "(") {
			lx.ctes[fold(t.text)] = true
		}
	}
	// The tables: a name after FROM, JOIN, INTO, UPDATE, TABLE, ANALYZE
	// or REINDEX, or after a comma in a FROM list (the schema's name
	// skipped).
	name := func(k int) bool { return k < len(toks) && toks[k].kind != 'p' }
	after := func(k int) {
		if !name(k) {
			return
		}
		qualified, schema := punct(k+1, ".") && name(k+2), ""
		if qualified {
			schema = toks[k].text
			k += 2
		}
		lx.tables = append(lx.tables, sqliteTable{name: toks[k].text, qualified: qualified, schema: schema})
	}
	for i := range toks {
		if punct(i, "*") && (word(i-1, "select") || word(i-1, "distinct") || word(i-1, "all") || punct(i-1, ",") || punct(i-1, ".")) {
			lx.star = true
		}
		if word(i, "in") && name(i+1) && !punct(i+1, "(") && !punct(i+2, "(") {
			lx.star = true
		}
	}
	inFrom := map[int]bool{}
	depth := 0
	for i, t := range toks {
		switch {
		case punct(i, "("):
			depth++
		case punct(i, ")"):
			delete(inFrom, depth)
			depth--
		case word(i, "from") && !word(i-1, "distinct"): // not IS [NOT] DISTINCT FROM
			inFrom[depth] = true
			after(i + 1)
		case punct(i, ","):
			if inFrom[depth] {
				after(i + 1)
			}
		case t.kind == 'w':
			switch strings.ToLower(t.text) {
			case "join", "into", "update", "table", "analyze", "reindex":
				after(i + 1)
			case "where", "group", "order", "limit", "having", "window", "union", "except", "intersect", "returning", "select", "values", "set":
				delete(inFrom, depth)
			}
		}
	}
	return lx
}

// sqliteSchemaNames are the schema table's names and the name SQLite
// reports reads of it under.
var sqliteSchemaNames = map[string]string{
	"sqlite_schema": "sqlite_master", "sqlite_temp_schema": "sqlite_temp_master",
}

// wordByte reports whether c may be part of a bare word: SQLite takes any
// byte of a multi-byte UTF-8 character as one.
func wordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// indexOrder refuses sql when SQLite's plan for it reads an index whose
// key holds a column p does not allow (or an expression, or that is
// partial, on a table with one): the rows would come in that column's
// order, and a LIMIT, a scalar subquery, group_concat or the order of the
// result would show it (SELECT id FROM t INDEXED BY t_salary LIMIT 1 is
// the lowest salary's id). An index opened only to count its entries,
// as count(*) does, shows nothing of its order. The engine turns full
// scans of covering indexes off under a policy, so only a plan that needs
// the index (INDEXED BY, a constraint on its first columns) comes here.
func (g *SQLite) indexOrder(sql string, p PolicyCatalog) *Error {
	rows, err := g.conn.Query(sqliteExplain+sql, nil)
	if err != nil {
		return sqliteIndexRefusal()
	}
	type op struct {
		code       string
		p1, p2, p3 int64
		p4         string
	}
	var ops []op
	dest := make([]driver.Value, 8)
	for rows.Next(dest) == nil {
		code, _ := dest[1].(string)
		p1, _ := dest[2].(int64)
		p2, _ := dest[3].(int64)
		p3, _ := dest[4].(int64)
		p4, _ := dest[5].(string)
		ops = append(ops, op{code, p1, p2, p3, p4})
	}
	rows.Close()
	opened := map[int64]int64{} // cursor on a b-tree of the main database: root page
	for _, o := range ops {
		if (o.code == "OpenRead" || o.code == "ReopenIdx") && o.p3 == 0 {
			opened[o.p1] = o.p2
		}
	}
	// One pass finds the cursors that are read, and each root page is
	// judged once: a scan of every opcode for every cursor, and a look-up
	// for every cursor, took 52 s for a megabyte of subqueries.
	read := map[int64]bool{}
	for _, o := range ops {
		if sqliteCursorReads(o.code) {
			read[o.p1] = true
		}
	}
	judged := map[int64]bool{}
	for cursor, root := range opened {
		if !read[cursor] || judged[root] {
			continue
		}
		judged[root] = true
		if g.restrictedIndex(root, p) {
			return sqliteIndexRefusal()
		}
	}
	return nil
}

// sqliteExplain is what indexOrder puts before a statement to read its
// program.
const sqliteExplain = "EXPLAIN "

// sqliteCursorReads reports whether the opcode code positions or reads the
// cursor in its first operand: what reading an index's rows in order takes.
// Count, OpenRead and Close do not; neither do the opcodes whose first
// operand is a register or a constant (Copy, Integer).
func sqliteCursorReads(code string) bool {
	if strings.HasPrefix(code, "Seek") || strings.HasPrefix(code, "Idx") {
		return true
	}
	switch code {
	case "Rewind", "Last", "Next", "Prev", "Column", "Rowid", "Found", "NotFound", "NotExists",
		"NoConflict", "IfNoHope", "DeferredSeek", "IfEmpty", "IfNotOpen", "RowData", "IfSizeBetween",
		"NullRow", "Sort", "SorterSort":
		return true
	}
	return false
}

// restrictedIndex reports whether the index of the main database at root
// page root orders rows by anything p does not allow: a key column that
// is not Allowed, an expression, or a WHERE clause, on a table p returns
// with a column that is not Allowed. It reports true when that cannot be
// told.
func (g *SQLite) restrictedIndex(root int64, p PolicyCatalog) bool {
	rows, err := g.conn.Query("SELECT name, tbl_name, coalesce(sql, '') FROM main.sqlite_schema WHERE type = 'index' AND rootpage = ?1", []driver.Value{root})
	if err != nil {
		return true
	}
	dest := make([]driver.Value, 3)
	if rows.Next(dest) != nil {
		rows.Close()
		return g.restrictedTable(root, p)
	}
	rows.Close()
	name, _ := dest[0].(string)
	table, _ := dest[1].(string)
	def, _ := dest[2].(string)
	rel, ok := p.Relation("", table)
	if !ok {
		// Read through a view the policy vouches for, which may read
		// all of it.
		return false
	}
	if allAllowed(rel) {
		return false
	}
	if strings.Contains(strings.ToUpper(def), "WHERE") {
		return true
	}
	tableDef := ""
	if rows, err := g.conn.Query("SELECT coalesce(sql, '') FROM main.sqlite_schema WHERE type = 'table' AND name = ?1", []driver.Value{table}); err == nil {
		if rows.Next(dest[:1]) == nil {
			tableDef, _ = dest[0].(string)
		}
		rows.Close()
	}
	rowidKey := g.restrictedKey(table, tableDef, rel)
	// The pragma runs as sqlmcp's own statement, not the model's.
	saved := g.policy
	g.policy = nil
	defer func() { g.policy = saved }()
	rows, err = g.conn.Query("SELECT cid, coalesce(name, '') FROM pragma_index_xinfo(?1)", []driver.Value{name})
	if err != nil {
		return true
	}
	defer rows.Close()
	for rows.Next(dest[:2]) == nil {
		cid, _ := dest[0].(int64)
		col, _ := dest[1].(string)
		if cid == -1 {
			// The rowid, last of the key: it orders equal keys.
			if rowidKey {
				return true
			}
			continue
		}
		if access, found := columnAccess(rel, col); cid == -2 || !found || access != Allowed {
			return true
		}
	}
	return false
}

// restrictedTable reports whether the table of the main database at root
// page root keeps its rows in the order of a column p does not allow: its
// INTEGER PRIMARY KEY (the rowid), or a column of a WITHOUT ROWID table's
// primary key. Every scan of it then comes in that column's order. It
// reports false for a root page that is no table p returns.
func (g *SQLite) restrictedTable(root int64, p PolicyCatalog) bool {
	rows, err := g.conn.Query("SELECT name, coalesce(sql, '') FROM main.sqlite_schema WHERE type = 'table' AND rootpage = ?1", []driver.Value{root})
	if err != nil {
		return true
	}
	dest := make([]driver.Value, 3)
	if rows.Next(dest[:2]) != nil {
		rows.Close()
		return false
	}
	rows.Close()
	table, _ := dest[0].(string)
	def, _ := dest[1].(string)
	rel, ok := p.Relation("", table)
	if !ok || allAllowed(rel) {
		return false
	}
	return g.restrictedKey(table, def, rel)
}

// restrictedKey reports whether the table named table, defined by def, keeps
// its rows in the order of a column rel does not allow (see
// restrictedTable); true when that cannot be told.
func (g *SQLite) restrictedKey(table, def string, rel PolicyRelation) bool {
	dest := make([]driver.Value, 3)
	saved := g.policy
	g.policy = nil
	defer func() { g.policy = saved }()
	rows, err := g.conn.Query("SELECT name, upper(type), pk FROM pragma_table_info(?1) WHERE pk > 0", []driver.Value{table})
	if err != nil {
		return true
	}
	defer rows.Close()
	var key []string
	integer := false
	for rows.Next(dest) == nil {
		col, _ := dest[0].(string)
		typ, _ := dest[1].(string)
		key, integer = append(key, col), typ == "INTEGER"
	}
	withoutRowid := strings.Contains(strings.ToUpper(def), "WITHOUT ROWID")
	if !withoutRowid && (len(key) != 1 || !integer) {
		return false // the rowid is the row's number, no column's
	}
	for _, col := range key {
		if access, found := columnAccess(rel, col); !found || access != Allowed {
			return true
		}
	}
	return false
}

// sqliteIndexRefusal refuses a plan that reads rows in the order of an
// index on a column that may not be read.
func sqliteIndexRefusal() *Error {
	return &Error{
		Reason: "SQLite would read this query's rows in the order of an index, or of a table's key, on columns you may not read, and that order would show their values",
		Hint:   "Write NOT INDEXED after the table's name (FROM t NOT INDEXED) and leave INDEXED BY out; a table whose own key you may not read can only be counted (count(*))",
	}
}
