//go:build !nomysql

package guard

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // the parser's literal values, without TiDB's type system
)

// The MySQL and MariaDB guard reads SQL with TiDB's parser
// (github.com/pingcap/tidb/pkg/parser), a goyacc grammar of MySQL 8 in
// pure Go. It was chosen over vitess' sqlparser on a corpus of MariaDB
// 10.11 analytic SQL and hostile statements: both read backticks, CTEs,
// window functions, JSON functions and locking clauses, and both fail on
// the same MariaDB-only syntax (FETCH FIRST, CAST AS INTEGER, FOR
// SYSTEM_TIME, VALUES without ROW), but vitess cannot parse INTERSECT or
// EXCEPT, loses the INTO OUTFILE of a UNION from its tree, and reads
// MariaDB's NEXT VALUE FOR s (which advances a sequence) as its own
// sequence syntax, while TiDB's parser keeps all three as what they are.
// TiDB's parser cannot read JSON_TABLE, SELECT ... INTO @var and INTO
// DUMPFILE: the first is refused as unreadable, the other two with a
// message naming them. Neither parser reads comments as MariaDB does, so
// the guard lexes comments itself and blanks them before parsing, and the
// server runs the blanked text: what the guard judged is what runs.

// maxMySQLDepth bounds how deep the parse tree of a query may be: the
// walk is recursive, and no analytic query comes near.
const maxMySQLDepth = 2000

// MySQLQuery is a query CheckMySQL accepts, as the server is to run it.
type MySQLQuery struct {
	// Text is what to send: the statement with its comments blanked out
	// and, unless it is an EXPLAIN, its outermost LIMIT at most the
	// limit asked for (added when it had none).
	Text string
	// Explain is true for an EXPLAIN, whose rows are the plan.
	Explain bool
}

// CheckMySQL reports whether sql is exactly one read-only statement for a
// MySQL or MariaDB server, judged from a MySQL grammar and cat, without a
// server.
//
// The accept rule: exactly one statement (a trailing semicolon and
// comments are fine), which is a query (SELECT, WITH ... SELECT,
// recursive or not, UNION, INTERSECT and EXCEPT, and on MySQL TABLE t and
// VALUES ROW(...)), or EXPLAIN or DESCRIBE of one without ANALYZE, and in
// which, wherever it sits:
//
//   - nothing writes or leaves the session: no INTO OUTFILE, INTO
//     DUMPFILE or INTO @var, no user-variable assignment (@x := ...);
//   - nothing locks: no FOR UPDATE, FOR SHARE or LOCK IN SHARE MODE;
//   - nothing shows other sessions' statements or the server's
//     credentials: no relation of performance_schema or sys, no table of
//     the mysql schema but its time zone and help tables, func and the
//     table and index statistics, none of information_schema's tables of
//     sessions (PROCESSLIST, INNODB_TRX and the like) or of every system
//     variable, and no system variable holding a password, a key or a
//     secret (@@report_password);
//   - every function called is allowed by what it is: built into the
//     server (see MySQLBuiltins), not defined by the database (cat's
//     stored and loadable functions are refused, and so is every
//     schema-qualified call db.f()), and none of those that wait, lock,
//     read files or advance counters: SLEEP, BENCHMARK, GET_LOCK and its
//     family, LOAD_FILE, LAST_INSERT_ID(expr), UUID_SHORT, NEXTVAL, SETVAL
//     and NEXT VALUE FOR, and the replication waits; nor the geometry
//     computations whose time grows with the square of the points and
//     which the server does not stop at its time limit (ST_Union,
//     ST_Distance and the like, see mysqlDenied); and on MariaDB, none of
//     the regular expressions (REGEXP, RLIKE, the REGEXP_ functions), whose
//     backtracking the server does not stop at its time limit, nor
//     JSON_OBJECTAGG, which group_concat_max_len does not bound, nor
//     the functions whose result can outgrow max_allowed_packet many
//     times over (JSON_SET, the JSON_MERGEs, JSON_QUOTE, JSON_DETAILED,
//     MAKE_SET, COLUMN_CREATE, JSON_EXTRACT of several paths or of a **
//     path and the like: see mariaDBDenied).
//
// Comments are read as the server reads them (# and "-- " to the end of
// the line, /* ... */), and executable comments (/*! ... */, /*M! ... */),
// which the server runs as SQL, are refused. Every other statement is
// refused: INSERT, REPLACE, UPDATE, DELETE, DDL (CREATE TEMPORARY TABLE
// too), SET, SHOW, DO, CALL, HANDLER, LOAD, PREPARE and EXECUTE, LOCK,
// ANALYZE, transaction control. Before parsing, text no parser should see
// is refused (too long, not UTF-8, holding NUL), and so is text nested
// too deeply: brackets more than 1,000 levels deep, or a parse tree more
// than 2,000 levels deep.
//
// The guard reads text with ANSI_QUOTES and NO_BACKSLASH_ESCAPES off, as
// the session sqlmcp opens sets them. It cannot see inside views; the
// read-only transaction around every statement is the wall there.
//
// It returns nil, a *SyntaxError when the grammar cannot read sql, or an
// *Error saying what was refused and what to send instead. It is safe for
// concurrent use when cat is.
func CheckMySQL(sql string, cat MySQLCatalog) error {
	_, _, err := checkMySQL(sql, cat)
	return err
}

// MySQLLimit checks sql as CheckMySQL does and returns it as the server is
// to run it: comments blanked, and, unless it is an EXPLAIN or limit is
// zero, with a LIMIT of at most limit rows on the outermost query (the
// query's own LIMIT when smaller). The rewritten text is parsed and
// checked again, so the text judged is the text the server runs. The
// errors are CheckMySQL's.
func MySQLLimit(sql string, limit int, cat MySQLCatalog) (MySQLQuery, error) {
	if limit < 0 {
		return MySQLQuery{}, fmt.Errorf("guard: the row limit must not be negative, not %d", limit)
	}
	stmt, text, err := checkMySQL(sql, cat)
	if err != nil {
		return MySQLQuery{}, err
	}
	body := strings.TrimRight(text.blanked[:text.end], " \t\r\n\f\v")
	if _, ok := stmt.(*ast.ExplainStmt); ok || limit == 0 {
		return MySQLQuery{Text: body, Explain: ok}, nil
	}
	out, err := limitMySQL(stmt, text, body, limit)
	if err != nil {
		return MySQLQuery{}, err
	}
	again, _, err := checkMySQL(out, cat)
	if err != nil {
		return MySQLQuery{}, err
	}
	if n, ok := outerLimit(again); !ok || n > uint64(limit) {
		return MySQLQuery{}, &Error{Reason: "the query does not read as one query once limited", Hint: "Send one plain SELECT statement"}
	}
	return MySQLQuery{Text: out}, nil
}

// limitMySQL writes body with its outermost LIMIT at most limit.
func limitMySQL(stmt ast.StmtNode, text *myText, body string, limit int) (string, error) {
	l := stmtLimit(stmt)
	// The outermost LIMIT is the last LIMIT outside brackets: what could
	// follow it (INTO, FOR UPDATE) was refused. A query in brackets,
	// (SELECT ... LIMIT 5), has none outside them, and takes one after.
	at := -1
	for i := range text.tokens {
		if text.tokens[i].depth == 0 && text.word(i) == "LIMIT" {
			at = i
		}
	}
	if l == nil || at < 0 {
		return body + "\nLIMIT " + strconv.Itoa(limit), nil
	}
	count := at + 1
	if text.punct(at+2, ',') {
		count = at + 3
	}
	if count >= len(text.tokens) || text.tokens[count].kind != 'w' {
		return "", &Error{Reason: "the query's LIMIT could not be read", Hint: "Write LIMIT with a plain number of rows"}
	}
	tok := text.tokens[count]
	n, err := strconv.ParseUint(text.blanked[tok.start:tok.end], 10, 64)
	if err != nil {
		return "", &Error{Reason: "the query's LIMIT is not a plain number", Hint: "Write LIMIT with a plain number of rows"}
	}
	if n <= uint64(limit) {
		return body, nil
	}
	return body[:tok.start] + strconv.Itoa(limit) + body[tok.end:], nil
}

// outerLimit returns the row count of a statement's outermost LIMIT.
func outerLimit(stmt ast.StmtNode) (uint64, bool) {
	l := stmtLimit(stmt)
	if l == nil {
		return 0, false
	}
	v, ok := l.Count.(ast.ValueExpr)
	if !ok {
		return 0, false
	}
	switch n := v.GetValue().(type) {
	case uint64:
		return n, true
	case int64:
		return uint64(max(n, 0)), true
	}
	return 0, false
}

// stmtLimit is a query's own outermost LIMIT clause, or nil.
func stmtLimit(stmt ast.StmtNode) *ast.Limit {
	switch s := stmt.(type) {
	case *ast.SelectStmt:
		return s.Limit
	case *ast.SetOprStmt:
		return s.Limit
	}
	return nil
}

// mysqlParsers holds parsers, which are not safe for concurrent use.
var mysqlParsers = sync.Pool{New: func() any { return parser.New() }}

// checkMySQL judges sql and returns its one statement and its lexed text.
func checkMySQL(sql string, cat MySQLCatalog) (ast.StmtNode, *myText, error) {
	if err := checkText(sql); err != nil {
		return nil, nil, err
	}
	text, err := lexMySQL(sql)
	if err != nil {
		return nil, nil, err
	}
	if len(text.tokens) == 0 {
		return nil, nil, &Error{Reason: "no SQL statement found", Hint: "Send one SELECT statement"}
	}
	if d := text.chain(); d > maxMySQLChain {
		return nil, text, &Error{
			Reason: fmt.Sprintf("the SQL chains or nests up to %d operators deep; the limit is %d", d, maxMySQLChain),
			Hint:   mysqlNestingHint,
		}
	}
	if e := text.costly(); e != nil {
		return nil, text, e
	}
	stmts, perr := parseMySQL(text.blanked[:text.end])
	var ge *Error
	if errors.As(perr, &ge) {
		return nil, text, ge
	}
	if perr != nil {
		return nil, text, unreadableMySQL(sql, text, perr)
	}
	if len(stmts) != 1 {
		return nil, text, &Error{Reason: "found more than one statement", Hint: "Send exactly one statement per call"}
	}
	stmt := stmts[0]
	w := &myWalker{cat: cat}
	if w.cat == nil {
		w.cat = noMySQLCatalog{}
	}
	if e := w.calls(text); e != nil {
		return stmt, text, e
	}
	switch s := stmt.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		return stmt, text, w.query(stmt)
	case *ast.ExplainStmt:
		if s.Analyze {
			return stmt, text, &Error{
				Reason: "EXPLAIN ANALYZE runs the statement and is not allowed",
				Hint:   "Send EXPLAIN without ANALYZE to see the plan without running it",
			}
		}
		switch s.Stmt.(type) {
		case *ast.SelectStmt, *ast.SetOprStmt:
			return stmt, text, w.query(s.Stmt)
		case *ast.ShowStmt:
			return stmt, text, &Error{
				Reason: "EXPLAIN or DESCRIBE of a table is not allowed",
				Hint:   "Use describe_table, or SELECT ... FROM information_schema.COLUMNS WHERE TABLE_NAME = '...'",
			}
		}
		return stmt, text, &Error{
			Reason: fmt.Sprintf("EXPLAIN %s is not allowed", mysqlStatementName(s.Stmt, "")),
			Hint:   "Only a query can be explained: send EXPLAIN SELECT ...",
		}
	}
	return stmt, text, refuseMySQLStatement(stmt, sql)
}

// parseMySQL parses sql with a pooled parser. The parser panics on some
// input (an integer literal of a hundred digits): that is a refusal, and
// the parser is dropped rather than pooled.
func parseMySQL(sql string) (stmts []ast.StmtNode, err error) {
	p := mysqlParsers.Get().(*parser.Parser)
	defer func() {
		if r := recover(); r != nil {
			stmts, err = nil, &Error{
				Reason: "the SQL could not be read",
				Hint:   "Check its numbers and literals: a number of more than 65 digits, for one, cannot be read",
			}
			return
		}
		mysqlParsers.Put(p)
	}()
	stmts, _, err = p.ParseSQL(sql)
	return stmts, err
}

type noMySQLCatalog struct{}

func (noMySQLCatalog) MariaDB() bool            { return false }
func (noMySQLCatalog) UserFunction(string) bool { return false }

// tidbNear pulls the place out of the parser's syntax error.
var tidbNear = regexp.MustCompile(`line (\d+) column (\d+) near "((?s).*)"`)

// unreadableMySQL words a parse failure: a statement that is not a query
// is refused by name, what the grammar does not read (INTO @var, INTO
// DUMPFILE, VALUES lists, MariaDB's own syntax) is named, and the rest is
// a *SyntaxError.
func unreadableMySQL(sql string, text *myText, perr error) error {
	first := text.word(0)
	switch {
	case first == "ANALYZE":
		return &Error{
			Reason: "ANALYZE runs the statement and is not allowed",
			Hint:   "Send EXPLAIN without ANALYZE to see the plan without running it",
		}
	case mysqlStatementWords[first]:
		return refuseMySQLWord(first, sql)
	}
	for i := range text.tokens {
		w := text.word(i)
		switch {
		case w == "INTO":
			return intoError
		case w == "VALUES" && text.punct(i+1, '(') && first != "INSERT":
			return &Error{
				Reason: "VALUES lists are not read by this server's guard",
				Hint:   "Write the rows as SELECT 1 AS a, 2 AS b UNION ALL SELECT 3, 4",
			}
		case w == "FETCH" && (text.word(i+1) == "FIRST" || text.word(i+1) == "NEXT"):
			return &Error{Reason: "OFFSET ... FETCH FIRST is not read by this server's guard", Hint: "Write LIMIT n OFFSET m instead"}
		case w == "AS" && text.word(i+1) == "INTEGER" && text.punct(i+2, ')'):
			return &Error{Reason: "CAST(... AS INTEGER) is not read by this server's guard", Hint: "Write CAST(x AS SIGNED) instead"}
		case w == "JSON_TABLE" && text.punct(i+1, '('):
			return &Error{Reason: "JSON_TABLE is not read by this server's guard", Hint: "Use JSON_EXTRACT or JSON_VALUE on the column instead"}
		case w == "SYSTEM_TIME" && text.word(i-1) == "FOR":
			return &Error{Reason: "FOR SYSTEM_TIME is not read by this server's guard", Hint: "Query the table's current rows"}
		}
	}
	msg := "syntax error"
	pos := 0
	if m := tidbNear.FindStringSubmatch(perr.Error()); m != nil {
		near := strings.TrimRight(m[3], " ")
		if near != "" {
			msg = fmt.Sprintf("syntax error near %q", snippet(near, 60))
		} else {
			msg = "syntax error at the end of the statement"
		}
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		pos = linePos(sql, line, col)
	}
	return &SyntaxError{Message: msg, Position: pos}
}

// linePos turns the parser's line and (byte) column into a 1-based
// character position in s; 0 when it falls outside.
func linePos(s string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		nl := strings.IndexByte(s[off:], '\n')
		if nl < 0 {
			return 0
		}
		off += nl + 1
	}
	off += col
	if line < 1 || off > len(s) {
		return 0
	}
	return runePos(s, off)
}

// mysqlStatementWords begin statements that are not queries.
var mysqlStatementWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`ALTER BACKUP BEGIN BINLOG CACHE CALL CHANGE CHECK CHECKSUM COMMIT
		CREATE DEALLOCATE DELETE DO DROP EXECUTE FLUSH GET GRANT HANDLER HELP INSERT INSTALL KILL
		LOAD LOCK OPTIMIZE PREPARE PURGE RELEASE RENAME REPAIR REPLACE RESET RESIGNAL REVOKE
		ROLLBACK SAVEPOINT SET SHOW SHUTDOWN SIGNAL START STOP TRUNCATE UNINSTALL UNLOCK UPDATE
		USE XA`) {
		m[w] = true
	}
	return m
}()

var intoError = &Error{
	Reason: "SELECT ... INTO (a file, or variables) is not allowed",
	Hint:   "Send the SELECT without INTO; its rows come back as the result",
}

const mysqlNestingHint = "Break up long chains such as a + b + c + ... or a AND b AND ... (IN (...) or a WITH clause can replace them), and nest fewer subqueries"

// myWalker judges one query's parse tree.
type myWalker struct {
	cat  MySQLCatalog
	seen map[uintptr]bool
}

// query walks every field of every node under n, and refuses the first
// thing that could write, lock, wait or call what must not run.
func (w *myWalker) query(n ast.Node) error {
	w.seen = map[uintptr]bool{}
	if e := w.walk(reflect.ValueOf(n), 0); e != nil {
		return e
	}
	return nil
}

var nodeType = reflect.TypeFor[ast.Node]()

// walk visits v and everything under it through exported fields; depth
// counts the parse nodes above it.
func (w *myWalker) walk(v reflect.Value, depth int) *Error {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return w.walk(v.Elem(), depth)
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		if w.seen[v.Pointer()] {
			return nil
		}
		w.seen[v.Pointer()] = true
		if v.Type().Implements(nodeType) {
			if depth++; depth > maxMySQLDepth {
				return &Error{
					Reason: fmt.Sprintf("the SQL nests expressions more than %d levels deep", maxMySQLDepth),
					Hint:   mysqlNestingHint,
				}
			}
			if e := w.visit(v.Interface().(ast.Node)); e != nil {
				return e
			}
		}
		return w.walk(v.Elem(), depth)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				if e := w.walk(v.Field(i), depth); e != nil {
					return e
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil
		}
		for i := range v.Len() {
			if e := w.walk(v.Index(i), depth); e != nil {
				return e
			}
		}
	}
	return nil
}

// visit judges one node.
func (w *myWalker) visit(n ast.Node) *Error {
	switch n := n.(type) {
	case *ast.SelectStmt:
		if n.SelectIntoOpt != nil {
			return intoError
		}
		if n.LockInfo != nil && n.LockInfo.LockType != ast.SelectLockNone {
			what := strings.ToUpper(n.LockInfo.LockType.String())
			return &Error{
				Reason: what + " locks rows and is not allowed",
				Hint:   "Send the SELECT without " + what + "; reading needs no row locks",
			}
		}
		if w.cat.MariaDB() {
			switch n.Kind {
			case ast.SelectStmtKindTable:
				return &Error{Reason: "TABLE t is not MariaDB SQL", Hint: "Write SELECT * FROM t"}
			case ast.SelectStmtKindValues:
				return &Error{Reason: "VALUES ROW(...) is not MariaDB SQL", Hint: "Write the rows as SELECT 1 AS a, 2 AS b UNION ALL SELECT 3, 4"}
			}
		}
	case *ast.PatternRegexpExpr:
		if w.cat.MariaDB() {
			return &Error{
				Reason: "REGEXP and RLIKE are not allowed on MariaDB: the server " + regexpReason,
				Hint:   upperFirst(regexpInstead),
			}
		}
	case *ast.TableName:
		return mysqlRelation(n, w.cat)
	case *ast.VariableExpr:
		if n.IsSystem && mysqlSecretVariable(n.Name) {
			return &Error{
				Reason: "the setting @@" + n.Name + " is not allowed: it may hold a password, a key or a secret",
				Hint:   "Read other settings with SELECT @@name; the server's credentials are not readable here",
			}
		}
		if n.Value != nil {
			return &Error{
				Reason: "assigning a variable (@" + n.Name + " := ...) is not allowed",
				Hint:   "Compute the value in the query itself, with a subquery, a WITH clause or a window function",
			}
		}
	case *ast.FuncCallExpr:
		if n.Schema.L != "" {
			return &Error{
				Reason: fmt.Sprintf("the stored function %s.%s() is not allowed", n.Schema.O, n.FnName.O),
				Hint:   "Only built-in functions can be called",
			}
		}
		if n.FnName.L == "json_extract" && w.cat.MariaDB() {
			if e := mariaDBJSONExtract(n); e != nil {
				return e
			}
		}
		if n.FnName.L == "last_insert_id" && len(n.Args) > 0 {
			return &Error{Reason: "LAST_INSERT_ID(expr) sets the session's last insert id and is not allowed", Hint: "Call LAST_INSERT_ID() without an argument"}
		}
		return w.function(n.FnName.L, n.FnName.O)
	case *ast.AggregateFuncExpr:
		return w.function(strings.ToLower(n.F), n.F)
	case *ast.WindowFuncExpr:
		return w.function(strings.ToLower(n.Name), n.Name)
	}
	return nil
}

// mariaDBJSONExtract refuses, on MariaDB, a JSON_EXTRACT whose result can
// outgrow its document many times over, since the server does not hold
// it to max_allowed_packet: one with several paths returns the matches
// of each, and a path with ** returns every value at every depth below
// it, a value nested d deep d times over ($**[*] made 3 MB of 100 KB
// nested 30 deep). A path the text does not spell out could be either.
func mariaDBJSONExtract(n *ast.FuncCallExpr) *Error {
	const why = " is not allowed on MariaDB, which does not hold JSON_EXTRACT's result to max_allowed_packet: "
	if len(n.Args) > 2 {
		return &Error{
			Reason: "JSON_EXTRACT() with more than one path" + why + "it holds the document's matches for each",
			Hint:   "Call JSON_EXTRACT(doc, path) once for each path, as columns of their own",
		}
	}
	if len(n.Args) < 2 {
		return nil
	}
	v, ok := n.Args[1].(ast.ValueExpr)
	path, isText := v.(interface{ GetString() string })
	if _, param := n.Args[1].(ast.ParamMarkerExpr); !ok || !isText || param {
		return &Error{
			Reason: "JSON_EXTRACT() with a path that is not a string literal" + why + "the path could reach every value at every depth (**)",
			Hint:   "Write the path as a literal: JSON_EXTRACT(doc, '$.a.b[0]')",
		}
	}
	if strings.Contains(path.GetString(), "**") {
		return &Error{
			Reason: "JSON_EXTRACT() with a ** path" + why + "it returns each value once for every level above it",
			Hint:   "Name the levels, one each: JSON_EXTRACT(doc, '$.a.b') or JSON_EXTRACT(doc, '$[*].b') instead of '$**.b'",
		}
	}
	return nil
}

// mysqlDatabase is what a MySQLCatalog implements when it knows the
// connection's current database, which a table name without one names.
type mysqlDatabase interface{ Database() string }

// function judges a call of the built-in function named lower (as typed:
// name).
func (w *myWalker) function(lower, name string) *Error {
	if hint, denied := mysqlDenied[lower]; denied {
		return &Error{Reason: "the function " + strings.ToUpper(name) + "() is not allowed", Hint: upperFirst(hint)}
	}
	mariaDB := w.cat.MariaDB()
	if hint, denied := mariaDBDenied[lower]; denied && mariaDB {
		return &Error{Reason: "the function " + strings.ToUpper(name) + "() is not allowed on MariaDB", Hint: upperFirst(hint)}
	}
	on, ok := mysqlBuiltins[lower]
	if !ok || on == onMySQL && mariaDB || on == onMariaDB && !mariaDB {
		return w.unknownFunction(name)
	}
	return nil
}

// calls judges every name the text calls, word or `quoted`, before a
// bracket: a name the database defines as a function is refused even
// where the grammar makes a built-in of it (COUNT(*)), since the server
// reads "count (x)" and `count`(x) as calls of the stored function, and a
// parser-made name typed as a call is no built-in.
func (w *myWalker) calls(text *myText) *Error {
	for i, tok := range text.tokens {
		if tok.kind != 'w' && tok.kind != 'q' || !text.punct(i+1, '(') || text.punct(i-1, '.') {
			continue
		}
		name := text.blanked[tok.start:tok.end]
		if tok.kind == 'q' {
			name = strings.ReplaceAll(name[1:len(name)-1], "``", "`")
		}
		lower := strings.ToLower(name)
		if mysqlGrammarMade[lower] {
			return w.unknownFunction(name)
		}
		if w.cat.UserFunction(lower) {
			return &Error{
				Reason: "the function " + name + "() is defined in the database, not built in, and is not allowed",
				Hint:   "Only built-in functions can be called: stored and loadable functions can write or reach outside the query",
			}
		}
	}
	return nil
}

func (w *myWalker) unknownFunction(name string) *Error {
	server := "MySQL"
	if w.cat.MariaDB() {
		server = "MariaDB"
	}
	return &Error{
		Reason:          "the function " + name + "() is not a built-in " + server + " function this server allows",
		Hint:            "Check the spelling; only built-in functions that compute values can be called",
		MissingFunction: name,
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// refuseMySQLStatement words the refusal of a parsed statement that is
// not a query.
func refuseMySQLStatement(stmt ast.StmtNode, sql string) *Error {
	switch s := stmt.(type) {
	case *ast.InsertStmt:
		if s.IsReplace {
			return &Error{Reason: "REPLACE is not allowed", Hint: readOnlyHint}
		}
		return &Error{Reason: "INSERT is not allowed", Hint: readOnlyHint}
	case *ast.UpdateStmt:
		return &Error{Reason: "UPDATE is not allowed", Hint: readOnlyHint}
	case *ast.DeleteStmt:
		return &Error{Reason: "DELETE is not allowed", Hint: readOnlyHint}
	case *ast.CreateTableStmt:
		if s.TemporaryKeyword != ast.TemporaryNone {
			return &Error{Reason: "CREATE TEMPORARY TABLE is not allowed", Hint: "Name the rows with a WITH clause inside the query instead"}
		}
	case *ast.BeginStmt, *ast.CommitStmt, *ast.RollbackStmt, *ast.SavepointStmt, *ast.ReleaseSavepointStmt:
		return &Error{
			Reason: mysqlStatementName(stmt, sql) + " (transaction control) is not allowed",
			Hint:   "Every statement already runs on its own: send it without BEGIN, COMMIT or SAVEPOINT",
		}
	case *ast.SetStmt:
		return &Error{Reason: "SET is not allowed", Hint: "Settings and variables cannot be changed here; read a setting with SELECT @@name"}
	case *ast.ShowStmt:
		return &Error{Reason: "SHOW is not allowed", Hint: "Read the same from information_schema with a SELECT, or use list_tables and describe_table"}
	case *ast.PrepareStmt, *ast.ExecuteStmt, *ast.DeallocateStmt:
		return &Error{Reason: mysqlStatementName(stmt, sql) + " is not allowed", Hint: "Send the query itself, with its values written in"}
	case *ast.LockTablesStmt, *ast.UnlockTablesStmt:
		return &Error{Reason: mysqlStatementName(stmt, sql) + " is not allowed", Hint: "Reading needs no locks: send the SELECT alone"}
	case *ast.DoStmt, *ast.CallStmt:
		return &Error{Reason: mysqlStatementName(stmt, sql) + " is not allowed", Hint: "Procedures and DO run code; send one SELECT statement"}
	}
	return &Error{Reason: mysqlStatementName(stmt, sql) + " is not allowed", Hint: readOnlyHint}
}

// refuseMySQLWord refuses a statement the grammar could not read, by its
// first word.
func refuseMySQLWord(word, sql string) *Error {
	switch word {
	case "HANDLER":
		return &Error{Reason: "HANDLER is not allowed", Hint: "Send a SELECT to read the table"}
	case "SET":
		return &Error{Reason: "SET is not allowed", Hint: "Settings and variables cannot be changed here; read a setting with SELECT @@name"}
	}
	return &Error{Reason: word + " is not allowed", Hint: readOnlyHint}
}

// mysqlStatementName spells a statement as its SQL begins: "DROP TABLE",
// "START TRANSACTION".
func mysqlStatementName(stmt ast.StmtNode, sql string) string {
	switch stmt.(type) {
	case *ast.BeginStmt, *ast.CommitStmt, *ast.RollbackStmt:
		if w := firstWord(sql); w != "" {
			if w == "START" {
				return "START TRANSACTION"
			}
			return w
		}
	}
	t := reflect.TypeOf(stmt)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return nodeWords(t.Name())
}
