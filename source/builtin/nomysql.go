//go:build nomysql

package builtin

import "github.com/sqlmcp/sqlmcp/source"

// mysqlEngines is empty in a build with -tags nomysql.
func mysqlEngines() []source.Engine { return nil }
