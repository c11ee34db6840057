package guard

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// PostgresCatalog tells the PostgreSQL guard what the text alone cannot:
// which functions a name can reach in the connected database, what they
// are and where they come from, and which server will parse the text.
// source implements it from pg_proc, pg_operator, pg_type and pg_depend;
// tests use a map.
type PostgresCatalog interface {
	// Functions returns every function a call of schema.name could reach:
	// the overloads named name in schema, or in any schema when schema is
	// "" (search_path and the argument types choose among them on the
	// server, so the guard judges them all). Nil means there is none.
	Functions(schema, name string) []PostgresFunction
	// Operators returns the functions behind the operators named name
	// (e.g. "+", "~~", "@>"), in schema or in any when schema is "":
	// each operator's own function and its selectivity estimators.
	Operators(schema, name string) []PostgresFunction
	// Type returns what making a value of the type schema.name (a cast,
	// a typed literal) can call; schema "" means any schema. ok is false
	// when there is no such type.
	Type(schema, name string) (t PostgresType, ok bool)
	// ServerVersion is the connected server's server_version_num
	// (150020 for 15.20); 0 when unknown, which the guard reads as the
	// oldest server it knows.
	ServerVersion() int
}

// PostgresOperatorMemo is what a PostgresCatalog may also be: a note of
// the operators the guard allowed under it, so that one with dozens of
// functions behind it (=, +, ||) is judged at its first use rather than
// at every one. The verdict depends on nothing but the functions
// Operators returns, so the notes must last no longer than they do: a
// catalog read again starts with none.
type PostgresOperatorMemo interface {
	// OperatorAllowed says whether AllowOperator noted schema.name.
	OperatorAllowed(schema, name string) bool
	// AllowOperator notes that the functions behind schema.name are all
	// allowed.
	AllowOperator(schema, name string)
}

// PostgresFunction is one function as the guard judges it: by what it is,
// never by its name alone.
type PostgresFunction struct {
	Schema, Name string
	// Volatility is pg_proc.provolatile: 'i', 's' or 'v'.
	Volatility byte
	// Origin is "" for a function built into PostgreSQL (made by initdb),
	// the extension's name for one an extension made, and OriginUser for
	// one defined in the database itself.
	Origin string
	// Allowed is true when the operator of sqlmcp allowed the function,
	// by its name or its extension's.
	Allowed bool
	// Named is true when the operator allowed the function by its own
	// name: its volatility label is not judged either.
	Named bool
	// Lookup is true for a function that can look catalog objects up by
	// name or OID: one with an argument or the result of a reg* type
	// (regclass, regtype, ...: to_regclass, pg_relation_size), and one of
	// the catalog's families (pg_*, has_*, *_description, format_type)
	// with an argument of type oid or name (pg_get_viewdef(oid),
	// has_table_privilege(name, text, text)). Under a table and column
	// policy such a function is an existence oracle, and refused.
	Lookup bool
}

// OriginUser is the Origin of a function or type defined in the database
// itself rather than built in or made by an extension.
const OriginUser = "-"

// PostgresType is a type as the guard judges it.
type PostgresType struct {
	Origin  string // as PostgresFunction's
	Allowed bool   // allowed by the operator, through its extension
	// Base is a domain's base type, schema and name; empty otherwise.
	Base [2]string
	// Calls are the functions PostgreSQL may run to make a value of the
	// type that are not built in: its input functions, its CHECK
	// constraints' functions when it is a domain, a range's support
	// functions, and the functions of casts to or from it.
	Calls []PostgresFunction
	// Implicit are those of Calls PostgreSQL also runs on values of the
	// type a query only reads, unnamed: the support functions and
	// operators of its default btree and hash operator classes (ORDER BY,
	// GROUP BY, DISTINCT, joins), and its implicit and assignment casts
	// and casts to json (to_json), as for its elements, fields and
	// subtype.
	Implicit []PostgresFunction
	// Checks are a domain's CHECK constraints, and its base domains', as
	// pg_get_constraintdef writes them: "CHECK ((VALUE > 0))". The guard
	// reads them as it reads the query.
	Checks []string
	// Relation is, for a relation's row type or an array of one, the
	// relation's schema and name; empty otherwise. Under a policy a cast
	// to the row type of a relation the policy hides is refused as a cast
	// to a type that does not exist.
	Relation [2]string
	// Extension is, for a relation's row type, the extension that made the
	// relation (CREATE EXTENSION's views and tables), and ExtensionAllowed
	// whether the operator allowed that extension; empty otherwise.
	Extension        string
	ExtensionAllowed bool
}

// VettedExtensions are the extensions whose functions, operators and types
// may be used without being allowed one by one. Each was read for what its
// functions do: none runs SQL given as text, reads or writes files, reaches
// another server or session, or changes a setting except through a
// function that is volatile (which the volatility rule refuses anyway,
// e.g. pg_trgm's set_limit). Only the non-volatile functions, and the
// harmless volatile ones (uuid generators), are reachable.
var VettedExtensions = map[string]string{
	"pg_trgm":         "trigram similarity and its operators (%, <->, similarity)",
	"citext":          "case-insensitive text and its comparisons",
	"hstore":          "key-value pairs and their operators",
	"fuzzystrmatch":   "soundex, levenshtein, metaphone",
	"unaccent":        "removes accents through its own dictionary",
	"ltree":           "label trees and their operators",
	"cube":            "multi-dimensional cubes",
	"earthdistance":   "great-circle distances over cube or point",
	"seg":             "line segments and floating intervals",
	"isn":             "ISBN, ISSN, EAN and UPC types",
	"intarray":        "integer-array operators",
	"btree_gin":       "GIN operator classes for plain types",
	"btree_gist":      "GiST operator classes for plain types",
	"pgcrypto":        "hashes, HMACs, password hashing and encryption of values",
	"uuid-ossp":       "UUID generation",
	"tsm_system_rows": "TABLESAMPLE SYSTEM_ROWS",
	"tsm_system_time": "TABLESAMPLE SYSTEM_TIME",
	"vector":          "pgvector's vector types, distances and operators",
	"postgis":         "PostGIS geometry and geography, without rasters, topology or the geocoder",
}

// NeverAllowed reports whether the function named name (any case) runs
// SQL given as text or reaches outside the session, and so is refused
// whatever the operator allows: it returns the reason to give.
func NeverAllowed(name string) (hint string, never bool) {
	return pgDenied(strings.ToLower(name))
}

// judgeFunctions judges a reach of fns, which call names (for messages):
// every one must be allowed. A denied name is refused first, whatever the
// catalog holds.
func judgeFunctions(call string, fns []PostgresFunction) *Error {
	builtin := false
	for _, f := range fns {
		builtin = builtin || f.Schema == "pg_catalog" && f.Origin == ""
	}
	for _, f := range fns {
		if e := judgeFunction(call, f, len(fns), builtin); e != nil {
			return e
		}
	}
	return nil
}

// judgeFunction judges one function that call can reach; of is how many
// functions call can reach, builtin whether one of them is built in.
//
// An operator reaches every function of its name, often dozens, and most
// are fine: the words of a refusal are made only for one.
func judgeFunction(call string, f PostgresFunction, of int, builtin bool) *Error {
	lower := strings.ToLower(f.Name)
	may := func() string {
		verb := "calls "
		if of > 1 || !strings.EqualFold(strings.TrimSuffix(call, "()"), f.Name) {
			verb = "can reach "
		}
		return verb + f.Schema + "." + f.Name + "()"
	}
	if hint, denied := pgDenied(lower); denied {
		if strings.EqualFold(strings.TrimSuffix(call, "()"), f.Name) {
			return &Error{Reason: "the function " + call + " is not allowed", Hint: hint}
		}
		return &Error{Reason: fmt.Sprintf("%s %s, which is not allowed", call, may()), Hint: hint}
	}
	switch {
	case f.Origin == "", f.Allowed:
	case f.Origin == OriginUser:
		hint := "Write the query with built-in functions. "
		if builtin {
			hint += "If you meant the built-in " + call + ", write it qualified: pg_catalog." + call + ". "
		}
		return &Error{
			Reason: fmt.Sprintf("%s %s, which is defined in this database, not built in: "+
				"its body cannot be checked, so it is not allowed", call, may()),
			Hint: hint + "An operator can allow it with --allow-function " + f.Schema + "." + f.Name,
		}
	case VettedExtensions[f.Origin] == "":
		return &Error{
			Reason: fmt.Sprintf("%s %s, from the extension %s, which this server does not allow", call, may(), f.Origin),
			Hint:   "Write the query without it. An operator can allow the extension with --allow-extension " + f.Origin,
		}
	}
	if f.Named || f.Volatility == 'i' || f.Volatility == 's' || volatileAllowed(f.Schema, lower) {
		return nil
	}
	if of == 1 && strings.EqualFold(strings.TrimSuffix(call, "()"), f.Name) && !strings.HasPrefix(call, "OPERATOR") {
		return &Error{
			Reason: "the function " + call + " is volatile and is not allowed",
			Hint:   "Only functions that cannot change anything (immutable or stable ones) may be called; write the query without it",
		}
	}
	return &Error{
		Reason: fmt.Sprintf("%s %s, which is volatile, and is not allowed", call, may()),
		Hint:   "Only functions that cannot change anything (immutable or stable ones) may be called; write the query without it",
	}
}

// judgeType judges making a value of the type names: a cast or a typed
// literal.
func (w *pgWalker) judgeType(names []string) *Error {
	schema, name := "", ""
	switch len(names) {
	case 0:
		return nil
	case 1:
		name = names[0]
	default:
		schema, name = names[len(names)-2], names[len(names)-1]
	}
	for depth := 0; depth < 32; depth++ {
		t, ok := w.cat.Type(schema, name)
		if !ok {
			full := name
			if schema != "" {
				full = schema + "." + name
			}
			return missingType(full)
		}
		label := "the type " + name
		if t.Origin != "" && !t.Allowed && t.Origin != OriginUser && VettedExtensions[t.Origin] == "" {
			return &Error{
				Reason: fmt.Sprintf("%s comes from the extension %s, which this server does not allow", label, t.Origin),
				Hint:   "Write the query without it. An operator can allow the extension with --allow-extension " + t.Origin,
			}
		}
		for _, f := range t.Calls {
			if e := judgeFunction("a value of "+label, f, 2, false); e != nil {
				return e
			}
		}
		for _, check := range t.Checks {
			if e := w.judgeCheck(label, check); e != nil {
				return e
			}
		}
		if t.Base[1] == "" {
			return nil
		}
		schema, name = t.Base[0], t.Base[1]
	}
	return nil
}

// missingType refuses a type the database lacks; the policy resolver
// refuses a hidden relation's row type in the same words.
func missingType(full string) *Error {
	return &Error{MissingType: full, Reason: "no type named " + full, Hint: "Check the type's spelling; pg_type lists the types this database has"}
}

// maxCheckDepth bounds how deeply domain CHECKs that cast to other domains
// are followed.
const maxCheckDepth = 8

// judgeCheck reads a domain's CHECK constraint as the guard reads a query:
// every function, operator and type it reaches must be allowed, since
// making a value of the domain runs it.
func (w *pgWalker) judgeCheck(label, check string) *Error {
	at := pgCheckAt{label, check, w.depth}
	if e, ok := w.checks[at]; ok {
		return e
	}
	if w.checks == nil {
		w.checks = map[pgCheckAt]*Error{}
	}
	e := w.judgeCheckOnce(label, check)
	w.checks[at] = e
	return e
}

// judgeCheckOnce is judgeCheck without the memo.
func (w *pgWalker) judgeCheckOnce(label, check string) *Error {
	refuse := &Error{
		Reason: label + " is a domain whose CHECK constraint the guard cannot read",
		Hint:   "Write the query without making values of that type",
	}
	expr, ok := strings.CutPrefix(check, "CHECK ")
	if !ok || w.depth >= maxCheckDepth {
		return refuse
	}
	text := "SELECT " + expr
	stmts, err := parsePostgres(text, 0)
	if err != nil || len(stmts) != 1 || stmts[0].Stmt.GetSelectStmt() == nil {
		return refuse
	}
	sub := &pgWalker{cat: w.cat, text: text, depth: w.depth + 1, checks: w.checks}
	e := sub.walk(stmts[0].Stmt.GetSelectStmt().ProtoReflect())
	if e == nil {
		return nil
	}
	return &Error{Reason: label + " is a domain whose CHECK constraint is not allowed: " + e.Reason, Hint: e.Hint}
}

// syntaxSince says from which server version each construct of the
// parser's grammar (PostgreSQL 17) that reads like a call is syntax, and
// which function an older server calls instead when it reads the same text,
// resolved through search_path: the SQL/JSON constructs and MERGE_ACTION()
// (which a server with the syntax refuses outside MERGE ... RETURNING).
var syntaxSince = map[string]struct {
	version int
	call    string
}{
	"JsonObjectConstructor":     {160000, "json_object"},
	"JsonArrayConstructor":      {160000, "json_array"},
	"JsonArrayQueryConstructor": {160000, "json_array"},
	"JsonObjectAgg":             {160000, "json_objectagg"},
	"JsonArrayAgg":              {160000, "json_arrayagg"},
	"JsonIsPredicate":           {160000, ""},
	"JsonScalarExpr":            {170000, "json_scalar"},
	"JsonSerializeExpr":         {170000, "json_serialize"},
	"JsonParseExpr":             {170000, "json"},
	"JsonTable":                 {170000, "json_table"},
	"MergeSupportFunc":          {170000, "merge_action"},
}

// jsonFuncCalls names the function an older server calls for each
// JSON_VALUE, JSON_QUERY and JSON_EXISTS.
var jsonFuncCalls = map[string]string{
	"JSON_EXISTS_OP": "json_exists", "JSON_QUERY_OP": "json_query", "JSON_VALUE_OP": "json_value", "JSON_TABLE_OP": "json_table",
}

// newSyntax judges a construct of syntaxSince: on a server whose grammar
// has it, syntax; on an older one, a call of whatever function the server
// finds by that name, judged as any call.
func (w *pgWalker) newSyntax(call string, since int) *Error {
	if v := w.cat.ServerVersion(); v >= since {
		return nil
	}
	if call == "" {
		return &Error{
			Reason: "this SQL/JSON syntax is not understood by the connected PostgreSQL server (it came in version 16)",
			Hint:   "Use the json functions and operators of the server's version, e.g. jsonb_typeof(x) or x::jsonb",
		}
	}
	fns := w.cat.Functions("", call)
	if len(fns) == 0 {
		return &Error{
			Reason: fmt.Sprintf("the connected PostgreSQL server reads %s(...) as a call of a function %s(), and it has none", strings.ToUpper(call), call),
			Hint:   "That syntax needs a newer server; for SQL/JSON, use the json functions and operators of the server's version (->, ->>, jsonb_path_query)",
		}
	}
	return judgeFunctions(call+"()", fns)
}

// Hints for denied functions, by what they do.
const (
	hintFiles     = "Files and large objects on the server are off limits; query tables instead"
	hintSecrets   = "Passwords and stored credentials are off limits; pg_roles and pg_foreign_server describe roles and servers without them"
	hintRemote    = "This server reads only the database it was started with; query its tables directly"
	hintServer    = "That function controls the server, its transactions or replication; write the query without it"
	hintLocks     = "Locks are not allowed, and reading needs none; write the query without them"
	hintSettings  = "Settings cannot be changed; read one with current_setting('name')"
	hintSequences = "Sequence functions are not allowed; read a sequence's state with SELECT last_value FROM the_sequence"
	hintSleep     = "Waiting is not allowed; write the query without it"
	hintNotify    = "Notifications are not allowed; send the query without pg_notify()"
	hintSQLText   = "That function runs SQL given as text; send that SQL as the query instead"
	hintSeed      = "The random seed cannot be changed; random() alone is fine"
	hintSessions  = "Other sessions' statements can hold passwords and rows this server does not show; pg_stat_database and pg_locks describe the server's activity without them"
)

// pgDeniedFunctions are refused whatever the catalog says of them and
// whatever the operator allows.
var pgDeniedFunctions = map[string]string{
	"pg_read_file": hintFiles, "pg_read_binary_file": hintFiles, "pg_stat_file": hintFiles,
	"loread": hintFiles, "lowrite": hintFiles, "pg_logdir_ls": hintFiles,
	"pg_terminate_backend": hintServer, "pg_cancel_backend": hintServer, "pg_reload_conf": hintServer,
	"pg_rotate_logfile": hintServer, "pg_rotate_logfile_old": hintServer, "pg_promote": hintServer,
	"pg_switch_wal": hintServer, "pg_switch_xlog": hintServer, "pg_create_restore_point": hintServer,
	"pg_backup_start": hintServer, "pg_backup_stop": hintServer, "pg_start_backup": hintServer,
	"pg_stop_backup": hintServer, "pg_log_backend_memory_contexts": hintServer,
	"pg_stat_statements_reset": hintServer, "pg_import_system_collations": hintServer,
	"pg_export_snapshot": hintServer, "pg_stat_clear_snapshot": hintServer,
	"txid_current": hintServer, "pg_current_xact_id": hintServer,
	"set_config": hintSettings,
	// The function behind pg_config (pgSecretRelations): the server's
	// build and file paths.
	"pg_config": hintFiles,
	// The text of every session's statement: the functions behind
	// pg_stat_activity (pgSecretRelations).
	"pg_stat_get_activity": hintSessions, "pg_stat_get_backend_activity": hintSessions,
	"nextval": hintSequences, "setval": hintSequences, "currval": hintSequences, "lastval": hintSequences,
	"pg_notify": hintNotify,
	"setseed":   hintSeed,
	// Functions that run SQL built from their text arguments: core's,
	// tablefunc's and xml2's.
	"ts_stat": hintSQLText, "xpath_table": hintSQLText, "connectby": hintSQLText,
	"table_to_xml": hintSQLText, "table_to_xmlschema": hintSQLText, "table_to_xml_and_xmlschema": hintSQLText,
	"schema_to_xml": hintSQLText, "schema_to_xmlschema": hintSQLText, "schema_to_xml_and_xmlschema": hintSQLText,
	"database_to_xml": hintSQLText, "database_to_xmlschema": hintSQLText, "database_to_xml_and_xmlschema": hintSQLText,
}

// pgDeniedPrefixes deny whole families by the start of their names.
var pgDeniedPrefixes = []struct{ prefix, hint string }{
	{"pg_ls_", hintFiles}, {"lo_", hintFiles}, {"pg_file_", hintFiles},
	{"pg_hba_file_rules", hintFiles}, {"pg_ident_file_mappings", hintFiles}, {"pg_show_all_file_settings", hintFiles},
	{"dblink", hintRemote}, {"postgres_fdw", hintRemote},
	{"pg_advisory_", hintLocks}, {"pg_try_advisory_", hintLocks},
	{"pg_stat_reset", hintServer}, {"pg_logical_", hintServer}, {"pg_wal_replay_", hintServer},
	{"pg_sleep", hintSleep},
	{"query_to_xml", hintSQLText}, {"cursor_to_xml", hintSQLText}, {"crosstab", hintSQLText},
}

// pgSecretRelations are the system catalogs and views that show, to a
// role allowed to read them (a superuser, as a sidecar often runs),
// password hashes and stored credentials, the server's files, or the text
// of other sessions' statements (which can carry a password being set or
// values of rows a policy hides), which the functions behind some of them
// (pg_hba_file_rules(), pg_config(), pg_stat_get_activity()) are refused
// for. Keyed by schema and name; an unqualified name counts in
// pg_catalog, which the search path reads first.
var pgSecretRelations = map[[2]string]string{
	{"pg_catalog", "pg_stat_activity"}:             hintSessions,
	{"pg_catalog", "pg_authid"}:                    hintSecrets,
	{"pg_catalog", "pg_shadow"}:                    hintSecrets,
	{"pg_catalog", "pg_user_mapping"}:              hintSecrets,
	{"pg_catalog", "pg_user_mappings"}:             hintSecrets,
	{"pg_catalog", "pg_subscription"}:              hintSecrets,
	{"information_schema", "user_mapping_options"}: hintSecrets,
	// The view under user_mapping_options, with every option of every
	// user mapping, passwords among them.
	{"information_schema", "_pg_user_mappings"}: hintSecrets,
	{"pg_catalog", "pg_hba_file_rules"}:         hintFiles,
	{"pg_catalog", "pg_ident_file_mappings"}:    hintFiles,
	{"pg_catalog", "pg_file_settings"}:          hintFiles,
	{"pg_catalog", "pg_config"}:                 hintFiles,
	{"pg_catalog", "pg_largeobject"}:            hintFiles,
	// The settings of every role and database (ALTER ROLE ... SET),
	// applications' secrets among them (app.jwt_secret).
	{"pg_catalog", "pg_db_role_setting"}: hintSecrets,
}

// pgDenied reports whether lower (a lower-cased function name) is
// denied, and the hint to give.
func pgDenied(lower string) (hint string, denied bool) {
	if hint, ok := pgDeniedFunctions[lower]; ok {
		return hint, true
	}
	for _, p := range pgDeniedPrefixes {
		if strings.HasPrefix(lower, p.prefix) {
			return p.hint, true
		}
	}
	// pg_create_*_replication_slot, pg_copy_*, pg_drop_*, pg_replication_*.
	if strings.HasPrefix(lower, "pg_") && strings.Contains(lower, "replication") {
		return hintServer, true
	}
	return "", false
}

// volatileAllowed reports whether the volatile function lower (a
// lower-cased name) in schema is harmless: it reads a clock, the random
// generator or sizes on disk, and changes nothing. The core ones count
// only in pg_catalog, so a look-alike in another schema is judged as any
// function is.
func volatileAllowed(schema, lower string) bool {
	switch lower {
	case "uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v4": // uuid-ossp, in any schema
		return true
	case "random", "random_normal", "clock_timestamp", "timeofday", "statement_timestamp",
		"gen_random_uuid", "uuidv4", "uuidv7",
		"pg_relation_size", "pg_total_relation_size", "pg_table_size", "pg_indexes_size", "pg_database_size":
		return schema == "" || schema == "pg_catalog"
	}
	return false
}

// PostgresCallsDenied reports whether the query sql (a view's definition,
// as pg_get_viewdef writes it) calls a function refused whatever the
// catalog says (pgDenied): one that runs SQL given as text, reaches
// another server, reads the server's files. What such a view reads cannot
// be told from the relations it depends on. A text the parser does not
// read counts as calling one.
func PostgresCallsDenied(sql string) bool {
	tree, err := parseTree(sql)
	if err != nil {
		return true
	}
	denied := false
	var walk func(m protoreflect.Message) bool
	walk = func(m protoreflect.Message) bool {
		if fc, ok := m.Interface().(*pg.FuncCall); ok && len(fc.Funcname) > 0 {
			if s := fc.Funcname[len(fc.Funcname)-1].GetString_(); s != nil {
				if _, d := pgDenied(strings.ToLower(s.Sval)); d {
					denied = true
					return false
				}
			}
		}
		children(m, walk)
		return !denied
	}
	for _, st := range tree.Stmts {
		walk(st.ProtoReflect())
	}
	return denied
}
