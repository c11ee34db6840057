package schema

import (
	"context"
	"fmt"

	"github.com/sqlmcp/sqlmcp/source"
)

// pgRelations is the WHERE clause every PostgreSQL catalog query shares:
// tables, views, materialized views, partitioned and foreign tables, in
// the schemas asked for ($1, an array; empty for all but the system ones),
// partitions folded into their parents.
const pgRelations = `c.relkind IN ('r', 'v', 'm', 'p', 'f') AND NOT c.relispartition
	AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
	AND (cardinality($1::text[]) = 0 OR n.nspname = ANY($1::text[]))`

// pgKinds names relkinds.
var pgKinds = map[string]string{"r": "table", "v": "view", "m": "materialized view", "p": "partitioned table", "f": "foreign table"}

// readPostgres reads the tables of the schemas asked for (nil: all but the
// system ones) in five catalog queries.
func readPostgres(ctx context.Context, db *source.DB, schemas []string) ([]*Table, error) {
	if schemas == nil {
		schemas = []string{}
	}
	rows, err := db.Catalog(ctx, `SELECT n.nspname, c.relname, c.relkind, c.reltuples::bigint,
			coalesce(obj_description(c.oid, 'pg_class'), ''), n.nspname = ANY(current_schemas(false)),
			has_schema_privilege(n.oid, 'USAGE'), has_any_column_privilege(c.oid, 'SELECT')
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE `+pgRelations+` ORDER BY 1, 2`, schemas)
	if err != nil {
		return nil, fmt.Errorf("listing tables: %w", err)
	}
	seen := map[string]int{}
	for _, r := range rows {
		seen[str(r[1])]++
	}
	byKey := make(map[string]*Table, len(rows))
	tables := make([]*Table, 0, len(rows))
	for _, r := range rows {
		t := &Table{Schema: str(r[0]), rel: str(r[1]), Kind: pgKinds[str(r[2])], Description: str(r[4]),
			Columns: []Column{}, ForeignKeys: []ForeignKey{}, ReferencedBy: []ForeignKey{}, Indexes: []Index{}}
		t.Name = t.rel
		if onPath, _ := r[5].(bool); !onPath || seen[t.rel] > 1 {
			t.Name = t.Schema + "." + t.rel
		}
		usage, _ := r[6].(bool)
		sel, _ := r[7].(bool)
		switch {
		case !usage:
			t.Unreadable = "the role has no USAGE on schema " + t.Schema
		case !sel:
			t.Unreadable = "the role has no SELECT on it"
		}
		if est := num(r[3]); est > 0 {
			t.estimate = est
		}
		byKey[t.Schema+"."+t.rel] = t
		tables = append(tables, t)
	}
	sortTables(tables)
	table := func(r []any) *Table { return byKey[str(r[0])+"."+str(r[1])] }

	if rows, err = db.Catalog(ctx, `SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
			a.attnotnull, pg_get_expr(d.adbin, d.adrelid), coalesce(col_description(c.oid, a.attnum), '')
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE a.attnum > 0 AND NOT a.attisdropped AND `+pgRelations+` ORDER BY 1, 2, a.attnum`, schemas); err != nil {
		return nil, fmt.Errorf("listing columns: %w", err)
	}
	for _, r := range rows {
		t := table(r)
		if t == nil {
			continue
		}
		notNull, _ := r[4].(bool)
		col := Column{Name: str(r[2]), Type: str(r[3]), Nullable: !notNull}
		if r[5] != nil {
			d := str(r[5])
			col.Default = &d
		}
		if desc := str(r[6]); desc != "" {
			col.Description = desc
		}
		t.Columns = append(t.Columns, col)
	}

	if rows, err = db.Catalog(ctx, `SELECT n.nspname, c.relname, a.attname, k.ord
		FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
		WHERE i.indisprimary AND `+pgRelations, schemas); err != nil {
		return nil, fmt.Errorf("listing primary keys: %w", err)
	}
	for _, r := range rows {
		if t := table(r); t != nil {
			for i := range t.Columns {
				if t.Columns[i].Name == str(r[2]) {
					t.Columns[i].PrimaryKey = int(num(r[3]))
				}
			}
		}
	}

	if rows, err = db.Catalog(ctx, `SELECT n.nspname, c.relname, k.conname, rn.nspname, rc.relname, a.attname, ra.attname
		FROM pg_constraint k
		JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_class rc ON rc.oid = k.confrelid JOIN pg_namespace rn ON rn.oid = rc.relnamespace
		CROSS JOIN LATERAL unnest(k.conkey, k.confkey) WITH ORDINALITY AS u(attnum, refnum, ord)
		JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum
		JOIN pg_attribute ra ON ra.attrelid = k.confrelid AND ra.attnum = u.refnum
		WHERE k.contype = 'f' AND `+pgRelations+` ORDER BY 1, 2, 3, u.ord`, schemas); err != nil {
		return nil, fmt.Errorf("listing foreign keys: %w", err)
	}
	lastKey := ""
	for _, r := range rows {
		t := table(r)
		if t == nil {
			continue
		}
		ref := byKey[str(r[3])+"."+str(r[4])]
		refName := str(r[3]) + "." + str(r[4])
		if ref != nil {
			refName = ref.Name
		}
		if key := str(r[0]) + "." + str(r[1]) + "." + str(r[2]); key != lastKey {
			t.ForeignKeys = append(t.ForeignKeys, ForeignKey{Table: t.Name, RefTable: refName})
			lastKey = key
		}
		k := &t.ForeignKeys[len(t.ForeignKeys)-1]
		k.Columns = append(k.Columns, str(r[5]))
		k.RefColumns = append(k.RefColumns, str(r[6]))
	}
	for _, t := range tables {
		for _, k := range t.ForeignKeys {
			for _, ref := range tables {
				if ref.Name == k.RefTable {
					ref.ReferencedBy = append(ref.ReferencedBy, k)
				}
			}
		}
	}

	if rows, err = db.Catalog(ctx, `SELECT n.nspname, c.relname, ic.relname, i.indisunique, coalesce(a.attname, '')
		FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_class ic ON ic.oid = i.indexrelid
		CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
		LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum AND k.attnum > 0
		WHERE `+pgRelations+` ORDER BY 1, 2, 3, k.ord`, schemas); err != nil {
		return nil, fmt.Errorf("listing indexes: %w", err)
	}
	for _, r := range rows {
		t := table(r)
		if t == nil {
			continue
		}
		name := str(r[2])
		if n := len(t.Indexes); n == 0 || t.Indexes[n-1].Name != name {
			unique, _ := r[3].(bool)
			t.Indexes = append(t.Indexes, Index{Name: name, Unique: unique})
		}
		ix := &t.Indexes[len(t.Indexes)-1]
		col := str(r[4])
		if col == "" {
			col = "<expression>"
		}
		ix.Columns = append(ix.Columns, col)
	}
	return tables, nil
}
