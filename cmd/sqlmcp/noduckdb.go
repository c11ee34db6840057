//go:build noduckdb

package main

import (
	conf "github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/source"
)

// optionalEngines is empty in a build without DuckDB (-tags noduckdb).
func optionalEngines(*conf.Source) []source.Engine { return nil }
