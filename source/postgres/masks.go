package postgres

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sqlmcp/sqlmcp/guard"
)

// pgOrigin is a table column as a result's field description names it:
// its relation's oid and its number in the relation.
type pgOrigin struct {
	table  uint32
	column uint16
}

// pgOrigins name the columns of the catalog sqlmcp read: schema, relation
// and column by origin.
type pgOrigins map[pgOrigin][3]string

// checkMasks holds the guard's masked result columns against what the
// server says of the result, before any row is read. The guard counts a
// result's columns from the parse tree, and a tree can hold more columns
// than it shows ((composite).*, a function's row expanded beside a masked
// column): the masks would land on the wrong columns, a masked value
// would be shown as it is, and a value of the model's own would be hashed
// with the key. So the statement is refused unless
//   - the result has as many columns as the guard counted (width), when
//     any is masked;
//   - no column the guard did not mask comes from a masked column:
//     PostgreSQL names, in each field's description, the table column a
//     result column is a plain reference to, through subqueries and CTEs
//     too;
//   - every column the guard masked that names a table column names that
//     masked column (a scalar subquery's names none).
func (p *backend) checkMasks(fields []pgconn.FieldDescription, masked []guard.MaskedColumn, width int) error {
	pp := p.policy.Load()
	if pp == nil {
		return nil
	}
	if len(masked) > 0 && width != len(fields) {
		return misplacedMask(fmt.Sprintf("the result has %d columns, and the guard counted %d", len(fields), width))
	}
	var origins pgOrigins
	if o := p.origins.Load(); o != nil {
		origins = *o
	}
	want := make(map[int][3]string, len(masked))
	for _, m := range masked {
		want[m.Position] = [3]string{m.Schema, m.Table, m.Column}
	}
	for i, f := range fields {
		name, isColumn := origins[pgOrigin{f.TableOID, f.TableAttributeNumber}]
		isMasked := f.TableOID != 0 && isColumn && maskedIn(pp.pol, name)
		w, wanted := want[i]
		switch {
		case isMasked && !wanted:
			return misplacedMask(fmt.Sprintf("result column %d (%s) carries the masked column %s", i+1, f.Name, strings.Join(name[:], ".")))
		case wanted && f.TableOID != 0 && (!isMasked || name != w):
			return misplacedMask(fmt.Sprintf("result column %d (%s) is not the masked column %s", i+1, f.Name, strings.Join(w[:], ".")))
		}
	}
	return nil
}

// maskedIn reports whether the policy masks the column name.
func maskedIn(pol guard.PolicyCatalog, name [3]string) bool {
	rel, ok := pol.Relation(name[0], name[1])
	if !ok {
		return false
	}
	for _, c := range rel.Columns {
		if c.Name == name[2] {
			return c.Access == guard.Masked
		}
	}
	return false
}

func misplacedMask(what string) error {
	return &guard.Error{
		Reason: "the masked columns of this query cannot be placed in its result: " + what,
		Hint:   "Select a masked column by its name alone, and expand no row or composite value ((x).*, a function's row) in the same query",
	}
}
