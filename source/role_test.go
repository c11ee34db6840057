package source_test

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
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
		sql := source.ReadOnlyRoleSQL("{{role}}", name, "public")
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
	tests := []struct {
		name, grant, want string
	}{
		{"insert on a table", "GRANT INSERT ON customers TO {{role}}", "may write to 1 tables or views (public.customers)"},
		{"column update", "GRANT UPDATE (name) ON products TO {{role}}", "may write to 1 tables or views (public.products)"},
		{"owns a table", `ALTER TABLE "Order Items" OWNER TO {{role}}`, `owns 1 tables or views, so may alter or drop them (public."Order Items")`},
		{"sequence", "GRANT USAGE ON SEQUENCE invoice_no TO {{role}}", "may advance 1 sequences (public.invoice_no)"},
		{"create on a schema", "GRANT CREATE ON SCHEMA public TO {{role}}", "may create objects in 1 schema(s) (public)"},
		{"create on the database", "GRANT CREATE ON DATABASE " + name + " TO {{role}}", "CREATE on the database (may create schemas)"},
		{"temp beyond public", "REVOKE TEMP ON DATABASE " + name + " FROM PUBLIC; GRANT TEMP ON DATABASE " + name + " TO {{role}}", "TEMP on the database (may create temporary tables)"},
		{"attribute", "ALTER ROLE {{role}} CREATEDB", "role attribute CREATEDB"},
		{"server files", "GRANT pg_write_server_files TO {{role}}", "member of pg_write_server_files"},
		{"signal", "GRANT pg_signal_backend TO {{role}}", "member of pg_signal_backend"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, roleDSN := pgRole(t, dsn, "CREATE ROLE {{role}} LOGIN; GRANT USAGE ON SCHEMA public TO {{role}}; "+tt.grant)
			found, err := dbtest.Open(t, roleDSN, nil).WriteAccess(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != 1 || found[0] != tt.want {
				t.Errorf("WriteAccess() = %q, want [%q]", found, tt.want)
			}
		})
	}
	if _, err := dbtest.SQLite(t, nil).WriteAccess(t.Context()); err == nil {
		t.Error("WriteAccess on SQLite: no error")
	}
}

func TestReadOnlyRoleSQL(t *testing.T) {
	got := source.ReadOnlyRoleSQL("sqlmcp_ro", `my "shop"`, "public", "sales")
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
