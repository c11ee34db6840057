package guard

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/mattn/go-sqlite3"
)

// sqliteRecursive is SQLITE_RECURSIVE, which go-sqlite3 does not export.
const sqliteRecursive = 33

// deniedFunctions are refused even though SQLite knows them: they load
// code or hand pointers to the engine.
var deniedFunctions = map[string]bool{
	"load_extension": true,
	"fts3_tokenizer": true,
	"readfile":       true,
	"writefile":      true,
	"edit":           true,
}

// SQLite guards one SQLite connection. NewSQLite installs it; from then on
// every statement the connection compiles passes its authorizer, and
// Prepare accepts only a single read-only statement.
//
// Like the connection it guards, a SQLite is not safe for concurrent use.
type SQLite struct {
	conn      SQLiteConn
	functions map[string]bool     // allowed functions, lower-cased
	denials   []string            // what the authorizer refused while compiling
	compiling bool                // Prepare is compiling the caller's SQL
	first     int                 // the first action the authorizer saw while compiling; -1 for none
	inner     bool                // the authorizer is told the view a read comes from
	policy    PolicyCatalog       // the policy of the statement compiled last; nil for none
	record    bool                // record what the statement compiling reads
	reads     []sqliteRead        // what it read
	judged    map[sqliteRead]bool // what the statement judged under a policy read; nil for none
	shadow    map[string]bool     // the virtual tables' shadow tables, folded
	views     sqliteViews         // what the main database's views cost to compile
	setup     bool                // NewSQLite reads what the guard needs: allow all but costly views
}

// stepPragmas are the pragmas SQLite runs inside the table-valued pragma
// functions (SELECT * FROM pragma_table_info('t')) while a query steps. The
// caller's own PRAGMA statements are refused while compiling.
var stepPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true,
	"index_list": true, "index_info": true, "index_xinfo": true,
	"foreign_key_list": true, "function_list": true, "collation_list": true,
	"database_list": true, "module_list": true, "pragma_list": true,
	"compile_options": true,
	// Reads every page, within the call's timeout; sqlmcp runs it at start.
	"quick_check": true,
	// Read without an argument only: with one, they would set.
	"schema_version": true, "data_version": true,
}

// stepPragmaArgs are the step pragmas that must come without an argument.
var stepPragmaArgs = map[string]bool{"schema_version": true, "data_version": true}

// SQLiteConn is what the guard needs of a SQLite connection: limits, an
// authorizer, queries and compiling. go-sqlite3's *SQLiteConn is one; the
// guard names no driver's type in its API.
type SQLiteConn interface {
	SetLimit(id, newVal int) int
	RegisterAuthorizer(callback func(action int, arg1, arg2, arg3 string) int)
	Query(query string, args []driver.Value) (driver.Rows, error)
	Prepare(query string) (driver.Stmt, error)
}

// NewSQLite installs the guard on conn: a deny-by-default authorizer that
// allows reading tables, SELECT, recursive CTEs and the built-in functions a
// query needs, and limits that make ATTACH (and so VACUUM INTO) impossible.
// Call it before conn runs anything else, as from a driver's ConnectHook.
// A conn that is also a SQLiteContextAuthorizer gets the authorizer
// through it, and can then enforce a policy (PreparePolicy).
func NewSQLite(conn SQLiteConn) (*SQLite, error) {
	// The views are read first, from sqlite_schema, which compiles none
	// of them; from then on, while the guard reads the rest of what it
	// needs, its authorizer allows all but a view too costly to compile
	// (pragma_table_list compiles every view it has not compiled yet).
	g := &SQLite{conn: conn, views: readSQLiteViews(conn), setup: true}
	if ca, ok := conn.(SQLiteContextAuthorizer); ok {
		ca.RegisterContextAuthorizer(g.authorize)
		g.inner = true
	} else {
		conn.RegisterAuthorizer(func(action int, arg1, arg2, database string) int {
			return g.authorize(action, arg1, arg2, database, "")
		})
	}
	functions, err := builtinFunctions(conn)
	if err != nil {
		return nil, err
	}
	connectVirtualTables(conn)
	g.functions, g.shadow = functions, shadowTables(conn)
	g.setup = false
	g.denials = g.denials[:0]
	conn.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
	// checkText holds a call's text to MaxSQLBytes; the policy's check of
	// index order compiles it again after "EXPLAIN ".
	conn.SetLimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, MaxSQLBytes+len(sqliteExplain))
	return g, nil
}

// builtinFunctions lists the functions conn knows, less the denied ones.
func builtinFunctions(conn SQLiteConn) (map[string]bool, error) {
	rows, err := conn.Query("SELECT DISTINCT name FROM pragma_function_list", nil)
	if err != nil {
		return nil, fmt.Errorf("listing SQLite functions: %w", err)
	}
	defer rows.Close()
	functions := make(map[string]bool)
	dest := make([]driver.Value, 1)
	for rows.Next(dest) == nil {
		name, _ := dest[0].(string)
		name = strings.ToLower(name)
		if !deniedFunctions[name] && !strings.HasPrefix(name, "sqlite_rename") {
			functions[name] = true
		}
	}
	return functions, nil
}

// shadowTables lists the shadow tables of conn's virtual tables (FTS's
// _content, R*Tree's _node), folded.
func shadowTables(conn SQLiteConn) map[string]bool {
	shadow := map[string]bool{}
	rows, err := conn.Query("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'", nil)
	if err != nil {
		return shadow
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	for rows.Next(dest) == nil {
		if name, ok := dest[0].(string); ok {
			shadow[fold(name)] = true
		}
	}
	return shadow
}

// connectVirtualTables opens each virtual table once before the authorizer
// is in place. Modules such as R*Tree and FTS prepare their own statements
// (writes to their shadow tables, PRAGMA page_size) when a connection first
// uses a table; under the authorizer those would be refused and the table
// could never be read. Those statements only run when the table is written,
// which the guard refuses and the read-only engine cannot do. A table the
// module cannot open is left for its first query to report.
func connectVirtualTables(conn SQLiteConn) {
	rows, err := conn.Query("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'virtual'", nil)
	if err != nil {
		// pragma_table_list is refused when a view is too costly to
		// compile (it compiles every view); the schema says the same.
		rows, err = conn.Query("SELECT name FROM main.sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'", nil)
		if err != nil {
			return
		}
	}
	var names []string
	dest := make([]driver.Value, 1)
	for rows.Next(dest) == nil {
		if name, ok := dest[0].(string); ok {
			names = append(names, name)
		}
	}
	rows.Close()
	for _, name := range names {
		q := `SELECT * FROM "` + strings.ReplaceAll(name, `"`, `""`) + `" LIMIT 0`
		if r, err := conn.Query(q, nil); err == nil {
			r.Close()
		}
	}
}

// authorize is the connection's authorizer: deny unless the action only
// reads. Under a policy, it records what the statement reads while it
// compiles, for judgeReads, and refuses the pragmas the table-valued
// pragma functions run while it steps.
func (g *SQLite) authorize(action int, arg1, arg2, database, inner string) int {
	if g.compiling && g.first < 0 {
		g.first = action
	}
	if g.setup {
		if action == sqlite3.SQLITE_READ && g.views.refuses(arg1, database, inner) != "" ||
			action == sqlite3.SQLITE_PRAGMA && g.views.refusesPragma(arg1, arg2) != "" {
			return sqlite3.SQLITE_DENY
		}
		return sqlite3.SQLITE_OK
	}
	switch action {
	case sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqliteRecursive:
		// READ covers tables, views and the table-valued pragma functions
		// (pragma_table_info(...)), which SQLite offers only for pragmas
		// without side effects.
		if action != sqlite3.SQLITE_READ {
			return sqlite3.SQLITE_OK
		}
		// A view too costly to compile is refused before SQLite's code
		// generator reaches it: SQLite resolves a statement's names,
		// the view's body among them, before it generates any code.
		if why := g.views.refuses(arg1, database, inner); why != "" {
			g.denials = append(g.denials, why)
			return sqlite3.SQLITE_DENY
		}
		r := sqliteRead{table: arg1, column: arg2, database: database, inner: inner}
		if g.compiling && g.record {
			g.reads = append(g.reads, r)
		}
		// While a statement judged under a policy steps, SQLite compiles
		// it again if the schema changed meanwhile, and a virtual table's
		// module reads its shadow tables; anything else it would read
		// was not judged.
		if !g.compiling && g.judged != nil && !g.judged[r] && !g.shadow[fold(arg1)] {
			break
		}
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_FUNCTION:
		if g.functions[strings.ToLower(arg2)] {
			return sqlite3.SQLITE_OK
		}
	case sqlite3.SQLITE_PRAGMA:
		// A pragma naming a view (table_xinfo of it) compiles it, and
		// table_list compiles every view.
		if why := g.views.refusesPragma(arg1, arg2); why != "" {
			g.denials = append(g.denials, why)
			return sqlite3.SQLITE_DENY
		}
		name := strings.ToLower(arg1)
		if !g.compiling && g.policy == nil && stepPragmas[name] && (arg2 == "" || !stepPragmaArgs[name]) {
			return sqlite3.SQLITE_OK
		}
	}
	g.denials = append(g.denials, describeAction(action, arg1, arg2))
	return sqlite3.SQLITE_DENY
}

// describeAction words a refused authorizer action for the model.
func describeAction(action int, arg1, arg2 string) string {
	q := func(s string) string { return `"` + s + `"` }
	switch action {
	case sqlite3.SQLITE_INSERT:
		return "INSERT into table " + q(arg1)
	case sqlite3.SQLITE_UPDATE:
		return "UPDATE of table " + q(arg1)
	case sqlite3.SQLITE_DELETE:
		return "DELETE from table " + q(arg1)
	case sqlite3.SQLITE_PRAGMA:
		return "PRAGMA " + arg1
	case sqlite3.SQLITE_FUNCTION:
		return "the function " + arg2 + "()"
	case sqlite3.SQLITE_TRANSACTION:
		return arg1 + " (transaction control)"
	case sqlite3.SQLITE_SAVEPOINT:
		return "SAVEPOINT " + arg2
	case sqlite3.SQLITE_ATTACH:
		return "ATTACH"
	case sqlite3.SQLITE_DETACH:
		return "DETACH"
	case sqlite3.SQLITE_ALTER_TABLE:
		return "ALTER TABLE " + q(arg2)
	case sqlite3.SQLITE_REINDEX:
		return "REINDEX"
	case sqlite3.SQLITE_ANALYZE:
		return "ANALYZE"
	case sqlite3.SQLITE_CREATE_INDEX, sqlite3.SQLITE_CREATE_TEMP_INDEX:
		return "CREATE INDEX"
	case sqlite3.SQLITE_CREATE_TABLE, sqlite3.SQLITE_CREATE_TEMP_TABLE:
		return "CREATE TABLE"
	case sqlite3.SQLITE_CREATE_TRIGGER, sqlite3.SQLITE_CREATE_TEMP_TRIGGER:
		return "CREATE TRIGGER"
	case sqlite3.SQLITE_CREATE_VIEW, sqlite3.SQLITE_CREATE_TEMP_VIEW:
		return "CREATE VIEW"
	case sqlite3.SQLITE_CREATE_VTABLE:
		return "CREATE VIRTUAL TABLE"
	case sqlite3.SQLITE_DROP_INDEX, sqlite3.SQLITE_DROP_TEMP_INDEX,
		sqlite3.SQLITE_DROP_TABLE, sqlite3.SQLITE_DROP_TEMP_TABLE,
		sqlite3.SQLITE_DROP_TRIGGER, sqlite3.SQLITE_DROP_TEMP_TRIGGER,
		sqlite3.SQLITE_DROP_VIEW, sqlite3.SQLITE_DROP_TEMP_VIEW,
		sqlite3.SQLITE_DROP_VTABLE:
		return "DROP " + q(arg1)
	}
	return fmt.Sprintf("SQLite action %d", action)
}

// hintFor says what to send instead of the refused action.
func hintFor(denial string) string {
	switch {
	case isHeavyViewDenial(denial):
		return heavyViewHint
	case strings.HasPrefix(denial, "PRAGMA"):
		return "Use the describe_table tool, or SELECT from a table-valued pragma function such as pragma_table_info('t')"
	case strings.HasPrefix(denial, "the function"):
		return "That function can load code or reach outside the database; write the query without it"
	case strings.HasPrefix(denial, "ATTACH"), strings.HasPrefix(denial, "DETACH"):
		return "This server reads only the database it was started with"
	case strings.Contains(denial, "transaction"), strings.HasPrefix(denial, "SAVEPOINT"):
		return "Every statement already runs on its own: send it without BEGIN, COMMIT or SAVEPOINT"
	}
	return readOnlyHint
}

// Prepare compiles sql on the guarded connection, without running it, and
// returns the statement, the driver's own (a *sqlite3.SQLiteStmt for
// go-sqlite3), when sql is exactly one statement that only reads.
// Otherwise it returns an *Error saying why, or the engine's own error when
// the SQL does not compile (a syntax error, a missing table). The caller
// closes the statement. It judges sql under no policy: for sqlmcp's own
// statements, or a source without one (see PreparePolicy).
func (g *SQLite) Prepare(sql string) (driver.Stmt, error) {
	g.policy, g.record, g.judged = nil, false, nil
	return g.prepare(sql)
}

// prepare compiles and judges sql under g.policy.
func (g *SQLite) prepare(sql string) (driver.Stmt, error) {
	if err := checkText(sql); err != nil {
		return nil, err
	}
	windows, defined := sqliteCompileCounts(sql)
	// SQLite compiles the body of every view the statement names into
	// it, at each mention.
	inViews := ""
	if vc := g.views.named(sql); vc != (sqliteCost{}) {
		windows, defined = min(windows+vc.windows, 1<<30), min(defined+vc.defined, 1<<30)
		inViews = ", counting those of the views it reads"
		if vc.tables > maxSQLiteTables {
			return nil, &Error{
				Reason: fmt.Sprintf("the SQL reads tables %d times with the views it reads written out; the limit is %d", vc.tables, maxSQLiteTables),
				Hint:   "SQLite compiles a view's body at every mention, and plans every table it reads: read fewer views, or each fewer times, or the tables they read directly",
			}
		}
		if n := len(sql) + vc.bytes; n > maxSQLiteInlined {
			return nil, &Error{
				Reason: fmt.Sprintf("the SQL is %d bytes with the views it reads written out; the limit is %d", n, maxSQLiteInlined),
				Hint:   "SQLite compiles a view's body at every mention: read fewer views, or each fewer times, or the tables they read directly",
			}
		}
	}
	if windows > maxSQLiteWindows {
		return nil, &Error{
			Reason: fmt.Sprintf("the SQL uses %d window functions (OVER)%s; the limit is %d", windows, inViews, maxSQLiteWindows),
			Hint:   "Compute fewer window functions in one statement: SQLite compiles each against every other" + viewsHint(inViews),
		}
	}
	if defined > maxSQLiteDefinitions {
		return nil, &Error{
			Reason: fmt.Sprintf("the SQL defines %d common table expressions or named windows (name AS (...))%s; the limit is %d", defined, inViews, maxSQLiteDefinitions),
			Hint:   "Define fewer in one statement: SQLite compares each name with every other as it reads them" + viewsHint(inViews),
		}
	}
	g.denials = g.denials[:0]
	g.first = -1
	g.compiling = true
	ds, err := g.conn.Prepare(sql)
	g.compiling = false
	if err != nil {
		if len(g.denials) > 0 {
			return nil, g.refusal(sql)
		}
		return nil, err
	}
	if err := g.judge(ds, sql); err != nil {
		ds.Close()
		return nil, err
	}
	return ds, nil
}

// maxSQLiteWindows bounds the window functions of a statement. SQLite
// compiles each window function against the others, in time that grows
// faster than their square, before any limit of its own and out of
// sqlite3_interrupt's reach: 400 took 0.3 s, 1,000 (37 KB) 2.6 s, and a
// megabyte of them would hold a core for hours. 200 take about 50 ms.
const maxSQLiteWindows = 200

// maxSQLiteDefinitions bounds the common table expressions and named
// windows of a statement. SQLite checks each name WITH defines against
// those before it while it parses, before any limit of its own and out of
// sqlite3_interrupt's reach: 20,000 (420 KB) took 0.7 s, 50,000 (a
// megabyte) 5.5 s. 1,000 take about 3 ms.
const maxSQLiteDefinitions = 1000

// sqliteCompileCounts counts, outside strings, quoted names and comments,
// as SQLite's tokenizer reads them, the window functions of sql (the word
// OVER) and its definitions of a common table expression or a named window
// (AS, maybe NOT, maybe MATERIALIZED, then an opening bracket). A name
// that happens to be spelled OVER counts too, which can only overstate.
func sqliteCompileCounts(sql string) (windows, defined int) {
	after := 0 // 1: after AS; 2: after AS NOT or AS [NOT] MATERIALIZED
	sqliteScan(sql, func(kind byte, text string) {
		switch {
		case kind == 'w' && strings.EqualFold(text, "over"):
			windows++
			after = 0
		case kind == 'w' && strings.EqualFold(text, "as"):
			after = 1
		case after > 0 && kind == 'w' && (strings.EqualFold(text, "not") || strings.EqualFold(text, "materialized")):
			after = 2
		case after > 0 && kind == 'p' && text == "(":
			defined++
			after = 0
		default:
			after = 0
		}
	})
	return windows, defined
}

// judge checks a compiled statement: one statement, and read-only.
func (g *SQLite) judge(ds driver.Stmt, sql string) error {
	st, ok := ds.(interface{ Readonly() bool })
	v := reflect.ValueOf(ds)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	var stmt, tail reflect.Value
	if v.Kind() == reflect.Struct {
		f := stmtFieldsOf(v.Type())
		stmt, tail = fieldAt(v, f.s), fieldAt(v, f.t)
	}
	if !ok || !stmt.IsValid() || !tail.IsValid() {
		// The driver's layout changed; refuse rather than guess.
		return errors.New("guard: cannot inspect the compiled SQLite statement (driver changed)")
	}
	if stmt.IsNil() {
		return &Error{Reason: "no SQL statement found", Hint: "Send one SELECT statement"}
	}
	if rest := tail.String(); !blank(rest) {
		rest = rest[skipBlank(rest):]
		return &Error{
			Reason: fmt.Sprintf("found more than one statement; the second begins %q", snippet(rest, 60)),
			Hint:   "Send exactly one statement per call",
		}
	}
	if len(g.denials) > 0 {
		return g.refusal(sql)
	}
	if !st.Readonly() {
		return &Error{
			Reason: firstWord(sql) + " would change the database and is not allowed",
			Hint:   readOnlyHint,
		}
	}
	// A query's compilation starts with the SELECT action, before any
	// table or function of it is resolved; EXPLAIN and EXPLAIN QUERY PLAN
	// of one compile it the same way. Statements that are not queries
	// either ask for their own action first or, like REINDEX on a database
	// without indexes, ANALYZE of nothing or VACUUM, compile to a program
	// that asks for none: whatever that program does, it is not a query.
	if g.first != sqlite3.SQLITE_SELECT {
		return &Error{
			Reason: notQuery(sql) + " is not a query",
			Hint:   readOnlyHint,
		}
	}
	return nil
}

// stmtFields are where a driver's statement struct holds the compiled
// statement (s) and the text after it (t): the indices FieldByName finds,
// looked up once per type rather than by name on every statement.
type stmtFields struct{ s, t []int }

var driverStmtFields sync.Map // reflect.Type → stmtFields

func stmtFieldsOf(t reflect.Type) stmtFields {
	if f, ok := driverStmtFields.Load(t); ok {
		return f.(stmtFields)
	}
	var f stmtFields
	if sf, ok := t.FieldByName("s"); ok {
		f.s = sf.Index
	}
	if tf, ok := t.FieldByName("t"); ok {
		f.t = tf.Index
	}
	driverStmtFields.Store(t, f)
	return f
}

// fieldAt is v's field at index, or the zero Value when there is none.
func fieldAt(v reflect.Value, index []int) reflect.Value {
	if index == nil {
		return reflect.Value{}
	}
	return v.FieldByIndex(index)
}

// notQuery names a statement that is not a query, for messages.
func notQuery(sql string) string {
	if w := firstWord(sql); w != "" {
		return w
	}
	return "the statement"
}

// refusal turns the authorizer's denials into an *Error. SQLite may stop
// at the first denial, and CREATE first writes to its schema table, so a
// denial on a sqlite_ table is worded from the statement itself.
func (g *SQLite) refusal(sql string) *Error {
	denial := g.denials[0]
	for _, d := range g.denials {
		if !strings.Contains(d, `"sqlite_`) {
			return &Error{Reason: d + " is not allowed", Hint: hintFor(d)}
		}
	}
	return &Error{Reason: firstWord(sql) + " would change the database schema and is not allowed", Hint: hintFor(denial)}
}
