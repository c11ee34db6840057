//go:build !nomysql

package mysql

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/sqlmcp/sqlmcp/source"
)

// ReadTables reads tables, views, columns (with their full types, ENUM and
// SET values included, and comments), primary and foreign keys and indexes
// from information_schema, for the current database or the schemas named.
// Row counts are the server's estimates (TABLE_ROWS).
func (b *backend) ReadTables(ctx context.Context, r source.Reader, schemas []string) ([]source.TableDef, error) {
	where, args := "TABLE_SCHEMA = DATABASE()", []any{}
	if len(schemas) > 0 {
		where = "TABLE_SCHEMA IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(schemas)), ", ") + ")"
		for _, s := range schemas {
			args = append(args, s)
		}
	}
	rows, err := r.Catalog(ctx, `SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, TABLE_COMMENT, TABLE_ROWS,
		TABLE_SCHEMA = DATABASE() FROM information_schema.TABLES WHERE `+where+` ORDER BY TABLE_SCHEMA, TABLE_NAME`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing tables: %w", err)
	}
	var tables []source.TableDef
	at := map[[2]string]int{}
	for _, row := range rows {
		kind := "table"
		switch str(row[2]) {
		case "VIEW":
			kind = "view"
		case "SEQUENCE": // MariaDB's sequences are tables of one row
			continue
		}
		desc := str(row[3])
		if kind == "view" && desc == "VIEW" { // MySQL's comment on every view
			desc = ""
		}
		at[[2]string{str(row[0]), str(row[1])}] = len(tables)
		// The current database's tables are named bare, as queries name
		// them; another database's keep its name as their schema.
		schema := str(row[0])
		if num(row[5]) == 1 {
			schema = ""
		}
		tables = append(tables, source.TableDef{Schema: schema, Name: str(row[1]), Kind: kind,
			Description: desc, Estimate: num(row[4]), OnPath: num(row[5]) == 1})
	}
	find := func(row []any) *source.TableDef {
		if i, ok := at[[2]string{str(row[0]), str(row[1])}]; ok {
			return &tables[i]
		}
		return nil
	}
	rows, err = r.Catalog(ctx, `SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT,
		COLUMN_COMMENT FROM information_schema.COLUMNS WHERE `+where+` ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing columns: %w", err)
	}
	for _, row := range rows {
		t := find(row)
		if t == nil {
			continue
		}
		c := source.ColumnDef{Name: str(row[2]), Type: str(row[3]), Nullable: str(row[4]) == "YES", Description: str(row[6])}
		if row[5] != nil && str(row[5]) != "NULL" { // MariaDB writes DEFAULT NULL as the word
			d := str(row[5])
			c.Default = &d
		}
		t.Columns = append(t.Columns, c)
	}
	rows, err = r.Catalog(ctx, `SELECT TABLE_SCHEMA, TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, ORDINAL_POSITION,
		REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME
		FROM information_schema.KEY_COLUMN_USAGE WHERE `+where+` AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL)
		ORDER BY TABLE_SCHEMA, TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing keys: %w", err)
	}
	fks := map[[3]string]int{}
	for _, row := range rows {
		t := find(row)
		if t == nil {
			continue
		}
		if str(row[2]) == "PRIMARY" {
			for i := range t.Columns {
				if t.Columns[i].Name == str(row[3]) {
					t.Columns[i].PrimaryKey = int(num(row[4]))
				}
			}
			continue
		}
		k := [3]string{t.Schema, t.Name, str(row[2])}
		i, ok := fks[k]
		if !ok {
			i = len(t.ForeignKeys)
			fks[k] = i
			ref := str(row[5])
			if ref == b.cfg.DBName {
				ref = ""
			}
			t.ForeignKeys = append(t.ForeignKeys, source.KeyDef{RefSchema: ref, RefName: str(row[6])})
		}
		t.ForeignKeys[i].Columns = append(t.ForeignKeys[i].Columns, str(row[3]))
		t.ForeignKeys[i].RefColumns = append(t.ForeignKeys[i].RefColumns, str(row[7]))
	}
	rows, err = r.Catalog(ctx, `SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, NON_UNIQUE, COALESCE(COLUMN_NAME, '<expression>')
		FROM information_schema.STATISTICS WHERE `+where+` ORDER BY TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing indexes: %w", err)
	}
	for _, row := range rows {
		t := find(row)
		if t == nil {
			continue
		}
		name := str(row[2])
		if n := len(t.Indexes); n == 0 || t.Indexes[n-1].Name != name {
			t.Indexes = append(t.Indexes, source.IndexDef{Name: name, Unique: num(row[3]) == 0})
		}
		ix := &t.Indexes[len(t.Indexes)-1]
		ix.Columns = append(ix.Columns, str(row[4]))
	}
	sort.SliceStable(tables, func(i, j int) bool { return tables[i].Name < tables[j].Name })
	return tables, nil
}

// Values is MySQL's SQL for the value tools.
func (b *backend) Values() source.ValueSQL { return values{} }

type values struct{}

func from(t source.TableRef) string {
	if t.Schema == "" {
		return quote(t.Name)
	}
	return quote(t.Schema) + "." + quote(t.Name)
}

// Sample reads the distinct values among the first scan non-NULL rows:
// MySQL has no page sampling, and the LIMIT keeps a big table unscanned.
func (values) Sample(t source.TableRef, col string, scan int) []string {
	return []string{source.SampleSQL(from(t), quote(col), scan)}
}

func (values) Distinct(t source.TableRef, col string, filter bool, limit int) string {
	c := quote(col)
	return fmt.Sprintf("SELECT %s, COUNT(*) AS n FROM %s%s GROUP BY %s ORDER BY n DESC, CAST(%s AS CHAR) LIMIT %d",
		c, from(t), containsFilter(c, filter), c, c, limit)
}

func (values) CountDistinct(t source.TableRef, col string, filter bool, scan int) string {
	c := quote(col)
	return fmt.Sprintf("SELECT COUNT(*) FROM (SELECT DISTINCT %s FROM %s%s LIMIT %d) AS d", c, from(t), containsFilter(c, filter), scan+1)
}

func containsFilter(col string, filter bool) string {
	if !filter {
		return ""
	}
	return fmt.Sprintf(` WHERE LOWER(CAST(%s AS CHAR)) LIKE CONCAT('%%', LOWER(?), '%%')`, col)
}

// Stats: sqlmcp reads no MySQL statistics of values.
func (values) Stats(context.Context, source.Reader, source.TableRef, string) (source.ColumnStats, bool, error) {
	return source.ColumnStats{}, false, nil
}

// readOnlyPrivileges are the privileges that cannot change data or the
// schema.
var readOnlyPrivileges = map[string]bool{
	"SELECT": true, "SHOW VIEW": true, "USAGE": true, "SHOW DATABASES": true, "PROCESS": true,
	"REPLICATION CLIENT": true, "BINLOG MONITOR": true, "SLAVE MONITOR": true, "REPLICA MONITOR": true,
}

// WriteAccess reads SHOW GRANTS for the account sqlmcp connected as and
// lists each grant that could change something were the read-only walls
// not there: any privilege but SELECT, SHOW VIEW and the monitoring ones,
// CREATE TEMPORARY TABLES included (a READ ONLY transaction still lets a
// session write temporary tables).
func (b *backend) WriteAccess(ctx context.Context, _ source.Reader) ([]string, error) {
	grants, err := b.grants(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, g := range grants {
		if w := writeGrant(g); w != "" {
			out = append(out, w)
		}
	}
	return out, nil
}

// grants reads SHOW GRANTS for the account sqlmcp connected as: sqlmcp's
// own fixed statement, sent outside the guard, which refuses SHOW.
func (b *backend) grants(ctx context.Context) ([]string, error) {
	rows, err := b.kill.QueryContext(ctx, "SHOW GRANTS")
	if err != nil {
		return nil, fmt.Errorf("reading the account's grants: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// Warnings warns when the account holds PROCESS (ALL PRIVILEGES ON *.*
// holds it too), with which the server shows it every session's
// statement, every account's: the guard refuses the tables that show
// them, but an account without PROCESS keeps other accounts' statements
// out of its reach whatever a query names. It reads SHOW GRANTS, within
// the connection timeout, and says nothing when it cannot.
func (b *backend) Warnings() []source.Warning {
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	grants, err := b.grants(ctx)
	if err != nil {
		return nil
	}
	for _, g := range grants {
		if processGrant(g) {
			return []source.Warning{{Event: "role", Message: "the account holds PROCESS (" + strings.TrimSpace(strings.SplitN(g, " TO ", 2)[0]) +
				"), so the server shows it every session's statements; sqlmcp refuses the tables that show them " +
				"(information_schema.PROCESSLIST and the like), but connect as an account without PROCESS so the server keeps them from it too"}}
		}
	}
	return nil
}

// processGrant reports whether one SHOW GRANTS line grants PROCESS, alone
// or within ALL PRIVILEGES: a global privilege, granted ON *.* only.
func processGrant(g string) bool {
	rest, ok := strings.CutPrefix(g, "GRANT ")
	if !ok {
		return false
	}
	privs, on, ok := strings.Cut(rest, " ON ")
	if !ok || !strings.HasPrefix(on, "*.* ") {
		return false
	}
	for _, p := range strings.Split(privs, ",") {
		if p = strings.TrimSpace(p); p == "PROCESS" || p == "ALL PRIVILEGES" || p == "ALL" {
			return true
		}
	}
	return false
}

// writeGrant returns the part of one SHOW GRANTS line that grants more
// than reading ("ALL PRIVILEGES ON *.*"), or "".
func writeGrant(g string) string {
	rest, ok := strings.CutPrefix(g, "GRANT ")
	if !ok {
		return ""
	}
	privs, on, ok := strings.Cut(rest, " ON ")
	if !ok {
		return "" // a role granted: its own grants are not read
	}
	on, _, _ = strings.Cut(on, " TO ")
	var writes []string
	for _, p := range strings.Split(privs, ",") {
		p = strings.TrimSpace(p)
		if i := strings.IndexByte(p, '('); i >= 0 { // column privileges
			p = strings.TrimSpace(p[:i])
		}
		if !readOnlyPrivileges[p] {
			writes = append(writes, p)
		}
	}
	if len(writes) == 0 {
		return ""
	}
	return strings.Join(writes, ", ") + " ON " + on
}

// ReadOnlyRoleSQL gives the statements that make an account that can only
// read the database.
func (b *backend) ReadOnlyRoleSQL(role string) string {
	db := quote(b.cfg.DBName)
	return fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '...';\nGRANT SELECT, SHOW VIEW ON %s.* TO '%s'@'%%';", role, db, role)
}
