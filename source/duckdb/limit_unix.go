//go:build unix

package duckdb

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// limitData bounds the process's data memory (heap and private mappings:
// RLIMIT_DATA) at n bytes; zero leaves it as it is. An allocation past it
// fails: DuckDB's as an out-of-memory error of the statement, Go's by
// ending the worker.
func limitData(n int64) error {
	if n <= 0 {
		return nil
	}
	lim := syscall.Rlimit{Cur: uint64(n), Max: uint64(n)}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		return fmt.Errorf("bounding the DuckDB worker's memory at %d bytes: %w", n, err)
	}
	return nil
}

// dataInUse is the process's data memory now, as RLIMIT_DATA counts it
// (Linux's /proc/self/statm, data and stack), or zero where the system
// does not say.
func dataInUse() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 6 {
		return 0
	}
	pages, err := strconv.ParseInt(string(f[5]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
