package schema

import (
	"slices"
	"strings"
)

// JoinGuess is a join that no foreign key declares but the names and
// types suggest: Table's Columns hold the values of RefTable's primary
// key. It is a guess (Guessed is true), to be checked before it is
// trusted.
type JoinGuess = ForeignKey

// primaryKey returns t's single primary key column, or nil when its key
// is composite or missing.
func primaryKey(t *Table) *Column {
	var pk *Column
	for i := range t.Columns {
		if c := &t.Columns[i]; c.PrimaryKey > 0 {
			if pk != nil {
				return nil
			}
			pk = c
		}
	}
	return pk
}

// guessRef reports whether column c of a table may hold ref's primary
// key: c is named as that key (dept_id for departments.dept_id), or as
// ref's singular name and the key (customer_id, customerId for
// customers.id), with types of one family.
func guessRef(c *Column, ref *Table) bool {
	pk := primaryKey(ref)
	return pk != nil && sameFamily(c.Type, pk.Type) && slices.Contains(keyNames(ref), strings.ToLower(c.Name))
}

// sameFamily reports whether two declared types hold the same kind of
// value: both integers, both text, or the same type.
func sameFamily(a, b string) bool {
	fam := func(t string) string {
		t = strings.ToLower(t)
		switch {
		case strings.Contains(t, "int") || t == "serial" || t == "bigserial":
			return "integer"
		case textLike(t):
			return "text"
		}
		return t
	}
	return fam(a) == fam(b)
}

// Joins returns how a and b join: their declared foreign keys either way,
// or, when none is declared between them, the guesses from key names and
// types (guessed true).
func Joins(a, b *Table) (keys []ForeignKey, guessed bool) {
	for _, k := range a.ForeignKeys {
		if k.RefTable == b.Name {
			keys = append(keys, k)
		}
	}
	for _, k := range b.ForeignKeys {
		if k.RefTable == a.Name {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 || a == b {
		return keys, false
	}
	for _, pair := range [][2]*Table{{a, b}, {b, a}} {
		from, to := pair[0], pair[1]
		for i := range from.Columns {
			c := &from.Columns[i]
			if c.PrimaryKey > 0 && primaryKey(from) != nil {
				continue // a table's own single key references nothing
			}
			if guessRef(c, to) {
				keys = append(keys, ForeignKey{Table: from.Name, Columns: []string{c.Name}, RefTable: to.Name, RefColumns: []string{primaryKey(to).Name}, Guessed: true})
			}
		}
	}
	return keys, len(keys) > 0
}

// GuessJoins returns the joins t may have to other tables of tables (one
// reading of the schema, as Tables returns it) that no foreign key of t
// declares: each column named and typed as another table's primary key,
// at most max of them, preferring the table whose name is shortest
// (orders over orders_2023). The key names are indexed once per reading,
// so a call costs t's columns, not the schema's size.
func (c *Catalog) GuessJoins(t *Table, tables []*Table, max int) []JoinGuess {
	ix := c.joinIndexFor(tables)
	declared := map[string]bool{}
	for _, k := range t.ForeignKeys {
		for _, col := range k.Columns {
			declared[strings.ToLower(col)] = true
		}
	}
	var out []JoinGuess
	for i := range t.Columns {
		col := &t.Columns[i]
		name := strings.ToLower(col.Name)
		if declared[name] || col.PrimaryKey > 0 && primaryKey(t) != nil {
			continue
		}
		var best *Table
		for _, ref := range ix.byKeyName[name] {
			if ref != t && sameFamily(col.Type, primaryKey(ref).Type) && (best == nil || len(ref.Name) < len(best.Name)) {
				best = ref
			}
		}
		if best != nil {
			out = append(out, JoinGuess{Table: t.Name, Columns: []string{col.Name}, RefTable: best.Name, RefColumns: []string{primaryKey(best).Name}, Guessed: true})
			if len(out) == max {
				break
			}
		}
	}
	return out
}

// joinIndex maps, for one reading of the schema, each column name that
// guessRef would take for a table's key to the tables it may reference.
type joinIndex struct {
	tables    []*Table
	byKeyName map[string][]*Table
}

func (c *Catalog) joinIndexFor(tables []*Table) *joinIndex {
	c.joinMu.Lock()
	defer c.joinMu.Unlock()
	if ix := c.joins; ix != nil && sameTables(ix.tables, tables) {
		return ix
	}
	ix := &joinIndex{tables: tables, byKeyName: map[string][]*Table{}}
	for _, ref := range tables {
		for _, name := range keyNames(ref) {
			ix.byKeyName[name] = append(ix.byKeyName[name], ref)
		}
	}
	c.joins = ix
	return ix
}

// keyNames are the lower-case column names guessRef takes as holding
// ref's primary key, types aside.
func keyNames(ref *Table) []string {
	pk := primaryKey(ref)
	if pk == nil {
		return nil
	}
	key := strings.ToLower(pk.Name)
	if key != "id" {
		return []string{key}
	}
	words := Words(ref.rel)
	if len(words) == 0 {
		return nil
	}
	single := strings.Join(words, "_")
	return []string{single + "_id", strings.ReplaceAll(single, "_", "") + "id"}
}
