package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
)

// pgRelations is the WHERE clause every catalog query shares: tables,
// views, materialized views, partitioned and foreign tables, in the
// schemas asked for ($1, an array; empty for all but the system ones),
// partitions folded into their parents.
const pgRelations = `c.relkind IN ('r', 'v', 'm', 'p', 'f') AND NOT c.relispartition
	AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
	AND (cardinality($1::text[]) = 0 OR n.nspname = ANY($1::text[]))`

// pgKinds names relkinds.
var pgKinds = map[string]string{"r": "table", "v": "view", "m": "materialized view", "p": "partitioned table", "f": "foreign table"}

// pgTablesSQL lists the relations, with their estimated rows, descriptions and whether the role may read them (ReadTables).
const pgTablesSQL = `SELECT n.nspname, c.relname, c.relkind, c.reltuples::bigint,
			coalesce(obj_description(c.oid, 'pg_class'), ''), n.nspname = ANY(current_schemas(false)),
			has_schema_privilege(n.oid, 'USAGE'), has_any_column_privilege(c.oid, 'SELECT')
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE ` + pgRelations + ` ORDER BY 1, 2`

// pgColumnsSQL lists every column, in order, with its type, default and
// description, and its relation's oid and its number, which name it in a
// result's field descriptions (ReadTables, pgOrigins). The descriptions
// are joined, not looked up a column at a time (col_description), and
// whether a column is generated
// (attgenerated, since PostgreSQL 12: read from the row as JSON, which an
// older server lacks the column for) is asked only of columns with a
// default or generation expression: at 2,000 tables of 20 columns the two
// took 390 of the query's 430 ms. A column's description is the one whose
// classoid is pg_class's oid, 1259.
const pgColumnsSQL = `SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
			a.attnotnull, pg_get_expr(d.adbin, d.adrelid), coalesce(ds.description, ''),
			d.oid IS NOT NULL AND (SELECT coalesce(to_jsonb(g) ->> 'attgenerated', '') <> '' FROM pg_attribute g WHERE g.attrelid = a.attrelid AND g.attnum = a.attnum),
			c.oid, a.attnum
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		LEFT JOIN pg_description ds ON ds.objoid = c.oid AND ds.classoid = 1259 AND ds.objsubid = a.attnum
		WHERE a.attnum > 0 AND NOT a.attisdropped AND ` + pgRelations + ` ORDER BY 1, 2, a.attnum`

// pgPrimaryKeysSQL lists the primary keys' columns, with their place in the key (ReadTables).
const pgPrimaryKeysSQL = `SELECT n.nspname, c.relname, a.attname, k.ord
		FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
		WHERE i.indisprimary AND ` + pgRelations

// pgForeignKeysSQL lists the foreign keys, a row per column pair, in order (ReadTables).
const pgForeignKeysSQL = `SELECT n.nspname, c.relname, k.conname, rn.nspname, rc.relname, a.attname, ra.attname
		FROM pg_constraint k
		JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_class rc ON rc.oid = k.confrelid JOIN pg_namespace rn ON rn.oid = rc.relnamespace
		CROSS JOIN LATERAL unnest(k.conkey, k.confkey) WITH ORDINALITY AS u(attnum, refnum, ord)
		JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum
		JOIN pg_attribute ra ON ra.attrelid = k.confrelid AND ra.attnum = u.refnum
		WHERE k.contype = 'f' AND ` + pgRelations + ` ORDER BY 1, 2, 3, u.ord`

// pgIndexesSQL lists the indexes' columns, in order ("" for an expression) (ReadTables).
const pgIndexesSQL = `SELECT n.nspname, c.relname, ic.relname, i.indisunique, coalesce(a.attname, '')
		FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_class ic ON ic.oid = i.indexrelid
		CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
		LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum AND k.attnum > 0
		WHERE ` + pgRelations + ` ORDER BY 1, 2, 3, k.ord`

// catalogRead is one of ReadTables' statements and what it lists, for its
// error.
type catalogRead struct{ what, sql string }

// pgSchemaReads are ReadTables' reads, in the order it reads their rows.
var pgSchemaReads = []catalogRead{
	{"listing tables", pgTablesSQL}, {"listing columns", pgColumnsSQL}, {"listing primary keys", pgPrimaryKeysSQL},
	{"listing foreign keys", pgForeignKeysSQL}, {"listing indexes", pgIndexesSQL},
	{"listing what views read", pgViewReadsSQL}, {"listing the functions views call", pgViewCallsSQL},
	{"reading views' definitions", pgViewDefsSQL},
}

// pgStartReads are the reads of the start that ownCatalog may judge
// before the function catalog is read (catalogFor): the texts of
// pgSchemaReads, the list of schemas (Schemas) and those of the role's
// check (WriteAccess), for every server version. They read the system
// catalogs alone, with built-in functions and operators (TestOwnCatalog);
// any other statement, sqlmcp's own too, could meet a database's own
// operator that ownCatalog does not know.
var pgStartReads = func() map[string]bool {
	m := map[string]bool{pgSchemasSQL: true, pgServerVersionSQL: true}
	for _, rd := range pgSchemaReads {
		m[rd.sql] = true
	}
	for _, v := range pgWriteAccessVersions {
		m[pgWriteAccessSQL(v)] = true
	}
	return m
}()

// catalogReadsAtOnce is how many of ReadTables' reads run at once, each on
// a connection of its own. A read on a fresh connection first fills that
// backend's caches of the system catalogs, so more at once cost more than
// they save: on 2 cores, starting on 10 and on 2,000 tables (with the
// function catalog read beside them), 2 at once took 155 and 1,480 ms,
// 3 took 162 and 1,525, all 7 took 180 and 1,650, one at a time 157 and
// 1,673 (medians of 3).
const catalogReadsAtOnce = 2

// catalogReads runs the reads, catalogReadsAtOnce at a time, with schemas
// as $1, and returns their rows in order: they are independent
// statements, each in its own transaction as when they ran one after
// another.
func catalogReads(ctx context.Context, r source.Reader, schemas []string, reads []catalogRead) ([][][]any, error) {
	rows := make([][][]any, len(reads))
	errs := make([]error, len(reads))
	turns := make(chan struct{}, catalogReadsAtOnce)
	var wg sync.WaitGroup
	for i, rd := range reads {
		wg.Go(func() {
			turns <- struct{}{}
			defer func() { <-turns }()
			rows[i], errs[i] = r.Catalog(ctx, rd.sql, schemas)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", rd.what, errs[i])
			}
		})
	}
	wg.Wait()
	return rows, errors.Join(errs...)
}

// ReadTables reads the tables of the schemas asked for (empty: all but the
// system ones) in seven catalog queries through r, two at a time (catalogReads), the last two filling
// each view's Reads.
func (p *backend) ReadTables(ctx context.Context, r source.Reader, schemas []string) ([]source.TableDef, error) {
	if schemas == nil {
		schemas = []string{}
	}
	reads, err := catalogReads(ctx, r, schemas, pgSchemaReads)
	if err != nil {
		return nil, err
	}
	rows := reads[0]
	tables := make([]source.TableDef, len(rows))
	byKey := make(map[string]*source.TableDef, len(rows))
	for i, row := range rows {
		onPath, _ := row[5].(bool)
		tables[i] = source.TableDef{Schema: source.CellText(row[0]), Name: source.CellText(row[1]), Kind: pgKinds[source.CellText(row[2])], Description: source.CellText(row[4]),
			OnPath: onPath, Estimate: max(source.CellInt(row[3]), 0),
			Columns: []source.ColumnDef{}, ForeignKeys: []source.KeyDef{}, Indexes: []source.IndexDef{}}
		usage, _ := row[6].(bool)
		sel, _ := row[7].(bool)
		switch {
		case !usage:
			tables[i].Unreadable = "the role has no USAGE on schema " + tables[i].Schema
		case !sel:
			tables[i].Unreadable = "the role has no SELECT on it"
		}
		byKey[tables[i].Schema+"."+tables[i].Name] = &tables[i]
	}
	table := func(row []any) *source.TableDef { return byKey[source.CellText(row[0])+"."+source.CellText(row[1])] }

	rows = reads[1]
	origins := make(pgOrigins, len(rows))
	for _, row := range rows {
		t := table(row)
		if t == nil {
			continue
		}
		origins[pgOrigin{uint32(source.CellInt(row[8])), uint16(source.CellInt(row[9]))}] = [3]string{t.Schema, t.Name, source.CellText(row[2])}
		notNull, _ := row[4].(bool)
		generated, _ := row[7].(bool) // attgenerated, since PostgreSQL 12
		col := source.ColumnDef{Name: source.CellText(row[2]), Type: source.CellText(row[3]), Nullable: !notNull, Description: source.CellText(row[6]), Generated: generated}
		if row[5] != nil {
			d := source.CellText(row[5])
			col.Default = &d
		}
		t.Columns = append(t.Columns, col)
	}

	rows = reads[2]
	for _, row := range rows {
		if t := table(row); t != nil {
			for i := range t.Columns {
				if t.Columns[i].Name == source.CellText(row[2]) {
					t.Columns[i].PrimaryKey = int(source.CellInt(row[3]))
				}
			}
		}
	}

	rows = reads[3]
	lastKey := ""
	for _, row := range rows {
		t := table(row)
		if t == nil {
			continue
		}
		if key := source.CellText(row[0]) + "." + source.CellText(row[1]) + "." + source.CellText(row[2]); key != lastKey {
			t.ForeignKeys = append(t.ForeignKeys, source.KeyDef{RefSchema: source.CellText(row[3]), RefName: source.CellText(row[4])})
			lastKey = key
		}
		k := &t.ForeignKeys[len(t.ForeignKeys)-1]
		k.Columns = append(k.Columns, source.CellText(row[5]))
		k.RefColumns = append(k.RefColumns, source.CellText(row[6]))
	}

	rows = reads[4]
	for _, row := range rows {
		t := table(row)
		if t == nil {
			continue
		}
		name := source.CellText(row[2])
		if n := len(t.Indexes); n == 0 || t.Indexes[n-1].Name != name {
			unique, _ := row[3].(bool)
			t.Indexes = append(t.Indexes, source.IndexDef{Name: name, Unique: unique})
		}
		ix := &t.Indexes[len(t.Indexes)-1]
		col := source.CellText(row[4])
		if col == "" {
			col = "<expression>"
		}
		ix.Columns = append(ix.Columns, col)
	}
	readViewReads(reads[5], reads[6], reads[7], byKey)
	p.origins.Store(&origins)
	return tables, nil
}

// pgViewReadsSQL lists, for each view and materialized view, what its
// rewrite rule depends on in pg_depend: the other relations it reads, by
// column (refobjsubid > 0; system columns, below 0, are left out) or, when
// it reads none of their columns (count(*)), whole (refobjsubid 0).
// PostgreSQL records no column for a whole-row reference (t, t::text,
// row_to_json(t)), so whether the rule holds one is read from the rule's
// own tree: a Var of attribute number 0.
const pgViewReadsSQL = `WITH v AS (
	SELECT w.oid, w.ev_class, n.nspname, c.relname, w.ev_action::text ~ ':varattno 0 ' AS whole
	FROM pg_catalog.pg_rewrite w
	JOIN pg_catalog.pg_class c ON c.oid = w.ev_class JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('v', 'm') AND w.rulename = '_RETURN' AND ` + pgRelations + `
)
SELECT v.nspname, v.relname, rn.nspname, rc.relname, coalesce(a.attname, ''), v.whole
FROM v
JOIN pg_catalog.pg_depend d ON d.classid = 2618 AND d.objid = v.oid AND d.refclassid = 1259
	AND d.refobjid <> v.ev_class AND d.refobjsubid >= 0
JOIN pg_catalog.pg_class rc ON rc.oid = d.refobjid JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid AND d.refobjsubid > 0
ORDER BY 1, 2, 3, 4, 5`

// pgViewCallsSQL lists the views and materialized views whose rules call
// a function, or use an operator, that is not built in (OID 16384 and
// above): its body may read relations pg_depend does not show.
const pgViewCallsSQL = `SELECT n.nspname, c.relname
FROM pg_catalog.pg_rewrite w
JOIN pg_catalog.pg_class c ON c.oid = w.ev_class JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('v', 'm') AND w.rulename = '_RETURN' AND ` + pgRelations + `
	AND EXISTS (SELECT FROM pg_catalog.pg_depend f WHERE f.classid = 2618 AND f.objid = w.oid
		AND f.refclassid IN (1255, 2617) AND f.refobjid >= 16384)`

// pgViewDefsSQL reads the definitions of the views and materialized
// views, for the functions they call that pg_depend does not record: the
// built-in ones (readViewReads).
const pgViewDefsSQL = `SELECT n.nspname, c.relname, pg_catalog.pg_get_viewdef(c.oid)
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('v', 'm') AND ` + pgRelations

// readViewReads fills the Reads of the views and materialized views in
// byKey: each column of another relation the view reads, and the whole
// relation (Column "") where the view reads none of its columns
// (count(*)) or, for every relation it reads, when it holds a whole-row
// reference (which could be to any of them). A view that calls a function
// or operator not built in, or a built-in one the guard refuses in any
// query (query_to_xml, which runs SQL given as text, and the rest of
// guard.PostgresCallsDenied's), keeps Reads nil: what it reads cannot be
// told.
func readViewReads(rows, calls, defs [][]any, byKey map[string]*source.TableDef) {
	for _, t := range byKey {
		if t.Kind == "view" || t.Kind == "materialized view" {
			t.Reads = []source.ColumnRead{}
		}
	}
	for _, row := range calls {
		if t := byKey[source.CellText(row[0])+"."+source.CellText(row[1])]; t != nil {
			t.Reads = nil
		}
	}
	for _, row := range defs {
		if t := byKey[source.CellText(row[0])+"."+source.CellText(row[1])]; t != nil && guard.PostgresCallsDenied(source.CellText(row[2])) {
			t.Reads = nil
		}
	}
	type whole struct{ view, schema, table string }
	added := map[whole]bool{}
	for _, row := range rows {
		key := source.CellText(row[0]) + "." + source.CellText(row[1])
		t := byKey[key]
		if t == nil || t.Reads == nil {
			continue
		}
		read := source.ColumnRead{Schema: source.CellText(row[2]), Table: source.CellText(row[3]), Column: source.CellText(row[4])}
		w := whole{key, read.Schema, read.Table}
		if wholeRow, _ := row[5].(bool); (wholeRow || read.Column == "") && !added[w] {
			added[w] = true
			t.Reads = append(t.Reads, source.ColumnRead{Schema: read.Schema, Table: read.Table})
		}
		if read.Column != "" {
			t.Reads = append(t.Reads, read)
		}
	}
}

// Values is PostgreSQL's SQL for the value tools: sampling pages across a
// big table, and the planner's statistics.
func (p *backend) Values() source.ValueSQL {
	return values{source.SharedValues{Table: ref, Quote: quoteIdent}}
}

// values is the shared SQL with PostgreSQL's sampling and statistics.
type values struct{ source.SharedValues }

// ref is t as a query names it, schema-qualified.
func ref(t source.TableRef) string {
	if t.Schema == "" {
		return quoteIdent(t.Name)
	}
	return quoteIdent(t.Schema) + "." + quoteIdent(t.Name)
}

// Sample reads, from a big table, about scan rows from pages across the
// whole table (TABLESAMPLE SYSTEM), not only its first pages; then, or
// for a small one, the first rows.
func (v values) Sample(t source.TableRef, col string, scan int) []string {
	c := quoteIdent(col)
	first := source.SampleSQL(ref(t), c, scan)
	if t.Estimate < source.BigTable || t.Kind != "table" {
		return []string{first}
	}
	pct := min(100, 100*float64(scan)/float64(t.Estimate))
	return []string{source.SampleSQL(fmt.Sprintf("%s TABLESAMPLE SYSTEM (%.4f)", ref(t), pct), c, scan), first}
}

// pgStatsSQL reads a column's most common values, with their frequencies,
// and its estimated distinct count (negative: a fraction of the rows).
const pgStatsSQL = `SELECT u.v, u.f, s.n_distinct
	FROM pg_stats s, unnest(s.most_common_vals::text::text[], s.most_common_freqs) AS u(v, f)
	WHERE s.schemaname = $1 AND s.tablename = $2 AND s.attname = $3 ORDER BY u.f DESC`

// Stats reads pg_stats.
func (values) Stats(ctx context.Context, r source.Reader, t source.TableRef, col string) (source.ColumnStats, bool, error) {
	rows, err := r.Catalog(ctx, pgStatsSQL, t.Schema, t.Name, col)
	if err != nil || len(rows) == 0 {
		return source.ColumnStats{}, false, err
	}
	var st source.ColumnStats
	for _, row := range rows {
		f, _ := row[1].(float64)
		st.Common = append(st.Common, source.CommonValue{Value: source.CellText(row[0]), Fraction: f})
	}
	if nd, _ := rows[0][2].(float64); nd > 0 {
		st.Distinct = int64(nd)
	} else {
		st.Distinct = int64(-nd*float64(t.Estimate) + 0.5)
	}
	return st, true, nil
}

// pgSchemasSQL lists the schemas but the system ones (Schemas).
const pgSchemasSQL = `SELECT n.nspname, has_schema_privilege(n.oid, 'USAGE'), current_user
		FROM pg_namespace n WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
		ORDER BY 1`

// Schemas lists every schema but the system ones, whether the role may
// use each, and the role's name.
func (p *backend) Schemas(ctx context.Context, r source.Reader) ([]source.SchemaDef, string, error) {
	rows, err := r.Catalog(ctx, pgSchemasSQL)
	if err != nil {
		return nil, "", fmt.Errorf("listing schemas: %w", err)
	}
	var out []source.SchemaDef
	role := ""
	for _, row := range rows {
		usable, _ := row[1].(bool)
		out = append(out, source.SchemaDef{Name: source.CellText(row[0]), Usable: usable})
		role = source.CellText(row[2])
	}
	return out, role, nil
}
