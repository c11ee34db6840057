//go:build !noduckdb

package main

import (
	conf "github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/duckdb"
)

// optionalEngines are the engines outside source/builtin this build
// serves: DuckDB, for DuckDB files and folders of CSV, Parquet and JSON,
// with s's budgets and views. Its library adds about 50 MB to the
// binary; build with -tags noduckdb to leave it out.
func optionalEngines(s *conf.Source) []source.Engine {
	e := duckdb.Engine{MemoryLimit: s.DuckDBMemoryLimit, Threads: s.DuckDBThreads}
	for _, v := range s.Views {
		e.Views = append(e.Views, duckdb.View{Name: v.Name, Path: v.Path})
	}
	return []source.Engine{e}
}

// serveDuckDBWorker makes this process the DuckDB engine's worker when it
// was started as one (duckdb.ServeWorker), and returns otherwise.
func serveDuckDBWorker() { duckdb.ServeWorker() }
