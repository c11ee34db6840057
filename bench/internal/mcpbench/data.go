package mcpbench

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	_ "github.com/mattn/go-sqlite3" // the driver sqlmcp uses
)

// ShopSQL is the SQL that creates and fills the small shop the calls read,
// the same on both engines (engine "sqlite" or "pg"): customers (n rows,
// id 1..n, the point lookup's table) and orders (2n rows, a status of five
// values for distinct_values), with an index on orders.customer_id.
func ShopSQL(engine string, n int) string {
	series := fmt.Sprintf("generate_series(1, %d) AS s(g)", n)
	series2 := fmt.Sprintf("generate_series(1, %d) AS s(g)", 2*n)
	with, with2 := "", ""
	if engine == "sqlite" {
		with = fmt.Sprintf("WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < %d) ", n)
		with2 = fmt.Sprintf("WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < %d) ", 2*n)
		series, series2 = "s", "s"
	}
	cities := "(CASE g % 7 WHEN 0 THEN 'Lyon' WHEN 1 THEN 'Porto' WHEN 2 THEN 'Leeds' WHEN 3 THEN 'Graz' WHEN 4 THEN 'Turku' WHEN 5 THEN 'Split' ELSE 'Ghent' END)"
	status := "(CASE g % 5 WHEN 0 THEN 'new' WHEN 1 THEN 'paid' WHEN 2 THEN 'shipped' WHEN 3 THEN 'delivered' ELSE 'returned' END)"
	return strings.Join([]string{
		"CREATE TABLE customers (id integer PRIMARY KEY, name text NOT NULL, email text, city text, created_at text)",
		"CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers(id), status text NOT NULL, total numeric(10,2), created_at text)",
		with + "INSERT INTO customers SELECT g, 'customer ' || g, 'c' || g || '@example.com', " + cities + ", '2025-01-01' FROM " + series,
		with2 + fmt.Sprintf("INSERT INTO orders SELECT g, 1 + (g * 7919) %% %d, %s, (g %% 1000) / 10.0, '2025-02-01' FROM %s", n, status, series2),
		"CREATE INDEX orders_customer ON orders (customer_id)",
		"ANALYZE",
	}, ";\n") + ";\n"
}

// ScaleSQL creates n tables t0001..tNNNN of 20 columns each: id, a foreign
// key to the previous table, and 18 columns named from a vocabulary of 40
// words (so a common word is in many tables), one index and three rows
// each. Only the table at three quarters has a column zebra_code: a rare
// word for search_schema to find at every size.
func ScaleSQL(engine string, n int) string {
	words := strings.Fields(`name email created_at updated_at status price quantity note code amount region country
		city phone title rating weight color size discount tax total currency channel source priority score level
		version owner label comment flag category brand sku stock margin cost balance`)
	types := []string{"text", "integer", "numeric(12,2)", "timestamp", "boolean", "date"}
	value := func(t string, r, j int) string {
		switch t {
		case "integer":
			return fmt.Sprint(r * j)
		case "numeric(12,2)":
			return fmt.Sprintf("%.2f", float64(r*j)/7)
		case "boolean":
			if engine == "pg" {
				return fmt.Sprint(r%2 == 1)
			}
			return fmt.Sprint(r % 2)
		case "timestamp":
			return fmt.Sprintf("'2025-01-0%d 10:00:00'", r)
		case "date":
			return fmt.Sprintf("'2025-01-0%d'", r)
		}
		return fmt.Sprintf("'v%d_%d'", r, j)
	}
	name := func(t int) string { return fmt.Sprintf("t%04d", t) }
	var b strings.Builder
	b.WriteString("BEGIN;\n")
	for t := 1; t <= n; t++ {
		if t%100 == 0 { // a transaction per 100 tables keeps PostgreSQL's lock table small
			b.WriteString("COMMIT;\nBEGIN;\n")
		}
		cols := []string{"id integer PRIMARY KEY", "ref_id integer"}
		if t > 1 {
			cols[1] += " REFERENCES " + name(t-1) + "(id)"
		}
		var ts []string
		for j := 0; j < 18; j++ {
			w := fmt.Sprintf("%s_%d", words[(t*7+j)%len(words)], j+1)
			if t == (3*n+3)/4 && j == 17 {
				w = "zebra_code"
			}
			ty := types[(t+j)%len(types)]
			cols = append(cols, w+" "+ty)
			ts = append(ts, ty)
		}
		fmt.Fprintf(&b, "CREATE TABLE %s (%s);\nCREATE INDEX %s_ref ON %s (ref_id);\n", name(t), strings.Join(cols, ", "), name(t), name(t))
		for r := 1; r <= 3; r++ {
			vals := []string{fmt.Sprint(r), "NULL"}
			if t > 1 {
				vals[1] = fmt.Sprint(r)
			}
			for j, ty := range ts {
				vals = append(vals, value(ty, r, j+1))
			}
			fmt.Fprintf(&b, "INSERT INTO %s VALUES (%s);\n", name(t), strings.Join(vals, ", "))
		}
	}
	b.WriteString("COMMIT;\nANALYZE;\n")
	return b.String()
}

// Exec runs text (statements separated by semicolons) on a SQLite file
// (engine "sqlite", db a path, created if missing) or a PostgreSQL
// database (engine "pg", db a URL).
func Exec(ctx context.Context, engine, db, text string) error {
	if engine == "sqlite" {
		d, err := sql.Open("sqlite3", db)
		if err != nil {
			return err
		}
		defer d.Close()
		_, err = d.ExecContext(ctx, text)
		return err
	}
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, text)
	return err
}
