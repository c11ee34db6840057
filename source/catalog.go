package source

import (
	"context"
	"fmt"
)

// TableDef is one table or view as an engine's catalog describes it
// (Backend.ReadTables); package schema joins it with the notes and
// names it.
type TableDef struct {
	// Schema is the schema holding it; "" for an engine without schemas
	// (SQLite's main database).
	Schema string
	// Name is the relation's own name, unqualified and unquoted.
	Name string
	// OnPath is true when a query can name it bare: its schema is on the
	// search path (always, for an engine without schemas).
	OnPath bool
	// Kind is "table", "view", "virtual", "materialized view",
	// "partitioned table" or "foreign table".
	Kind        string
	Description string // the engine's own comment, if any
	// Estimate is the engine's row estimate; 0 when it keeps none.
	Estimate    int64
	Columns     []ColumnDef
	ForeignKeys []KeyDef
	Indexes     []IndexDef
	// Broken is the engine's reason when the view (or virtual table)
	// cannot be read, such as a view over a dropped table.
	Broken string
	// Unreadable says why the role may not read it (no USAGE on its
	// schema, no SELECT on it), on an engine with privileges; "" when it
	// may.
	Unreadable string
	// Reads are, for a view (or materialized view), the columns of other
	// relations its definition reads, as the engine itself resolves them
	// (PostgreSQL's pg_depend, SQLite's authorizer); a Column "" is the
	// whole relation (count(*), a whole-row reference). Nil for a table,
	// and for a view whose reads the engine cannot tell, which a policy
	// then treats as reading everything.
	Reads []ColumnRead
}

// ColumnRead is a column a view reads: Column "" for the whole relation.
type ColumnRead struct {
	Schema, Table, Column string
}

// ColumnDef is one column, in declaration order.
type ColumnDef struct {
	Name        string
	Type        string // as declared; "" when untyped
	Nullable    bool
	Default     *string // the default expression's text
	PrimaryKey  int     // 1-based position in the primary key; 0 when not in it
	Description string
	// Generated is true for a column computed from others of its row
	// (GENERATED ALWAYS AS), whose values may show theirs.
	Generated bool
}

// KeyDef is a foreign key: Columns of the table refer to RefColumns of
// RefSchema.RefName.
type KeyDef struct {
	Columns            []string
	RefSchema, RefName string
	RefColumns         []string
}

// IndexDef is an index; an expression's place among Columns is
// "<expression>".
type IndexDef struct {
	Name    string
	Columns []string
	Unique  bool
}

// TableRef names a table for the value statements: its schema and name,
// unquoted, its kind and the engine's row estimate (0: none).
type TableRef struct {
	Schema, Name, Kind string
	Estimate           int64
}

// ValueSQL is an engine's SQL for the value tools: a few real values of a
// column and its distinct values with their counts. Names come unquoted;
// the engine quotes them. Every statement runs through the door like any
// other (guard, read-only, limits).
type ValueSQL interface {
	// Sample returns the statements that read the distinct non-NULL
	// values of col among at most scan rows of t, ordered, tried in turn
	// until one returns a value: for a big table, a sample of pages from
	// across the table first (PostgreSQL's TABLESAMPLE SYSTEM), then the
	// first rows.
	Sample(t TableRef, col string, scan int) []string
	// Distinct returns the statement that counts the rows of each
	// distinct value of col, most frequent first, then by the value's
	// text, at most limit rows. With filter, it takes one argument: a
	// LIKE pattern, escaped with backslashes, the value's text (lower
	// case) must contain.
	Distinct(t TableRef, col string, filter bool, limit int) string
	// CountDistinct returns the statement that counts the distinct values
	// of col (matching the filter as Distinct does), stopping at scan+1.
	CountDistinct(t TableRef, col string, filter bool, scan int) string
	// Stats reads the engine's statistics of col, for a table too big to
	// count in time: the most common values as text, with the fraction of
	// rows holding each, and the estimated number of distinct values. ok
	// is false when the engine keeps none.
	Stats(ctx context.Context, r Reader, t TableRef, col string) (s ColumnStats, ok bool, err error)
}

// ColumnStats is what an engine's statistics say of a column.
type ColumnStats struct {
	Common   []CommonValue // most frequent first
	Distinct int64         // estimated distinct values
}

// CommonValue is one of a column's most common values, as text, and the
// fraction of rows that hold it.
type CommonValue struct {
	Value    string
	Fraction float64
}

// CellText reads a catalog cell as text: a string or bytes as they are,
// NULL as "", anything else as fmt prints it.
func CellText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// CellInt reads a catalog cell as an integer; 0 for anything else.
func CellInt(v any) int64 {
	n, _ := v.(int64)
	return n
}
