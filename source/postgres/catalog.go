package postgres

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sqlmcp/sqlmcp/guard"
)

// pgCatalog is what the guard judges functions, operators and types by:
// every function each name can reach, with its volatility and where it
// comes from (built in, an extension, the database itself). It is
// read-only once built, so safe for concurrent use.
type pgCatalog struct {
	funcs, ops       map[[2]string][]guard.PostgresFunction // schema and name
	anyFuncs, anyOps map[string][]guard.PostgresFunction    // name, in a schema of the search path
	types            map[[2]string]guard.PostgresType
	anyTypes         map[string]guard.PostgresType // name, in a schema of the search path
	extensions       map[string]bool               // installed
	version          int
	// tsConfigs are the text search configurations whose parser's or
	// dictionaries' functions are not built in, with those functions, and
	// tsDefault default_text_search_config ("pg_catalog.english").
	tsConfigs map[[2]string][]guard.PostgresFunction
	tsDefault string
	// tsDicts are the text search dictionaries whose template's functions
	// are not built in, with those functions.
	tsDicts map[[2]string][]guard.PostgresFunction
	// reserved is whether the role may read the settings PostgreSQL
	// reserves for superusers and pg_read_all_settings
	// (guard.PostgresSettings); false for the bootstrap and own catalogs,
	// which judge only sqlmcp's own reads.
	reserved bool
	// stamp is pgStampSQL's answer, read just before the catalog was.
	stamp string
	// unseen refuses every statement of the model's while the database
	// has an implicit cast between built-in types through a function the
	// guard does not allow (see implicitCast); nil when it has none.
	unseen *guard.Error
	// verdicts remembers the statements the guard accepted under this
	// catalog; a reloaded catalog starts with none.
	verdicts verdictCache
	// allowedOps are the operators the guard allowed under this catalog
	// (guard.PostgresOperatorMemo): at most one per key of ops and anyOps.
	allowedOps sync.Map // [2]string (schema, name) → struct{}
}

// bootstrapCatalog knows only the operators, types and version the catalog
// reads themselves use, so the guard can judge them before the catalog is
// loaded.
var bootstrapCatalog = newPGCatalog(bootstrapRows, nil)

// bootstrapRows are bootstrapCatalog's rows, as pgCatalogSQL gives them.
var bootstrapRows = [][]any{
	{"o", "pg_catalog", "=", "pg_catalog", "int4eq", "i", ""},
	{"o", "pg_catalog", "<", "pg_catalog", "int4lt", "i", ""},
	{"o", "pg_catalog", "<>", "pg_catalog", "int4ne", "i", ""},
	{"o", "pg_catalog", ">=", "pg_catalog", "int4ge", "i", ""},
	{"o", "pg_catalog", ">", "pg_catalog", "int4gt", "i", ""},
	{"o", "pg_catalog", "&&", "pg_catalog", "arrayoverlap", "i", ""},
	{"t", "pg_catalog", "text", "", "", "i", ""},
	{"t", "pg_catalog", "int4", "", "", "i", ""},
	{"t", "pg_catalog", "oid", "", "", "i", ""},
	{"t", "pg_catalog", "int8", "", "", "i", ""},
	{"f", "pg_catalog", "unnest", "pg_catalog", "unnest", "i", ""},
	{"f", "pg_catalog", "count", "pg_catalog", "count", "i", ""},
	{"f", "pg_catalog", "sum", "pg_catalog", "sum", "i", ""},
	{"f", "pg_catalog", "current_schemas", "pg_catalog", "current_schemas", "s", ""},
	{"f", "pg_catalog", "pg_get_constraintdef", "pg_catalog", "pg_get_constraintdef", "s", ""},
	{"N", "pg_catalog", "pg_has_role", "pg_catalog", "pg_has_role", "s", ""},
	{"p", "", "pg_catalog", "", "", "i", ""},
	{"v", "", "0", "", "", "i", ""},
}

// ownCatalog judges sqlmcp's own reads of the schema while the function
// catalog is still being read at start (catalogFor): the bootstrap rows
// and every overload of the built-in functions, operators and types those
// reads use, as pgCatalogSQL gives them on PostgreSQL 15
// (TestOwnCatalog holds them to the server's and checks that every
// read of the start is judged by them alone). A read naming anything
// else waits for the function catalog.
var ownCatalog = newPGCatalog(append(slices.Clone(bootstrapRows), ownCatalogRows...), nil)

// ownCatalogRows are what ownCatalog knows beyond bootstrapRows.
var ownCatalogRows = [][]any{
	{"f", "pg_catalog", "aclexplode", "pg_catalog", "aclexplode", "s", ""},
	{"f", "pg_catalog", "cardinality", "pg_catalog", "cardinality", "i", ""},
	{"f", "pg_catalog", "current_database", "pg_catalog", "current_database", "s", ""},
	{"f", "pg_catalog", "current_setting", "pg_catalog", "current_setting", "s", ""},
	{"f", "pg_catalog", "format", "pg_catalog", "format", "s", ""},
	{"f", "pg_catalog", "has_any_column_privilege", "pg_catalog", "has_any_column_privilege", "s", ""},
	{"f", "pg_catalog", "has_database_privilege", "pg_catalog", "has_database_privilege", "s", ""},
	{"f", "pg_catalog", "has_foreign_data_wrapper_privilege", "pg_catalog", "has_foreign_data_wrapper_privilege", "s", ""},
	{"f", "pg_catalog", "has_function_privilege", "pg_catalog", "has_function_privilege", "s", ""},
	{"f", "pg_catalog", "has_parameter_privilege", "pg_catalog", "has_parameter_privilege", "s", ""},
	{"f", "pg_catalog", "has_schema_privilege", "pg_catalog", "has_schema_privilege", "s", ""},
	{"f", "pg_catalog", "has_sequence_privilege", "pg_catalog", "has_sequence_privilege", "s", ""},
	{"f", "pg_catalog", "has_server_privilege", "pg_catalog", "has_server_privilege", "s", ""},
	{"f", "pg_catalog", "has_table_privilege", "pg_catalog", "has_table_privilege", "s", ""},
	{"f", "pg_catalog", "to_jsonb", "pg_catalog", "to_jsonb", "s", ""},
	{"N", "pg_catalog", "col_description", "pg_catalog", "col_description", "s", ""},
	{"N", "pg_catalog", "format_type", "pg_catalog", "format_type", "s", ""},
	{"N", "pg_catalog", "has_any_column_privilege", "pg_catalog", "has_any_column_privilege", "s", ""},
	{"N", "pg_catalog", "has_database_privilege", "pg_catalog", "has_database_privilege", "s", ""},
	{"N", "pg_catalog", "has_foreign_data_wrapper_privilege", "pg_catalog", "has_foreign_data_wrapper_privilege", "s", ""},
	{"N", "pg_catalog", "has_function_privilege", "pg_catalog", "has_function_privilege", "s", ""},
	{"N", "pg_catalog", "has_parameter_privilege", "pg_catalog", "has_parameter_privilege", "s", ""},
	{"N", "pg_catalog", "has_schema_privilege", "pg_catalog", "has_schema_privilege", "s", ""},
	{"N", "pg_catalog", "has_sequence_privilege", "pg_catalog", "has_sequence_privilege", "s", ""},
	{"N", "pg_catalog", "has_server_privilege", "pg_catalog", "has_server_privilege", "s", ""},
	{"N", "pg_catalog", "has_table_privilege", "pg_catalog", "has_table_privilege", "s", ""},
	{"N", "pg_catalog", "obj_description", "pg_catalog", "obj_description", "s", ""},
	{"N", "pg_catalog", "pg_get_expr", "pg_catalog", "pg_get_expr", "s", ""},
	{"N", "pg_catalog", "pg_get_function_identity_arguments", "pg_catalog", "pg_get_function_identity_arguments", "s", ""},
	// pg_get_viewdef's five, in the server's order: (text), (oid),
	// (text, boolean), (oid, boolean), (oid, integer).
	{"f", "pg_catalog", "pg_get_viewdef", "pg_catalog", "pg_get_viewdef", "s", ""},
	{"N", "pg_catalog", "pg_get_viewdef", "pg_catalog", "pg_get_viewdef", "s", ""},
	{"f", "pg_catalog", "pg_get_viewdef", "pg_catalog", "pg_get_viewdef", "s", ""},
	{"N", "pg_catalog", "pg_get_viewdef", "pg_catalog", "pg_get_viewdef", "s", ""},
	{"N", "pg_catalog", "pg_get_viewdef", "pg_catalog", "pg_get_viewdef", "s", ""},
	{"N", "pg_catalog", "pg_identify_object", "pg_catalog", "pg_identify_object", "s", ""},
	{"o", "pg_catalog", "!~~", "pg_catalog", "bpcharnlike", "i", ""},
	{"o", "pg_catalog", "!~~", "pg_catalog", "byteanlike", "i", ""},
	{"o", "pg_catalog", "!~~", "pg_catalog", "namenlike", "i", ""},
	{"o", "pg_catalog", "!~~", "pg_catalog", "nlikejoinsel", "s", ""},
	{"o", "pg_catalog", "!~~", "pg_catalog", "nlikesel", "s", ""},
	{"o", "pg_catalog", "!~~", "pg_catalog", "textnlike", "i", ""},
	{"o", "pg_catalog", "->>", "pg_catalog", "json_array_element_text", "i", ""},
	{"o", "pg_catalog", "->>", "pg_catalog", "json_object_field_text", "i", ""},
	{"o", "pg_catalog", "->>", "pg_catalog", "jsonb_array_element_text", "i", ""},
	{"o", "pg_catalog", "->>", "pg_catalog", "jsonb_object_field_text", "i", ""},
	{"o", "pg_catalog", "||", "pg_catalog", "anytextcat", "s", ""},
	{"o", "pg_catalog", "||", "pg_catalog", "array_append", "i", ""},
	{"o", "pg_catalog", "||", "pg_catalog", "array_cat", "i", ""},
	{"o", "pg_catalog", "||", "pg_catalog", "array_prepend", "i", ""},
	{"o", "pg_catalog", "||", "pg_catalog", "bitcat", "i", ""},
	{"o", "pg_catalog", "||", "pg_catalog", "byteacat", "i", ""},
	{"o", "pg_catalog", "||", "pg_catalog", "jsonb_concat", "i", ""},
	{"o", "pg_catalog", "||", "pg_catalog", "textanycat", "s", ""},
	{"o", "pg_catalog", "||", "pg_catalog", "textcat", "i", ""},
	{"o", "pg_catalog", "||", "pg_catalog", "tsquery_or", "i", ""},
	{"o", "pg_catalog", "||", "pg_catalog", "tsvector_concat", "i", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "bitnot", "i", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "bpcharregexeq", "i", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "inetnot", "i", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "int2not", "i", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "int4not", "i", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "int8not", "i", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "macaddr8_not", "i", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "macaddr_not", "i", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "nameregexeq", "i", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "regexeqjoinsel", "s", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "regexeqsel", "s", ""},
	{"o", "pg_catalog", "~", "pg_catalog", "textregexeq", "i", ""},
	{"t", "pg_catalog", "bool", "", "", "i", ""},
	{"t", "pg_catalog", "int8", "", "", "i", ""},
	{"t", "pg_catalog", "regclass", "", "", "i", ""},
}

// pgAllow is what the operator allows beyond the built-in and vetted
// functions: whole extensions, and functions by schema and name.
type pgAllow struct {
	extensions []string
	functions  []string // "schema.name"
}

// newPGCatalog builds the catalog from pgCatalogSQL's rows, marking what
// allow names as allowed.
func newPGCatalog(rows [][]any, allow *pgAllow) *pgCatalog {
	c := &pgCatalog{
		funcs: map[[2]string][]guard.PostgresFunction{}, ops: map[[2]string][]guard.PostgresFunction{},
		anyFuncs: map[string][]guard.PostgresFunction{}, anyOps: map[string][]guard.PostgresFunction{},
		types: map[[2]string]guard.PostgresType{}, extensions: map[string]bool{},
		tsConfigs: map[[2]string][]guard.PostgresFunction{}, tsDicts: map[[2]string][]guard.PostgresFunction{},
	}
	if allow == nil {
		allow = &pgAllow{}
	}
	bases := map[[2]string][2]string{}
	calls := map[[2]string][]guard.PostgresFunction{} // a type's, by schema and name
	implicit := map[[2]string][]guard.PostgresFunction{}
	checks := map[[2]string][]string{}     // a domain's CHECK constraints
	rels := map[[2]string][2]string{}      // a row type's relation
	relExts := map[[2]string]string{}      // the extension that made a row type's relation
	members := map[[2]string][][2]string{} // an array's element, a composite's fields, a range's subtype
	path := map[string]bool{}
	for _, r := range rows {
		if k, _ := r[0].(string); k == "p" {
			s, _ := r[2].(string)
			path[s] = true
		}
	}
	for _, r := range rows {
		s := make([]string, len(r))
		for i, v := range r {
			s[i], _ = v.(string)
		}
		kind, key := s[0], [2]string{s[1], s[2]}
		f := guard.PostgresFunction{Schema: s[3], Name: s[4], Volatility: firstByte(r[5]), Origin: s[6]}
		f.Named = slices.Contains(allow.functions, f.Schema+"."+f.Name)
		f.Allowed = f.Named || slices.Contains(allow.extensions, f.Origin)
		switch kind {
		case "f", "F", "N":
			f.Lookup = kind == "F" || kind == "N" && pgLooksUp(f.Name)
			c.funcs[key] = append(c.funcs[key], f)
			if path[key[0]] {
				c.anyFuncs[key[1]] = append(c.anyFuncs[key[1]], f)
			}
		case "o":
			c.ops[key] = append(c.ops[key], f)
			if path[key[0]] {
				c.anyOps[key[1]] = append(c.anyOps[key[1]], f)
			}
		case "t":
			c.types[key] = guard.PostgresType{Origin: f.Origin, Allowed: slices.Contains(allow.extensions, f.Origin)}
			if f.Name != "" {
				bases[key] = [2]string{f.Schema, f.Name}
			}
		case "T":
			calls[key] = append(calls[key], f)
		case "O":
			calls[key] = append(calls[key], f)
			implicit[key] = append(implicit[key], f)
		case "M":
			members[key] = append(members[key], [2]string{s[3], s[4]})
		case "K":
			checks[key] = append(checks[key], s[4])
		case "R":
			rels[key] = [2]string{s[3], s[4]}
			if f.Origin != "" {
				relExts[key] = f.Origin
			}
		case "I":
			if f.Allowed || f.Origin != guard.OriginUser && guard.VettedExtensions[f.Origin] != "" {
				break
			}
			c.unseen = implicitCast(s[1], s[2], f)
		case "e":
			c.extensions[key[1]] = true
		case "v":
			c.version, _ = strconv.Atoi(key[1])
		case "d":
			c.tsDefault = key[1]
		case "r":
			c.reserved = key[1] != "false"
		case "C":
			c.tsConfigs[key] = append(c.tsConfigs[key], f)
		case "D":
			c.tsDicts[key] = append(c.tsDicts[key], f)
		}
	}
	for key, t := range c.types {
		t.Calls, t.Implicit, t.Checks, t.Relation = calls[key], implicit[key], checks[key], rels[key]
		t.Extension = relExts[key]
		t.ExtensionAllowed = t.Extension != "" && slices.Contains(allow.extensions, t.Extension)
		c.types[key] = t
	}
	// Making a value of a type makes values of the types it is built on:
	// a domain's base types (their CHECKs run too), an array's element, a
	// composite's fields, a range's subtype. Fold them in, so the guard
	// judges one list.
	for key, b := range bases {
		members[key] = append(members[key], b)
	}
	folded := map[[2]string]guard.PostgresType{}
	for key, t := range c.types {
		seen := map[[2]string]bool{key: true}
		queue := slices.Clone(members[key])
		for len(queue) > 0 {
			m := queue[0]
			queue = queue[1:]
			if seen[m] {
				continue
			}
			seen[m] = true
			queue = append(queue, members[m]...)
			mt := c.types[m]
			t.Calls = append(slices.Clip(t.Calls), mt.Calls...)
			t.Implicit = append(slices.Clip(t.Implicit), mt.Implicit...)
			t.Checks = append(slices.Clip(t.Checks), mt.Checks...)
			if !worse(t, guard.PostgresType{Origin: "-"}) && worse(mt, guard.PostgresType{Origin: "-"}) {
				t.Origin, t.Allowed = mt.Origin, mt.Allowed
			}
		}
		folded[key] = t
	}
	c.types = folded
	// A type named without a schema may be any of the types of that name:
	// the guard judges them as one, everything any of them calls.
	c.anyTypes = map[string]guard.PostgresType{}
	for key, t := range c.types {
		if !path[key[0]] {
			continue
		}
		at, ok := c.anyTypes[key[1]]
		if !ok {
			c.anyTypes[key[1]] = t
			continue
		}
		at.Calls = append(slices.Clip(at.Calls), t.Calls...)
		at.Implicit = append(slices.Clip(at.Implicit), t.Implicit...)
		at.Checks = append(slices.Clip(at.Checks), t.Checks...)
		if at.Relation[1] == "" {
			at.Relation = t.Relation
		}
		if t.Extension != "" && !t.ExtensionAllowed {
			at.Extension, at.ExtensionAllowed = t.Extension, false
		}
		if worse(t, at) {
			at.Origin, at.Allowed = t.Origin, t.Allowed
		}
		c.anyTypes[key[1]] = at
	}
	return c
}

// implicitCast is the refusal of every statement while the database
// casts from to to, both built-in types, implicitly (or on assignment)
// through f: PostgreSQL inserts such a cast wherever a call's or an
// operator's argument types fit better with it (isfinite(5) runs an
// implicit int4 to date cast), which the text cannot show, so no
// statement can be judged.
func implicitCast(from, to string, f guard.PostgresFunction) *guard.Error {
	how := "defined in this database"
	if f.Origin != guard.OriginUser {
		how = "from the extension " + f.Origin + ", which this server does not allow"
	}
	return &guard.Error{
		Reason: fmt.Sprintf("this database casts %s to %s implicitly through %s.%s(), %s: PostgreSQL may insert that cast into any query, where the text cannot show it, so no query is run",
			from, to, f.Schema, f.Name, how),
		Hint: fmt.Sprintf("An operator can make the cast explicit (ALTER the cast, or DROP and CREATE it without AS IMPLICIT / AS ASSIGNMENT), or allow the function with --allow-function %s.%s", f.Schema, f.Name),
	}
}

// worse reports whether a's origin is judged more strictly than b's: an
// extension not allowed over anything else.
func worse(a, b guard.PostgresType) bool {
	ext := func(t guard.PostgresType) bool {
		return t.Origin != "" && t.Origin != guard.OriginUser && !t.Allowed
	}
	return ext(a) && !ext(b)
}

// Functions returns the functions schema.name can reach; schema "" means
// any schema of the search path.
func (c *pgCatalog) Functions(schema, name string) []guard.PostgresFunction {
	if schema == "" {
		return c.anyFuncs[name]
	}
	return c.funcs[[2]string{schema, name}]
}

// Operators returns the functions behind operator schema.name; schema ""
// means any schema of the search path.
func (c *pgCatalog) Operators(schema, name string) []guard.PostgresFunction {
	if schema == "" {
		return c.anyOps[name]
	}
	return c.ops[[2]string{schema, name}]
}

var (
	_ guard.PostgresOperatorMemo = (*pgCatalog)(nil)
	_ guard.PostgresOperatorMemo = (*recordMisses)(nil)
)

// OperatorAllowed and AllowOperator are the guard's memo of the
// operators it allowed (guard.PostgresOperatorMemo).
func (c *pgCatalog) OperatorAllowed(schema, name string) bool {
	_, ok := c.allowedOps.Load([2]string{schema, name})
	return ok
}

func (c *pgCatalog) AllowOperator(schema, name string) {
	c.allowedOps.Store([2]string{schema, name}, struct{}{})
}

// Type returns what making a value of schema.name can call.
func (c *pgCatalog) Type(schema, name string) (guard.PostgresType, bool) {
	if schema == "" {
		t, ok := c.anyTypes[name]
		return t, ok
	}
	t, ok := c.types[[2]string{schema, name}]
	return t, ok
}

// ReadsReservedSettings says whether the role may read the settings
// PostgreSQL reserves for superusers (guard.PostgresSettings).
func (c *pgCatalog) ReadsReservedSettings() bool { return c.reserved }

// ServerVersion is the server's server_version_num.
func (c *pgCatalog) ServerVersion() int { return c.version }

// TextSearch answers guard.PostgresTextSearch from pg_ts_config.
func (c *pgCatalog) TextSearch(schema, name string) []guard.PostgresFunction {
	if schema == "" && name == "" {
		schema, name, _ = strings.Cut(c.tsDefault, ".")
	}
	return tsLookup(c.tsConfigs, schema, name)
}

// TextSearchDictionary answers guard.PostgresTextSearch from pg_ts_dict.
func (c *pgCatalog) TextSearchDictionary(schema, name string) []guard.PostgresFunction {
	return tsLookup(c.tsDicts, schema, name)
}

// tsLookup is the functions of the configurations or dictionaries in m
// named schema.name (schema "": in any schema; name "*": every one).
func tsLookup(m map[[2]string][]guard.PostgresFunction, schema, name string) []guard.PostgresFunction {
	var out []guard.PostgresFunction
	for key, fns := range m {
		if name == "*" || strings.EqualFold(key[1], name) && (schema == "" || key[0] == schema) {
			out = append(out, fns...)
		}
	}
	return out
}

// pgCatalogSQL reads, for the guard, every function (its volatility and
// origin: ” built in, an extension's name, '-' the database's own; kind
// 'F' rather than 'f' for one that looks catalog objects up), the
// functions behind every operator (its own and its selectivity
// estimators), every type with its base type, and what making a value of a
// type may call that is not built in: input functions, domain CHECK
// constraints (every function they use, built in or not, directly or
// through an operator; built-in ones are not in pg_depend, so the CHECK's
// own text too, for the guard to read), range support functions, the
// support functions and operators of a type's default btree and hash
// operator classes, and its implicit casts and casts to json, that are not
// built in (ORDER BY, GROUP BY, DISTINCT, joins and to_json run them
// unasked: kind 'O', also the type's Implicit), and the functions of
// casts that involve a type or function not built in, kept with the cast's
// target, or with its source when only the source is not built in (a cast
// from a user's type to int must not make every int suspect). Then the installed
// extensions, the schemas of the search path (a name without a schema
// can reach only those: search_path cannot change, since SET and
// set_config are refused) and the server's version. Objects made by initdb have OIDs
// below 16384 (FirstNormalObjectId); an extension's are recorded in
// pg_depend with deptype 'e'. The statement names catalogs by their fixed
// OIDs (pg_proc 1255, pg_type 1247, pg_constraint 2606, pg_operator 2617)
// and uses only functions the bootstrap catalog knows.
const pgCatalogSQL = `WITH r AS (
	SELECT p.oid, n.nspname, p.proname, p.provolatile,
		CASE WHEN x.extname IS NOT NULL THEN x.extname WHEN p.oid < 16384 THEN ''
			WHEN p.prolang = 12 AND p.prosrc IN (` + pgRangeConstructors + `) AND NOT EXISTS (
				SELECT FROM pg_catalog.pg_range g
				WHERE p.prorettype IN (g.rngtypid, g.rngmultitypid)
					AND (g.rngcanonical::oid >= 16384 OR g.rngsubdiff::oid >= 16384)) THEN ''
			ELSE '-' END AS origin,
		CASE WHEN p.prorettype IN (` + pgLookupTypes + `)
				OR p.proargtypes::oid[] && '{` + pgLookupTypes + `}'::oid[]
				OR p.proargtypes::oid[] && '{2275}'::oid[] AND p.proargtypes::oid[] && '{26}'::oid[] THEN 'F'
			WHEN p.proargtypes::oid[] && '{26, 19}'::oid[] THEN 'N'
			ELSE 'f' END AS kind
	FROM pg_catalog.pg_proc p
	JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
	LEFT JOIN pg_catalog.pg_depend d ON d.classid = 1255 AND d.objid = p.oid AND d.deptype = 'e'
	LEFT JOIN pg_catalog.pg_extension x ON x.oid = d.refobjid
), t AS (
	SELECT ty.oid, n.nspname, ty.typname, ty.typbasetype, ty.typinput, ty.typreceive, ty.typelem, ty.typrelid,
		CASE WHEN x.extname IS NOT NULL THEN x.extname WHEN ty.oid < 16384 THEN '' ELSE '-' END AS origin
	FROM pg_catalog.pg_type ty
	JOIN pg_catalog.pg_namespace n ON n.oid = ty.typnamespace
	LEFT JOIN pg_catalog.pg_depend d ON d.classid = 1247 AND d.objid = ty.oid AND d.deptype = 'e'
	LEFT JOIN pg_catalog.pg_extension x ON x.oid = d.refobjid
), dt AS (
	SELECT d.oid, dn.nspname AS dictschema, d.dictname, r.nspname, r.proname, r.provolatile, r.origin
	FROM pg_catalog.pg_ts_dict d
	JOIN pg_catalog.pg_namespace dn ON dn.oid = d.dictnamespace
	JOIN pg_catalog.pg_ts_template tm ON tm.oid = d.dicttemplate
	CROSS JOIN LATERAL (VALUES (tm.tmplinit), (tm.tmpllexize)) AS f (oid)
	JOIN r ON r.oid = f.oid
	WHERE r.origin <> ''
)
SELECT kind, nspname, proname, nspname, proname, provolatile, origin FROM r
UNION ALL
SELECT 'o', n.nspname, o.oprname, r.nspname, r.proname, r.provolatile, r.origin
FROM pg_catalog.pg_operator o
JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace
CROSS JOIN LATERAL (VALUES (o.oprcode), (o.oprrest), (o.oprjoin)) AS f (oid)
JOIN r ON r.oid = f.oid
UNION ALL
SELECT 't', t.nspname, t.typname, coalesce(b.nspname, ''), coalesce(b.typname, ''), 'i', t.origin
FROM t LEFT JOIN t AS b ON b.oid = t.typbasetype
UNION ALL
SELECT 'T', t.nspname, t.typname, r.nspname, r.proname, r.provolatile, r.origin
FROM t
CROSS JOIN LATERAL (VALUES (t.typinput), (t.typreceive)) AS f (oid)
JOIN r ON r.oid = f.oid
WHERE r.origin <> ''
UNION ALL
SELECT 'T', t.nspname, t.typname, r.nspname, r.proname, r.provolatile, r.origin
FROM pg_catalog.pg_constraint c
JOIN t ON t.oid = c.contypid
JOIN pg_catalog.pg_depend d ON d.classid = 2606 AND d.objid = c.oid
LEFT JOIN pg_catalog.pg_operator o ON d.refclassid = 2617 AND o.oid = d.refobjid
JOIN r ON r.oid = CASE WHEN d.refclassid = 1255 THEN d.refobjid ELSE o.oprcode END
UNION ALL
SELECT 'M', t.nspname, t.typname, m.nspname, m.typname, 'i', ''
FROM t JOIN t AS m ON m.oid = t.typelem
WHERE t.typelem >= 16384
UNION ALL
SELECT 'M', t.nspname, t.typname, m.nspname, m.typname, 'i', ''
FROM pg_catalog.pg_attribute a
JOIN t ON t.typrelid = a.attrelid
JOIN t AS m ON m.oid = a.atttypid
WHERE a.atttypid >= 16384 AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'M', t.nspname, t.typname, m.nspname, m.typname, 'i', ''
FROM pg_catalog.pg_range g JOIN t ON t.oid = g.rngtypid JOIN t AS m ON m.oid = g.rngsubtype
WHERE g.rngsubtype >= 16384
UNION ALL
SELECT 'K', t.nspname, t.typname, '', pg_get_constraintdef(c.oid), 'i', ''
FROM pg_catalog.pg_constraint c JOIN t ON t.oid = c.contypid
WHERE c.contype = 'c'
UNION ALL
SELECT 'T', t.nspname, t.typname, r.nspname, r.proname, r.provolatile, r.origin
FROM pg_catalog.pg_range g
JOIN t ON t.oid = g.rngtypid
CROSS JOIN LATERAL (VALUES (g.rngcanonical), (g.rngsubdiff)) AS f (oid)
JOIN r ON r.oid = f.oid
UNION ALL
SELECT 'T', t.nspname, t.typname, r.nspname, r.proname, r.provolatile, r.origin
FROM pg_catalog.pg_cast c
JOIN r ON r.oid = c.castfunc
CROSS JOIN LATERAL (SELECT c.casttarget WHERE c.casttarget >= 16384 OR c.castsource < 16384
	UNION ALL SELECT c.castsource WHERE c.castsource >= 16384) AS e (oid)
JOIN t ON t.oid = e.oid
WHERE r.origin <> '' OR c.castsource >= 16384 OR c.casttarget >= 16384
UNION ALL
SELECT 'O', t.nspname, t.typname, r.nspname, r.proname, r.provolatile, r.origin
FROM pg_catalog.pg_opclass oc
JOIN pg_catalog.pg_am am ON am.oid = oc.opcmethod
JOIN t ON t.oid = oc.opcintype
CROSS JOIN LATERAL (SELECT ap.amproc FROM pg_catalog.pg_amproc ap WHERE ap.amprocfamily = oc.opcfamily
	UNION ALL SELECT o.oprcode FROM pg_catalog.pg_amop ao JOIN pg_catalog.pg_operator o ON o.oid = ao.amopopr
	WHERE ao.amopfamily = oc.opcfamily) AS f (oid)
JOIN r ON r.oid = f.oid
WHERE oc.opcdefault AND am.amname IN ('btree', 'hash') AND r.origin <> ''
UNION ALL
SELECT 'O', t.nspname, t.typname, r.nspname, r.proname, r.provolatile, r.origin
FROM pg_catalog.pg_cast c
JOIN r ON r.oid = c.castfunc
JOIN t ON t.oid = c.castsource
WHERE c.castsource >= 16384 AND (c.castcontext IN ('i', 'a') OR c.casttarget IN (114, 3802)) AND r.origin <> ''
UNION ALL
SELECT 'I', s.typname, d.typname, r.nspname, r.proname, r.provolatile, r.origin
FROM pg_catalog.pg_cast c
JOIN r ON r.oid = c.castfunc
JOIN t AS s ON s.oid = c.castsource
JOIN t AS d ON d.oid = c.casttarget
WHERE c.castcontext IN ('i', 'a') AND c.castsource < 16384 AND c.casttarget < 16384 AND r.origin <> ''
UNION ALL
SELECT 'R', t.nspname, t.typname, rn.nspname, rc.relname, 'i', coalesce(rx.extname, '')
FROM t LEFT JOIN t AS e ON e.oid = t.typelem
JOIN pg_catalog.pg_class rc ON rc.oid = CASE WHEN t.typrelid <> 0 THEN t.typrelid ELSE e.typrelid END
JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
LEFT JOIN pg_catalog.pg_depend rd ON rd.classid = 1259 AND rd.objid = rc.oid AND rd.deptype = 'e'
LEFT JOIN pg_catalog.pg_extension rx ON rx.oid = rd.refobjid
WHERE rc.relkind <> 'c'
UNION ALL
SELECT 'e', '', extname, '', '', 'i', '' FROM pg_catalog.pg_extension
UNION ALL
SELECT 'p', '', s, '', '', 'i', '' FROM unnest(current_schemas(true)) AS s
UNION ALL
SELECT 'v', '', setting, '', '', 'i', '' FROM pg_catalog.pg_settings WHERE name = 'server_version_num'
UNION ALL
SELECT 'd', '', setting, '', '', 'i', '' FROM pg_catalog.pg_settings WHERE name = 'default_text_search_config'
UNION ALL
SELECT 'r', '', pg_catalog.pg_has_role('pg_read_all_settings', 'USAGE')::text, '', '', 'i', ''
UNION ALL
SELECT 'C', cn.nspname, c.cfgname, r.nspname, r.proname, r.provolatile, r.origin
FROM pg_catalog.pg_ts_config c
JOIN pg_catalog.pg_namespace cn ON cn.oid = c.cfgnamespace
JOIN pg_catalog.pg_ts_parser p ON p.oid = c.cfgparser
CROSS JOIN LATERAL (VALUES (p.prsstart), (p.prstoken), (p.prsend), (p.prsheadline), (p.prslextype)) AS f (oid)
JOIN r ON r.oid = f.oid
WHERE r.origin <> ''
UNION ALL
SELECT 'C', cn.nspname, c.cfgname, dt.nspname, dt.proname, dt.provolatile, dt.origin
FROM pg_catalog.pg_ts_config c
JOIN pg_catalog.pg_namespace cn ON cn.oid = c.cfgnamespace
JOIN pg_catalog.pg_ts_config_map m ON m.mapcfg = c.oid
JOIN dt ON dt.oid = m.mapdict
UNION ALL
SELECT 'D', dictschema, dictname, nspname, proname, provolatile, origin FROM dt`

// pgRangeConstructors are the built-in C functions (LANGUAGE internal, 12)
// behind the constructors CREATE TYPE ... AS RANGE makes for a range type
// and its multirange: code the server ships, under the type's name. It
// counts as built in unless the range's canonical function or its
// subtype_diff is the database's: a constructor runs the first, and the
// planner runs the second to estimate an operator on the constant a
// constructor of constants makes (fr && floatrange(1, 2)).
const pgRangeConstructors = `'range_constructor2', 'range_constructor3', 'multirange_constructor0', 'multirange_constructor1', 'multirange_constructor2'`

// pgLookupTypes are the OIDs of the reg* types (regproc, regprocedure,
// regoper, regoperator, regclass, regtype, regconfig, regdictionary,
// regnamespace, regrole, regcollation), whose values name catalog objects:
// a function taking or returning one is kind 'F' in pgCatalogSQL, and one
// taking an oid (26) or a name (19) kind 'N'; both can be marked Lookup
// (see guard.PostgresFunction). So is a type's input function that takes
// the type by its OID beside the text (cstring, 2275): enum_in,
// record_in, domain_in, array_in, range_in name the type they are given,
// or count its columns, in their errors.
const pgLookupTypes = `24, 2202, 2203, 2204, 2205, 2206, 3734, 3769, 4089, 4096, 4191`

// pgLooksUp reports whether a function taking an oid or a name (kind 'N')
// looks a catalog object up by it, by the names of the families that do:
// pg_* (pg_get_viewdef, pg_table_is_visible, pg_stat_get_*), has_*
// (has_table_privilege), *_description (obj_description), and the few
// others. The rest take an oid or a name as data: max(oid), oideq,
// length(bytea, name) and convert_to(text, name) with an encoding's name,
// the casts text(name) and int8(oid).
func pgLooksUp(name string) bool {
	switch {
	case strings.HasPrefix(name, "pg_"), strings.HasPrefix(name, "_pg_"), strings.HasPrefix(name, "has_"),
		strings.HasSuffix(name, "_description"):
		return true
	}
	switch name {
	case "format_type", "row_security_active", "satisfies_hash_partition", "amvalidate", "acldefault", "makeaclitem":
		return true
	}
	return false
}

// pgStampSQL tells whether what pgCatalogSQL reads may have changed: for
// each catalog it reads, the number of rows and the sum of their xmin,
// which CREATE, CREATE OR REPLACE, ALTER and DROP all change. Relations'
// row types are left out of pg_type, so that other sessions' temporary
// tables do not count (a relation's row type the catalog lacks reloads it
// anyway, as any name it lacks does); their columns of types not built
// in count. So does whether the role may read the settings PostgreSQL
// reserves for superusers (guard.PostgresSettings), which a GRANT of
// pg_read_all_settings changes. About 1.5 ms on a fresh database, so it
// runs at most once
// every pgStampEvery (freshen), not per call.
const pgStampSQL = `SELECT
	(SELECT count(*) FROM pg_catalog.pg_proc), (SELECT sum(xmin::text::int8) FROM pg_catalog.pg_proc),
	(SELECT count(*) FROM pg_catalog.pg_operator), (SELECT sum(xmin::text::int8) FROM pg_catalog.pg_operator),
	(SELECT count(*) FROM pg_catalog.pg_cast), (SELECT sum(xmin::text::int8) FROM pg_catalog.pg_cast),
	(SELECT count(*) FROM pg_catalog.pg_extension), (SELECT sum(xmin::text::int8) FROM pg_catalog.pg_extension),
	(SELECT count(*) FROM pg_catalog.pg_range), (SELECT sum(xmin::text::int8) FROM pg_catalog.pg_range),
	(SELECT count(*) FROM pg_catalog.pg_namespace), (SELECT sum(xmin::text::int8) FROM pg_catalog.pg_namespace),
	(SELECT count(*) FROM pg_catalog.pg_constraint WHERE contypid <> 0),
	(SELECT sum(xmin::text::int8) FROM pg_catalog.pg_constraint WHERE contypid <> 0),
	(SELECT count(*) FROM pg_catalog.pg_type t WHERE t.typrelid = 0
		AND NOT EXISTS (SELECT FROM pg_catalog.pg_type e WHERE e.oid = t.typelem AND e.typrelid <> 0)),
	(SELECT sum(t.xmin::text::int8) FROM pg_catalog.pg_type t WHERE t.typrelid = 0
		AND NOT EXISTS (SELECT FROM pg_catalog.pg_type e WHERE e.oid = t.typelem AND e.typrelid <> 0)),
	(SELECT count(*) FROM pg_catalog.pg_attribute WHERE atttypid >= 16384 AND attnum > 0),
	(SELECT sum(xmin::text::int8) FROM pg_catalog.pg_attribute WHERE atttypid >= 16384 AND attnum > 0),
	pg_catalog.pg_has_role('pg_read_all_settings', 'USAGE')`

// pgStampEvery is how often, at most, a statement's check asks whether
// the function catalog changed (freshen): a function, operator, cast, type
// or domain made after the catalog was read is judged by what it is from
// then on, within about this long.
const pgStampEvery = time.Second

// catalogStamp reads pgStampSQL on c, which stays the caller's.
func (p *backend) catalogStamp(ctx context.Context, c *pgxpool.Conn) (string, error) {
	rows, err := p.ownRowsKeep(ctx, c, pgStampSQL, bootstrapCatalog)
	if err != nil || len(rows) != 1 {
		return "", fmt.Errorf("reading whether the function catalog changed: %v rows, %w", len(rows), err)
	}
	return fmt.Sprint(rows[0]...), nil
}

// freshen reads the function catalog afresh, on c (which stays the
// caller's), when the server's changed since it was read: checked at most
// once every pgStampEvery, by the call that finds the last check that
// old, before its statement is judged; the calls meanwhile go on with the
// catalog in place. Until the catalog is first read there is nothing to
// freshen; a check or read that fails leaves the catalog in place.
func (p *backend) freshen(ctx context.Context, c *pgxpool.Conn) {
	if p.loaded != nil {
		select {
		case <-p.loaded:
		default:
			return
		}
	}
	cat := p.cat.Load()
	now := time.Now().UnixNano()
	last := p.stampedAt.Load()
	if cat == nil || now-last < int64(pgStampEvery) || !p.stampedAt.CompareAndSwap(last, now) {
		return
	}
	if stamp, err := p.catalogStamp(ctx, c); err != nil || stamp == cat.stamp {
		return
	}
	p.reloadMu.Lock()
	defer p.reloadMu.Unlock()
	if p.cat.Load() == cat { // nobody reloaded it meanwhile
		p.loadCatalogKeep(ctx, c)
	}
}

// loadCatalog reads the catalog afresh, judged by the bootstrap catalog,
// and puts it in place.
func (p *backend) loadCatalog(ctx context.Context) error {
	c, err := p.acquire(ctx)
	if err != nil {
		return fmt.Errorf("reading the function catalog: %w", err)
	}
	return p.loadCatalogOn(ctx, c)
}

// loadCatalogOn is loadCatalog on the connection c, which it releases.
// The stamp is read first: a change between the two reads makes the
// next freshen read the catalog again.
func (p *backend) loadCatalogOn(ctx context.Context, c *pgxpool.Conn) error {
	defer c.Release()
	return p.loadCatalogKeep(ctx, c)
}

// loadCatalogKeep is loadCatalogOn without the release: c stays the
// caller's.
func (p *backend) loadCatalogKeep(ctx context.Context, c *pgxpool.Conn) error {
	stamp, err := p.catalogStamp(ctx, c)
	if err != nil {
		return fmt.Errorf("reading the function catalog: %w", err)
	}
	rows, err := p.ownRowsKeep(ctx, c, pgCatalogSQL, bootstrapCatalog)
	if err != nil {
		return fmt.Errorf("reading the function catalog: %w", err)
	}
	cat := newPGCatalog(rows, &p.allow)
	cat.stamp = stamp
	p.cat.Store(cat)
	p.stampedAt.Store(time.Now().UnixNano())
	return nil
}

// checkAllow refuses, at start, what the operator allowed but cannot be:
// an extension that is not installed, a function that does not exist or
// is not written schema.name, and a function that runs SQL text or
// reaches outside the session, which nothing can allow.
func (c *pgCatalog) checkAllow(allow *pgAllow) error {
	for _, x := range allow.extensions {
		if !c.extensions[x] {
			return fmt.Errorf("--allow-extension %s: no such extension is installed in this database", x)
		}
	}
	for _, f := range allow.functions {
		schema, name, ok := strings.Cut(f, ".")
		if !ok || schema == "" || name == "" {
			return fmt.Errorf("--allow-function %s: name the function as schema.name", f)
		}
		if hint, never := guard.NeverAllowed(name); never {
			return fmt.Errorf("--allow-function %s: this function can never be allowed (%s)", f, hint)
		}
		if len(c.funcs[[2]string{schema, name}]) == 0 {
			return fmt.Errorf("--allow-function %s: no such function in this database", f)
		}
	}
	return nil
}

// recordMisses notes whether the guard asked about a name the catalog
// does not hold.
type recordMisses struct {
	guard.PostgresCatalog
	missed bool
}

func (r *recordMisses) Functions(schema, name string) []guard.PostgresFunction {
	fns := r.PostgresCatalog.Functions(schema, name)
	r.missed = r.missed || len(fns) == 0
	return fns
}

func (r *recordMisses) Operators(schema, name string) []guard.PostgresFunction {
	fns := r.PostgresCatalog.Operators(schema, name)
	r.missed = r.missed || len(fns) == 0
	return fns
}

// ReadsReservedSettings passes the catalog's answer through; one that
// does not say is taken to have a role that may read them.
func (r *recordMisses) ReadsReservedSettings() bool {
	s, ok := r.PostgresCatalog.(guard.PostgresSettings)
	return !ok || s.ReadsReservedSettings()
}

// TextSearch and TextSearchDictionary pass the catalog's text search
// configurations and dictionaries through.
func (r *recordMisses) TextSearch(schema, name string) []guard.PostgresFunction {
	if ts, ok := r.PostgresCatalog.(guard.PostgresTextSearch); ok {
		return ts.TextSearch(schema, name)
	}
	return nil
}

func (r *recordMisses) TextSearchDictionary(schema, name string) []guard.PostgresFunction {
	if ts, ok := r.PostgresCatalog.(guard.PostgresTextSearch); ok {
		return ts.TextSearchDictionary(schema, name)
	}
	return nil
}

// OperatorAllowed and AllowOperator pass the guard's memo through to
// the catalog: an operator noted as allowed has functions, so no miss
// goes unrecorded.
func (r *recordMisses) OperatorAllowed(schema, name string) bool {
	m, ok := r.PostgresCatalog.(guard.PostgresOperatorMemo)
	return ok && m.OperatorAllowed(schema, name)
}

func (r *recordMisses) AllowOperator(schema, name string) {
	if m, ok := r.PostgresCatalog.(guard.PostgresOperatorMemo); ok {
		m.AllowOperator(schema, name)
	}
}

func (r *recordMisses) Type(schema, name string) (guard.PostgresType, bool) {
	t, ok := r.PostgresCatalog.Type(schema, name)
	r.missed = r.missed || !ok
	return t, ok
}

// RowType is Type for the row type of a relation a query reads, which is
// not a miss when absent: the name may be a WITH query's.
func (r *recordMisses) RowType(schema, name string) (guard.PostgresType, bool) {
	return r.PostgresCatalog.Type(schema, name)
}
