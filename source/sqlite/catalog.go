package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sqlmcp/sqlmcp/source"
)

// A served file's declared types and defaults are its author's text, of
// any length (a CREATE TABLE of 150 columns typed with 100,000 bytes each
// made describe_table answer 30 MB): the catalog keeps at most these
// bytes of each, cut with the marker that says the real size, as a
// result's cell is. SQLite reads a type only for its affinity, from its
// first words.
const (
	maxTypeText    = 256
	maxDefaultText = 1024
)

// schemaText is v's text, cut to at most max bytes with the marker.
func schemaText(v any, max int) string {
	s, _ := source.Cell(source.CellText(v), max).(string)
	return s
}

// ReadTables reads every table and view of the main database in four
// catalog queries, joining the table-valued pragma functions. SQLite has
// no schemas: schemas is ignored, and every table is on the path.
func (b *backend) ReadTables(ctx context.Context, r source.Reader, _ []string) ([]source.TableDef, error) {
	const tablesSQL = `SELECT name, type FROM pragma_table_list
		WHERE schema = 'main' AND type IN ('table', 'view', 'virtual') AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`
	// pragma_table_list compiles every view, and the guard refuses it
	// when one is too costly to compile; the schema table then lists
	// the same, with a virtual table's shadow tables as tables.
	const schemaTablesSQL = `SELECT name, CASE WHEN sql LIKE 'CREATE VIRTUAL TABLE%' THEN 'virtual' ELSE type END
		FROM main.sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`
	tablesOf := func(q string) string { return q }
	rows, err := r.Catalog(ctx, tablesSQL)
	if err != nil && ctx.Err() == nil {
		tablesOf = func(q string) string {
			return strings.NewReplacer("pragma_table_list AS t", "main.sqlite_schema AS t",
				"t.schema = 'main' AND t.type = 'table'", "t.type = 'table' AND t.sql NOT LIKE 'CREATE VIRTUAL TABLE%'").Replace(q)
		}
		rows, err = r.Catalog(ctx, schemaTablesSQL)
	}
	if err != nil {
		return nil, fmt.Errorf("listing tables: %w", err)
	}
	tables := make([]source.TableDef, len(rows))
	byName := make(map[string]*source.TableDef, len(rows))
	for i, row := range rows {
		tables[i] = source.TableDef{Name: source.CellText(row[0]), Kind: source.CellText(row[1]), OnPath: true,
			Columns: []source.ColumnDef{}, ForeignKeys: []source.KeyDef{}, Indexes: []source.IndexDef{}}
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i].Name < tables[j].Name })
	for i := range tables {
		byName[tables[i].Name] = &tables[i]
	}

	// Tables are read in one query. A view or virtual table is read alone:
	// a view whose table was dropped, or that uses a function the guard
	// refuses, cannot be read, and that must not hide every other table.
	const columnsSQL = `SELECT t.name, c.name, c.type, c."notnull", c.dflt_value, c.pk, c.hidden
		FROM pragma_table_list AS t, pragma_table_xinfo(t.name) AS c
		WHERE t.schema = 'main' AND t.type = 'table' ORDER BY t.name, c.cid`
	if rows, err = r.Catalog(ctx, tablesOf(columnsSQL)); err != nil {
		return nil, fmt.Errorf("listing columns: %w", err)
	}
	for i := range tables {
		t := &tables[i]
		if t.Kind == "table" {
			continue
		}
		const oneSQL = `SELECT ?1, c.name, c.type, c."notnull", c.dflt_value, c.pk, c.hidden
			FROM pragma_table_xinfo(?1) AS c ORDER BY c.cid`
		cols, err := r.Catalog(ctx, oneSQL, t.Name)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("listing the columns of %s: %w", t.Name, err)
			}
			t.Broken = err.Error()
			if ee := new(source.EngineError); errors.As(err, &ee) {
				t.Broken = ee.Message
			}
			continue
		}
		rows = append(rows, cols...)
	}
	for _, row := range rows {
		t := byName[source.CellText(row[0])]
		if t == nil || source.CellInt(row[6]) == 1 { // 1: a virtual table's hidden column
			continue
		}
		// hidden 2 and 3: a generated column, virtual or stored.
		col := source.ColumnDef{Name: source.CellText(row[1]), Type: schemaText(row[2], maxTypeText), Nullable: source.CellInt(row[3]) == 0, PrimaryKey: int(source.CellInt(row[5])),
			Generated: source.CellInt(row[6]) >= 2}
		if row[4] != nil {
			d := schemaText(row[4], maxDefaultText)
			col.Default = &d
		}
		t.Columns = append(t.Columns, col)
	}
	for i := range tables {
		// An INTEGER PRIMARY KEY is the rowid: never NULL, whatever the
		// column says (a table WITHOUT ROWID keeps its key NOT NULL too).
		t := &tables[i]
		if t.Kind != "table" || keyColumns(t.Columns) != 1 {
			continue
		}
		for j := range t.Columns {
			if c := &t.Columns[j]; c.PrimaryKey == 1 && strings.EqualFold(c.Type, "INTEGER") {
				c.Nullable = false
			}
		}
	}

	if err := b.viewReads(ctx, tables); err != nil {
		return nil, err
	}

	const keysSQL = `SELECT t.name, k.id, k."table", k."from", k."to"
		FROM pragma_table_list AS t, pragma_foreign_key_list(t.name) AS k
		WHERE t.schema = 'main' AND t.type = 'table' ORDER BY t.name, k.id, k.seq`
	if rows, err = r.Catalog(ctx, tablesOf(keysSQL)); err != nil {
		return nil, fmt.Errorf("listing foreign keys: %w", err)
	}
	var fk *source.KeyDef
	lastID := int64(-1)
	for i, row := range rows {
		t := byName[source.CellText(row[0])]
		if t == nil {
			continue
		}
		if id := source.CellInt(row[1]); fk == nil || id != lastID || source.CellText(rows[i-1][0]) != t.Name {
			t.ForeignKeys = append(t.ForeignKeys, source.KeyDef{RefName: source.CellText(row[2])})
			fk, lastID = &t.ForeignKeys[len(t.ForeignKeys)-1], id
		}
		fk.Columns = append(fk.Columns, source.CellText(row[3]))
		fk.RefColumns = append(fk.RefColumns, source.CellText(row[4])) // "" means the referenced primary key
	}
	for i := range tables {
		for j := range tables[i].ForeignKeys {
			k := &tables[i].ForeignKeys[j]
			ref := byName[k.RefName]
			if ref == nil {
				continue
			}
			for n, c := range k.RefColumns {
				if c == "" {
					k.RefColumns[n] = primaryKeyColumn(ref, n)
				}
			}
		}
	}

	const indexesSQL = `SELECT t.name, i.name, i."unique", c.name
		FROM pragma_table_list AS t, pragma_index_list(t.name) AS i, pragma_index_info(i.name) AS c
		WHERE t.schema = 'main' AND t.type = 'table' ORDER BY t.name, i.name, c.seqno`
	if rows, err = r.Catalog(ctx, tablesOf(indexesSQL)); err != nil {
		return nil, fmt.Errorf("listing indexes: %w", err)
	}
	for _, row := range rows {
		t := byName[source.CellText(row[0])]
		if t == nil {
			continue
		}
		name := source.CellText(row[1])
		if n := len(t.Indexes); n == 0 || t.Indexes[n-1].Name != name {
			t.Indexes = append(t.Indexes, source.IndexDef{Name: name, Unique: source.CellInt(row[2]) == 1})
		}
		ix := &t.Indexes[len(t.Indexes)-1]
		col := source.CellText(row[3])
		if row[3] == nil {
			col = "<expression>"
		}
		ix.Columns = append(ix.Columns, col)
	}
	return tables, nil
}

// primaryKeyColumn names the column at position i (0-based) of t's primary
// key, which a foreign key without explicit columns refers to.
func primaryKeyColumn(t *source.TableDef, i int) string {
	for _, c := range t.Columns {
		if c.PrimaryKey == i+1 {
			return c.Name
		}
	}
	return ""
}

// Values is SQLite's SQL for the value tools: the statements SQLite and
// PostgreSQL share, and no statistics (nor sampling cheaper than a scan).
func (b *backend) Values() source.ValueSQL {
	return source.SharedValues{Table: func(t source.TableRef) string { return quote(t.Name) }, Quote: quote}
}

// keyColumns counts the columns of cols in the primary key.
func keyColumns(cols []source.ColumnDef) int {
	n := 0
	for _, c := range cols {
		if c.PrimaryKey > 0 {
			n++
		}
	}
	return n
}

// Integrity runs PRAGMA quick_check: what it found wrong, nil when the
// file is sound.
func (b *backend) Integrity(ctx context.Context, r source.Reader) ([]string, error) {
	rows, err := r.Catalog(ctx, "SELECT quick_check FROM pragma_quick_check LIMIT 5")
	if err != nil {
		return nil, err
	}
	var found []string
	for _, row := range rows {
		for _, line := range strings.Split(source.CellText(row[0]), "\n") {
			if line = strings.TrimSpace(line); line != "" && line != "ok" && !strings.HasPrefix(line, "***") {
				found = append(found, line)
			}
		}
	}
	return found, nil
}

// viewReads fills the Reads of each view that compiles: what SELECT * FROM
// it reads as SQLite's authorizer reports it, through the views it reads,
// each table and column once, in the order SQLite resolves them. A broken
// view is left with Reads nil.
func (b *backend) viewReads(ctx context.Context, tables []source.TableDef) error {
	var views []*source.TableDef
	for i := range tables {
		if tables[i].Kind == "view" && tables[i].Broken == "" {
			views = append(views, &tables[i])
		}
	}
	if len(views) == 0 {
		return nil
	}
	c, err := b.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("reading what views read: %w", err)
	}
	defer c.Release(nil)
	cn := c.(*conn)
	return cn.c.Raw(func(any) error {
		if cn.sc.guard == nil {
			return nil
		}
		for _, t := range views {
			reads, err := cn.sc.guard.Reads("SELECT * FROM " + quote(t.Name))
			if err != nil {
				continue
			}
			seen := map[source.ColumnRead]bool{}
			t.Reads = []source.ColumnRead{}
			for _, r := range reads {
				// The statement's own reads of the view's columns.
				if r.View == "" && strings.EqualFold(r.Table, t.Name) {
					continue
				}
				cr := source.ColumnRead{Table: r.Table, Column: r.Column}
				if !seen[cr] {
					seen[cr] = true
					t.Reads = append(t.Reads, cr)
				}
			}
		}
		return nil
	})
}
