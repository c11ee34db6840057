//go:build !unix

package duckdb

// limitData does nothing where the system has no RLIMIT_DATA: the worker
// is still stopped at its time limit.
func limitData(int64) error { return nil }

// dataInUse is zero where the system does not say.
func dataInUse() int64 { return 0 }
