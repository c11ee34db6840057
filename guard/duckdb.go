package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DuckDBParser reads SQL with DuckDB's own parser. SerializeSQL returns
// what DuckDB's json_serialize_sql(sql) returns: the parse tree of every
// statement in sql as JSON, or a JSON object with "error": true and
// DuckDB's message. The engine runs it on its own connection; the guard
// never imports the driver.
type DuckDBParser interface {
	SerializeSQL(ctx context.Context, sql string) (string, error)
}

// DuckDBFunction is one function the DuckDB catalog lists, one row of
// DuckDBFunctionsSQL.
type DuckDBFunction struct {
	Name string // lower-cased
	// Type is duckdb_functions()'s function_type: "scalar", "aggregate",
	// "macro", "table", "table_macro" or "pragma".
	Type        string
	SideEffects bool // has_side_effects
	Internal    bool // built into DuckDB or one of its bundled extensions
	// Definition is a macro's body (macro_definition): an expression for
	// a "macro", a query for a "table_macro"; empty for the rest.
	Definition string
}

// DuckDBFunctionsSQL lists what DuckDBOptions.Functions holds: name, type,
// side effects, built in, and a macro's body (one row per body where
// overloads differ).
const DuckDBFunctionsSQL = `SELECT DISTINCT lower(function_name), function_type, coalesce(has_side_effects, false), internal, coalesce(macro_definition, '') FROM duckdb_functions()`

// DuckDBOptions are what CheckDuckDB judges names against.
type DuckDBOptions struct {
	// Functions is the catalog's functions (DuckDBFunctionsSQL). A
	// function it does not list is left to DuckDB, which knows no such
	// function and says so.
	Functions []DuckDBFunction
	// Relations are the tables and views sqlmcp serves, lower-cased: a
	// query may name them even where the name is also a table function's.
	Relations []string
	// Schemas are the names a table's name may be qualified with: the
	// catalog's schemas and databases (DuckDBSchemasSQL).
	Schemas []string
	// Views are DuckDB's built-in views (DuckDBViewsSQL), judged by their
	// bodies (JudgeBuiltins).
	Views []DuckDBView
}

// DuckDBView is one of DuckDB's built-in views, a row of DuckDBViewsSQL.
type DuckDBView struct {
	Name string // lower-cased
	// SQL is the view's CREATE VIEW statement.
	SQL string
}

// DuckDBViewsSQL lists what DuckDBOptions.Views holds.
const DuckDBViewsSQL = `SELECT lower(view_name), sql FROM duckdb_views() WHERE internal`

// DuckDBSchemasSQL lists what DuckDBOptions.Schemas holds.
const DuckDBSchemasSQL = `SELECT schema_name FROM duckdb_schemas() UNION SELECT database_name FROM duckdb_databases()`

// DuckDB judges statements for one DuckDB database. Build it once with
// NewDuckDB; it is safe for concurrent use.
type DuckDB struct {
	functions map[string]map[string]DuckDBFunction // name -> type -> function
	relations map[string]bool
	schemas   map[string]bool
	// macros are the built-in macros' bodies, and refusedMacros the ones
	// whose body the guard refuses (JudgeBuiltins), with the reason.
	macros        map[string][]string
	refusedMacros map[string]*Error
	// views are the built-in views' bodies, and refusedViews the ones
	// whose body the guard refuses, with the reason.
	views        map[string][]string
	refusedViews map[string]*Error
}

// NewDuckDB returns the guard for a database whose catalog opts describes.
func NewDuckDB(opts *DuckDBOptions) *DuckDB {
	g := &DuckDB{functions: map[string]map[string]DuckDBFunction{}, relations: map[string]bool{}, schemas: map[string]bool{}, macros: map[string][]string{}, views: map[string][]string{}}
	if opts == nil {
		opts = &DuckDBOptions{}
	}
	for _, f := range opts.Functions {
		name := strings.ToLower(f.Name)
		if g.functions[name] == nil {
			g.functions[name] = map[string]DuckDBFunction{}
		}
		g.functions[name][f.Type] = f
		if f.Type == "macro" && f.Definition != "" {
			g.macros[name] = append(g.macros[name], f.Definition)
		}
	}
	for _, r := range opts.Relations {
		g.relations[strings.ToLower(r)] = true
	}
	for _, sc := range opts.Schemas {
		g.schemas[strings.ToLower(sc)] = true
	}
	for _, v := range opts.Views {
		name := strings.ToLower(v.Name)
		g.views[name] = append(g.views[name], viewBody(v.SQL))
	}
	return g
}

// viewBody is the query of a CREATE VIEW statement as DuckDB writes a
// view's sql, or "" when it is not one (the view is then refused).
func viewBody(sql string) string {
	m := createView.FindStringSubmatchIndex(sql)
	if m == nil {
		return ""
	}
	return strings.TrimSuffix(strings.TrimSpace(sql[m[1]:]), ";")
}

// createView matches what precedes a view's query in DuckDB's sql of it:
// CREATE [TEMP] VIEW name AS, the name quoted or plain, maybe qualified.
var createView = regexp.MustCompile(`(?is)^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?VIEW\s+(?:(?:"(?:[^"]|"")*"|[\w$]+)\.)*(?:"(?:[^"]|"")*"|[\w$]+)(?:\s*\([^)]*\))?\s+AS\s+`)

// JudgeBuiltins judges the body of every built-in scalar macro and of
// every built-in view as the guard judges a query, so that each is
// allowed by what it runs, not by its name: a macro or view whose body
// reads a table function, a setting or a file the query could not
// (get_block_size runs pragma_database_size; pragma_database_list reads
// duckdb_databases(), which names the database files) is refused as
// that. One that uses a refused macro or view is refused too. It returns
// an error only when the parser fails; a body the parser cannot read is
// refused. Call it once, before the guard is used.
func (g *DuckDB) JudgeBuiltins(ctx context.Context, p DuckDBParser) error {
	macros, err := g.parseBodies(ctx, p, g.macros, "SELECT ")
	if err != nil {
		return err
	}
	views, err := g.parseBodies(ctx, p, g.views, "")
	if err != nil {
		return err
	}
	g.refusedMacros, g.refusedViews = map[string]*Error{}, map[string]*Error{}
	// Until no more is refused: one may use another refused after it.
	for changed := true; changed; {
		changed = false
		for name, ts := range macros {
			if g.refusedMacros[name] == nil {
				if why := g.judgeBodies(ts); why != "" {
					g.refusedMacros[name] = &Error{Reason: fmt.Sprintf("the function %s() is not allowed: it is a macro, and in it %s", name, why), Hint: "Send the query without it"}
					changed = true
				}
			}
		}
		for name, ts := range views {
			if g.refusedViews[name] == nil {
				if why := g.judgeBodies(ts); why != "" {
					g.refusedViews[name] = &Error{Reason: fmt.Sprintf("the view %s is not allowed: it is one of DuckDB's own, and in it %s", name, why), Hint: "Query the served tables and views by name (list_tables shows them)"}
					changed = true
				}
			}
		}
	}
	return nil
}

// parseBodies parses each body, after prefix, by name; a body that is
// refused or does not parse is nil.
func (g *DuckDB) parseBodies(ctx context.Context, p DuckDBParser, bodies map[string][]string, prefix string) (map[string][]any, error) {
	trees := map[string][]any{}
	for name, bs := range bodies {
		for _, body := range bs {
			var tree any
			if body != "" {
				var err error
				tree, err = g.parseOne(ctx, p, prefix+body)
				var e *Error
				switch {
				case errors.As(err, &e), errors.As(err, new(*SyntaxError)):
					tree = nil // refused
				case err != nil:
					return nil, fmt.Errorf("judging DuckDB's built-in %s: %w", name, err)
				}
			}
			trees[name] = append(trees[name], tree)
		}
	}
	return trees, nil
}

// judgeBodies is why the guard refuses one of trees, or "" when it takes
// them all.
func (g *DuckDB) judgeBodies(trees []any) string {
	for _, tree := range trees {
		if tree == nil {
			return "its body cannot be checked"
		}
		if e := g.walk(tree, false); e != nil {
			return e.Reason
		}
	}
	return ""
}

const duckFilesHint = "The served files are already there as views (list_tables shows them): query the views by name instead of reading files"

// duckTableFunctions are the table functions a query may call: they
// generate rows or read the catalog, and reach no file, URL or setting.
var duckTableFunctions = map[string]bool{
	"range": true, "generate_series": true, "unnest": true, "repeat": true, "repeat_row": true,
	"json_each": true, "json_tree": true,
	"duckdb_columns": true, "duckdb_constraints": true, "duckdb_functions": true,
	"duckdb_indexes": true, "duckdb_keywords": true, "duckdb_schemas": true,
	"duckdb_tables": true, "duckdb_types": true, "duckdb_views": true,
	"duckdb_sequences": true, "duckdb_dependencies": true,
	"pragma_table_info": true, "pragma_show": true, "pragma_collations": true,
	"icu_calendar_names": true, "pg_timezone_names": true,
	// Table macros over a table the query names: see duckNamedTable.
	"histogram": true, "histogram_values": true,
}

// duckNamedTable are the table macros whose first argument names the table
// they read, by text (query_table in their body, which the guard never
// sees): the argument must be the bare name of a served table or view.
var duckNamedTable = map[string]bool{"histogram": true, "histogram_values": true}

// duckVolatile are built-in functions DuckDB marks as having side effects
// that change nothing outside the statement: they only give a different
// answer each time.
var duckVolatile = map[string]bool{
	"random": true, "gen_random_uuid": true, "uuid": true, "uuidv4": true, "uuidv7": true,
	"error": true, "current_query": true, "current_query_id": true,
	"current_connection_id": true, "current_transaction_id": true,
}

// duckDenied are functions refused whatever the catalog says of them,
// with the reason.
var duckDenied = map[string]string{
	"current_setting": "settings name this server's files and directories; they are not readable here",
	"getenv":          "the environment is not readable here",
	"pg_sleep":        "sleeping only holds a connection",
	"sleep_ms":        "sleeping only holds a connection",
	"setseed":         "it changes the session's state",
	"nextval":         "it changes a sequence",
	"currval":         "it reads a sequence's session state",
	"query":           "it runs SQL text the guard does not see",
	"query_table":     "it reads a table named by text the guard does not see",
	// Every function that takes SQL text, or its parse tree, as a value:
	// DuckDB parses, binds or plans it out of the guard's sight, where
	// none of its bounds apply, and a plan can hold what binding found
	// (json_serialize_plan folds current_setting(...) into its value).
	"json_serialize_plan":         "it plans SQL text the guard does not see",
	"json_serialize_sql":          "it parses SQL text the guard does not see",
	"json_deserialize_sql":        "it turns a parse tree the guard does not see into SQL",
	"json_execute_serialized_sql": "it runs a parse tree the guard does not see",
	"sql_auto_complete":           "it reads SQL text the guard does not see, and suggests file names",
	// Table functions that show the database files, the settings, the
	// secrets and the extensions: paths of this server's.
	"duckdb_databases":           "it names this server's database files and directories",
	"duckdb_settings":            "settings name this server's files and directories; they are not readable here",
	"duckdb_secrets":             "secrets are not readable here",
	"duckdb_extensions":          "it names this server's extension directory",
	"duckdb_temporary_files":     "it names this server's spill directory",
	"duckdb_memory":              "it shows this server's memory use",
	"duckdb_logs":                "it shows this server's logs",
	"duckdb_prepared_statements": "it shows statements the guard did not judge",
}

// duckDeniedRelations are catalog views that show settings or paths.
var duckDeniedRelations = map[string]bool{"pg_settings": true}

// CheckDuckDB reports whether sql is exactly one read-only query as
// DuckDB's own parser reads it: a SELECT (with CTEs, window functions,
// set operations, FROM-first and GROUP BY ALL, PIVOT and UNPIVOT inside
// FROM, DESCRIBE, SUMMARIZE and SHOW), VALUES, or EXPLAIN of one. Functions
// are allowed by what they are: built in and free of side effects; the
// ones that read files, URLs, settings or the environment (read_csv, glob,
// current_setting), and table names that are paths or URLs (DuckDB's
// replacement scans, FROM '/etc/passwd'), are refused. It returns nil, a
// *SyntaxError, an *Error, or the parser's own error. p parses, on the
// connection that is to run sql.
func (g *DuckDB) Check(ctx context.Context, p DuckDBParser, sql string) error {
	if err := checkText(sql); err != nil {
		return err
	}
	start := skipBlank(sql)
	switch word := firstWord(sql); word {
	case "EXPLAIN":
		rest := sql[start+len(word):]
		if firstWord(rest) == "ANALYZE" {
			return &Error{
				Reason: "EXPLAIN ANALYZE runs the statement and is not allowed",
				Hint:   "Send EXPLAIN without ANALYZE to see the plan without running it",
			}
		}
		if blank(rest) {
			return &Error{Reason: "EXPLAIN needs a query", Hint: "Send EXPLAIN SELECT ..."}
		}
		return g.check(ctx, p, rest, start+len(word), sql)
	}
	return g.check(ctx, p, sql, 0, sql)
}

// check parses text, the part of whole from offset on, and judges it.
func (g *DuckDB) check(ctx context.Context, p DuckDBParser, text string, offset int, whole string) error {
	if e := checkDuckDBText(text); e != nil {
		return e
	}
	tree, err := g.parse(ctx, p, text, offset, whole)
	if err != nil {
		return err
	}
	if e := checkDuckDBSize(tree); e != nil {
		return e
	}
	if e := checkDuckDBShape(tree); e != nil {
		return e
	}
	if e := g.walk(tree, false); e != nil {
		return e
	}
	return nil
}

// parseOne is the parse tree of text, one statement, as parse reads it.
func (g *DuckDB) parseOne(ctx context.Context, p DuckDBParser, text string) (any, error) {
	return g.parse(ctx, p, text, 0, text)
}

// parse returns the parse tree of text, the part of whole from offset on,
// which must be one statement DuckDB serializes (a query).
func (g *DuckDB) parse(ctx context.Context, p DuckDBParser, text string, offset int, whole string) (any, error) {
	out, err := p.SerializeSQL(ctx, text)
	if err != nil {
		return nil, err
	}
	var res struct {
		Error    bool            `json:"error"`
		Message  string          `json:"error_message"`
		Type     string          `json:"error_type"`
		Position json.RawMessage `json:"position"` // a number or a string of one

		Statements []json.RawMessage `json:"statements"`
	}
	if len(out) > maxDuckDBTree {
		return nil, &Error{
			Reason: fmt.Sprintf("the statement's parse tree is %d MB, more than the %d MB the guard reads", len(out)>>20, maxDuckDBTree>>20),
			Hint:   "Send a shorter statement: fewer list items, columns and conditions",
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return nil, unreadableDuckDBTree(err)
	}
	if res.Error {
		if res.Type == "parser" {
			pos := 0
			if n, err := strconv.Atoi(strings.Trim(string(res.Position), `"`)); err == nil {
				pos = charPosition(whole, offset+n)
			}
			return nil, &SyntaxError{Message: res.Message, Position: pos}
		}
		// json_serialize_sql serializes SELECT statements only: the rest
		// is named by its first word, for the message alone.
		return nil, refuseDuckStatement(firstWord(text))
	}
	switch len(res.Statements) {
	case 0:
		return nil, &Error{Reason: "no SQL statement found", Hint: "Send one SELECT statement"}
	case 1:
	default:
		return nil, &Error{
			Reason: fmt.Sprintf("found %d statements; only one may be sent", len(res.Statements)),
			Hint:   "Send one SELECT statement at a time, without a semicolon between statements",
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(res.Statements[0])))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		if strings.Contains(err.Error(), "depth") {
			return nil, &Error{Reason: "the SQL is nested too deeply to check", Hint: "Send a flatter statement"}
		}
		return nil, unreadableDuckDBTree(err)
	}
	return tree, nil
}

// unreadableDuckDBTree refuses a statement whose parse tree DuckDB wrote
// in a form the guard cannot read (a number too long for a double comes
// out as Infinity, which JSON has not).
func unreadableDuckDBTree(err error) *Error {
	return &Error{
		Reason: "the guard cannot read DuckDB's parse tree of the statement (" + err.Error() + ")",
		Hint:   "Write long numbers shorter, or as strings cast to the type you need",
	}
}

// charPosition turns a 0-based byte offset into s into a 1-based
// character position.
func charPosition(s string, offset int) int {
	if offset < 0 || offset > len(s) {
		return 0
	}
	return utf8.RuneCountInString(s[:offset]) + 1
}

// walk judges every node of a parse tree. inTableFunction marks the
// function expression of a table function, judged already.
func (g *DuckDB) walk(n any, inTableFunction bool) *Error {
	switch n := n.(type) {
	case []any:
		for _, c := range n {
			if e := g.walk(c, false); e != nil {
				return e
			}
		}
	case map[string]any:
		if e := g.visit(n, inTableFunction); e != nil {
			return e
		}
		tableFunction := n["type"] == "TABLE_FUNCTION"
		for k, c := range n {
			if e := g.walk(c, tableFunction && k == "function"); e != nil {
				return e
			}
		}
	}
	return nil
}

// visit judges one node: a function call, a table function, a table name.
func (g *DuckDB) visit(n map[string]any, judged bool) *Error {
	name, _ := n["function_name"].(string)
	name = strings.ToLower(name)
	switch {
	case n["type"] == "TABLE_FUNCTION":
		f, _ := n["function"].(map[string]any)
		fname, _ := f["function_name"].(string)
		fname = strings.ToLower(fname)
		if duckNamedTable[fname] {
			if e := g.namedTable(fname, f); e != nil {
				return e
			}
		}
		return g.tableFunction(fname)
	case n["class"] == "WINDOW" && name != "":
		// The parser gives DuckDB's own window functions (row_number,
		// lag...) a type of their own; an aggregate used as a window
		// function is judged as the aggregate.
		if n["type"] == "WINDOW_AGGREGATE" {
			return g.function(name)
		}
	case n["class"] == "FUNCTION" && name != "" && !judged:
		return g.function(name)
	case n["type"] == "BASE_TABLE":
		catalog, _ := n["catalog_name"].(string)
		schema, _ := n["schema_name"].(string)
		table, _ := n["table_name"].(string)
		return g.relation(catalog, schema, table)
	}
	return nil
}

// function judges a scalar, aggregate or macro call.
func (g *DuckDB) function(name string) *Error {
	if e := g.refusedMacros[name]; e != nil {
		return e
	}
	if why, ok := duckDenied[name]; ok {
		return &Error{Reason: fmt.Sprintf("the function %s() is not allowed: %s", name, why), Hint: "Send the query without it"}
	}
	if fileFunction(name) {
		return &Error{Reason: fmt.Sprintf("the function %s() reads files and is not allowed", name), Hint: duckFilesHint}
	}
	kinds := g.functions[name]
	if len(kinds) == 0 {
		return nil // DuckDB knows no such function and will say so
	}
	for _, kind := range []string{"scalar", "aggregate", "macro"} {
		f, ok := kinds[kind]
		if ok && f.Internal && (!f.SideEffects || duckVolatile[name]) {
			return nil
		}
	}
	if _, ok := kinds["table"]; ok && len(kinds) == 1 {
		return g.tableFunction(name)
	}
	for _, f := range kinds {
		if !f.Internal {
			return &Error{Reason: fmt.Sprintf("the function %s() is not built into DuckDB and is not allowed", name), Hint: "Use DuckDB's built-in functions"}
		}
	}
	return &Error{Reason: fmt.Sprintf("the function %s() has side effects and is not allowed", name), Hint: "Send the query without it"}
}

// tableFunction judges a function in FROM.
func (g *DuckDB) tableFunction(name string) *Error {
	switch {
	case duckTableFunctions[name]:
		return nil
	case fileFunction(name):
		return &Error{Reason: fmt.Sprintf("the table function %s() reads files and is not allowed", name), Hint: duckFilesHint}
	case duckDenied[name] != "":
		return &Error{Reason: fmt.Sprintf("the table function %s() is not allowed: %s", name, duckDenied[name]), Hint: "Query the served tables and views by name"}
	case g.functions[name] == nil:
		// Not in this DuckDB at all, and extensions are never loaded.
		return &Error{MissingFunction: name, Reason: "no function named " + name,
			Hint: "Check the spelling; duckdb_functions() lists the functions this DuckDB has"}
	}
	return &Error{
		Reason: fmt.Sprintf("the table function %s() is not allowed", name),
		Hint:   "Query the served tables and views by name; range(), generate_series(), unnest() and the duckdb_tables()/duckdb_columns() catalog are allowed",
	}
}

// namedTable judges the table a duckNamedTable macro reads: its first
// argument, which must be a served relation's bare name.
func (g *DuckDB) namedTable(name string, f map[string]any) *Error {
	args, _ := f["children"].([]any)
	if len(args) > 0 {
		arg, _ := args[0].(map[string]any)
		parts, _ := arg["column_names"].([]any)
		if arg["class"] == "COLUMN_REF" && len(parts) == 1 {
			if table, ok := parts[0].(string); ok && g.relations[strings.ToLower(table)] {
				return nil
			}
		}
	}
	return &Error{
		Reason: fmt.Sprintf("%s() reads the table its first argument names, and that must be one of the served tables or views, by its bare name", name),
		Hint:   fmt.Sprintf("Send %s(table, column) with a table list_tables shows, or count with GROUP BY", name),
	}
}

// fileFunction reports whether a function reads files or URLs.
func fileFunction(name string) bool {
	switch name {
	case "glob", "sniff_csv", "parquet_scan", "arrow_scan", "arrow_scan_dumb", "seq_scan", "which_secret":
		return true
	}
	return strings.HasPrefix(name, "read_") || strings.HasPrefix(name, "parquet_")
}

// relation judges a table name, catalog.schema.table with the first two
// optional. A name DuckDB finds in no catalog goes to its replacement
// scans, which read it, qualifiers and all, as a path or URL: one that is
// a path or URL in any part, or is qualified by what names no schema or
// database here, is refused. One that names a table function the query
// could not call (FROM duckdb_settings) is judged as that function.
func (g *DuckDB) relation(catalog, schema, name string) *Error {
	lower := strings.ToLower(name)
	whole := name
	for _, q := range []string{schema, catalog} {
		if q == "" {
			continue
		}
		whole = q + "." + whole
		if strings.ContainsAny(q, "/\\:") {
			return &Error{Reason: fmt.Sprintf("the table name %q is a file name or URL, and files are not read here", snippet(whole, 60)), Hint: duckFilesHint}
		}
		if !g.schemas[strings.ToLower(q)] {
			return &Error{Reason: fmt.Sprintf("there is no schema or database %q here, and a name qualified by anything else is read as a file name", snippet(q, 60)),
				Hint: "Query the served tables and views by name (list_tables shows them)"}
		}
	}
	if g.relations[lower] {
		return nil
	}
	if strings.ContainsAny(name, "/\\:.") {
		return &Error{Reason: fmt.Sprintf("the table name %q is a file name or URL, and files are not read here", snippet(whole, 60)), Hint: duckFilesHint}
	}
	if duckDeniedRelations[lower] {
		return &Error{Reason: fmt.Sprintf("the view %s shows this server's settings and is not allowed", name), Hint: "Query the served tables and views by name"}
	}
	if e := g.refusedViews[lower]; e != nil {
		return e
	}
	if kinds := g.functions[lower]; kinds != nil {
		if _, ok := kinds["table"]; ok {
			return g.tableFunction(lower)
		}
	}
	return nil
}

// refuseDuckStatement explains why a statement that is not a query is
// refused, by its first word.
func refuseDuckStatement(word string) *Error {
	switch word {
	case "COPY", "EXPORT", "IMPORT":
		return &Error{Reason: word + " reads or writes files and is not allowed", Hint: duckFilesHint + "; send the SELECT alone, and its rows come back as the result"}
	case "ATTACH", "DETACH", "USE":
		return &Error{Reason: word + " is not allowed: this server serves one database", Hint: duckFilesHint}
	case "INSTALL", "LOAD", "FORCE", "UPDATE EXTENSIONS":
		return &Error{Reason: word + " of an extension is not allowed", Hint: "Use the functions DuckDB has built in"}
	case "SET", "RESET", "PRAGMA", "CALL":
		return &Error{Reason: word + " is not allowed: settings cannot be read or changed here", Hint: "Send one SELECT statement"}
	case "PIVOT", "UNPIVOT":
		return &Error{
			Reason: "the PIVOT/UNPIVOT statement is not allowed: it creates types before it runs",
			Hint:   "Write it inside a SELECT with its values listed: SELECT * FROM t PIVOT (sum(x) FOR k IN ('a', 'b'))",
		}
	case "BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT":
		return &Error{Reason: word + " (transaction control) is not allowed", Hint: "Send the query alone; each runs in a read-only transaction of its own"}
	case "SELECT", "WITH", "FROM", "VALUES", "DESCRIBE", "SUMMARIZE", "SHOW", "TABLE":
		// A query the parser would serialize: another statement follows.
		return &Error{
			Reason: "found more than one statement, and one of them is not a query",
			Hint:   "Send one SELECT statement at a time, without a semicolon between statements",
		}
	case "":
		return &Error{Reason: "this is not a SELECT statement", Hint: readOnlyHint}
	}
	return &Error{Reason: word + " is not allowed", Hint: readOnlyHint}
}
