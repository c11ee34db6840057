//go:build !linux

package duckdb

// nameWorker leaves the worker's name as the system gives it.
func nameWorker() {}
