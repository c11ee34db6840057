//go:build !noduckdb

package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"
	_ "github.com/mattn/go-sqlite3" // the demo's own file
)

// writeDemoParquet writes every table and view of the demo's SQLite file
// at path as a Parquet file in out, described in its key-value metadata
// (description, description:COLUMN) from the demo's annotations and
// column descriptions, the way the DuckDB engine reads them. It returns
// how many files it wrote. The DuckDB it writes with is this process's
// own, in memory, and reads nothing but what it is handed.
func writeDemoParquet(ctx context.Context, path, out string) (int, error) {
	src, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return 0, err
	}
	defer src.Close()
	connector, err := duckdb.NewConnector("?threads=1&autoload_known_extensions=false&autoinstall_known_extensions=false", nil)
	if err != nil {
		return 0, err
	}
	dst := sql.OpenDB(connector)
	defer dst.Close()
	dst.SetMaxOpenConns(1)
	conn, err := dst.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	rows, err := src.QueryContext(ctx, "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name")
	if err != nil {
		return 0, fmt.Errorf("listing the demo's tables: %w", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return 0, err
		}
		names = append(names, n)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	about := demoDescriptions(filepath.Dir(path))
	for _, name := range names {
		if err := copyTable(ctx, src, conn, name); err != nil {
			return 0, fmt.Errorf("writing %s: %w", name, err)
		}
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(about[name])) {
			kv = append(kv, quoteLit(k)+": "+quoteLit(about[name][k]))
		}
		meta := ""
		if len(kv) > 0 {
			meta = ", KV_METADATA {" + strings.Join(kv, ", ") + "}"
		}
		file := filepath.Join(out, name+".parquet")
		if _, err := conn.ExecContext(ctx, "COPY "+quoteIdent(name)+" TO "+quoteLit(file)+" (FORMAT parquet"+meta+")"); err != nil {
			return 0, fmt.Errorf("writing %s: %w", file, err)
		}
	}
	return len(names), nil
}

// copyTable makes name's columns in DuckDB with the types their
// declarations name, and appends its rows.
func copyTable(ctx context.Context, src *sql.DB, dst *sql.Conn, name string) error {
	rows, err := src.QueryContext(ctx, "SELECT * FROM "+quoteIdent(name))
	if err != nil {
		return err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	var cols []string
	kinds := make([]string, len(types))
	for i, t := range types {
		kinds[i] = duckType(t.DatabaseTypeName())
		cols = append(cols, quoteIdent(t.Name())+" "+kinds[i])
	}
	if _, err := dst.ExecContext(ctx, "CREATE TABLE "+quoteIdent(name)+" ("+strings.Join(cols, ", ")+")"); err != nil {
		return err
	}
	return dst.Raw(func(c any) error {
		a, err := duckdb.NewAppenderFromConn(c.(driver.Conn), "", name)
		if err != nil {
			return err
		}
		vals := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		row := make([]driver.Value, len(types))
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				a.Close()
				return err
			}
			for i, v := range vals {
				row[i] = demoValue(kinds[i], v)
			}
			if err := a.AppendRow(row...); err != nil {
				a.Close()
				return err
			}
		}
		if err := rows.Err(); err != nil {
			a.Close()
			return err
		}
		return a.Close()
	})
}

// duckType is the DuckDB type of a SQLite declared type, by SQLite's
// affinity rules, with dates kept as dates.
func duckType(decl string) string {
	d := strings.ToUpper(decl)
	switch {
	case strings.Contains(d, "INT"):
		return "BIGINT"
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return "DOUBLE"
	case d == "DATE":
		return "DATE"
	case strings.Contains(d, "DATETIME"), strings.Contains(d, "TIMESTAMP"):
		return "TIMESTAMP"
	case d == "BLOB":
		return "BLOB"
	}
	return "VARCHAR"
}

// demoValue is v as the appender takes it for a column of kind.
func demoValue(kind string, v any) driver.Value {
	switch v := v.(type) {
	case []byte:
		if kind != "BLOB" {
			return string(v)
		}
	case int64:
		if kind == "DOUBLE" {
			return float64(v)
		}
		if kind == "VARCHAR" {
			return fmt.Sprint(v)
		}
	case float64:
		if kind == "VARCHAR" {
			return fmt.Sprint(v)
		}
	}
	return v
}

// demoDescriptions reads the demo's annotations.json and
// database_description/<table>.csv beside it into Parquet key-value
// metadata, by table.
func demoDescriptions(dir string) map[string]map[string]string {
	out := map[string]map[string]string{}
	var ann struct {
		Tables map[string]struct{ Description string } `json:"tables"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "annotations.json")); err == nil && json.Unmarshal(b, &ann) == nil {
		for t, n := range ann.Tables {
			out[t] = map[string]string{"description": n.Description}
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "database_description", "*.csv"))
	for _, f := range files {
		t := strings.TrimSuffix(filepath.Base(f), ".csv")
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(b), "\uFEFF"))).ReadAll()
		if err != nil {
			continue
		}
		if out[t] == nil {
			out[t] = map[string]string{}
		}
		for _, r := range recs[1:] {
			if len(r) < 5 || r[2] == "" {
				continue
			}
			desc := r[2]
			if r[4] != "" {
				desc += " Values: " + r[4]
			}
			out[t]["description:"+r[0]] = desc
		}
	}
	return out
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func quoteLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
