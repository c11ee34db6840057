package postgres_test

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source/postgres"
)

// pgRole creates a login role on the test server, runs setup (with
// {{role}} standing for its name) as the superuser in the database dsn names, and
// returns a URL that connects as the role. The role is dropped when the
// test ends.
func pgRole(t *testing.T, dsn, setup string) (role, roleDSN string) {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	role = "sqlmcp_ro_" + hex.EncodeToString(b)
	dbtest.PostgresExec(t, dsn, strings.ReplaceAll(setup, "{{role}}", `"`+role+`"`))
	t.Cleanup(func() {
		dbtest.PostgresExec(t, dsn, `DROP OWNED BY "`+role+`"; DROP ROLE "`+role+`"`)
	})
	u, _ := url.Parse(dsn)
	u.User = url.User(role)
	return role, u.String()
}

// pgGroup creates a role that cannot log in, for a test to grant to the
// login role pgRole makes, and returns its name. It is dropped, with what
// it owns, when the test ends, after the login role.
func pgGroup(t *testing.T, dsn string) string {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	group := "sqlmcp_group_" + hex.EncodeToString(b)
	dbtest.PostgresExec(t, dsn, `CREATE ROLE "`+group+`"`)
	t.Cleanup(func() {
		dbtest.PostgresExec(t, dsn, `DROP OWNED BY "`+group+`"; DROP ROLE "`+group+`"`)
	})
	return group
}

func TestWriteAccess(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	name := pgDatabase(t, dsn)

	t.Run("superuser", func(t *testing.T) {
		found, err := dbtest.Open(t, dsn, nil).WriteAccess(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		all := strings.Join(found, "\n")
		for _, want := range []string{"role attribute SUPERUSER", "member of pg_write_server_files", "owns 8 tables or views", "CREATE on the database"} {
			if !strings.Contains(all, want) {
				t.Errorf("superuser: %q lacks %q", found, want)
			}
		}
	})
	t.Run("the recommended read-only role", func(t *testing.T) {
		sql := postgres.ReadOnlyRoleSQL("{{role}}", name, "public")
		_, roleDSN := pgRole(t, dsn, strings.ReplaceAll(sql, `"{{role}}"`, "{{role}}"))
		db := dbtest.Open(t, roleDSN, nil)
		found, err := db.WriteAccess(t.Context())
		if err != nil || len(found) != 0 {
			t.Errorf("WriteAccess() = %q, %v; want nothing", found, err)
		}
		if _, err := db.Query(t.Context(), "SELECT count(*) FROM customers", 0); err != nil {
			t.Errorf("the read-only role cannot read: %v", err)
		}
	})
	// Each case makes a login role and a group role, {{role}} and {{group}}
	// in its SQL and in want, runs grant as the superuser, and connects as
	// the login role. What either role owns is dropped with it.
	tests := []struct {
		name, grant string
		want        []string
	}{
		{"insert on a table", "GRANT INSERT ON customers TO {{role}}", []string{"may write to 1 tables or views (public.customers)"}},
		{"column update", "GRANT UPDATE (name) ON products TO {{role}}", []string{"may write to 1 tables or views (public.products)"}},
		{"owns a table", `ALTER TABLE "Order Items" OWNER TO {{role}}`, []string{`owns 1 tables or views, so may alter or drop them (public."Order Items")`}},
		{"sequence", "GRANT USAGE ON SEQUENCE invoice_no TO {{role}}", []string{"may advance 1 sequences (public.invoice_no)"}},
		{"create on a schema", "GRANT CREATE ON SCHEMA public TO {{role}}", []string{"may create objects in 1 schema(s) (public)"}},
		{"create on the database", "GRANT CREATE ON DATABASE " + name + " TO {{role}}", []string{"CREATE on the database (may create schemas)"}},
		{"temp beyond public", "REVOKE TEMP ON DATABASE " + name + " FROM PUBLIC; GRANT TEMP ON DATABASE " + name + " TO {{role}}", []string{"TEMP on the database (may create temporary tables)"}},
		{"attribute", "ALTER ROLE {{role}} CREATEDB", []string{"role attribute CREATEDB"}},
		{"server files", "GRANT pg_write_server_files TO {{role}}", []string{"member of pg_write_server_files"}},
		{"signal", "GRANT pg_signal_backend TO {{role}}", []string{"member of pg_signal_backend"}},
		{"write all data without inheriting it", "ALTER ROLE {{role}} NOINHERIT; GRANT pg_write_all_data TO {{role}}", []string{"member of pg_write_all_data"}},
		{"member of a read-only group", "GRANT SELECT ON customers TO {{group}}; GRANT {{group}} TO {{role}}", nil},
		{"member of a group that writes", "GRANT INSERT ON customers TO {{group}}; GRANT {{group}} TO {{role}}",
			[]string{"may write to 1 tables or views (public.customers)", "member of {{group}}, whose privileges it inherits"}},
		{"NOINHERIT member of a group that writes", "ALTER ROLE {{role}} NOINHERIT; GRANT INSERT ON customers TO {{group}}; GRANT {{group}} TO {{role}}",
			[]string{"after SET ROLE {{group}}: may write to 1 tables or views (public.customers)"}},
		{"NOINHERIT member of an owner", "CREATE TABLE sqlmcp_owned (a integer); ALTER TABLE sqlmcp_owned OWNER TO {{group}}; ALTER ROLE {{role}} NOINHERIT; GRANT {{group}} TO {{role}}",
			[]string{"after SET ROLE {{group}}: owns 1 tables or views, so may alter or drop them (public.sqlmcp_owned)"}},
		{"member of a group with an attribute", "ALTER ROLE {{group}} CREATEROLE; GRANT {{group}} TO {{role}}",
			[]string{"after SET ROLE {{group}}: role attribute CREATEROLE"}},
		{"owns a function", "CREATE FUNCTION sqlmcp_f(integer, text) RETURNS integer LANGUAGE sql AS 'SELECT 1'; ALTER FUNCTION sqlmcp_f(integer, text) OWNER TO {{role}}",
			[]string{"owns 1 functions, so may redefine or drop them (public.sqlmcp_f(integer, text))"}},
		{"owns a type", "CREATE TYPE sqlmcp_t AS ENUM ('a'); ALTER TYPE sqlmcp_t OWNER TO {{role}}",
			[]string{"owns 1 other objects, so may alter or drop them (type public.sqlmcp_t)"}},
		{"owns a large object", "SELECT lo_create(4201); ALTER LARGE OBJECT 4201 OWNER TO {{role}}",
			[]string{"owns 1 large objects, so may write or unlink them (4201)"}},
		{"update on a large object", "SELECT lo_create(4202); GRANT UPDATE ON LARGE OBJECT 4202 TO {{role}}",
			[]string{"may write 1 large objects (4202)"}},
		{"lo_compat_privileges", "SELECT lo_create(4203); ALTER ROLE {{role}} SET lo_compat_privileges = on",
			[]string{"lo_compat_privileges is on, so may write every large object"}},
		{"another role's security definer function", "CREATE FUNCTION sqlmcp_definer() RETURNS integer LANGUAGE sql SECURITY DEFINER AS 'SELECT 1'; ALTER FUNCTION sqlmcp_definer() OWNER TO {{group}}",
			[]string{"may execute 1 SECURITY DEFINER functions, which run with their owners' rights (public.sqlmcp_definer())"}},
		{"usage on a foreign server", "CREATE FOREIGN DATA WRAPPER sqlmcp_fdw1; CREATE SERVER sqlmcp_server FOREIGN DATA WRAPPER sqlmcp_fdw1; GRANT USAGE ON FOREIGN SERVER sqlmcp_server TO {{role}}",
			[]string{"may use 1 foreign servers, so may map users to them (sqlmcp_server)"}},
		{"usage on a foreign-data wrapper", "CREATE FOREIGN DATA WRAPPER sqlmcp_fdw2; GRANT USAGE ON FOREIGN DATA WRAPPER sqlmcp_fdw2 TO {{role}}",
			[]string{"may use 1 foreign-data wrappers, so may create servers (sqlmcp_fdw2)"}},
		{"alter system on a setting", "GRANT ALTER SYSTEM ON PARAMETER log_min_duration_statement TO {{role}}",
			[]string{"may ALTER SYSTEM 1 settings (log_min_duration_statement)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			group := pgGroup(t, dsn)
			grant := strings.ReplaceAll(tt.grant, "{{group}}", `"`+group+`"`)
			_, roleDSN := pgRole(t, dsn, "CREATE ROLE {{role}} LOGIN; GRANT USAGE ON SCHEMA public TO {{role}}; "+grant)
			found, err := dbtest.Open(t, roleDSN, nil).WriteAccess(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(found, "\n")
			want := strings.ReplaceAll(strings.Join(tt.want, "\n"), "{{group}}", group)
			if got != want {
				t.Errorf("WriteAccess() =\n%s\nwant\n%s", got, want)
			}
		})
	}
	if _, err := dbtest.SQLite(t, nil).WriteAccess(t.Context()); err == nil {
		t.Error("WriteAccess on SQLite: no error")
	}
}

func TestReadOnlyRoleSQL(t *testing.T) {
	got := postgres.ReadOnlyRoleSQL("sqlmcp_ro", `my "shop"`, "public", "sales")
	for _, want := range []string{
		`CREATE ROLE "sqlmcp_ro" LOGIN PASSWORD 'change-me'`,
		`GRANT CONNECT ON DATABASE "my ""shop""" TO "sqlmcp_ro";`,
		`GRANT USAGE ON SCHEMA "sales" TO "sqlmcp_ro";`,
		`GRANT SELECT ON ALL TABLES IN SCHEMA "public" TO "sqlmcp_ro";`,
		`ALTER DEFAULT PRIVILEGES IN SCHEMA "sales" GRANT SELECT ON TABLES TO "sqlmcp_ro";`,
		`ALTER ROLE "sqlmcp_ro" SET default_transaction_read_only = on;`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ReadOnlyRoleSQL lacks %q:\n%s", want, got)
		}
	}
}
