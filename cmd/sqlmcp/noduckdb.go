//go:build noduckdb

package main

import (
	"context"
	"errors"

	conf "github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/source"
)

// optionalEngines is empty in a build without DuckDB (-tags noduckdb).
func optionalEngines(*conf.Source) []source.Engine { return nil }

// writeDemoParquet needs DuckDB, which this build leaves out.
func writeDemoParquet(context.Context, string, string) (int, error) {
	return 0, errors.New("this sqlmcp is built without DuckDB (-tags noduckdb): build it without the tag to write Parquet")
}

// serveDuckDBWorker has no worker to serve in a build without DuckDB.
func serveDuckDBWorker() {}
