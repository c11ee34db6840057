//go:build !nomysql

package guard

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// A query may read what the account may read, except what shows other
// sessions' statements or credentials, which the account's privileges do
// not keep apart: an account that holds PROCESS reads every session's
// statement in the process list, one without it its own sessions' (in
// HTTP mode, every caller's), and an account that may read the mysql
// schema reads password hashes and the general log. Those relations are
// refused by what they expose, not one by one: every relation of
// performance_schema and sys; every table of mysql but a vetted few; the
// information_schema tables that show other sessions' statements, locks
// or activity, and those that list every system variable (whose values
// include passwords); and, read directly, the system variables that hold
// a password, a key or a secret.

// mysqlReadableMySQL are the tables of the mysql schema a query may read:
// function names (func, which sqlmcp's own catalog reads), statistics of
// tables and indexes (counts, no values), and the time zone and help
// tables (time_zone*, help_*, by prefix). The rest hold accounts and
// password hashes (user, global_priv), stored credentials (servers, the
// replication tables), every session's statements (general_log,
// slow_log), routine bodies past their privileges (proc), and column
// values (column_stats keeps each column's least and greatest value,
// global_priv's included once analyzed).
var mysqlReadableMySQL = map[string]bool{
	"func": true, "innodb_table_stats": true, "innodb_index_stats": true, "table_stats": true, "index_stats": true,
}

// mysqlCredentialTables are the tables of the mysql schema that hold
// password hashes or stored passwords, refused in those words.
var mysqlCredentialTables = map[string]bool{
	"user": true, "global_priv": true, "password_history": true, "servers": true,
	"slave_master_info": true, "replication_connection_configuration": true,
}

// mysqlSessionTables are the information_schema tables that show other
// sessions: their statements (PROCESSLIST's INFO, INNODB_TRX's trx_query,
// the query cache's statements), their locks and the rows locked
// (INNODB_LOCKS, INNODB_LOCK_WAITS, METADATA_LOCK_INFO), the last
// statement traced on a pooled connection another caller used
// (OPTIMIZER_TRACE), and every account's connections and activity
// (CLIENT_STATISTICS, USER_STATISTICS).
var mysqlSessionTables = map[string]bool{
	"processlist": true, "innodb_trx": true, "innodb_locks": true, "innodb_lock_waits": true,
	"metadata_lock_info": true, "query_cache_info": true, "optimizer_trace": true,
	"client_statistics": true, "user_statistics": true,
}

// mysqlVariableTables are the information_schema tables that list every
// system variable with its value, credentials among them; a query cannot
// be kept from their rows, so they are refused whole.
var mysqlVariableTables = map[string]bool{
	"global_variables": true, "session_variables": true, "system_variables": true,
}

// mysqlRelation refuses a table a query may not read (see above). A name
// without a database names one of the connection's current database,
// when cat knows it.
func mysqlRelation(n *ast.TableName, cat MySQLCatalog) *Error {
	schema := n.Schema.L
	if d, ok := cat.(mysqlDatabase); ok && schema == "" {
		schema = strings.ToLower(d.Database())
	}
	name := n.Name.L
	switch schema {
	case "performance_schema", "sys":
		return &Error{
			Reason: schema + "." + n.Name.O + " is not allowed: the " + schema + " schema shows every session's statements and the server's state",
			Hint:   sessionsHint,
		}
	case "mysql":
		switch {
		case mysqlReadableMySQL[name], strings.HasPrefix(name, "time_zone"), strings.HasPrefix(name, "help_"):
			return nil
		case mysqlCredentialTables[name]:
			return &Error{
				Reason: "the table mysql." + n.Name.O + " is not allowed: it shows password hashes or stored credentials",
				Hint:   "Query the database's own tables; information_schema.USER_PRIVILEGES lists the accounts' privileges without their passwords",
			}
		case name == "general_log" || name == "slow_log":
			return &Error{Reason: "the table mysql." + n.Name.O + " is not allowed: it holds every session's statements", Hint: sessionsHint}
		}
		return &Error{
			Reason: "the table mysql." + n.Name.O + " is not allowed: the mysql schema holds accounts, credentials, routine bodies and logs, " +
				"and only its time zone and help tables, func and the table and index statistics are readable",
			Hint: "Query the database's own tables; information_schema (TABLES, COLUMNS, ROUTINES, USER_PRIVILEGES) describes the schema",
		}
	case "information_schema":
		switch {
		case mysqlSessionTables[name]:
			return &Error{
				Reason: "information_schema." + n.Name.O + " is not allowed: it shows other sessions' statements, locks or activity",
				Hint:   sessionsHint,
			}
		case mysqlVariableTables[name]:
			return &Error{
				Reason: "information_schema." + n.Name.O + " is not allowed: it lists every system variable, those holding passwords and keys among them",
				Hint:   "Read a setting by name with SELECT @@name (settings that hold a password, key or secret are not readable)",
			}
		}
	}
	return nil
}

const sessionsHint = "Query the database's own tables; other sessions' statements, and the server's record of them, are not readable here"

// mysqlSecretVariable reports whether the system variable name (as the
// parser gives it: "report_password", "default.key_buffer_size") may hold
// a password, a key or a secret: a replica's password (report_password),
// Galera's state-transfer account (wsrep_sst_auth), a key management
// plugin's key or token (file_key_management_filekey,
// hashicorp_key_management_token, keyring_*), an LDAP bind password, and
// the statements the server runs for each connection or replica
// (init_connect, init_slave, init_replica), which may spell one, and the
// TLS key's file (ssl_key). The test is by the words in the name, so a
// plugin's variable of the same kind is refused too; a few settings about
// passwords (old_passwords, default_password_lifetime) go with them.
func mysqlSecretVariable(name string) bool {
	name = strings.ToLower(name)
	name = name[strings.LastIndexByte(name, '.')+1:]
	switch name {
	case "init_connect", "init_slave", "init_replica":
		return true
	}
	for _, w := range []string{"password", "passwd", "_pwd", "secret", "token", "filekey", "keyring", "credential", "_auth"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return strings.HasSuffix(name, "ssl_key") // the TLS key's file
}
