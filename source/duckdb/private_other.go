//go:build !unix

package duckdb

// holdPrivate does nothing where there are no advisory file locks: a
// directory left by a killed process stays.
func holdPrivate(string) (release func(), err error) { return func() {}, nil }

// sweepPrivate does nothing without holdPrivate's locks.
func sweepPrivate() []string { return nil }
