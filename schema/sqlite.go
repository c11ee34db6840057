package schema

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlmcp/sqlmcp/source"
)

// readSQLite reads every table and view of a SQLite database in four
// catalog queries, joining the table-valued pragma functions.
func readSQLite(ctx context.Context, db *source.DB) ([]*Table, error) {
	const tablesSQL = `SELECT name, type FROM pragma_table_list
		WHERE schema = 'main' AND type IN ('table', 'view', 'virtual') AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`
	rows, err := db.Catalog(ctx, tablesSQL)
	if err != nil {
		return nil, fmt.Errorf("listing tables: %w", err)
	}
	byName := make(map[string]*Table, len(rows))
	tables := make([]*Table, 0, len(rows))
	for _, r := range rows {
		t := &Table{Name: str(r[0]), rel: str(r[0]), Kind: str(r[1]), Columns: []Column{}, ForeignKeys: []ForeignKey{}, ReferencedBy: []ForeignKey{}, Indexes: []Index{}}
		byName[t.Name] = t
		tables = append(tables, t)
	}
	sortTables(tables)

	// Tables are read in one query. A view or virtual table is read alone:
	// a view whose table was dropped, or that uses a function the guard
	// refuses, cannot be read, and that must not hide every other table.
	const columnsSQL = `SELECT t.name, c.name, c.type, c."notnull", c.dflt_value, c.pk, c.hidden
		FROM pragma_table_list AS t, pragma_table_xinfo(t.name) AS c
		WHERE t.schema = 'main' AND t.type = 'table' ORDER BY t.name, c.cid`
	if rows, err = db.Catalog(ctx, columnsSQL); err != nil {
		return nil, fmt.Errorf("listing columns: %w", err)
	}
	for _, t := range tables {
		if t.Kind == "table" {
			continue
		}
		const oneSQL = `SELECT ?1, c.name, c.type, c."notnull", c.dflt_value, c.pk, c.hidden
			FROM pragma_table_xinfo(?1) AS c ORDER BY c.cid`
		cols, err := db.Catalog(ctx, oneSQL, t.Name)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("listing the columns of %s: %w", t.Name, err)
			}
			t.Broken = err.Error()
			continue
		}
		rows = append(rows, cols...)
	}
	for _, r := range rows {
		t := byName[str(r[0])]
		if t == nil || num(r[6]) == 1 { // 1: a virtual table's hidden column
			continue
		}
		col := Column{Name: str(r[1]), Type: str(r[2]), Nullable: num(r[3]) == 0, PrimaryKey: int(num(r[5]))}
		if r[4] != nil {
			d := str(r[4])
			col.Default = &d
		}
		t.Columns = append(t.Columns, col)
	}
	for _, t := range tables {
		// An INTEGER PRIMARY KEY is the rowid: never NULL, whatever the
		// column says (a table WITHOUT ROWID keeps its key NOT NULL too).
		if t.Kind == "table" && KeyColumns(t.Columns) == 1 {
			for i := range t.Columns {
				if c := &t.Columns[i]; c.PrimaryKey == 1 && strings.EqualFold(c.Type, "INTEGER") {
					c.Nullable = false
				}
			}
		}
	}
	const keysSQL = `SELECT t.name, k.id, k."table", k."from", k."to"
		FROM pragma_table_list AS t, pragma_foreign_key_list(t.name) AS k
		WHERE t.schema = 'main' AND t.type = 'table' ORDER BY t.name, k.id, k.seq`
	if rows, err = db.Catalog(ctx, keysSQL); err != nil {
		return nil, fmt.Errorf("listing foreign keys: %w", err)
	}
	var fk *ForeignKey
	lastID := int64(-1)
	for i, r := range rows {
		t := byName[str(r[0])]
		if t == nil {
			continue
		}
		if id := num(r[1]); fk == nil || id != lastID || str(rows[i-1][0]) != t.Name {
			t.ForeignKeys = append(t.ForeignKeys, ForeignKey{Table: t.Name, RefTable: str(r[2])})
			fk, lastID = &t.ForeignKeys[len(t.ForeignKeys)-1], id
		}
		fk.Columns = append(fk.Columns, str(r[3]))
		fk.RefColumns = append(fk.RefColumns, str(r[4])) // "" means the referenced primary key
	}
	for _, t := range tables {
		for i := range t.ForeignKeys {
			k := &t.ForeignKeys[i]
			ref := byName[k.RefTable]
			if ref == nil {
				continue
			}
			for j, c := range k.RefColumns {
				if c == "" {
					k.RefColumns[j] = primaryKeyColumn(ref, j)
				}
			}
			ref.ReferencedBy = append(ref.ReferencedBy, *k)
		}
	}

	const indexesSQL = `SELECT t.name, i.name, i."unique", c.name
		FROM pragma_table_list AS t, pragma_index_list(t.name) AS i, pragma_index_info(i.name) AS c
		WHERE t.schema = 'main' AND t.type = 'table' ORDER BY t.name, i.name, c.seqno`
	if rows, err = db.Catalog(ctx, indexesSQL); err != nil {
		return nil, fmt.Errorf("listing indexes: %w", err)
	}
	for _, r := range rows {
		t := byName[str(r[0])]
		if t == nil {
			continue
		}
		name := str(r[1])
		if n := len(t.Indexes); n == 0 || t.Indexes[n-1].Name != name {
			t.Indexes = append(t.Indexes, Index{Name: name, Unique: num(r[2]) == 1})
		}
		ix := &t.Indexes[len(t.Indexes)-1]
		col := str(r[3])
		if r[3] == nil {
			col = "<expression>"
		}
		ix.Columns = append(ix.Columns, col)
	}
	return tables, nil
}

// primaryKeyColumn names the column at position i (0-based) of t's primary
// key, which a foreign key without explicit columns refers to.
func primaryKeyColumn(t *Table, i int) string {
	for _, c := range t.Columns {
		if c.PrimaryKey == i+1 {
			return c.Name
		}
	}
	return ""
}

func str(v any) string {
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

func num(v any) int64 {
	n, _ := v.(int64)
	return n
}

// KeyColumns counts the columns of cols in the primary key.
func KeyColumns(cols []Column) int {
	n := 0
	for _, c := range cols {
		if c.PrimaryKey > 0 {
			n++
		}
	}
	return n
}
