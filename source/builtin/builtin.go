// Package builtin lists the engines every sqlmcp build serves, SQLite,
// PostgreSQL and MySQL/MariaDB, for source.Options.Engines. Optional engines (DuckDB, whose
// library is large) are added to the list by cmd/sqlmcp alone.
package builtin

import (
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/mysql"
	"github.com/sqlmcp/sqlmcp/source/postgres"
	"github.com/sqlmcp/sqlmcp/source/sqlite"
)

// Engines returns the built-in engines, PostgreSQL with pg's settings
// (nil: the defaults), MySQL/MariaDB, then SQLite, which takes every dsn
// that is not a URL.
func Engines(pg *postgres.Engine) []source.Engine {
	if pg == nil {
		pg = &postgres.Engine{}
	}
	return []source.Engine{pg, mysql.Engine{}, sqlite.Engine{}}
}
