//go:build !nomysql

package builtin

import (
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/mysql"
)

// mysqlEngines is MySQL/MariaDB, in a build without -tags nomysql.
func mysqlEngines() []source.Engine { return []source.Engine{mysql.Engine{}} }
