package guard

import (
	"database/sql/driver"
	"fmt"
	"sort"
	"strings"
)

// The bounds on window functions and common table expressions hold for
// what SQLite compiles, not only for the text it is sent: a view of the
// served file is compiled into every statement that reads it, by SQLite's
// code generator, which sqlite3_interrupt does not reach. A view with
// 2,250 window functions (94 KB of schema) took SQLite 27 s to compile into
// SELECT count(*) FROM v, and the served file's own schema made
// pragma_table_list compile it (SQLite prepares SELECT * of every view
// whose columns it has not read yet), so sqlmcp could not even start on
// it. So each view costs what its body costs, with every view it names
// counted at each mention, as if inlined; a statement costs what its text
// costs plus the cost of every view it names; and a view that alone costs
// more than the bounds cannot be read at all: the authorizer refuses any
// read of it or from inside it, which SQLite asks for while resolving
// names, before the code generator starts, even when SQLite compiles the
// view for itself (pragma_table_list).

// sqliteCost is what compiling a text costs out of the interrupt's reach:
// its bytes, with every view it names written out, the tables it reads
// (a name of one at every mention), its window functions and its
// definitions (name AS (...)).
type sqliteCost struct{ bytes, tables, windows, defined int }

func (c sqliteCost) add(d sqliteCost) sqliteCost {
	return sqliteCost{bytes: c.bytes + d.bytes, tables: c.tables + d.tables, windows: c.windows + d.windows, defined: c.defined + d.defined}
}

// capped keeps c's counts from overflowing: past the bounds, a count
// only has to stay past them.
func (c sqliteCost) capped() sqliteCost {
	return sqliteCost{bytes: min(c.bytes, 1<<40), tables: min(c.tables, 1<<30), windows: min(c.windows, 1<<30), defined: min(c.defined, 1<<30)}
}

// maxSQLiteInlined bounds a statement's text with the views it reads
// written out, as MaxSQLBytes bounds the text itself: SQLite compiles
// each view at every mention, in time that grows with what it compiles. A
// chain of 30 views, each joining the one before to itself, made
// pragma_table_list (which compiles every view) run 211 s at start.
const maxSQLiteInlined = MaxSQLBytes

// maxSQLiteTables bounds the tables a statement reads with the views it
// reads written out. SQLite's planner looks at the interrupt only when it
// is done, in time that grows faster than the tables: a chain of views,
// each joining the one before to itself, took 0.27 s to compile at 256
// tables, 0.76 s at 512, 1.8 s at 1,024 and 7.9 s at 2,048 (which SQLite
// then refused, past its 200 terms of one FROM).
const maxSQLiteTables = 1000

// over says why c is past the bounds, or "" when it is within them.
func (c sqliteCost) over() string {
	switch {
	case c.windows > maxSQLiteWindows:
		return fmt.Sprintf("%d window functions (OVER); the limit is %d", c.windows, maxSQLiteWindows)
	case c.defined > maxSQLiteDefinitions:
		return fmt.Sprintf("%d common table expressions or named windows (name AS (...)); the limit is %d", c.defined, maxSQLiteDefinitions)
	case c.tables > maxSQLiteTables:
		return fmt.Sprintf("%d reads of tables with the views it reads written out; the limit is %d", c.tables, maxSQLiteTables)
	case c.bytes > maxSQLiteInlined:
		return fmt.Sprintf("%d bytes of SQL with the views it reads written out; the limit is %d", c.bytes, maxSQLiteInlined)
	}
	return ""
}

// sqliteViews are the costs of a database's views, folded by name: only
// the views that cost anything, and, in heavy, why each one past the
// bounds is. The zero value knows no view.
type sqliteViews struct {
	cost   map[string]sqliteCost
	heavy  map[string]string
	tables map[string]bool // the main database's tables, folded
}

// readSQLiteViews reads the views of conn's main database, before the
// authorizer is installed, and works out what each costs to compile.
func readSQLiteViews(conn SQLiteConn) sqliteViews {
	rows, err := conn.Query("SELECT type, name, sql FROM main.sqlite_schema WHERE type IN ('table', 'view')", nil)
	if err != nil {
		return sqliteViews{}
	}
	bodies, tables := map[string]string{}, map[string]bool{}
	dest := make([]driver.Value, 3)
	for rows.Next(dest) == nil {
		kind, _ := dest[0].(string)
		name, _ := dest[1].(string)
		text, _ := dest[2].(string)
		switch {
		case kind == "view" && name != "":
			bodies[fold(name)] = text
		case kind == "table":
			tables[fold(name)] = true
		}
	}
	rows.Close()
	return sqliteViewCosts(bodies, tables)
}

// sqliteViewCosts works out each view's cost from its CREATE VIEW text
// (bodies, by folded name): its own, plus, for every word or quoted name
// in it that names another view, that view's (a name that is not one, a
// column spelled like a view, only overstates). A view that names itself,
// through others or not, is circular, which SQLite refuses to compile; it
// counts nothing for the names on the circle.
func sqliteViewCosts(bodies map[string]string, tables map[string]bool) sqliteViews {
	own := make(map[string]sqliteCost, len(bodies))
	names := make(map[string][]string, len(bodies))
	for v, text := range bodies {
		c := sqliteCost{bytes: len(text)}
		c.windows, c.defined = sqliteCompileCounts(text)
		sqliteScan(text, func(kind byte, tok string) {
			if kind == 'w' || kind == 'n' {
				f := fold(tok)
				if _, ok := bodies[f]; ok && f != v {
					names[v] = append(names[v], f)
				} else if tables[f] {
					c.tables++
				}
			}
		})
		own[v] = c
	}
	total := make(map[string]sqliteCost, len(bodies))
	const busy = -1
	var cost func(v string) sqliteCost
	cost = func(v string) sqliteCost {
		if c, ok := total[v]; ok {
			if c.windows == busy {
				return sqliteCost{}
			}
			return c
		}
		total[v] = sqliteCost{windows: busy}
		c := own[v]
		for _, n := range names[v] {
			c = c.add(cost(n)).capped()
			// Past the bounds nothing counts more.
			if c.bytes > maxSQLiteInlined && c.tables > maxSQLiteTables && c.windows > maxSQLiteWindows && c.defined > maxSQLiteDefinitions {
				break
			}
		}
		total[v] = c
		return c
	}
	vs := sqliteViews{tables: tables}
	for v := range bodies {
		c := cost(v)
		if c == (sqliteCost{}) {
			continue
		}
		if vs.cost == nil {
			vs.cost = map[string]sqliteCost{}
		}
		vs.cost[v] = c
		if why := c.over(); why != "" {
			if vs.heavy == nil {
				vs.heavy = map[string]string{}
			}
			vs.heavy[v] = why
		}
	}
	return vs
}

// named is the cost of the views sql names, each at every mention.
func (vs sqliteViews) named(sql string) sqliteCost {
	var c sqliteCost
	if len(vs.cost) == 0 {
		return c
	}
	var buf []byte // a token folded, looked up without a copy
	sqliteScan(sql, func(kind byte, tok string) {
		if kind == 'w' || kind == 'n' {
			buf = appendFolded(buf[:0], tok)
			if vc, ok := vs.cost[string(buf)]; ok {
				c = c.add(vc).capped()
			} else if vs.tables[string(buf)] {
				c.tables++
			}
		}
	})
	return c
}

// appendFolded appends tok folded as fold folds it.
func appendFolded(buf []byte, tok string) []byte {
	for i := 0; i < len(tok); i++ {
		if tok[i] >= 0x80 {
			return append(buf, fold(tok)...)
		}
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

// refuses says why a read of table (of database) from inside view inner
// must be refused, or "" when it may go on: one of them is a view too
// costly to compile.
func (vs sqliteViews) refuses(table, database, inner string) string {
	if len(vs.heavy) == 0 {
		return ""
	}
	if database == "main" {
		if why := vs.heavy[fold(table)]; why != "" {
			return describeHeavyView(table, why)
		}
	}
	if inner != "" {
		if why := vs.heavy[fold(inner)]; why != "" {
			return describeHeavyView(inner, why)
		}
	}
	return ""
}

// refusesPragma says why the pragma name, with argument arg, must be
// refused, or "" when it may run: it names a view too costly to compile
// (table_xinfo of it compiles it), or it is table_list, which compiles
// every view whose columns SQLite has not read yet, with the argument or
// without, before the authorizer is asked of any read.
func (vs sqliteViews) refusesPragma(name, arg string) string {
	if why := vs.refuses(arg, "main", ""); why != "" {
		return why
	}
	if len(vs.heavy) > 0 && strings.EqualFold(name, "table_list") {
		heavy := make([]string, 0, len(vs.heavy))
		for v := range vs.heavy {
			heavy = append(heavy, v)
		}
		sort.Strings(heavy)
		return describeHeavyView(heavy[0], vs.heavy[heavy[0]]+"; pragma_table_list compiles every view")
	}
	return ""
}

// describeHeavyView words the refusal of a view too costly to compile.
func describeHeavyView(name, why string) string {
	return heavyViewPrefix + `"` + name + `" (its body compiles to ` + why + ")"
}

const heavyViewPrefix = "reading the view "

// heavyViewHint is the hint for a refused view.
const heavyViewHint = "SQLite compiles a view's body into every statement that reads it, outside the timeout's reach, and this view's costs more than the server allows; query the tables it reads directly, with fewer window functions or common table expressions"

// isHeavyViewDenial reports whether a denial is a refused view.
func isHeavyViewDenial(d string) bool { return strings.HasPrefix(d, heavyViewPrefix) }

// viewsHint adds to a refusal's hint, when the views a statement reads
// counted (inViews is not ""), that they count at each mention.
func viewsHint(inViews string) string {
	if inViews == "" {
		return ""
	}
	return "; a view counts its body at each mention, so read a costly view once, or the tables it reads"
}
