// Package sqlmcp holds the few words every layer of the server shares: the
// SQL dialects it speaks and the limits that bound every query. It imports
// only the standard library.
package sqlmcp

import "time"

// Dialect names a database engine's SQL dialect.
type Dialect string

// The dialects sqlmcp speaks.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
	DuckDB   Dialect = "duckdb"
	// MySQL is MySQL's and MariaDB's dialect.
	MySQL Dialect = "mysql"
)

// Limits bound every statement sqlmcp runs. The zero value of each field
// means its default; WithDefaults fills them in.
type Limits struct {
	// Timeout stops a statement inside the engine. Default 15s.
	Timeout time.Duration
	// MaxRows is how many rows a query returns when the caller does not
	// say. Default 100.
	MaxRows int
	// MaxRowsLimit is the most rows a caller may ask for. Default 1000.
	MaxRowsLimit int
	// MaxBytes bounds the size of a result's rows, counted as JSON.
	// Default 256 KiB.
	MaxBytes int
	// MaxCellBytes cuts longer text values, with a marker. Default 2 KiB.
	MaxCellBytes int
}

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = 15 * time.Second
	}
	if l.MaxRows <= 0 {
		l.MaxRows = 100
	}
	if l.MaxRowsLimit <= 0 {
		l.MaxRowsLimit = 1000
	}
	if l.MaxRows > l.MaxRowsLimit {
		l.MaxRows = l.MaxRowsLimit
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 256 << 10
	}
	if l.MaxCellBytes <= 0 {
		l.MaxCellBytes = 2 << 10
	}
	return l
}
