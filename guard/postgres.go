package guard

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// SyntaxError is SQL the parser cannot read: the parser's message and the
// 1-based character position, 0 when unknown.
type SyntaxError struct {
	Message  string
	Position int
}

func (e *SyntaxError) Error() string {
	if e.Position > 0 {
		return fmt.Sprintf("%s (at character %d)", e.Message, e.Position)
	}
	return e.Message
}

// The parser's C code recurses once per level of the tree it hands to Go,
// about 350 bytes of stack a level, with no check of its own: a 24,000-term
// 1+1+... overflows an 8 MiB thread stack (glibc's usual default) and
// kills the process, and Go's protobuf decoder refuses trees deeper than
// 10,000 messages (about 5,000 levels) anyway. So text is measured before
// it is parsed (prescanPostgres).
const (
	// maxPostgresNesting is how deep brackets may nest.
	maxPostgresNesting = 1000
	// maxPostgresDepth bounds the tree depth prescanPostgres estimates.
	// Every construct tried, at this limit, parsed on a 2 MiB thread stack
	// (glibc's default when the stack rlimit is unlimited) and some
	// overflowed 1 MiB. A musl build, whose threads get 128 KiB, must raise
	// that (musl reads -Wl,-z,stack-size=8388608; untested here).
	maxPostgresDepth = 3000
	// maxPostgresCTEs bounds the queries of one WITH clause. The server
	// checks each name against every other before it plans, without
	// checking for a cancel: 45,000 (a megabyte) ran 4.7 s under a 1 s
	// statement_timeout. 1,000 take about 2 ms.
	maxPostgresCTEs = 1000
)

// CheckPostgres reports whether sql is exactly one read-only statement,
// judged from PostgreSQL's own grammar (libpg_query, PostgreSQL 17) and
// cat, without a server.
//
// The accept rule: exactly one statement (a trailing semicolon and
// comments are fine; none at all is refused as "no SQL statement found"),
// which is a query (SELECT, VALUES, TABLE t, UNION, INTERSECT and EXCEPT,
// WITH whose every part is itself such a query, recursive or not), or
// EXPLAIN of a query with any options but ANALYZE (ANALYZE false is fine),
// and in which, wherever it sits (select list, FROM, LATERAL, ROWS FROM,
// WHERE, GROUP BY, HAVING, ORDER BY, windows, subqueries, WITH, VALUES,
// CASE, casts, TABLESAMPLE, JSON_TABLE, XMLTABLE, aggregate FILTER and
// ORDER BY):
//
//   - nothing writes: no INSERT, UPDATE, DELETE or MERGE inside WITH, no
//     SELECT INTO;
//   - nothing locks: no FOR UPDATE, FOR NO KEY UPDATE, FOR SHARE or FOR
//     KEY SHARE;
//   - every function the statement can reach is allowed by what it is
//     (see PostgresCatalog): a call, including t.f (PostgreSQL's attribute
//     notation for f(t)); an operator, including OPERATOR(schema.op); a
//     type named in a cast, a typed literal or a column list, through its
//     input functions, a domain's CHECK constraints and the functions of
//     casts that are not built in. A name without a schema reaches every
//     function of that name on the search path, and each must be built in
//     or from a vetted or allowed extension (or allowed by name), and
//     immutable or stable, or one of a few harmless volatile ones (random,
//     clock_timestamp, timeofday, gen_random_uuid and the uuid generators,
//     the pg_*_size functions); and none may be denied, whatever its
//     origin, volatility or the operator's allowance: the functions that
//     read server files or large objects, reach other servers (dblink),
//     signal or control the server, replication or WAL, allocate
//     transaction ids, take advisory locks, change settings (set_config),
//     use sequences, sleep, notify, or run SQL given as text (crosstab,
//     connectby, xpath_table, query_to_xml, table_to_xml, ts_stat). On a
//     server older than the grammar, SQL/JSON syntax is judged as the
//     call the server will read it as;
//   - TABLESAMPLE uses SYSTEM, BERNOULLI, SYSTEM_ROWS or SYSTEM_TIME.
//
// Every other statement is refused: INSERT, UPDATE, DELETE, MERGE, DDL,
// COPY, SET, RESET and SHOW, DISCARD, CALL, DO, PREPARE and EXECUTE,
// DECLARE and FETCH, LISTEN and NOTIFY, LOCK, VACUUM and ANALYZE, and
// transaction control. Before parsing, text no parser should see is
// refused (too long, not UTF-8, holding NUL), and so is text nested deeper
// than the parser takes safely: brackets more than 1,000 levels deep, or
// expressions chained or nested more than about 3,000 levels (a
// 3,000-term a + b + ...). So is a query whose planning would copy
// expressions or subqueries past a bound (a chain of WITH queries each
// using the last one's column twice doubles the plan at every level): the
// planner does that work before statement_timeout can stop it, so the
// guard estimates it and refuses what could take more than about 100 MB,
// saying what to simplify. The guard cannot see inside views or function
// bodies, nor the functions PostgreSQL calls unasked on a column's values
// (implicit casts, the equality behind DISTINCT and GROUP BY): the
// read-only transaction around every statement, and the reset of the
// connection after it, are the walls there.
//
// It returns nil, a *SyntaxError when the parser cannot read sql, or an
// *Error saying what was refused and what to send instead. It is safe for
// concurrent use when cat is.
func CheckPostgres(sql string, cat PostgresCatalog) error {
	_, err := checkPostgres(sql, cat)
	return err
}

// PostgresQuery is a query CheckPostgres accepts, as the server is to run
// it.
type PostgresQuery struct {
	// Text is what to send: the query wrapped as
	// SELECT * FROM (query) AS sqlmcp_q LIMIT n, so the server stops after n
	// rows and sends no more; an EXPLAIN as it stands.
	Text string
	// Explain is true for an EXPLAIN, which cannot be wrapped.
	Explain bool
	// Masked are the result columns that carry masked columns' values,
	// under a policy (PostgresPolicyLimit); the caller redacts them.
	Masked []MaskedColumn
	// Width is how many columns the result has as the guard counted them
	// under a policy: where the server returns another number, the
	// positions of Masked are not the result's (a row expanded with .*).
	Width int
	// shift is how many characters Text has before the caller's SQL
	// begins, less those of the caller's SQL it left out.
	shift int
}

// Position maps a 1-based character position in Text, as the server
// reports it, to the same place in the caller's SQL; 0 stays 0.
func (q PostgresQuery) Position(pos int) int {
	if pos <= 0 {
		return 0
	}
	return max(pos-q.shift, 1)
}

// limitPrefix opens the wrapper; a new line closes it, ending any line
// comment the query ends with.
const limitPrefix = "SELECT * FROM (\n"

// PostgresLimit checks sql as CheckPostgres does and returns it as the
// server is to run it: wrapped in a LIMIT of limit rows, unless it is an
// EXPLAIN. The whole wrapped text is parsed and checked again, so the text
// judged is the text the server runs. Wrapping keeps the query's rows, their
// order and its column names, and, unlike a cursor, lets PostgreSQL plan it
// in parallel. Empty statements before sql's own and the semicolon after it
// are left out. The errors are CheckPostgres's.
func PostgresLimit(sql string, limit int, cat PostgresCatalog) (PostgresQuery, error) {
	q, err := PostgresPolicyLimit(sql, max(limit, 0), cat, nil)
	if err == nil && limit <= 0 && !q.Explain {
		return PostgresQuery{}, fmt.Errorf("guard: the row limit must be positive, not %d", limit)
	}
	return q, err
}

// CheckPostgresPolicy is CheckPostgres under a table and column policy
// (nil: none): once CheckPostgres accepts sql, the policy resolver (see
// CheckPolicySQL) judges the same parse tree, with cat for the catalog's
// existence oracles (PostgresFunction.Lookup). It returns the result
// columns that carry masked values, or the refusal.
func CheckPostgresPolicy(sql string, cat PostgresCatalog, pol PolicyCatalog) ([]MaskedColumn, error) {
	raw, err := checkPostgres(sql, hideRowTypes(cat, pol))
	if err != nil {
		return nil, err
	}
	return postgresPolicy(raw, cat, pol)
}

// hideRowTypes is cat as a statement under pol sees it: the row type of a
// relation pol does not return (and an array of it) is no type at all, so
// that the guard refuses a cast to it where and as it refuses one to a
// type that does not exist, before any other refusal could come first.
func hideRowTypes(cat PostgresCatalog, pol PolicyCatalog) PostgresCatalog {
	if cat == nil || pol == nil {
		return cat
	}
	return policyTypes{cat, pol}
}

// policyTypes is a PostgresCatalog whose types are filtered by a policy.
type policyTypes struct {
	PostgresCatalog
	pol PolicyCatalog
}

// ReadsReservedSettings passes the catalog's answer through.
func (c policyTypes) ReadsReservedSettings() bool { return readsReserved(c.PostgresCatalog) }

// TextSearch and TextSearchDictionary pass the catalog's text search
// configurations and dictionaries through.
func (c policyTypes) TextSearch(schema, name string) []PostgresFunction {
	if ts, ok := c.PostgresCatalog.(PostgresTextSearch); ok {
		return ts.TextSearch(schema, name)
	}
	return nil
}

func (c policyTypes) TextSearchDictionary(schema, name string) []PostgresFunction {
	if ts, ok := c.PostgresCatalog.(PostgresTextSearch); ok {
		return ts.TextSearchDictionary(schema, name)
	}
	return nil
}

// OperatorAllowed and AllowOperator pass the memo through: a policy
// hides no operator.
func (c policyTypes) OperatorAllowed(schema, name string) bool {
	m, ok := c.PostgresCatalog.(PostgresOperatorMemo)
	return ok && m.OperatorAllowed(schema, name)
}

func (c policyTypes) AllowOperator(schema, name string) {
	if m, ok := c.PostgresCatalog.(PostgresOperatorMemo); ok {
		m.AllowOperator(schema, name)
	}
}

func (c policyTypes) Type(schema, name string) (PostgresType, bool) {
	t, ok := c.PostgresCatalog.Type(schema, name)
	if ok && t.Relation[1] != "" && !rowTypeVisible(c.pol, t) {
		return PostgresType{}, false
	}
	return t, ok
}

// RowType is Type for a relation's row type (see rowType).
func (c policyTypes) RowType(schema, name string) (PostgresType, bool) {
	t, ok := rowType(c.PostgresCatalog, schema, name)
	if ok && t.Relation[1] != "" && !rowTypeVisible(c.pol, t) {
		return PostgresType{}, false
	}
	return t, ok
}

// rowTyper is what a PostgresCatalog implements when looking up the row
// type of a relation a query reads must not count as a name it lacks (a
// WITH query's name has none): source reads its catalog again on a miss.
type rowTyper interface {
	RowType(schema, name string) (PostgresType, bool)
}

// rowType looks up the row type of the relation schema.name in cat.
func rowType(cat PostgresCatalog, schema, name string) (PostgresType, bool) {
	if r, ok := cat.(rowTyper); ok {
		return r.RowType(schema, name)
	}
	return cat.Type(schema, name)
}

// rowTypeVisible reports whether the row type t of a relation may be named
// under pol: only when pol returns the relation and denies none of its
// columns, since a value of the type (NULL::t, jsonb_populate_record)
// shows every column's name, and (NULL::t).c tells whether c exists.
func rowTypeVisible(pol PolicyCatalog, t PostgresType) bool {
	rel, ok := pol.Relation(t.Relation[0], t.Relation[1])
	return ok && !hasDenied(rel)
}

// postgresPolicy judges an accepted statement under pol, when there is one.
func postgresPolicy(raw *pg.RawStmt, cat PostgresCatalog, pol PolicyCatalog) ([]MaskedColumn, error) {
	masked, _, err := postgresPolicyWidth(raw, cat, pol)
	return masked, err
}

// postgresPolicyWidth is postgresPolicy, with the number of result
// columns the resolver counted.
func postgresPolicyWidth(raw *pg.RawStmt, cat PostgresCatalog, pol PolicyCatalog) ([]MaskedColumn, int, error) {
	if pol == nil {
		return nil, 0, nil
	}
	r := &policyResolver{pol: pol, cat: cat}
	masked, e := r.statement(raw.Stmt)
	if e != nil {
		return nil, 0, e
	}
	return masked, r.width, nil
}

// PostgresPolicyLimit is PostgresLimit under a table and column policy
// (nil: none), parsing sql once: the statement is judged as
// CheckPostgresPolicy judges it, and Masked says which result columns
// carry masked values (the wrapper keeps their positions). A limit of 0
// or less leaves the query as it stands (Text is sql).
func PostgresPolicyLimit(sql string, limit int, cat PostgresCatalog, pol PolicyCatalog) (PostgresQuery, error) {
	if q, ok := limitedAtOnce(sql, limit, cat, pol); ok {
		return q, nil
	}
	return limitedApart(sql, limit, cat, pol)
}

// limitedApart is PostgresPolicyLimit's way for any statement: sql is
// parsed and judged alone, then wrapped, and the wrapped text parsed and
// judged again.
func limitedApart(sql string, limit int, cat PostgresCatalog, pol PolicyCatalog) (PostgresQuery, error) {
	raw, err := checkPostgres(sql, hideRowTypes(cat, pol))
	if err != nil {
		return PostgresQuery{}, err
	}
	masked, width, err := postgresPolicyWidth(raw, cat, pol)
	if err != nil {
		return PostgresQuery{}, err
	}
	if raw.Stmt.GetExplainStmt() != nil {
		return PostgresQuery{Text: sql, Explain: true}, nil
	}
	if limit <= 0 {
		return PostgresQuery{Text: sql, Masked: masked, Width: width}, nil
	}
	start, end := int(raw.StmtLocation), len(sql)
	if start < 0 || start > len(sql) {
		start = 0
	}
	if raw.StmtLen > 0 && start+int(raw.StmtLen) <= len(sql) {
		end = start + int(raw.StmtLen)
	}
	text := limitWrap(sql[start:end], limit)
	q := PostgresQuery{Text: text, shift: utf8.RuneCountInString(limitPrefix) - utf8.RuneCountInString(sql[:start])}
	// The wrapper adds a few levels at the outermost level to what sql
	// alone was measured at.
	stmts, err := parsePostgres(text, 8)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) && se.Position > 0 {
			return PostgresQuery{}, &SyntaxError{Message: se.Message, Position: q.Position(se.Position)}
		}
		return PostgresQuery{}, err
	}
	if len(stmts) != 1 || wrappedQuery(stmts[0], limit) == nil {
		return PostgresQuery{}, &Error{
			Reason: "the query does not read as one query once limited",
			Hint:   "Send one plain SELECT statement",
		}
	}
	if err := checkQuery(stmts[0].Stmt.GetSelectStmt(), cat, text); err != nil {
		return PostgresQuery{}, err
	}
	q.Masked, q.Width = masked, width
	return q, nil
}

// limitedAtOnce is PostgresPolicyLimit's way for a plain query, which
// parses and judges only the text the server is to run: sql wrapped in
// the LIMIT, as PostgresPolicyLimit wraps it. It reports false, and
// PostgresPolicyLimit takes its own way, for anything else: a refusal, an
// error, a statement that is not a plain SELECT (an EXPLAIN, empty
// statements before it), or a wrapped text that does not read as the
// wrapper around one query. Spaces and comments before the query stay in
// the text, as the other way keeps them: a first statement begins at 0.
//
// What it accepts, the other way accepts too, as the same PostgresQuery:
// the wrapper's own parts are checked to be exactly the wrapper's, so the
// subquery is the text of sql alone, judged as checkPostgres judges sql's
// statement (its cost, the catalog hiding the policy's row types, the
// policy), in the text it is parsed from. FuzzLimitedAtOnce holds the two
// ways to the same answer.
func limitedAtOnce(sql string, limit int, cat PostgresCatalog, pol PolicyCatalog) (PostgresQuery, bool) {
	if limit <= 0 || checkText(sql) != nil {
		return PostgresQuery{}, false
	}
	// The statement ends at the first semicolon of the semicolons and
	// spaces sql ends with, where the parser ends it.
	end := len(sql)
	for i := len(sql) - 1; i >= 0 && (sql[i] == ';' || isSpace(sql[i])); i-- {
		if sql[i] == ';' {
			end = i
		}
	}
	if end < len(sql) && strings.Contains(sql[strings.LastIndexByte(sql[:end], '\n')+1:end], "--") {
		return PostgresQuery{}, false // the semicolon may be a line comment's
	}
	text := limitWrap(sql[:end], limit)
	// Without the slack PostgresPolicyLimit gives the wrapped text: what
	// passes passes the prescan of sql alone, with room to spare.
	stmts, err := parsePostgres(text, 0)
	if err != nil || len(stmts) != 1 {
		return PostgresQuery{}, false
	}
	inner := wrappedQuery(stmts[0], limit)
	if inner == nil || checkPostgresCost(inner) != nil || checkQuery(inner.GetSelectStmt(), hideRowTypes(cat, pol), text) != nil {
		return PostgresQuery{}, false
	}
	masked, width, err := postgresPolicyWidth(&pg.RawStmt{Stmt: inner}, cat, pol)
	if err != nil {
		return PostgresQuery{}, false
	}
	return PostgresQuery{Text: text, shift: utf8.RuneCountInString(limitPrefix), Masked: masked, Width: width}, true
}

// limitWrap is the text the server runs for a query limited to limit
// rows: the query inside a subselect, its line comment, if any, ended.
func limitWrap(query string, limit int) string {
	return limitPrefix + query + "\n) AS sqlmcp_q LIMIT " + strconv.Itoa(limit)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// wrappedQuery returns the query inside raw when raw is exactly
// limitedAtOnce's wrapper, SELECT * FROM (query) AS sqlmcp_q LIMIT limit,
// and nothing more; nil otherwise.
func wrappedQuery(raw *pg.RawStmt, limit int) *pg.Node {
	o := raw.Stmt.GetSelectStmt()
	if o == nil || len(o.TargetList) != 1 || len(o.FromClause) != 1 || o.WhereClause != nil || len(o.GroupClause) != 0 ||
		o.HavingClause != nil || len(o.WindowClause) != 0 || len(o.DistinctClause) != 0 || len(o.SortClause) != 0 ||
		len(o.LockingClause) != 0 || o.WithClause != nil || o.IntoClause != nil || len(o.ValuesLists) != 0 ||
		o.Op != pg.SetOperation_SETOP_NONE || o.LimitOffset != nil || o.LimitOption != pg.LimitOption_LIMIT_OPTION_COUNT ||
		o.GroupDistinct || o.Larg != nil || o.Rarg != nil {
		return nil
	}
	if c := o.LimitCount.GetAConst(); c == nil || c.GetIval() == nil || c.GetIval().GetIval() != int32(limit) {
		return nil
	}
	t := o.TargetList[0].GetResTarget()
	if t == nil || t.Name != "" || len(t.Indirection) != 0 {
		return nil
	}
	star := t.Val.GetColumnRef()
	if star == nil || len(star.Fields) != 1 || star.Fields[0].GetAStar() == nil {
		return nil
	}
	sub := o.FromClause[0].GetRangeSubselect()
	if sub == nil || sub.Lateral || sub.Alias == nil || sub.Alias.Aliasname != "sqlmcp_q" || len(sub.Alias.Colnames) != 0 ||
		sub.Subquery.GetSelectStmt() == nil {
		return nil
	}
	return sub.Subquery
}

// checkPostgres judges sql and returns its one statement.
func checkPostgres(sql string, cat PostgresCatalog) (*pg.RawStmt, error) {
	if err := checkText(sql); err != nil {
		return nil, err
	}
	stmts, err := parsePostgres(sql, 0)
	if err != nil {
		return nil, err
	}
	switch len(stmts) {
	case 0:
		return nil, &Error{Reason: "no SQL statement found", Hint: "Send one SELECT statement"}
	case 1:
	default:
		rest := sql[min(max(int(stmts[1].StmtLocation), 0), len(sql)):]
		return nil, &Error{
			Reason: fmt.Sprintf("found more than one statement; the second begins %q", snippet(rest[skipBlank(rest):], 60)),
			Hint:   "Send exactly one statement per call",
		}
	}
	raw := stmts[0]
	if err := checkPostgresCost(raw.Stmt); err != nil {
		return raw, err
	}
	switch n := raw.Stmt.GetNode().(type) {
	case *pg.Node_SelectStmt:
		return raw, checkQuery(n.SelectStmt, cat, sql)
	case *pg.Node_ExplainStmt:
		return raw, checkExplain(n.ExplainStmt, cat, sql)
	}
	return raw, refuseStatement(raw.Stmt)
}

// parsePostgres parses sql once prescanPostgres has measured it; slack
// raises the depth limit for text the caller built around checked SQL.
func parsePostgres(sql string, slack int) ([]*pg.RawStmt, error) {
	if len(sql) > prescanFree {
		if err := prescanPostgres(sql, slack); err != nil {
			return nil, err
		}
	}
	tree, err := parseTree(sql)
	if err != nil {
		var pe *parser.Error
		if errors.As(err, &pe) {
			return nil, &SyntaxError{Message: pe.Message, Position: pe.Cursorpos}
		}
		// The tree did not survive decoding: protobuf's depth limit, which
		// the prescan should have kept sql far from.
		return nil, &Error{Reason: "the SQL is nested too deeply to check", Hint: nestingHint}
	}
	return tree.Stmts, nil
}

const nestingHint = "Break up long chains such as a + b + c + ..., long CASE expressions or UNION chains (IN (...), a VALUES list or a WITH clause can replace them), and nest fewer subqueries"

// prescanFree is the longest text prescanPostgres cannot refuse, so the
// parse needs no prescan: each token it counts is at least a byte long and
// adds at most two levels (a bracket two, and OR, two bytes, two once per
// level), so its estimate is at most twice the text's length; the text
// opens at most as many brackets as it has bytes; and its runs of operator
// characters cost at most its length squared, under maxOperatorRuns
// (TestPrescanFree). A scanner error the prescan would report, the parser,
// which runs the same scanner, reports too. The prescan is a second scan,
// about an eighth of the guard's time for a short query.
const prescanFree = min(maxPostgresNesting, maxPostgresDepth/2)

// maxOperatorRuns bounds the sum of the squared lengths of text's runs of
// operator characters (+ - * / < > = ~ ! @ # ^ & | ` ? %). PostgreSQL's
// scanner takes the longest run as one token and may then give back all
// but its first character or two, to scan the rest again: a trailing + or
// - (unless the run holds one of ~ ! @ # ^ & | ` ? %), and a comment's
// start, /* followed by more of them. A run of n such characters then
// costs up to n² steps, about 6 ns each here: 16,000 '+' took 1.45 s to
// scan, and the parser scans again, so a megabyte would hold a core for
// hours, with nothing to interrupt it. The sum counts runs inside strings
// and comments too, which the scanner reads straight: it can only overstate
// the work. At the bound the scans take about 35 ms.
const maxOperatorRuns = 1 << 22

// operatorRuns refuses text whose runs of operator characters could cost
// the scanner more than maxOperatorRuns steps.
func operatorRuns(sql string) error {
	work, longest := operatorRunWork(sql, 2)
	if work <= maxOperatorRuns {
		return nil
	}
	return &Error{
		Reason: fmt.Sprintf("the SQL holds long runs of operator characters (the longest is %d of + - * / < > = and the like), which PostgreSQL's scanner reads in time that grows with the square of their length", longest),
		Hint:   "Put spaces between operators, and shorten runs of such characters in comments and strings",
	}
}

// operatorRunWork sums the lengths of sql's runs of operator characters,
// each raised to the power pow, and reports the longest run.
func operatorRunWork(sql string, pow int) (work, longest int) {
	run := 0
	for i := 0; i <= len(sql); i++ {
		if i < len(sql) && strings.IndexByte(pgOperatorChars, sql[i]) >= 0 {
			run++
			continue
		}
		w := 1
		for range pow {
			w *= run
		}
		work += w
		longest = max(longest, run)
		run = 0
	}
	return work, longest
}

// pgOperatorChars are the characters PostgreSQL's scanner makes operators
// of (op_chars in scan.l).
const pgOperatorChars = "~!@#^&|`?+-*/%<>="

// prescanPostgres refuses text whose parse tree could be deep enough to
// overflow the parser's C stack, reading only PostgreSQL's own scanner's
// tokens (a loop, no recursion). Every level of the tree comes from an
// operator or keyword, or from a bracket: identifiers, constants (TRUE,
// FALSE and NULL among them), commas and dots make leaves and lists, which
// are flat. So the depth of the tree is at most
// the sum, over the brackets enclosing a token, of the operators and
// keywords at each level, plus two for each bracket. It is refined in
// three places the grammar makes safe. Items of a comma-separated list are
// siblings, so each is counted alone, except for UNION, INTERSECT and
// EXCEPT, which join selects across their lists. The parser flattens
// a AND b AND c (and OR) into one node, so those add at most two levels.
func prescanPostgres(sql string, slack int) error {
	if err := operatorRuns(sql); err != nil {
		return err
	}
	buf, err := parser.ScanToProtobuf(sql)
	if err != nil {
		var pe *parser.Error
		if errors.As(err, &pe) {
			return &SyntaxError{Message: pe.Message, Position: pe.Cursorpos}
		}
		return fmt.Errorf("guard: scanning PostgreSQL: %w", err)
	}
	// One level per open bracket: seg counts the current list item's
	// operators and keywords, child the deepest bracket closed within it,
	// best the deepest list item so far.
	type level struct {
		across, seg, child, best int
		bools                    bool
	}
	value := func(l level) int {
		v := l.across + max(l.best, l.seg+l.child)
		if l.bools {
			v += 2
		}
		return v
	}
	stack := []level{{}}
	closeLevel := func() {
		v := value(stack[len(stack)-1]) + 2
		stack = stack[:len(stack)-1]
		top := &stack[len(stack)-1]
		top.child = max(top.child, v)
	}
	err = eachToken(buf, func(tok pg.Token) bool {
		l := &stack[len(stack)-1]
		switch tok {
		case '(', '[':
			stack = append(stack, level{})
			return len(stack)-1 <= maxPostgresNesting
		case ')', ']':
			if len(stack) > 1 {
				closeLevel()
			}
		case ',', ';':
			l.best = max(l.best, l.seg+l.child)
			l.seg, l.child = 0, 0
		case pg.Token_UNION, pg.Token_INTERSECT, pg.Token_EXCEPT:
			l.across++
		case pg.Token_AND, pg.Token_OR:
			l.bools = true
		case pg.Token_IDENT, pg.Token_UIDENT, pg.Token_FCONST, pg.Token_SCONST, pg.Token_USCONST,
			pg.Token_BCONST, pg.Token_XCONST, pg.Token_ICONST, pg.Token_PARAM, '.',
			pg.Token_TRUE_P, pg.Token_FALSE_P, pg.Token_NULL_P, pg.Token_SQL_COMMENT, pg.Token_C_COMMENT:
		default:
			l.seg++
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("guard: reading PostgreSQL's tokens: %w", err)
	}
	if len(stack)-1 > maxPostgresNesting {
		return &Error{
			Reason: fmt.Sprintf("the SQL nests brackets more than %d levels deep", maxPostgresNesting),
			Hint:   "Nest less: a WITH clause can name a subquery instead of nesting it",
		}
	}
	for len(stack) > 1 {
		closeLevel()
	}
	if depth := value(stack[0]); depth > maxPostgresDepth+slack {
		return &Error{
			Reason: fmt.Sprintf("the SQL chains or nests expressions up to %d levels deep; the limit is %d", depth, maxPostgresDepth),
			Hint:   nestingHint,
		}
	}
	return nil
}

// eachToken calls f with each token of a pg_query ScanResult in order,
// until f returns false. It reads the protobuf encoding directly: a
// megabyte of SQL is a few hundred thousand tokens, not worth a struct
// each.
func eachToken(buf []byte, f func(pg.Token) bool) error {
	for len(buf) > 0 {
		num, typ, n := protowire.ConsumeTag(buf)
		if n < 0 {
			return protowire.ParseError(n)
		}
		buf = buf[n:]
		if num != 2 || typ != protowire.BytesType { // ScanResult.tokens
			if n = protowire.ConsumeFieldValue(num, typ, buf); n < 0 {
				return protowire.ParseError(n)
			}
			buf = buf[n:]
			continue
		}
		msg, n := protowire.ConsumeBytes(buf)
		if n < 0 {
			return protowire.ParseError(n)
		}
		buf = buf[n:]
		var tok pg.Token
		for len(msg) > 0 {
			num, typ, n := protowire.ConsumeTag(msg)
			if n < 0 {
				return protowire.ParseError(n)
			}
			msg = msg[n:]
			if num == 4 && typ == protowire.VarintType { // ScanToken.token
				v, n := protowire.ConsumeVarint(msg)
				if n < 0 {
					return protowire.ParseError(n)
				}
				tok = pg.Token(v)
				msg = msg[n:]
				continue
			}
			if n = protowire.ConsumeFieldValue(num, typ, msg); n < 0 {
				return protowire.ParseError(n)
			}
			msg = msg[n:]
		}
		if !f(tok) {
			return nil
		}
	}
	return nil
}

// checkExplain accepts EXPLAIN of a query, without ANALYZE.
func checkExplain(e *pg.ExplainStmt, cat PostgresCatalog, text string) error {
	for _, o := range e.Options {
		if d := o.GetDefElem(); d != nil && strings.EqualFold(d.Defname, "analyze") && !explicitFalse(d.Arg) {
			return &Error{
				Reason: "EXPLAIN ANALYZE runs the statement and is not allowed",
				Hint:   "Send EXPLAIN without ANALYZE to see the plan without running it",
			}
		}
	}
	q := e.Query.GetSelectStmt()
	if q == nil {
		return &Error{
			Reason: fmt.Sprintf("EXPLAIN %s is not allowed", statementName(e.Query)),
			Hint:   "Only a query can be explained: send EXPLAIN SELECT ...",
		}
	}
	return checkQuery(q, cat, text)
}

// explicitFalse reports whether an option's argument turns it off, as
// PostgreSQL's defGetBoolean reads it; no argument means on.
func explicitFalse(arg *pg.Node) bool {
	switch a := arg.GetNode().(type) {
	case *pg.Node_Boolean:
		return !a.Boolean.Boolval
	case *pg.Node_Integer:
		return a.Integer.Ival == 0
	case *pg.Node_String_:
		switch strings.ToLower(a.String_.Sval) {
		case "f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0":
			return true
		}
	}
	return false
}

// refuseStatement words the refusal of a statement that is not a query.
func refuseStatement(n *pg.Node) *Error {
	name := statementName(n)
	switch s := n.GetNode().(type) {
	case *pg.Node_InsertStmt:
		return &Error{Reason: "INSERT into table " + quoteRel(s.InsertStmt.Relation) + " is not allowed", Hint: readOnlyHint}
	case *pg.Node_UpdateStmt:
		return &Error{Reason: "UPDATE of table " + quoteRel(s.UpdateStmt.Relation) + " is not allowed", Hint: readOnlyHint}
	case *pg.Node_DeleteStmt:
		return &Error{Reason: "DELETE from table " + quoteRel(s.DeleteStmt.Relation) + " is not allowed", Hint: readOnlyHint}
	case *pg.Node_MergeStmt:
		return &Error{Reason: "MERGE into table " + quoteRel(s.MergeStmt.Relation) + " is not allowed", Hint: readOnlyHint}
	case *pg.Node_TransactionStmt:
		return &Error{
			Reason: name + " (transaction control) is not allowed",
			Hint:   "Every statement already runs on its own: send it without BEGIN, COMMIT or SAVEPOINT",
		}
	case *pg.Node_VariableSetStmt:
		return &Error{Reason: name + " is not allowed", Hint: "Settings cannot be changed here; read one with SELECT current_setting('name')"}
	case *pg.Node_VariableShowStmt:
		return &Error{Reason: "SHOW is not allowed", Hint: "Read a setting with SELECT current_setting('name'), or all of them with SELECT name, setting FROM pg_settings"}
	case *pg.Node_DiscardStmt:
		return &Error{Reason: "DISCARD is not allowed", Hint: "Session state cannot be changed here; send one SELECT statement"}
	case *pg.Node_CopyStmt:
		return &Error{Reason: "COPY is not allowed", Hint: "Send the SELECT alone; its rows come back as the result"}
	case *pg.Node_DoStmt, *pg.Node_CallStmt:
		return &Error{Reason: name + " is not allowed", Hint: "Code blocks and procedures can write; send one SELECT statement"}
	case *pg.Node_PrepareStmt, *pg.Node_ExecuteStmt, *pg.Node_DeallocateStmt:
		return &Error{Reason: name + " is not allowed", Hint: "Send the query itself, with its values written in"}
	case *pg.Node_DeclareCursorStmt, *pg.Node_FetchStmt, *pg.Node_ClosePortalStmt:
		return &Error{Reason: name + " is not allowed", Hint: "Send the query itself; the server pages its rows"}
	case *pg.Node_ListenStmt, *pg.Node_UnlistenStmt, *pg.Node_NotifyStmt, *pg.Node_LoadStmt, *pg.Node_CheckPointStmt:
		return &Error{Reason: name + " is not allowed", Hint: readOnlyHint}
	case *pg.Node_LockStmt:
		return &Error{Reason: "LOCK is not allowed", Hint: "Reading needs no locks: send the SELECT alone"}
	}
	return &Error{Reason: name + " would change the database and is not allowed", Hint: readOnlyHint}
}

// secretRelation judges a table reference: a relation of
// pgSecretRelations is refused.
func secretRelation(r *pg.RangeVar) *Error {
	schema := r.Schemaname
	if schema == "" {
		schema = "pg_catalog"
	}
	hint, ok := pgSecretRelations[[2]string{schema, r.Relname}]
	if !ok {
		return nil
	}
	shows := "credentials or the server's files"
	if hint == hintSessions {
		shows = "other sessions' statements"
	}
	return &Error{Reason: "the catalog " + quoteRel(r) + " is not allowed: it shows " + shows, Hint: hint}
}

// relationValues judges a table reference by its row type: a query
// compares, hashes and casts values of its columns' types where the text
// names none of them (ORDER BY, GROUP BY, DISTINCT, joins, to_json of a
// column), so a column whose type then runs a function defined in this
// database (PostgresType.Implicit: a default operator class's support
// function, an implicit cast or a cast to json) makes the relation
// refused; so is a relation an extension made, unless the extension is
// allowed, since its rows are what the extension's code makes. A query
// also makes values of its columns' types, and casts
// from them, without naming them: an untyped literal beside a column
// becomes a value of the column's type (array_append(col, 'x'),
// COALESCE(col, '(x)'), col = '{x}', a UNION arm), which runs the type's
// input function and, for an array, composite or range of a domain, the
// domain's CHECK; and col::int names only the type cast to. So what making
// a value of the type runs (PostgresType.Calls defined in this database,
// and Checks, read as the query is) must be allowed as well. The functions
// of extensions' types are left to how those types are read whenever a
// column of one is.
func (w *pgWalker) relationValues(r *pg.RangeVar) *Error {
	t, ok := rowType(w.cat, r.Schemaname, r.Relname)
	if !ok {
		return nil // a WITH query's name, or what the server will not find
	}
	if x := t.Extension; x != "" && !t.ExtensionAllowed && VettedExtensions[x] == "" {
		// Its rows are what the extension's functions make: other
		// sessions' statements (pg_stat_statements), the server's memory
		// (pg_buffercache), a scheduler's commands.
		return &Error{
			Reason: fmt.Sprintf("%s belongs to the extension %s, which this server does not allow", quoteRel(r), x),
			Hint:   "Write the query without it. An operator can allow the extension with --allow-extension " + x,
		}
	}
	for _, f := range t.Implicit {
		if f.Origin != OriginUser {
			continue
		}
		if e := judgeFunction("reading "+quoteRel(r)+", one of whose columns has a type that", f, 2, false); e != nil {
			return e
		}
	}
	for _, f := range t.Calls {
		if f.Origin != OriginUser {
			continue
		}
		if e := judgeFunction("reading "+quoteRel(r)+", one of whose columns has a type whose values, made or cast,", f, 2, false); e != nil {
			return e
		}
	}
	for _, check := range t.Checks {
		if e := w.judgeCheck("a type of a column of "+quoteRel(r), check); e != nil {
			return e
		}
	}
	return nil
}

// quoteRel names a statement's table for a message.
func quoteRel(r *pg.RangeVar) string {
	if r == nil {
		return `""`
	}
	if r.Schemaname != "" {
		return `"` + r.Schemaname + `.` + r.Relname + `"`
	}
	return `"` + r.Relname + `"`
}

// statementNames spells the statements whose node names do not.
var statementNames = map[string]string{
	"InsertStmt": "INSERT", "UpdateStmt": "UPDATE", "DeleteStmt": "DELETE", "MergeStmt": "MERGE",
	"SelectStmt": "SELECT", "ExplainStmt": "EXPLAIN",
	"CreateStmt": "CREATE TABLE", "CreateTableAsStmt": "CREATE TABLE AS", "IndexStmt": "CREATE INDEX",
	"ViewStmt": "CREATE VIEW", "CreateSeqStmt": "CREATE SEQUENCE", "CreateTrigStmt": "CREATE TRIGGER",
	"RuleStmt": "CREATE RULE", "CreatedbStmt": "CREATE DATABASE", "DropdbStmt": "DROP DATABASE",
	"CreateFunctionStmt": "CREATE FUNCTION", "RenameStmt": "ALTER ... RENAME", "CheckPointStmt": "CHECKPOINT",
	"RefreshMatViewStmt": "REFRESH MATERIALIZED VIEW", "VariableShowStmt": "SHOW", "ClosePortalStmt": "CLOSE",
	"DeclareCursorStmt": "DECLARE", "SecLabelStmt": "SECURITY LABEL", "CreatePLangStmt": "CREATE LANGUAGE",
}

// transactionWords spells each kind of transaction statement.
var transactionWords = map[pg.TransactionStmtKind]string{
	pg.TransactionStmtKind_TRANS_STMT_BEGIN:             "BEGIN",
	pg.TransactionStmtKind_TRANS_STMT_START:             "START TRANSACTION",
	pg.TransactionStmtKind_TRANS_STMT_COMMIT:            "COMMIT",
	pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:          "ROLLBACK",
	pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:         "SAVEPOINT",
	pg.TransactionStmtKind_TRANS_STMT_RELEASE:           "RELEASE",
	pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:       "ROLLBACK TO",
	pg.TransactionStmtKind_TRANS_STMT_PREPARE:           "PREPARE TRANSACTION",
	pg.TransactionStmtKind_TRANS_STMT_COMMIT_PREPARED:   "COMMIT PREPARED",
	pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_PREPARED: "ROLLBACK PREPARED",
}

// statementName spells a statement as its SQL begins: "DELETE", "SET
// TRANSACTION", "ALTER TABLE".
func statementName(n *pg.Node) string {
	switch s := n.GetNode().(type) {
	case *pg.Node_TransactionStmt:
		if w, ok := transactionWords[s.TransactionStmt.Kind]; ok {
			return w
		}
	case *pg.Node_VariableSetStmt:
		switch s.VariableSetStmt.Kind {
		case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_RESET_ALL:
			return "RESET"
		case pg.VariableSetKind_VAR_SET_MULTI:
			return "SET " + strings.ToUpper(s.VariableSetStmt.Name)
		}
		return "SET"
	case *pg.Node_VacuumStmt:
		if s.VacuumStmt.IsVacuumcmd {
			return "VACUUM"
		}
		return "ANALYZE"
	case *pg.Node_CreateTableAsStmt:
		if s.CreateTableAsStmt.Objtype == pg.ObjectType_OBJECT_MATVIEW {
			return "CREATE MATERIALIZED VIEW"
		}
	case *pg.Node_GrantStmt:
		if !s.GrantStmt.IsGrant {
			return "REVOKE"
		}
	case *pg.Node_GrantRoleStmt:
		if !s.GrantRoleStmt.IsGrant {
			return "REVOKE"
		}
	}
	m := n.ProtoReflect()
	fd := m.WhichOneof(m.Descriptor().Oneofs().Get(0))
	if fd == nil {
		return "the statement"
	}
	return nodeWords(string(fd.Message().Name()))
}

// nodeWords spells a parse node's type name as SQL words: "AlterTableStmt"
// becomes "ALTER TABLE".
func nodeWords(name string) string {
	if w, ok := statementNames[name]; ok {
		return w
	}
	name = strings.TrimSuffix(name, "Stmt")
	var b strings.Builder
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// checkQuery walks a query's whole parse tree, every field of every node,
// and refuses the first thing in it that could write, lock or call what
// must not run.
func checkQuery(q *pg.SelectStmt, cat PostgresCatalog, text string) error {
	w := &pgWalker{cat: cat, text: text}
	if e := w.walk(q.ProtoReflect()); e != nil {
		return e
	}
	if e := w.ors.check(); e != nil {
		return e
	}
	if e := w.roleSettings.check(q.ProtoReflect()); e != nil {
		return e
	}
	// Names that may be columns are looked up last, so a catalog miss for
	// what is only a column never comes with another refusal.
	for _, a := range w.attrs {
		if e := w.attribute(a.ref, a.name); e != nil {
			return e
		}
	}
	return nil
}

// pgWalker holds what a walk over one query needs.
type pgWalker struct {
	cat   PostgresCatalog
	text  string                       // the SQL the tree was parsed from
	depth int                          // how many domain CHECKs deep the walk is
	attrs []struct{ ref, name string } // t.f and (row).f: columns, or calls of f
	// checks holds the verdict on each domain CHECK judged at each depth,
	// shared with the walks of the CHECKs: a statement's casts to one
	// domain, and CHECKs that cast to other domains, are judged once.
	checks map[pgCheckAt]*Error
	// ors is the largest load of ORs of any one query the walk met (see
	// maxPostgresOrs).
	ors pgOrLoad
	// roleSettings notes what could read the settings column of pg_roles
	// or pg_user (see roleSettingsRead).
	roleSettings pgRoleSettings
}

type pgCheckAt struct {
	label, check string
	depth        int
}

// walk visits m and every message under it, in field order, and returns
// the first refusal.
func (w *pgWalker) walk(m protoreflect.Message) *Error {
	_, _, e := w.walkOrs(m, false)
	return e
}

// walkOrs is walk, measuring on the way the ORs under m, and keeping in
// w.ors the largest load of any one query: its own ORs and those of the
// queries under it (in FROM, WITH, EXISTS, IN, a scalar subquery), which
// the planner may pull up into it, but of a set operation's arms only the
// larger, each planned apart. negated says m is under a NOT; column, that
// a column reference is under m.
func (w *pgWalker) walkOrs(m protoreflect.Message, negated bool) (pgOrLoad, bool, *Error) {
	if e := w.visit(m); e != nil {
		return pgOrLoad{}, false, e
	}
	or, fixed := pgOrWays(m, &negated)
	var acc struct {
		load, arm pgOrLoad // the children's, and the larger arm of a set operation
		column    bool
		arms      int // children naming a column
		e         *Error
	}
	var setop *pg.SelectStmt
	switch n := m.Interface().(type) {
	case *pg.SelectStmt:
		if n.Op != pg.SetOperation_SET_OPERATION_UNDEFINED && n.Op != pg.SetOperation_SETOP_NONE {
			setop = n
		}
	case *pg.ColumnRef:
		acc.column = true
	}
	var buf [8]protoreflect.Message // the children, on the stack unless there are more
	for _, c := range appendChildren(buf[:0], m) {
		l, col, e := w.walkOrs(c, negated)
		if setop != nil && (c.Interface() == setop.Larg || c.Interface() == setop.Rarg) {
			acc.arm = pgOrLoad{max(acc.arm.ors, l.ors), max(acc.arm.arms, l.arms)}
		} else {
			acc.load.ors += l.ors
			acc.load.arms += l.arms
		}
		if col {
			acc.column = true
			acc.arms++
		}
		if acc.e = e; e != nil {
			break
		}
	}
	load := pgOrLoad{acc.load.ors + acc.arm.ors, acc.load.arms + acc.arm.arms}
	switch {
	case or && fixed >= 0:
		load.ors++
		load.arms += fixed
	case or && acc.arms > 0:
		load.ors++
		load.arms += acc.arms
	}
	if _, ok := m.Interface().(*pg.SelectStmt); ok {
		w.ors = pgOrLoad{max(w.ors.ors, load.ors), max(w.ors.arms, load.arms)}
	}
	return load, acc.column, acc.e
}

// children calls f with each message directly under m, in field order,
// until f returns false: the node a Node holds (a oneof of every node
// type), and the messages in every other set field, lists and maps too.
func children(m protoreflect.Message, f func(protoreflect.Message) bool) {
	var buf [8]protoreflect.Message
	for _, c := range appendChildren(buf[:0], m) {
		if !f(c) {
			return
		}
	}
}

// appendChildren appends the messages directly under m, in children's
// order, to dst. The fields are read from the generated struct (see
// pgChildFields); a type whose struct does not map onto its descriptor is
// read through protobuf's reflection.
func appendChildren(dst []protoreflect.Message, m protoreflect.Message) []protoreflect.Message {
	d := m.Descriptor()
	if d == pgNodeDescriptor {
		if inner := nodeInner(m.Interface().(*pg.Node)); inner != nil {
			dst = append(dst, inner)
		}
		return dst
	}
	v := reflect.ValueOf(m.Interface())
	cfs := childFields(d, v.Type())
	if cfs == nil {
		return appendReflectChildren(dst, m, d)
	}
	v = v.Elem()
	for _, cf := range cfs {
		fv := v.Field(cf.index)
		switch {
		case cf.oneof:
			// The member set, a wrapper struct whose one field holds it
			// (as in nodeInner); a member that is not a message has none.
			if fv.IsNil() {
				continue
			}
			if in := fv.Elem().Elem().Field(0); in.Kind() == reflect.Pointer && !in.IsNil() {
				if pm, ok := in.Interface().(protoreflect.ProtoMessage); ok {
					dst = append(dst, pm.ProtoReflect())
				}
			}
		case cf.list:
			for j := range fv.Len() {
				if el := fv.Index(j); !el.IsNil() {
					dst = append(dst, el.Interface().(protoreflect.ProtoMessage).ProtoReflect())
				}
			}
		default:
			if !fv.IsNil() {
				dst = append(dst, fv.Interface().(protoreflect.ProtoMessage).ProtoReflect())
			}
		}
	}
	return dst
}

// appendReflectChildren is appendChildren through protobuf's reflection.
func appendReflectChildren(dst []protoreflect.Message, m protoreflect.Message, d protoreflect.MessageDescriptor) []protoreflect.Message {
	for _, fd := range messageFields(d) {
		if !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		switch {
		case fd.IsList():
			l := v.List()
			for j := range l.Len() {
				dst = append(dst, l.Get(j).Message())
			}
		case fd.IsMap(): // parse trees have none today
			if fd.MapValue().Message() == nil {
				continue
			}
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				dst = append(dst, mv.Message())
				return true
			})
		default:
			dst = append(dst, v.Message())
		}
	}
	return dst
}

// pgChildField is a field of a generated message struct that holds a
// message (a pointer), a list of them (a slice of pointers) or a oneof
// (an interface holding a wrapper of the member set).
type pgChildField struct {
	index int
	list  bool
	oneof bool
}

// pgChildFields holds childFields' answer per message type: protobuf's
// reflection (Has, Get, List) found each field of each node again, a
// quarter of the guard's time on a short statement.
var pgChildFields sync.Map // reflect.Type → []pgChildField, empty for none

// childFields is, for the generated message type t of descriptor d, the
// struct fields that hold d's message fields (messageFields), in the same
// order, matched by their field numbers in the generated struct tags. It
// is nil when they do not map one to one (a map, a field missing or of
// another shape, a oneof whose message members are not next to each
// other), and the caller then reads t by reflection.
func childFields(d protoreflect.MessageDescriptor, t reflect.Type) []pgChildField {
	if v, ok := pgChildFields.Load(t); ok {
		return v.([]pgChildField)
	}
	cfs := mapChildFields(d, t)
	pgChildFields.Store(t, cfs)
	return cfs
}

func mapChildFields(d protoreflect.MessageDescriptor, t reflect.Type) []pgChildField {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	st := t.Elem()
	byNumber := map[protoreflect.FieldNumber]int{}
	byOneof := map[string]int{}
	for i := range st.NumField() {
		if name := st.Field(i).Tag.Get("protobuf_oneof"); name != "" {
			byOneof[name] = i
			continue
		}
		tag := st.Field(i).Tag.Get("protobuf")
		if tag == "" {
			continue
		}
		parts := strings.Split(tag, ",")
		if len(parts) < 2 {
			return nil
		}
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			return nil
		}
		byNumber[protoreflect.FieldNumber(n)] = i
	}
	msg := reflect.TypeFor[protoreflect.ProtoMessage]()
	cfs := []pgChildField{}
	var last protoreflect.OneofDescriptor // the oneof of the field before
	for _, fd := range messageFields(d) {
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			i, ok := byOneof[string(od.Name())]
			switch {
			case !ok || st.Field(i).Type.Kind() != reflect.Interface:
				return nil
			case od == last:
				continue // one entry for the oneof
			}
			for _, cf := range cfs {
				if cf.oneof && cf.index == i {
					return nil // its members are apart: the order would differ
				}
			}
			cfs = append(cfs, pgChildField{index: i, oneof: true})
			last = od
			continue
		}
		last = nil
		i, ok := byNumber[fd.Number()]
		if !ok || fd.IsMap() {
			return nil
		}
		ft := st.Field(i).Type
		cf := pgChildField{index: i, list: fd.IsList()}
		if cf.list {
			if ft.Kind() != reflect.Slice {
				return nil
			}
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.Pointer || !ft.Implements(msg) {
			return nil
		}
		cfs = append(cfs, cf)
	}
	return cfs
}

var pgNodeDescriptor = (&pg.Node{}).ProtoReflect().Descriptor()

// nodeInner is the message a Node holds, nil for none. Every member of
// Node's oneof is a generated wrapper whose one field is the message, so
// the field is read directly: protobuf's WhichOneof and Get find it by
// reflection at every node, a tenth of the guard's walks.
func nodeInner(n *pg.Node) protoreflect.Message {
	if n == nil || n.Node == nil {
		return nil
	}
	inner, ok := reflect.ValueOf(n.Node).Elem().Field(0).Interface().(protoreflect.ProtoMessage)
	if !ok || reflect.ValueOf(inner).IsNil() {
		return nil
	}
	return inner.ProtoReflect()
}

// pgMessageFields holds, for each message type children met, its fields
// that hold messages: most of a node's fields are scalars, not worth
// asking about (a tenth of the walk).
var pgMessageFields sync.Map // protoreflect.MessageDescriptor → []protoreflect.FieldDescriptor

func messageFields(d protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	if fds, ok := pgMessageFields.Load(d); ok {
		return fds.([]protoreflect.FieldDescriptor)
	}
	var fds []protoreflect.FieldDescriptor
	fields := d.Fields()
	for i := range fields.Len() {
		if fd := fields.Get(i); fd.Message() != nil {
			fds = append(fds, fd)
		}
	}
	pgMessageFields.Store(d, fds)
	return fds
}

// visit judges one node of a query's tree.
func (w *pgWalker) visit(m protoreflect.Message) *Error {
	switch n := m.Interface().(type) {
	case *pg.FuncCall:
		if e := populates(n); e != nil {
			return e
		}
		if e := w.textSearch(n); e != nil {
			return e
		}
		if e := w.setting(n); e != nil {
			return e
		}
		return w.function(n.Funcname, len(n.Args), w.grammarMade(n))
	case *pg.TypeName:
		var names []string
		for _, f := range n.Names {
			names = append(names, f.GetString_().GetSval())
		}
		return w.judgeType(names)
	case *pg.JsonFuncExpr:
		return w.newSyntax(jsonFuncCalls[n.Op.String()], 170000)
	case *pg.WithClause:
		if len(n.Ctes) > maxPostgresCTEs {
			return &Error{
				Reason: fmt.Sprintf("the WITH clause defines %d queries; the limit is %d", len(n.Ctes), maxPostgresCTEs),
				Hint:   "Define fewer in one WITH clause: PostgreSQL compares each name with every other, in work it does not interrupt",
			}
		}
	case *pg.A_Expr:
		switch n.Kind {
		case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN,
			pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
			// Named "BETWEEN"; PostgreSQL runs >= and <=.
			if e := w.operator("", ">="); e != nil {
				return e
			}
			return w.operator("", "<=")
		}
		if len(n.Name) > 0 {
			if e := populatesByOperator(n); e != nil {
				return e
			}
			if _, op := qualifiedName(n.Name); op == "@@" || op == "@@@" {
				// text @@ text parses both sides by the default configuration.
				if e := w.textSearchConfig(false, "", ""); e != nil {
					return e
				}
			}
			return w.operator(qualifiedName(n.Name))
		}
	case *pg.SubLink: // x op ANY (SELECT ...)
		if len(n.OperName) > 0 {
			return w.operator(qualifiedName(n.OperName))
		}
		if n.SubLinkType == pg.SubLinkType_ANY_SUBLINK { // x IN (SELECT ...) runs =
			return w.operator("", "=")
		}
	case *pg.CaseExpr: // CASE x WHEN y runs x = y
		if n.Arg != nil {
			return w.operator("", "=")
		}
	case *pg.SortBy: // ORDER BY x USING op
		if len(n.UseOp) > 0 {
			return w.operator(qualifiedName(n.UseOp))
		}
	case *pg.ColumnRef:
		if k := len(n.Fields); k >= 2 {
			if s := n.Fields[k-1].GetString_(); s != nil {
				var parts []string
				for _, f := range n.Fields {
					parts = append(parts, f.GetString_().GetSval())
				}
				w.attrs = append(w.attrs, struct{ ref, name string }{strings.Join(parts, "."), s.Sval})
			}
		}
	case *pg.A_Indirection:
		for _, ind := range n.Indirection {
			if s := ind.GetString_(); s != nil {
				w.attrs = append(w.attrs, struct{ ref, name string }{"(...)." + s.Sval, s.Sval})
			}
		}
	case *pg.RangeVar:
		if e := secretRelation(n); e != nil {
			return e
		}
		if e := w.reservedRelation(n); e != nil {
			return e
		}
		w.roleSettings.relation(n)
		return w.relationValues(n)
	case *pg.RangeTableSample:
		_, method := qualifiedName(n.Method)
		switch strings.ToLower(method) {
		case "system", "bernoulli", "system_rows", "system_time":
		default:
			return &Error{
				Reason: fmt.Sprintf("the TABLESAMPLE method %s is not allowed", method),
				Hint:   "Use TABLESAMPLE SYSTEM (percent) or BERNOULLI (percent)",
			}
		}
	case *pg.LockingClause:
		what := lockWords[n.Strength]
		if what == "" {
			what = "FOR UPDATE"
		}
		return &Error{
			Reason: what + " locks rows and is not allowed",
			Hint:   "Send the SELECT without " + what + "; reading needs no row locks",
		}
	case *pg.IntoClause:
		return &Error{
			Reason: "SELECT INTO creates a table and is not allowed",
			Hint:   "Send the SELECT without INTO; its rows come back as the result",
		}
	case *pg.InsertStmt, *pg.UpdateStmt, *pg.DeleteStmt, *pg.MergeStmt:
		return &Error{
			Reason: fmt.Sprintf("a data-modifying WITH (%s) is not allowed", nodeWords(string(m.Descriptor().Name()))),
			Hint:   "Every query in a WITH must be a SELECT: this server only reads",
		}
	case *pg.SelectStmt:
	default:
		if j, ok := syntaxSince[string(m.Descriptor().Name())]; ok {
			return w.newSyntax(j.call, j.version)
		}
		// No other statement can sit inside a query today; should one
		// appear, refuse it rather than guess.
		if name := string(m.Descriptor().Name()); strings.HasSuffix(name, "Stmt") {
			return &Error{Reason: nodeWords(name) + " inside a query is not allowed", Hint: readOnlyHint}
		}
	}
	return nil
}

// pgPopulators make a new value of their first argument's type, a row
// type, from JSON or hstore: making it runs its columns' domain CHECKs and
// input functions.
var pgPopulators = map[string]bool{
	"json_populate_record": true, "jsonb_populate_record": true, "json_populate_recordset": true,
	"jsonb_populate_recordset": true, "populate_record": true, "jsonb_populate_record_valid": true,
}

// populates refuses a call of a pgPopulators function whose first argument
// is not a value cast to a named type (NULL::t): the type it makes would be
// a column's or a whole row's, which the text does not name, so what making
// it runs could not be judged.
func populates(n *pg.FuncCall) *Error {
	_, name := qualifiedName(n.Funcname)
	if !pgPopulators[strings.ToLower(name)] || len(n.Args) == 0 || n.Args[0].GetTypeCast() != nil {
		return nil
	}
	return &Error{
		Reason: name + "() makes a value of its first argument's type, and the query does not name that type",
		Hint:   "Name the row type with a cast: " + name + "(NULL::the_table, ...)",
	}
}

// PostgresTextSearch is what a PostgresCatalog implements when it knows
// the database's text search configurations: TextSearch returns the
// functions, not built in, that parsing text by the configuration
// schema.name runs (its parser's and its dictionaries' templates'); schema
// "" for any of that name, both "" for default_text_search_config, and
// name "*" for every configuration.
type PostgresTextSearch interface {
	TextSearch(schema, name string) []PostgresFunction
	// TextSearchDictionary is TextSearch for a dictionary (ts_lexize):
	// its template's functions.
	TextSearchDictionary(schema, name string) []PostgresFunction
}

// pgTextSearchFuncs take a text search configuration, first, or else
// parse by the default one.
var pgTextSearchFuncs = map[string]bool{
	"to_tsvector": true, "to_tsquery": true, "plainto_tsquery": true, "phraseto_tsquery": true,
	"websearch_to_tsquery": true, "ts_headline": true, "json_to_tsvector": true, "jsonb_to_tsvector": true,
	"ts_debug": true,
}

// textSearch judges a call that parses text by a text search
// configuration: the one its first argument names, when that is written
// out; every one, when it is computed; and the default one as well, since
// some of these functions take the configuration only optionally.
func (w *pgWalker) textSearch(n *pg.FuncCall) *Error {
	_, name := qualifiedName(n.Funcname)
	lower := strings.ToLower(name)
	dict := lower == "ts_lexize"
	if !pgTextSearchFuncs[lower] && !dict {
		return nil
	}
	if !dict {
		if e := w.textSearchConfig(false, "", ""); e != nil {
			return e
		}
	}
	if len(n.Args) < 2 {
		return nil
	}
	first := n.Args[0]
	if tc := first.GetTypeCast(); tc != nil {
		first = tc.Arg
	}
	if c := first.GetAConst(); c != nil {
		if s := c.GetSval(); s != nil {
			schema, cfg, ok := strings.Cut(s.Sval, ".")
			if !ok {
				schema, cfg = "", s.Sval
			}
			return w.textSearchConfig(dict, schema, cfg)
		}
		return nil // not a name: the call takes no configuration
	}
	return w.textSearchConfig(dict, "", "*")
}

// textSearchConfig judges parsing by the configuration schema.name, or
// the dictionary when dict is set (see PostgresTextSearch).
func (w *pgWalker) textSearchConfig(dict bool, schema, name string) *Error {
	ts, ok := w.cat.(PostgresTextSearch)
	if !ok {
		return nil
	}
	what, lookup := "configuration", ts.TextSearch
	if dict {
		what, lookup = "dictionary", ts.TextSearchDictionary
	}
	label := "the text search " + what + " " + name
	switch name {
	case "":
		label = "the default text search configuration (default_text_search_config)"
	case "*":
		label = "a text search " + what + " named by a computed value"
	}
	for _, f := range lookup(schema, name) {
		if e := judgeFunction(label+", which", f, 2, false); e != nil {
			return e
		}
	}
	return nil
}

// populatesByOperator refuses hstore's record #= hstore, populate_record
// as an operator, unless its record is a value cast to a named type.
func populatesByOperator(n *pg.A_Expr) *Error {
	if _, op := qualifiedName(n.Name); op != "#=" || n.Lexpr == nil || n.Lexpr.GetTypeCast() != nil {
		return nil
	}
	return &Error{
		Reason: "#= makes a value of its left side's type, and the query does not name that type",
		Hint:   "Name the row type with a cast: NULL::the_table #= ...",
	}
}

// lockWords spells each row-locking strength.
var lockWords = map[pg.LockClauseStrength]string{
	pg.LockClauseStrength_LCS_FORKEYSHARE:    "FOR KEY SHARE",
	pg.LockClauseStrength_LCS_FORSHARE:       "FOR SHARE",
	pg.LockClauseStrength_LCS_FORNOKEYUPDATE: "FOR NO KEY UPDATE",
	pg.LockClauseStrength_LCS_FORUPDATE:      "FOR UPDATE",
}

// qualifiedName splits a parse tree's name list into schema and name;
// schema is "" when the name is not qualified.
func qualifiedName(names []*pg.Node) (schema, name string) {
	if k := len(names); k > 0 {
		name = names[k-1].GetString_().GetSval()
		if k > 1 {
			schema = names[k-2].GetString_().GetSval()
		}
	}
	return schema, name
}

// grammarMade reports whether the parser, not the text, qualified the call
// n with pg_catalog: SQL syntax such as EXTRACT(... FROM ...) or, in
// PostgreSQL 16 and later, JSON_OBJECT(...), which an older server reads
// as a plain call, resolved through search_path.
func (w *pgWalker) grammarMade(n *pg.FuncCall) bool {
	if n.Funcformat == pg.CoercionForm_COERCE_SQL_SYNTAX {
		return true
	}
	if len(n.Funcname) < 2 || n.Funcname[0].GetString_().GetSval() != "pg_catalog" {
		return false
	}
	at := int(n.Location)
	if at < 0 || at >= len(w.text) {
		return true // no text to tell by: judge the call the wider way
	}
	// Only the name's first bytes are looked at: lowering the whole rest
	// of the text at every call made a long list of calls quadratic.
	const schema = "pg_catalog"
	rest := strings.TrimPrefix(w.text[at:], `"`)
	return len(rest) < len(schema) || strings.ToLower(rest[:len(schema)]) != schema
}

// function judges a call of the function named by names, as the server
// will resolve it: every function the name can reach must be allowed.
// sqlSyntax is true for a call the grammar made from SQL syntax (EXTRACT,
// SUBSTRING ... FROM, JSON_OBJECT), which an older server may read as a
// plain call, resolved through search_path.
func (w *pgWalker) function(names []*pg.Node, nargs int, sqlSyntax bool) *Error {
	schema, name := qualifiedName(names)
	lower := strings.ToLower(name)
	if hint, denied := pgDenied(lower); denied {
		return &Error{Reason: "the function " + name + "() is not allowed", Hint: hint}
	}
	if lower == "ts_rewrite" && nargs == 2 { // ts_rewrite(query, 'SELECT ...')
		return &Error{Reason: "ts_rewrite() with a query is not allowed", Hint: hintSQLText}
	}
	if sqlSyntax && schema == "pg_catalog" && w.cat.ServerVersion() < 170000 {
		schema = ""
	}
	fns := w.cat.Functions(schema, name)
	if len(fns) == 0 {
		full := name
		if schema != "" {
			full = schema + "." + name
		}
		return &Error{
			MissingFunction: full,
			Reason:          "no function named " + full + "()",
			Hint:            "Check the spelling and the schema; pg_proc lists the functions this database has",
		}
	}
	return judgeFunctions(name+"()", fns)
}

// operator judges a use of the operator schema.name.
func (w *pgWalker) operator(schema, name string) *Error {
	memo, _ := w.cat.(PostgresOperatorMemo)
	if memo != nil && memo.OperatorAllowed(schema, name) {
		return nil
	}
	e := w.judgeOperator(schema, name)
	if e == nil && memo != nil {
		memo.AllowOperator(schema, name)
	}
	return e
}

// judgeOperator judges every function behind the operators schema.name.
func (w *pgWalker) judgeOperator(schema, name string) *Error {
	full := name
	if schema != "" {
		full = "OPERATOR(" + schema + "." + name + ")"
	}
	fns := w.cat.Operators(schema, name)
	if len(fns) == 0 {
		return &Error{
			Reason: "no operator named " + full,
			Hint:   "Check the operator; pg_operator lists the operators this database has",
		}
	}
	return judgeFunctions("the operator "+full, fns)
}

// attribute judges ref, which ends in name: a column, or PostgreSQL's
// attribute notation t.f for f(t) when the catalog knows a function f.
func (w *pgWalker) attribute(ref, name string) *Error {
	fns := w.cat.Functions("", name)
	if len(fns) == 0 {
		return nil // a column
	}
	if _, denied := pgDenied(strings.ToLower(name)); !denied && judgeFunctions(name+"()", fns) == nil {
		return nil
	}
	return &Error{
		Reason: fmt.Sprintf("%s can call the function %s() and is not allowed", ref, name),
		Hint:   fmt.Sprintf("If %s is a column, select it without the table name; otherwise write the query without %s()", name, name),
	}
}
