package guard_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/guard"
)

func ExampleSQLite_Prepare() {
	dir, err := os.MkdirTemp("", "guard-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "shop.db")

	// Make a small database with a writable handle.
	setup, err := sql.Open("sqlite3", path)
	if err != nil {
		log.Fatal(err)
	}
	_, err = setup.Exec(`CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);
		INSERT INTO customers (name) VALUES ('Ada Lovelace'), ('Grace Hopper')`)
	setup.Close()
	if err != nil {
		log.Fatal(err)
	}

	// Serve it the way source does: read-only, with the guard installed on
	// the connection before it runs anything else.
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		g, err := guard.NewSQLite(dc.(*sqlite3.SQLiteConn))
		if err != nil {
			return err
		}

		st, err := g.Prepare("SELECT name FROM customers ORDER BY id")
		if err != nil {
			return err
		}
		defer st.Close()
		rows, err := st.(driver.StmtQueryContext).QueryContext(ctx, nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := make([]driver.Value, 1)
		for rows.Next(dest) == nil {
			fmt.Println("row:", dest[0])
		}

		_, err = g.Prepare("UPDATE customers SET name = 'x'")
		var refused *guard.Error
		if errors.As(err, &refused) {
			fmt.Println("refused:", refused.Reason)
			fmt.Println("hint:", refused.Hint)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// row: Ada Lovelace
	// row: Grace Hopper
	// refused: UPDATE of table "customers" is not allowed
	// hint: This server only reads: send one SELECT statement (WITH ... SELECT, UNION and EXPLAIN are fine)
}
