package guard

import (
	"reflect"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// LimitedAtOnce and LimitedApart are PostgresPolicyLimit's two ways.
var (
	LimitedAtOnce = limitedAtOnce
	LimitedApart  = limitedApart
)

// SameQuery reports whether a and b are the same, unexported fields too.
func SameQuery(a, b PostgresQuery) bool { return reflect.DeepEqual(a, b) }

// PostgresPlanUnits is the planning estimate CheckPostgres bounds, for
// sql's one statement; -1 when sql is not one statement the parser reads
// (after the same prescan CheckPostgres makes).
func PostgresPlanUnits(sql string) float64 {
	stmts, err := parsePostgres(sql, 0)
	if err != nil || len(stmts) != 1 {
		return -1
	}
	u, _, _, _ := postgresPlanUnits(stmts[0].Stmt)
	return u
}

// MaxPostgresPlanUnits is the bound on it.
const MaxPostgresPlanUnits = maxPostgresPlanUnits

// PrescanPostgres and PrescanFree: the depth prescan, and the longest text
// the parse is let skip it for.
var PrescanPostgres = prescanPostgres

const PrescanFree = prescanFree

// ParseTree is parseTree, saying whether the tree was read from the
// parser's JSON.
func ParseTree(sql string) (*pg.ParseResult, bool, error) { return parseTreeJSON(sql) }

// TreeFromJSON decodes the parser's JSON of a tree, or reports false.
var TreeFromJSON = treeFromJSON

// NodeInner is the message a Node holds, read as the walks read it.
var NodeInner = nodeInner

// Children is children; ReflectChildren is the same walk through
// protobuf's reflection, which children matches.
var Children = children

func ReflectChildren(m protoreflect.Message, f func(protoreflect.Message) bool) {
	for _, c := range appendReflectChildren(nil, m, m.Descriptor()) {
		if !f(c) {
			return
		}
	}
}

// SQLiteForPostgres is the text the masked-column check parses for a
// SQLite statement, and whether the two grammars read it alike.
var SQLiteForPostgres = sqliteForPostgres
