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
// the same on every engine (engine "sqlite", "pg" or "mysql"): customers
// (n rows, id 1..n, the point lookup's table) and orders (2n rows, a status
// of five values for distinct_values), with an index on orders.customer_id.
func ShopSQL(engine string, n int) string {
	if engine == "mysql" {
		return shopMySQL(n)
	}
	series := fmt.Sprintf("generate_series(1, %d) AS s(g)", n)
	series2 := fmt.Sprintf("generate_series(1, %d) AS s(g)", 2*n)
	with, with2 := "", ""
	if engine == "sqlite" {
		with = fmt.Sprintf("WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < %d) ", n)
		with2 = fmt.Sprintf("WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < %d) ", 2*n)
		series, series2 = "s", "s"
	}
	cities, status := shopCity, shopStatus
	return strings.Join([]string{
		"CREATE TABLE customers (id integer PRIMARY KEY, name text NOT NULL, email text, city text, created_at text)",
		"CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers(id), status text NOT NULL, total numeric(10,2), created_at text)",
		with + "INSERT INTO customers SELECT g, 'customer ' || g, 'c' || g || '@example.com', " + cities + ", '2025-01-01' FROM " + series,
		with2 + fmt.Sprintf("INSERT INTO orders SELECT g, 1 + (g * 7919) %% %d, %s, (g %% 1000) / 10.0, '2025-02-01' FROM %s", n, status, series2),
		"CREATE INDEX orders_customer ON orders (customer_id)",
		"ANALYZE",
	}, ";\n") + ";\n"
}

// The shop's city and status of row g.
const (
	shopCity   = "(CASE g % 7 WHEN 0 THEN 'Lyon' WHEN 1 THEN 'Porto' WHEN 2 THEN 'Leeds' WHEN 3 THEN 'Graz' WHEN 4 THEN 'Turku' WHEN 5 THEN 'Split' ELSE 'Ghent' END)"
	shopStatus = "(CASE g % 5 WHEN 0 THEN 'new' WHEN 1 THEN 'paid' WHEN 2 THEN 'shipped' WHEN 3 THEN 'delivered' ELSE 'returned' END)"
)

// shopMySQL is the shop in MySQL's dialect (MySQL 8 and MariaDB alike):
// varchar for text (InnoDB keeps text off the row), the foreign key and
// its index in the table's definition (MySQL 8 ignores a column's
// REFERENCES), CONCAT for ||, and the rows numbered by a cross join of
// digits (no generate_series, and no recursion limit to raise).
func shopMySQL(n int) string {
	return strings.Join([]string{
		"CREATE TABLE customers (id integer PRIMARY KEY, name varchar(255) NOT NULL, email varchar(255), city varchar(255), created_at varchar(255))",
		"CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer NOT NULL, status varchar(255) NOT NULL, total numeric(10,2), created_at varchar(255), " +
			"KEY orders_customer (customer_id), FOREIGN KEY (customer_id) REFERENCES customers (id))",
		"INSERT INTO customers SELECT g, CONCAT('customer ', g), CONCAT('c', g, '@example.com'), " + shopCity + ", '2025-01-01' FROM " + numbersMySQL(n),
		fmt.Sprintf("INSERT INTO orders SELECT g, 1 + (g * 7919) %% %d, %s, (g %% 1000) / 10.0, '2025-02-01' FROM %s", n, shopStatus, numbersMySQL(2*n)),
		"ANALYZE TABLE customers, orders",
	}, ";\n") + ";\n"
}

// numbersMySQL is a derived table s(g) of 1..n in order.
func numbersMySQL(n int) string {
	digits := "(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 " +
		"UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)"
	var from, sum []string
	for k, p := 0, 1; p < n; k, p = k+1, p*10 {
		from = append(from, fmt.Sprintf("%s d%d", digits, k))
		sum = append(sum, fmt.Sprintf("%d * d%d.d", p, k))
	}
	if len(from) == 0 { // n = 1
		return "(SELECT 1 AS g) s"
	}
	return fmt.Sprintf("(SELECT 1 + %s AS g FROM %s) s WHERE g <= %d ORDER BY g", strings.Join(sum, " + "), strings.Join(from, " CROSS JOIN "), n)
}

// ScaleSQL creates n tables t0001..tNNNN of 20 columns each: id, a foreign
// key to the previous table, and 18 columns named from a vocabulary of 40
// words (so a common word is in many tables), one index and three rows
// each. Only the table at three quarters has a column zebra_code: a rare
// word for search_schema to find at every size. In MySQL's dialect
// (engine "mysql") text is varchar(255), timestamp is datetime (no
// automatic default), and the key and its index are in the table's
// definition.
func ScaleSQL(engine string, n int) string {
	words := strings.Fields(`name email created_at updated_at status price quantity note code amount region country
		city phone title rating weight color size discount tax total currency channel source priority score level
		version owner label comment flag category brand sku stock margin cost balance`)
	types := []string{"text", "integer", "numeric(12,2)", "timestamp", "boolean", "date"}
	my := engine == "mysql"
	spell := func(t string) string {
		if my && t == "text" {
			return "varchar(255)"
		}
		if my && t == "timestamp" {
			return "datetime"
		}
		return t
	}
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
		if t > 1 && !my {
			cols[1] += " REFERENCES " + name(t-1) + "(id)"
		}
		var ts []string
		for j := 0; j < 18; j++ {
			w := fmt.Sprintf("%s_%d", words[(t*7+j)%len(words)], j+1)
			if t == (3*n+3)/4 && j == 17 {
				w = "zebra_code"
			}
			ty := types[(t+j)%len(types)]
			cols = append(cols, w+" "+spell(ty))
			ts = append(ts, ty)
		}
		if my {
			cols = append(cols, "KEY "+name(t)+"_ref (ref_id)")
			if t > 1 {
				cols = append(cols, "FOREIGN KEY (ref_id) REFERENCES "+name(t-1)+" (id)")
			}
			fmt.Fprintf(&b, "CREATE TABLE %s (%s);\n", name(t), strings.Join(cols, ", "))
		} else {
			fmt.Fprintf(&b, "CREATE TABLE %s (%s);\nCREATE INDEX %s_ref ON %s (ref_id);\n", name(t), strings.Join(cols, ", "), name(t), name(t))
		}
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
	if my {
		var all []string
		for t := 1; t <= n; t++ {
			all = append(all, name(t))
		}
		b.WriteString("COMMIT;\nANALYZE TABLE " + strings.Join(all, ", ") + ";\n")
		return b.String()
	}
	b.WriteString("COMMIT;\nANALYZE;\n")
	return b.String()
}

// Exec runs text (statements separated by semicolons) on a SQLite file
// (engine "sqlite", db a path, created if missing), a PostgreSQL database
// (engine "pg", db a URL) or a MySQL or MariaDB one (engine "mysql", db a
// mysql:// URL).
func Exec(ctx context.Context, engine, db, text string) error {
	if engine == "mysql" {
		return execMySQL(ctx, db, text)
	}
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
