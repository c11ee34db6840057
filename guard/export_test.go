package guard

import pg "github.com/pganalyze/pg_query_go/v6"

// PostgresPlanUnits is the planning estimate CheckPostgres bounds, for
// sql's one statement; -1 when sql does not parse as one.
func PostgresPlanUnits(sql string) float64 {
	tree, err := pg.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return -1
	}
	u, _ := postgresPlanUnits(tree.Stmts[0].Stmt)
	return u
}

// MaxPostgresPlanUnits is the bound on it.
const MaxPostgresPlanUnits = maxPostgresPlanUnits
