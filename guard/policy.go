package guard

// A source's table and column policy (package policy reads it from the
// operator's file and resolves it against the catalog) reaches the guard as
// a PolicyCatalog: the relations a query may read, and for each the access
// of every column. The guard then refuses any statement that reads a denied
// relation or column in any way, or uses a masked column for anything but
// returning it, and reports which result columns carry masked values, so
// that the caller redacts them.

// Access is what a policy lets a query do with a column.
type Access uint8

const (
	// Allowed columns are read and computed on freely.
	Allowed Access = iota
	// Masked columns may only be returned, as a bare column of the
	// result (SELECT email FROM users, SELECT * FROM users, or through a
	// subquery or CTE that returns it bare); the caller redacts their
	// values. Any other use (a function, a comparison, a join, grouping,
	// ordering, DISTINCT, a set operation, a cast, a whole-row reference)
	// is refused.
	Masked
	// Denied columns are invisible: a query that names one, or reads it
	// through *, a whole-row reference or NATURAL JOIN, is refused as if
	// the column did not exist.
	Denied
)

// PolicyCatalog is a policy as the guard needs it. It must be safe for
// concurrent use; the guard calls it while judging each statement.
type PolicyCatalog interface {
	// Relation returns the relation a query's FROM reaches by this name,
	// resolved as the engine resolves it: schema "" for an unqualified
	// name (PostgreSQL's search path; SQLite's main database). ok is false
	// when the query may not read it, for whatever reason: the policy
	// denies it, it is not in the catalog sqlmcp serves, it is a system
	// catalog, or an unqualified name is ambiguous. The guard words every
	// such refusal the same way, so a refusal never confirms that a
	// denied relation exists.
	Relation(schema, name string) (rel PolicyRelation, ok bool)
}

// PolicyRelation is one relation a query may read.
type PolicyRelation struct {
	Schema, Name string // as the catalog spells them; Schema "" on SQLite
	// Columns are all its columns in the engine's order, denied ones
	// included, so that *, NATURAL JOIN and USING are judged as the engine
	// expands them.
	Columns []PolicyColumn
}

// PolicyColumn is one column of a PolicyRelation and what the policy lets
// a query do with it.
type PolicyColumn struct {
	Name   string
	Access Access
}

// MaskedColumn is a result column that carries a masked column's values,
// which the caller must redact before anything else sees them.
type MaskedColumn struct {
	Position              int // 0-based, among the result's columns
	Schema, Table, Column string
}
