//go:build noduckdb

package main

import "github.com/sqlmcp/sqlmcp/source"

// optionalEngines is empty in a build without DuckDB (-tags noduckdb).
func optionalEngines() []source.Engine { return nil }
