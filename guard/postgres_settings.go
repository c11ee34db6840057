package guard

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// PostgresSettings is what a PostgresCatalog implements when it knows
// whether the connected role may read the settings PostgreSQL reserves for
// superusers and members of pg_read_all_settings (pgReservedSettings). A
// catalog that does not implement it is taken to have a role that may.
type PostgresSettings interface {
	// ReadsReservedSettings reports whether the role sees the reserved
	// settings' values.
	ReadsReservedSettings() bool
}

// readsReserved reports whether the role behind cat may read the reserved
// settings.
func readsReserved(cat PostgresCatalog) bool {
	s, ok := cat.(PostgresSettings)
	return !ok || s.ReadsReservedSettings()
}

// pgReservedSettings are the settings PostgreSQL itself shows only to a
// superuser or a member of pg_read_all_settings (GUC_SUPERUSER_ONLY, in
// PostgreSQL 15 to 18): the replication connection string with its
// password (primary_conninfo), the command that prints the TLS key's
// passphrase, and where the server keeps its files, keys, logs and
// libraries. pg_file_settings and pg_config, which show the same, are
// refused in pgSecretRelations.
var pgReservedSettings = map[string]bool{
	"primary_conninfo": true, "ssl_passphrase_command": true, "krb_server_keyfile": true,
	"config_file": true, "hba_file": true, "ident_file": true, "data_directory": true,
	"external_pid_file": true, "unix_socket_directories": true, "log_directory": true, "log_filename": true,
	"dynamic_library_path": true, "extension_destdir": true, "jit_provider": true,
	"shared_preload_libraries": true, "session_preload_libraries": true, "output_plugin_libraries": true,
	"ssl_ciphers": true, "ssl_dh_params_file": true, "ssl_ecdh_curve": true, "ssl_groups": true,
	"ssl_min_protocol_version": true, "ssl_max_protocol_version": true,
	"oauth_validator_libraries": true, "extension_control_path": true,
}

// pgSecretSetting reports whether name is a setting of an application or
// extension (a name with a dot: ALTER DATABASE ... SET "app.jwt_secret")
// whose words say it holds a credential.
func pgSecretSetting(name string) bool {
	name = strings.ToLower(name)
	if !strings.Contains(name, ".") {
		return false
	}
	for _, w := range []string{"password", "passwd", "pwd", "secret", "token", "key", "credential", "conninfo", "private", "auth"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// hintReserved is the hint of a refused read of a reserved setting.
const hintReserved = "Settings that hold credentials or the server's file paths are off limits; read any other setting with current_setting('name'), the name written as a string"

// setting judges a call that reads server settings: current_setting of a
// reserved setting, of an application's setting named as a credential, or
// of a name the text does not write out (it can be any of them) is
// refused; so, when the role may read the reserved settings, is
// pg_show_all_settings(), the function behind pg_settings.
func (w *pgWalker) setting(n *pg.FuncCall) *Error {
	_, name := qualifiedName(n.Funcname)
	switch strings.ToLower(name) {
	case "current_setting":
		if len(n.Args) == 0 {
			return nil
		}
		s, ok := constString(n.Args[0])
		switch {
		case !ok:
			return &Error{
				Reason: "current_setting() of a name the query computes is not allowed: it could name a setting that holds a secret",
				Hint:   hintReserved,
			}
		case pgReservedSettings[strings.ToLower(s)]:
			return &Error{Reason: "the setting " + s + " is not shown: PostgreSQL reserves it for superusers", Hint: hintReserved}
		case pgSecretSetting(s):
			return &Error{Reason: "the setting " + s + " is not shown: its name says it holds a password, a key or a secret", Hint: hintReserved}
		}
		return nil
	case "pg_show_all_settings":
		if !readsReserved(w.cat) {
			return nil
		}
		return &Error{Reason: "the function " + name + "() is not allowed: it shows settings PostgreSQL reserves for superusers", Hint: hintReserved}
	}
	return nil
}

// reservedRelation refuses pg_settings, which shows every setting the
// role may read, when that includes the reserved ones.
func (w *pgWalker) reservedRelation(r *pg.RangeVar) *Error {
	if r.Relname != "pg_settings" || r.Schemaname != "" && r.Schemaname != "pg_catalog" || !readsReserved(w.cat) {
		return nil
	}
	return &Error{
		Reason: "the catalog " + quoteRel(r) + " is not allowed: to this server's role it shows the settings PostgreSQL reserves for superusers, the replication password among them",
		Hint:   hintReserved,
	}
}

// constString returns the value of n when it is a string constant, cast or
// not ('name', 'name'::text).
func constString(n *pg.Node) (string, bool) {
	for depth := 0; n != nil && depth < 8; depth++ {
		if tc := n.GetTypeCast(); tc != nil {
			n = tc.Arg
			continue
		}
		if c := n.GetAConst(); c != nil {
			if s := c.GetSval(); s != nil {
				return s.Sval, true
			}
		}
		return "", false
	}
	return "", false
}

// pgRoleSettings is what a walk noted that could read the settings column
// of pg_roles (rolconfig) or pg_user (useconfig): the settings each role
// was given with ALTER ROLE ... SET, an application's secret among them,
// which pg_db_role_setting shows too. The other columns of those views
// describe the roles and stay readable.
type pgRoleSettings struct {
	names   []string // how the statement refers to pg_roles and pg_user
	renamed bool     // one of them is given column aliases
	named   bool     // a column or field named rolconfig or useconfig
	star    bool     // a * or t.* or (row).*
	whole   []string // column references of one name: a whole row, or a column
}

// pgRoleSettingsColumns are the settings columns of pg_roles and pg_user.
var pgRoleSettingsColumns = map[string]bool{"rolconfig": true, "useconfig": true}

func (r *pgRoleSettings) relation(n *pg.RangeVar) {
	if n.Relname != "pg_roles" && n.Relname != "pg_user" || n.Schemaname != "" && n.Schemaname != "pg_catalog" {
		return
	}
	name := n.Relname
	if n.Alias != nil {
		name = n.Alias.Aliasname
		r.renamed = r.renamed || len(n.Alias.Colnames) > 0
	}
	r.names = append(r.names, name)
}

func (r *pgRoleSettings) column(fields []*pg.Node) {
	if len(fields) == 0 {
		return
	}
	if fields[len(fields)-1].GetAStar() != nil {
		r.star = true
		return
	}
	last := fields[len(fields)-1].GetString_().GetSval()
	r.named = r.named || pgRoleSettingsColumns[last]
	if len(fields) == 1 {
		r.whole = append(r.whole, last)
	}
}

func (r *pgRoleSettings) indirection(ind []*pg.Node) {
	for _, i := range ind {
		if i.GetAStar() != nil {
			r.star = true
		}
		r.named = r.named || pgRoleSettingsColumns[i.GetString_().GetSval()]
	}
}

// check refuses a statement that reads pg_roles or pg_user and could read
// its settings column: by name, through *, through the whole row, or under
// column aliases. The statement's column references are looked at only
// when it reads one of them (q is its tree).
func (r *pgRoleSettings) check(q protoreflect.Message) *Error {
	if len(r.names) == 0 {
		return nil
	}
	var walk func(m protoreflect.Message) bool
	walk = func(m protoreflect.Message) bool {
		switch n := m.Interface().(type) {
		case *pg.ColumnRef:
			r.column(n.Fields)
		case *pg.A_Indirection:
			r.indirection(n.Indirection)
		}
		children(m, walk)
		return true
	}
	walk(q)
	read := r.renamed || r.named || r.star
	if !read {
		names := make(map[string]bool, len(r.names))
		for _, n := range r.names {
			names[n] = true
		}
		for _, w := range r.whole {
			read = read || names[w]
		}
	}
	if !read {
		return nil
	}
	return &Error{
		Reason: "the settings of roles (rolconfig of pg_roles, useconfig of pg_user) are not shown: they can hold an application's secret",
		Hint:   "Name the columns you need other than rolconfig and useconfig, without * or the whole row",
	}
}
