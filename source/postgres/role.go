package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlmcp/sqlmcp/source"
)

// pgServerVersionSQL reads server_version_num, for pgWriteAccessSQL.
const pgServerVersionSQL = "SELECT pg_catalog.current_setting('server_version_num')"

// pgWriteAccessVersions are a server version (server_version_num) for
// each text pgWriteAccessSQL gives: before 15, 15, 16, and 17 on.
var pgWriteAccessVersions = []int{140000, 150000, 160000, 170000}

// pgWriteAccessSQL returns the catalog query behind WriteAccess for a
// server of version (server_version_num). It lists, one row each, what the
// current role could change beyond reading, and what each role it may SET
// ROLE to could: attributes; memberships of the predefined roles that
// write, reach files or programs, or stop other sessions; privileges on
// or ownership of tables, sequences, schemas and the database; ownership
// of anything else (functions, large objects, types, servers, other
// databases...); UPDATE on large objects, and lo_compat_privileges, which
// lets every role write them; SECURITY DEFINER functions it may call,
// which run with their owners' rights; USAGE on foreign servers and
// foreign-data wrappers; ALTER SYSTEM on settings (15 and later) and
// MAINTAIN on tables (17 and later). Each row is the role it comes through
// (empty for the current role, first), whether the current role inherits
// that role's privileges, a kind and a detail; the kinds are worded by
// WriteAccess.
func pgWriteAccessSQL(version int) string {
	// Before 16, membership alone lets a role SET ROLE; from 16 a grant
	// may withhold it, and pg_has_role knows SET.
	set := "MEMBER"
	if version >= 160000 {
		set = "SET"
	}
	maintain := "false"
	if version >= 170000 {
		maintain = "c.relkind <> 'S' AND pg_catalog.has_table_privilege(w.oid, c.oid, 'MAINTAIN')"
	}
	parameters := ""
	if version >= 150000 {
		parameters = `
	UNION ALL
	SELECT 12, 'parameter', a.parname
	FROM pg_catalog.pg_parameter_acl a
	WHERE pg_catalog.has_parameter_privilege(w.oid, a.parname, 'ALTER SYSTEM')`
	}
	return `WITH me AS (
	SELECT r.oid, r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user
),
-- The current role, and each role it may become with SET ROLE: what that
-- role may do, this one may too, inherited or not. A superuser may become
-- any role and is reported as a superuser; the predefined roles are
-- reported by name.
who AS (
	SELECT me.oid, '' AS via, true AS inherited FROM me
	UNION ALL
	SELECT r.oid, r.rolname, pg_catalog.pg_has_role(me.oid, r.oid, 'USAGE')
	FROM me CROSS JOIN pg_catalog.pg_roles r
	WHERE NOT me.rolsuper AND r.oid <> me.oid AND r.rolname NOT LIKE 'pg\_%'
		AND pg_catalog.pg_has_role(me.oid, r.oid, '` + set + `')
)
SELECT w.via, w.inherited, f.kind, f.detail
FROM who w CROSS JOIN LATERAL (
	SELECT 1, 'attribute', a.attr
	FROM pg_catalog.pg_roles r
		CROSS JOIN LATERAL (VALUES
			('SUPERUSER', r.rolsuper), ('CREATEROLE', r.rolcreaterole), ('CREATEDB', r.rolcreatedb),
			('REPLICATION', r.rolreplication), ('BYPASSRLS', r.rolbypassrls)) AS a(attr, granted)
	WHERE r.oid = w.oid AND a.granted
	UNION ALL
	SELECT 2, 'member', m.rolname
	FROM pg_catalog.pg_roles m
	WHERE w.via = '' AND m.rolname IN ('pg_write_server_files', 'pg_execute_server_program', 'pg_read_server_files',
			'pg_signal_backend', 'pg_signal_autovacuum_worker', 'pg_write_all_data', 'pg_checkpoint',
			'pg_create_subscription', 'pg_maintain')
		AND pg_catalog.pg_has_role(w.oid, m.oid, 'MEMBER')
	UNION ALL
	SELECT 3, CASE WHEN c.relkind = 'S' THEN 'sequence' WHEN p.is_owner THEN 'owner' WHEN p.can_write THEN 'table' ELSE 'maintain' END,
		pg_catalog.format('%I.%I', n.nspname, c.relname)
	FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		CROSS JOIN LATERAL (SELECT pg_catalog.pg_has_role(w.oid, c.relowner, 'USAGE'),
			CASE WHEN c.relkind = 'S' THEN pg_catalog.has_sequence_privilege(w.oid, c.oid, 'USAGE, UPDATE')
				ELSE pg_catalog.has_table_privilege(w.oid, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, TRIGGER')
					OR pg_catalog.has_any_column_privilege(w.oid, c.oid, 'INSERT, UPDATE') END,
			` + maintain + `) AS p(is_owner, can_write, can_maintain)
	WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
		AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
		AND (p.is_owner OR p.can_write OR p.can_maintain)
	UNION ALL
	SELECT 4, 'schema', n.nspname
	FROM pg_catalog.pg_namespace n
	WHERE n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp\_%'
		AND (pg_catalog.has_schema_privilege(w.oid, n.oid, 'CREATE') OR pg_catalog.pg_has_role(w.oid, n.nspowner, 'USAGE'))
	UNION ALL
	SELECT 5, 'database', p.priv
	FROM pg_catalog.pg_database d
		CROSS JOIN LATERAL (VALUES
			('CREATE', pg_catalog.has_database_privilege(w.oid, d.oid, 'CREATE')),
			('owner', pg_catalog.pg_has_role(w.oid, d.datdba, 'USAGE')),
			-- TEMP counts only when it is not everyone's: PUBLIC holds it on every
			-- database by default, and the read-only transaction refuses it anyway.
			('TEMP', pg_catalog.has_database_privilege(w.oid, d.oid, 'TEMP') AND d.datacl IS NOT NULL
				AND NOT EXISTS (SELECT FROM pg_catalog.aclexplode(d.datacl) x
					WHERE x.grantee = 0 AND x.privilege_type = 'TEMPORARY'))) AS p(priv, granted)
	WHERE d.datname = current_database() AND p.granted
	UNION ALL
	-- Everything else it owns, from the owner dependencies, which every
	-- object has except the bootstrap superuser's: an owner may redefine,
	-- drop (with CASCADE, whatever depends on it) or write to it.
	-- Relations, schemas and this database are reported above.
	SELECT 6, CASE WHEN p.oid IS NOT NULL THEN 'function'
			WHEN s.classid = 'pg_catalog.pg_largeobject'::pg_catalog.regclass THEN 'large object' ELSE 'object' END,
		CASE WHEN p.oid IS NOT NULL THEN pg_catalog.format('%I.%I(%s)', pn.nspname, p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid))
			WHEN s.classid = 'pg_catalog.pg_largeobject'::pg_catalog.regclass THEN s.objid::text
			ELSE o.type || ' ' || o.identity END
	FROM pg_catalog.pg_shdepend s
		CROSS JOIN LATERAL pg_catalog.pg_identify_object(s.classid, s.objid, s.objsubid) AS o
		LEFT JOIN pg_catalog.pg_proc p ON s.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND p.oid = s.objid
		LEFT JOIN pg_catalog.pg_namespace pn ON pn.oid = p.pronamespace
	WHERE s.deptype = 'o' AND pg_catalog.pg_has_role(w.oid, s.refobjid, 'USAGE')
		AND s.classid NOT IN ('pg_catalog.pg_class'::pg_catalog.regclass, 'pg_catalog.pg_namespace'::pg_catalog.regclass)
		AND (s.dbid = 0 OR s.dbid = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = current_database()))
		AND NOT (s.classid = 'pg_catalog.pg_database'::pg_catalog.regclass
			AND s.objid = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = current_database()))
	UNION ALL
	-- lo_put and lo_unlink need UPDATE on a large object, or ownership.
	SELECT 7, 'large object update', l.oid::text
	FROM pg_catalog.pg_largeobject_metadata l
	WHERE NOT pg_catalog.pg_has_role(w.oid, l.lomowner, 'USAGE')
		AND EXISTS (SELECT FROM pg_catalog.aclexplode(l.lomacl) x
			WHERE x.privilege_type = 'UPDATE' AND (x.grantee = 0 OR pg_catalog.pg_has_role(w.oid, x.grantee, 'USAGE')))
	UNION ALL
	SELECT 8, 'setting', 'lo_compat_privileges'
	WHERE w.via = '' AND pg_catalog.current_setting('lo_compat_privileges')::boolean
		AND EXISTS (SELECT FROM pg_catalog.pg_largeobject_metadata)
	UNION ALL
	-- A SECURITY DEFINER function runs with its owner's rights, whatever
	-- they are: whether it writes is in its body, so each one counts.
	SELECT 9, 'definer', pg_catalog.format('%I.%I(%s)', n.nspname, p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid))
	FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
	WHERE p.prosecdef AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
		AND NOT pg_catalog.pg_has_role(w.oid, p.proowner, 'USAGE')
		AND pg_catalog.has_schema_privilege(w.oid, n.oid, 'USAGE')
		AND pg_catalog.has_function_privilege(w.oid, p.oid, 'EXECUTE')
	UNION ALL
	-- USAGE on a server lets a role map itself to it, and make foreign
	-- tables where it may create; on a wrapper, make servers.
	SELECT 10, 'server', s.srvname
	FROM pg_catalog.pg_foreign_server s
	WHERE NOT pg_catalog.pg_has_role(w.oid, s.srvowner, 'USAGE')
		AND pg_catalog.has_server_privilege(w.oid, s.oid, 'USAGE')
	UNION ALL
	SELECT 11, 'wrapper', f.fdwname
	FROM pg_catalog.pg_foreign_data_wrapper f
	WHERE NOT pg_catalog.pg_has_role(w.oid, f.fdwowner, 'USAGE')
		AND pg_catalog.has_foreign_data_wrapper_privilege(w.oid, f.oid, 'USAGE')` + parameters + `
) AS f(n, kind, detail)
ORDER BY w.via, f.n, f.detail`
}

// pgWriteWords word the kinds of pgWriteAccessSQL that come as a count and
// a few names.
var pgWriteWords = map[string]string{
	"owner":               "owns %d tables or views, so may alter or drop them (%s)",
	"table":               "may write to %d tables or views (%s)",
	"maintain":            "has MAINTAIN on %d tables or views, so may refresh or lock them (%s)",
	"sequence":            "may advance %d sequences (%s)",
	"schema":              "may create objects in %d schema(s) (%s)",
	"function":            "owns %d functions, so may redefine or drop them (%s)",
	"large object":        "owns %d large objects, so may write or unlink them (%s)",
	"object":              "owns %d other objects, so may alter or drop them (%s)",
	"large object update": "may write %d large objects (%s)",
	"definer":             "may execute %d SECURITY DEFINER functions, which run with their owners' rights (%s)",
	"server":              "may use %d foreign servers, so may map users to them (%s)",
	"wrapper":             "may use %d foreign-data wrappers, so may create servers (%s)",
	"parameter":           "may ALTER SYSTEM %d settings (%s)",
}

// WriteAccess reports, in words for a log line, what the role the
// PostgreSQL database is opened as could change if the read-only
// transaction were not there: attributes (superuser, CREATEROLE,
// CREATEDB, REPLICATION, BYPASSRLS); membership of pg_write_all_data,
// pg_write_server_files, pg_execute_server_program, pg_read_server_files,
// pg_signal_backend, pg_signal_autovacuum_worker, pg_checkpoint,
// pg_create_subscription or pg_maintain; INSERT, UPDATE, DELETE, TRUNCATE
// or TRIGGER on a table (or owning it), USAGE or UPDATE on a sequence,
// CREATE on a schema or the database, owning either, and TEMP when it is
// granted beyond PUBLIC's default; owning functions, large objects or
// anything else; UPDATE on a large object; lo_compat_privileges on;
// EXECUTE on another role's SECURITY DEFINER function; USAGE on a foreign
// server or foreign-data wrapper; ALTER SYSTEM on a setting; MAINTAIN on a
// table. What a role it may SET ROLE to could do is reported after "after
// SET ROLE name:", unless the role can do it itself; a role whose
// privileges it inherits, and which adds some, is named as "member of
// name". It returns nil for a role that can only read, such as the one
// ReadOnlyRoleSQL creates. It reads through db, the door.
func (p *backend) WriteAccess(ctx context.Context, db source.Reader) ([]string, error) {
	rows, err := db.Catalog(ctx, pgServerVersionSQL)
	if err != nil {
		return nil, fmt.Errorf("reading the server version: %w", err)
	}
	var s string
	if len(rows) == 1 {
		s, _ = rows[0][0].(string)
	}
	version, err := strconv.Atoi(s)
	if err != nil {
		return nil, fmt.Errorf("reading the server version %q: %w", s, err)
	}
	if rows, err = db.Catalog(ctx, pgWriteAccessSQL(version)); err != nil {
		return nil, fmt.Errorf("checking the role's privileges: %w", err)
	}
	// Rows come role by role, the current one first. A role it may become
	// adds only what the current role cannot do itself; one whose
	// privileges it inherits adds nothing but its attributes, and is named
	// so the grant can be found.
	type through struct {
		via       string
		inherited bool
		shared    bool
		rows      [][2]string
	}
	var roles []*through
	own := map[[2]string]bool{}
	for _, r := range rows {
		via, _ := r[0].(string)
		inherited, _ := r[1].(bool)
		kind, _ := r[2].(string)
		detail, _ := r[3].(string)
		if len(roles) == 0 || roles[len(roles)-1].via != via {
			roles = append(roles, &through{via: via, inherited: inherited})
		}
		t, f := roles[len(roles)-1], [2]string{kind, detail}
		switch {
		case via == "":
			own[f] = true
		case own[f]:
			t.shared = true
			continue
		}
		t.rows = append(t.rows, f)
	}
	var found []string
	for _, t := range roles {
		prefix := ""
		if t.via != "" {
			if t.inherited && t.shared {
				found = append(found, "member of "+t.via+", whose privileges it inherits")
			}
			prefix = "after SET ROLE " + t.via + ": "
		}
		for _, f := range pgWriteFindings(t.rows) {
			found = append(found, prefix+f)
		}
	}
	return found, nil
}

// pgWriteFindings words the rows of one role, each a kind and a detail:
// one finding for each single kind, one for each counted kind with up to
// five names.
func pgWriteFindings(rows [][2]string) []string {
	var found []string
	group := map[string][]string{}
	var order []string
	for _, r := range rows {
		kind, detail := r[0], r[1]
		switch kind {
		case "attribute":
			found = append(found, "role attribute "+detail)
		case "member":
			found = append(found, "member of "+detail)
		case "setting":
			found = append(found, "lo_compat_privileges is on, so may write every large object")
		case "database":
			found = append(found, map[string]string{
				"CREATE": "CREATE on the database (may create schemas)",
				"owner":  "owns the database",
				"TEMP":   "TEMP on the database (may create temporary tables)",
			}[detail])
		default:
			if _, ok := group[kind]; !ok {
				order = append(order, kind)
			}
			group[kind] = append(group[kind], detail)
		}
	}
	for _, kind := range order {
		names := group[kind]
		shown := names
		if len(shown) > 5 {
			shown = append(shown[:5:5], "...")
		}
		found = append(found, fmt.Sprintf(pgWriteWords[kind], len(names), strings.Join(shown, ", ")))
	}
	return found
}

// ReadOnlyRoleSQL returns ReadOnlyRoleSQL(role, the database's name).
func (p *backend) ReadOnlyRoleSQL(role string) string { return ReadOnlyRoleSQL(role, p.info.Database) }

// ReadOnlyRoleSQL returns the statements that create a login role that can
// only read database, in each of schemas ("public" when none): CONNECT,
// USAGE, SELECT on the tables there and on those created later, and
// default_transaction_read_only. role and the password placeholder are to
// be edited; run it as a superuser, or as the owner of the tables (ALTER
// DEFAULT PRIVILEGES covers tables the running role creates later).
func ReadOnlyRoleSQL(role, database string, schemas ...string) string {
	if len(schemas) == 0 {
		schemas = []string{"public"}
	}
	r := quoteIdent(role)
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE ROLE %s LOGIN PASSWORD 'change-me' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;\n", r)
	fmt.Fprintf(&b, "GRANT CONNECT ON DATABASE %s TO %s;\n", quoteIdent(database), r)
	for _, s := range schemas {
		s := quoteIdent(s)
		fmt.Fprintf(&b, "GRANT USAGE ON SCHEMA %s TO %s;\n", s, r)
		fmt.Fprintf(&b, "GRANT SELECT ON ALL TABLES IN SCHEMA %s TO %s;\n", s, r)
		fmt.Fprintf(&b, "ALTER DEFAULT PRIVILEGES IN SCHEMA %s GRANT SELECT ON TABLES TO %s;\n", s, r)
	}
	fmt.Fprintf(&b, "ALTER ROLE %s SET default_transaction_read_only = on;\n", r)
	b.WriteString("-- PostgreSQL 14 and older let every role CREATE in schema public; on those, also:\n")
	b.WriteString("-- REVOKE CREATE ON SCHEMA public FROM PUBLIC;\n")
	return b.String()
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
