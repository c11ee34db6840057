//go:build !unix

package duckdb

import "errors"

// limitData cannot bound the process where the system has no
// RLIMIT_DATA: the worker is still stopped at its time limit.
func limitData(n int64) error {
	if n <= 0 {
		return nil
	}
	return errors.New("this system has no RLIMIT_DATA")
}

// dataInUse is zero where the system does not say.
func dataInUse() int64 { return 0 }
