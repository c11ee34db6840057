package demo

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// mysqlBatch is how many rows one INSERT of the MySQL script holds.
const mysqlBatch = 1000

// MySQLScript returns the demo database at path (a file Build wrote) as
// MySQL and MariaDB statements that make the same tables, keys, indexes,
// rows and views in the current database: descriptions as table and
// column comments, text compared byte for byte (utf8mb4_bin) as SQLite
// compares it, REAL as DOUBLE, dates and times as DATE and DATETIME. Run
// them in order in an empty database; WriteMySQL writes them as a script.
func MySQLScript(ctx context.Context, path string) ([]string, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var out []string
	for _, t := range tables {
		out = append(out, t.mysqlCreate())
		rows, err := db.QueryContext(ctx, t.selectText())
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", t.name, err)
		}
		stmts, err := mysqlInserts(t, rows)
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", t.name, err)
		}
		out = append(out, stmts...)
	}
	for _, ix := range indexes {
		out = append(out, strings.ReplaceAll(ix, `"`, "`"))
	}
	for _, v := range views {
		body := v.sql
		if v.mysql != "" {
			body = v.mysql
		}
		out = append(out, "CREATE VIEW "+mysqlQuote(v.name)+" AS\n"+body)
	}
	return out, nil
}

// WriteMySQL writes MySQLScript's statements to w, each ended by a
// semicolon and a newline, as the mysql and mariadb clients read a script.
func WriteMySQL(ctx context.Context, w io.Writer, path string) error {
	stmts, err := MySQLScript(ctx, path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, s := range stmts {
		bw.WriteString(s)
		bw.WriteString(";\n")
	}
	return bw.Flush()
}

// mysqlQuote is name as a MySQL identifier, in backticks.
func mysqlQuote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// mysqlString is s as a MySQL string literal, read the same with or
// without NO_BACKSLASH_ESCAPES: a backslash or NUL goes as hexadecimal.
func mysqlString(s string) string {
	if strings.ContainsAny(s, "\\\x00") {
		return "CONVERT(X'" + hex.EncodeToString([]byte(s)) + "' USING utf8mb4)"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

var (
	references = regexp.MustCompile(`\s*REFERENCES\s+(\S+?)\((.+?)\)`)
	keyNames   = regexp.MustCompile(`"([^"]+)"|(\w+)`)
	refTable   = regexp.MustCompile(`REFERENCES (\w+)`)
)

// mysqlCreate is t's CREATE TABLE for MySQL: SQLite's declared types as
// MySQL's, inline REFERENCES as table-level foreign keys (MySQL ignores
// inline ones), text in key columns as VARCHAR, the descriptions as
// comments.
func (t table) mysqlCreate() string {
	keyed := map[string]bool{}
	for _, k := range t.keys {
		for _, m := range keyNames.FindAllStringSubmatch(k, -1) {
			keyed[m[1]+m[2]] = true
		}
	}
	var defs, fks []string
	for _, col := range t.cols {
		decl := col.decl
		if m := references.FindStringSubmatch(decl); m != nil {
			decl = strings.Replace(decl, m[0], "", 1)
			fks = append(fks, "FOREIGN KEY ("+mysqlQuote(col.name)+") REFERENCES "+mysqlQuote(m[1])+" ("+mysqlQuote(m[2])+")")
			keyed[col.name] = true
		}
		typ, rest, _ := strings.Cut(decl, " ")
		if strings.Contains(rest, "PRIMARY KEY") || strings.Contains(rest, "UNIQUE") {
			keyed[col.name] = true
		}
		def := mysqlQuote(col.name) + " " + mysqlType(typ, keyed[col.name])
		if rest != "" {
			def += " " + rest
		}
		desc := col.desc
		if col.vals != "" {
			desc += " Values: " + col.vals
		}
		defs = append(defs, def+" COMMENT "+mysqlString(desc))
	}
	for _, k := range t.keys {
		k = strings.ReplaceAll(k, `"`, "`")
		if strings.HasPrefix(k, "FOREIGN KEY") {
			k = refTable.ReplaceAllString(k, "REFERENCES `$1`")
		}
		defs = append(defs, k)
	}
	defs = append(defs, fks...)
	return "CREATE TABLE " + mysqlQuote(t.name) + " (\n  " + strings.Join(defs, ",\n  ") +
		"\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT=" + mysqlString(t.about)
}

// mysqlType is the MySQL type of a SQLite declared type; keyed text
// columns are VARCHAR, since MySQL indexes TEXT only by a prefix.
func mysqlType(typ string, keyed bool) string {
	switch typ {
	case "INTEGER":
		return "BIGINT"
	case "REAL":
		return "DOUBLE"
	case "TEXT":
		if keyed {
			return "VARCHAR(191)"
		}
		return "TEXT"
	case "BLOB":
		return "BLOB"
	}
	return typ // DATE, DATETIME
}

// selectText reads t's columns, dates and times as the text SQLite holds
// (the driver would make a column declared DATE a time.Time).
func (t table) selectText() string {
	cols := make([]string, len(t.cols))
	for i, col := range t.cols {
		cols[i] = quote(col.name)
		if strings.HasPrefix(col.decl, "DATE") {
			cols[i] += " || ''"
		}
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + quote(t.name)
}

// mysqlInserts reads t's rows and returns them as INSERTs of mysqlBatch
// rows each.
func mysqlInserts(t table, rows *sql.Rows) ([]string, error) {
	names := make([]string, len(t.cols))
	for i, col := range t.cols {
		names[i] = mysqlQuote(col.name)
	}
	head := "INSERT INTO " + mysqlQuote(t.name) + " (" + strings.Join(names, ", ") + ") VALUES\n"
	vals := make([]any, len(t.cols))
	ptrs := make([]any, len(t.cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []string
	var b strings.Builder
	n := 0
	flush := func() {
		if n > 0 {
			out = append(out, b.String())
		}
		b.Reset()
		n = 0
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		if n == 0 {
			b.WriteString(head)
		} else {
			b.WriteString(",\n")
		}
		b.WriteByte('(')
		for i, v := range vals {
			if i > 0 {
				b.WriteString(", ")
			}
			lit, err := mysqlLiteral(v, t.cols[i].decl)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", t.cols[i].name, err)
			}
			b.WriteString(lit)
		}
		b.WriteByte(')')
		if n++; n == mysqlBatch {
			flush()
		}
	}
	flush()
	return out, rows.Err()
}

// mysqlLiteral is one SQLite value as a MySQL literal.
func mysqlLiteral(v any, decl string) (string, error) {
	switch v := v.(type) {
	case nil:
		return "NULL", nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "", fmt.Errorf("%v has no MySQL literal", v)
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.Contains(s, "e") {
			s += "e0" // a DOUBLE literal, not a DECIMAL one
		}
		return s, nil
	case string:
		return mysqlString(v), nil
	case []byte:
		if strings.HasPrefix(decl, "BLOB") {
			return "X'" + hex.EncodeToString(v) + "'", nil
		}
		return mysqlString(string(v)), nil
	}
	return "", fmt.Errorf("unexpected value %T", v)
}
