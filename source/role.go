package source

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// pgWriteAccessSQL lists, one row each, what the current role could change
// beyond reading: its attributes, its memberships of the predefined roles
// that reach files, programs or other sessions, and its privileges on
// tables, sequences, schemas and the database. Each row is a kind and a
// detail; the kinds are worded by WriteAccess.
const pgWriteAccessSQL = `SELECT 'attribute', a.attr
FROM pg_catalog.pg_roles r
	CROSS JOIN LATERAL (VALUES
		('SUPERUSER', r.rolsuper), ('CREATEROLE', r.rolcreaterole), ('CREATEDB', r.rolcreatedb),
		('REPLICATION', r.rolreplication), ('BYPASSRLS', r.rolbypassrls)) AS a(attr, granted)
WHERE r.rolname = current_user AND a.granted
UNION ALL
SELECT 'member', m.rolname
FROM pg_catalog.pg_roles m
WHERE m.rolname IN ('pg_write_server_files', 'pg_execute_server_program', 'pg_read_server_files',
		'pg_signal_backend', 'pg_write_all_data', 'pg_checkpoint')
	AND pg_catalog.pg_has_role(current_user, m.oid, 'MEMBER')
UNION ALL
SELECT CASE WHEN c.relkind = 'S' THEN 'sequence' WHEN pg_catalog.pg_has_role(current_user, c.relowner, 'MEMBER') THEN 'owner' ELSE 'table' END,
	pg_catalog.format('%I.%I', n.nspname, c.relname)
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
	AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
	AND CASE WHEN c.relkind = 'S' THEN pg_catalog.has_sequence_privilege(c.oid, 'USAGE, UPDATE')
		ELSE pg_catalog.pg_has_role(current_user, c.relowner, 'MEMBER')
			OR pg_catalog.has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, TRIGGER')
			OR pg_catalog.has_any_column_privilege(c.oid, 'INSERT, UPDATE') END
UNION ALL
SELECT 'schema', n.nspname
FROM pg_catalog.pg_namespace n
WHERE n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp\_%'
	AND (pg_catalog.has_schema_privilege(n.oid, 'CREATE') OR pg_catalog.pg_has_role(current_user, n.nspowner, 'MEMBER'))
UNION ALL
SELECT 'database', p.priv
FROM pg_catalog.pg_database d
	CROSS JOIN LATERAL (VALUES
		('CREATE', pg_catalog.has_database_privilege(d.oid, 'CREATE')),
		('owner', pg_catalog.pg_has_role(current_user, d.datdba, 'MEMBER')),
		-- TEMP counts only when it is not everyone's: PUBLIC holds it on every
		-- database by default, and the read-only transaction refuses it anyway.
		('TEMP', pg_catalog.has_database_privilege(d.oid, 'TEMP') AND d.datacl IS NOT NULL
			AND NOT EXISTS (SELECT FROM pg_catalog.aclexplode(d.datacl) x
				WHERE x.grantee = 0 AND x.privilege_type = 'TEMPORARY'))) AS p(priv, granted)
WHERE d.datname = current_database() AND p.granted`

// WriteAccess reports, in words for a log line, what the role the
// PostgreSQL database is opened as could change if the read-only
// transaction were not there: attributes (superuser, CREATEROLE,
// CREATEDB, REPLICATION, BYPASSRLS), membership of pg_write_server_files,
// pg_execute_server_program, pg_read_server_files, pg_signal_backend,
// pg_write_all_data or pg_checkpoint, INSERT, UPDATE, DELETE, TRUNCATE
// or TRIGGER on a table (or owning it), USAGE or UPDATE on a
// sequence, CREATE on a schema or the database, owning either, and TEMP
// when it is granted beyond PUBLIC's default. It returns nil for a role
// that can only read, such as the one ReadOnlyRoleSQL creates, and an
// error on SQLite, which is opened read-only and has no roles.
func (db *DB) WriteAccess(ctx context.Context) ([]string, error) {
	if db.pg == nil {
		return nil, errors.New("roles are a PostgreSQL matter: SQLite databases are opened read-only")
	}
	rows, err := db.Catalog(ctx, pgWriteAccessSQL)
	if err != nil {
		return nil, fmt.Errorf("checking the role's privileges: %w", err)
	}
	var found []string
	group := map[string][]string{}
	var order []string
	for _, r := range rows {
		kind, _ := r[0].(string)
		detail, _ := r[1].(string)
		switch kind {
		case "attribute":
			found = append(found, "role attribute "+detail)
		case "member":
			found = append(found, "member of "+detail)
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
	words := map[string]string{
		"owner":    "owns %d tables or views, so may alter or drop them (%s)",
		"table":    "may write to %d tables or views (%s)",
		"sequence": "may advance %d sequences (%s)",
		"schema":   "may create objects in %d schema(s) (%s)",
	}
	for _, kind := range order {
		names := group[kind]
		shown := names
		if len(shown) > 5 {
			shown = append(shown[:5:5], "...")
		}
		found = append(found, fmt.Sprintf(words[kind], len(names), strings.Join(shown, ", ")))
	}
	return found, nil
}

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
