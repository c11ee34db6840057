package duckdb

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlmcp/sqlmcp/source"
)

// The catalog statements, read through the door like any query. Only the
// served database is listed: DuckDB's own system and temp databases are
// not.
const (
	relationsSQL = `SELECT schema_name, table_name, 'table', comment, estimated_size FROM duckdb_tables()
WHERE NOT internal AND database_name = current_database()
UNION ALL
SELECT schema_name, view_name, 'view', comment, 0 FROM duckdb_views()
WHERE NOT internal AND database_name = current_database()
ORDER BY 1, 2`
	columnsSQL = `SELECT schema_name, table_name, column_name, data_type, is_nullable, column_default, comment FROM duckdb_columns()
WHERE NOT internal AND database_name = current_database()
ORDER BY schema_name, table_name, column_index`
	constraintsSQL = `SELECT schema_name, table_name, constraint_type, constraint_column_names, referenced_table, referenced_column_names
FROM duckdb_constraints()
WHERE database_name = current_database() AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')
ORDER BY schema_name, table_name, constraint_index`
	indexesSQL = `SELECT schema_name, table_name, index_name, is_unique, expressions FROM duckdb_indexes()
WHERE database_name = current_database()
ORDER BY 1, 2, 3`
)

// ReadTables reads the served database's tables and views, their columns
// (with DuckDB's types: INTEGER[], STRUCT(a INTEGER, b VARCHAR),
// MAP(VARCHAR, INTEGER)), keys and indexes, and the comments made from the
// files' metadata. A view's row estimate is its Parquet files' row count.
func (b *backend) ReadTables(ctx context.Context, r source.Reader, schemas []string) ([]source.TableDef, error) {
	rels, err := r.Catalog(ctx, relationsSQL)
	if err != nil {
		return nil, fmt.Errorf("listing tables: %w", err)
	}
	keep := func(schema string) bool { return len(schemas) == 0 || slices.Contains(schemas, schema) }
	var tables []source.TableDef
	index := map[[2]string]int{}
	for _, row := range rels {
		schema, name := str(row[0]), str(row[1])
		if !keep(schema) {
			continue
		}
		t := source.TableDef{Schema: schema, Name: name, OnPath: schema == "main", Kind: str(row[2]), Description: str(row[3])}
		t.Estimate, _ = row[4].(int64)
		if n, ok := b.built.estimate(name); ok && schema == "main" && t.Kind == "view" {
			t.Estimate = n
		}
		index[[2]string{schema, name}] = len(tables)
		tables = append(tables, t)
	}
	// each runs a catalog statement whose rows start with the schema and
	// table, and hands f the rows of the tables kept.
	each := func(sql, what string, f func(t *source.TableDef, row []any)) error {
		rows, err := r.Catalog(ctx, sql)
		if err != nil {
			return fmt.Errorf("listing %s: %w", what, err)
		}
		for _, row := range rows {
			if i, ok := index[[2]string{str(row[0]), str(row[1])}]; ok {
				f(&tables[i], row)
			}
		}
		return nil
	}
	err = each(columnsSQL, "columns", func(t *source.TableDef, row []any) {
		c := source.ColumnDef{Name: str(row[2]), Type: compactType(str(row[3])), Description: str(row[6])}
		c.Nullable, _ = row[4].(bool)
		if d, ok := row[5].(string); ok {
			c.Default = &d
		}
		t.Columns = append(t.Columns, c)
	})
	if err != nil {
		return nil, err
	}
	err = each(constraintsSQL, "keys", func(t *source.TableDef, row []any) {
		names := strs(row[3])
		if str(row[2]) != "PRIMARY KEY" {
			t.ForeignKeys = append(t.ForeignKeys, source.KeyDef{
				Columns: names, RefSchema: str(row[0]), RefName: str(row[4]), RefColumns: strs(row[5]),
			})
			return
		}
		for pos, n := range names {
			for j := range t.Columns {
				if t.Columns[j].Name == n {
					t.Columns[j].PrimaryKey = pos + 1
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	err = each(indexesSQL, "indexes", func(t *source.TableDef, row []any) {
		unique, _ := row[3].(bool)
		var columns []string
		for _, e := range strings.Split(strings.Trim(str(row[4]), "[]"), ", ") {
			columns = append(columns, strings.Trim(e, `"'`))
		}
		t.Indexes = append(t.Indexes, source.IndexDef{Name: str(row[2]), Columns: columns, Unique: unique})
	})
	if err != nil {
		return nil, err
	}
	return tables, nil
}

// compactType shortens DuckDB's spelling of a nested type for the
// model: STRUCT fields and MAP parts as DuckDB writes them, with no space
// but the one between a field's name and type.
func compactType(t string) string {
	if !strings.ContainsAny(t, "(") {
		return t
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; c {
		case '(':
			depth++
		case ')':
			depth--
		case ' ':
			// "a INTEGER, b VARCHAR" -> "a INTEGER,b VARCHAR"
			if i > 0 && t[i-1] == ',' {
				continue
			}
		}
		b.WriteByte(t[i])
	}
	return b.String()
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// strs reads a LIST of VARCHAR cell.
func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		out = append(out, str(e))
	}
	return out
}

// Values is DuckDB's SQL for the value tools.
func (b *backend) Values() source.ValueSQL { return values{} }

type values struct{}

// Sample reads the distinct values among the first scan rows: DuckDB
// stops reading a file once the LIMIT is met, so a big file is not
// scanned whole.
func (values) Sample(t source.TableRef, col string, scan int) []string {
	return []string{source.SampleSQL(from(t), quote(col), scan)}
}

func (values) Distinct(t source.TableRef, col string, filter bool, limit int) string {
	return source.DistinctSQL(from(t), quote(col), filter, limit)
}

func (values) CountDistinct(t source.TableRef, col string, filter bool, scan int) string {
	return source.CountDistinctSQL(from(t), quote(col), filter, scan)
}

// Stats: DuckDB keeps no statistics a query can read.
func (values) Stats(context.Context, source.Reader, source.TableRef, string) (source.ColumnStats, bool, error) {
	return source.ColumnStats{}, false, nil
}

func from(t source.TableRef) string {
	if t.Schema == "" || t.Schema == "main" {
		return quote(t.Name)
	}
	return quote(t.Schema) + "." + quote(t.Name)
}
