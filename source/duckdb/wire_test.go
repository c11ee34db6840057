package duckdb

import (
	"bufio"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// TestRowsNotSentFailTheStatement: a batch of rows the worker cannot
// write (here the writer fails; in life a message past gob's bound)
// fails the statement; it is never skipped, leaving an end that reads as
// fewer rows, or none.
func TestRowsNotSentFailTheStatement(t *testing.T) {
	registerCells()
	bw := bufio.NewWriterSize(failingWriter{}, 16)
	w := &workerSide{enc: gob.NewEncoder(bw), out: bw}
	rows := [][]any{{"a row"}, {"another"}}
	i := 0
	err := w.sendRows(context.Background(), request{ID: 1}, []wireColumn{{Name: "x"}}, func(dest []driver.Value) error {
		if i == len(rows) {
			return io.EOF
		}
		dest[0] = rows[i][0]
		i++
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "sending the result's rows") {
		t.Errorf("err = %v, want the rows that could not be sent", err)
	}
}

// TestFetchFailureIsNotTheEnd: the driver's end of rows counts only when
// DuckDB's result holds no error; a result whose chunk failed is the
// statement's error.
func TestFetchFailureIsNotTheEnd(t *testing.T) {
	var db mapping.Database
	if mapping.Open("", &db) == mapping.StateError {
		t.Fatal("opening DuckDB")
	}
	defer mapping.Close(&db)
	var c mapping.Connection
	if mapping.Connect(db, &c) == mapping.StateError {
		t.Fatal("connecting")
	}
	defer mapping.Disconnect(&c)
	var failed failedRows
	mapping.Query(c, "SELECT error('the chunk could not be read')", &failed.res)
	defer mapping.DestroyResult(&failed.res)
	err := fetched(&failed, io.EOF)
	if errors.Is(err, io.EOF) || !strings.Contains(fmt.Sprint(err), "the chunk could not be read") {
		t.Errorf("fetched = %v, want the result's error", err)
	}
	if err := fetched(&failed, errors.New("other")); err == nil || err.Error() != "other" {
		t.Errorf("fetched = %v, want Next's own error", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) {
	return 0, errors.New("the message cannot be written")
}

// failedRows stands for the driver's rows around a result that failed.
type failedRows struct {
	driver.Rows
	res mapping.Result
}

// TestResultOf: the driver's rows keep their DuckDB result where
// fetched looks for it, and a result read to its end is the end.
func TestResultOf(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		ps, err := dc.(*duckdb.Conn).PrepareContext(t.Context(), "SELECT i FROM range(5000) t(i)")
		if err != nil {
			return err
		}
		defer ps.Close()
		rows, err := ps.(*duckdb.Stmt).QueryContext(t.Context(), nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		if resultOf(rows) == nil {
			t.Fatalf("the driver's rows (%T) keep no result where resultOf looks: a fetch that fails would read as the end", rows)
		}
		dest, n := make([]driver.Value, 1), 0
		for {
			err := fetched(rows, rows.Next(dest))
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			n++
		}
		if n != 5000 {
			t.Errorf("%d rows, want 5000", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
