//go:build !noduckdb

package main

import (
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
)

// optionalEngines are the engines outside source/builtin this build
// serves: DuckDB, for DuckDB files and folders of CSV, Parquet and JSON.
// Its library adds about 50 MB to the binary; build with -tags noduckdb
// to leave it out.
func optionalEngines() []source.Engine { return []source.Engine{duckdb.Engine{}} }
