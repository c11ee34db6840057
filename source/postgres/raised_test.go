package postgres_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
)

// TestRaisedMessagesStayOutOfLogs: a function the operator allowed may
// raise an error whose message is a row's value (RAISE EXCEPTION USING
// MESSAGE = v, under any SQLSTATE it likes). The model is told the message;
// the log's form of the error (Redacted) keeps its SQLSTATE alone, while
// an error of the engine's own wording keeps that wording.
func TestRaisedMessagesStayOutOfLogs(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, `CREATE TABLE s (v text);
INSERT INTO s VALUES ('quiet harbour lantern');
CREATE FUNCTION tell(t text) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION USING MESSAGE = t, ERRCODE = '22P02'; END $$;`)
	db := dbtest.Open(t, dsn, &source.Options{AllowFunctions: []string{"public.tell"}})
	_, err := db.Query(t.Context(), "SELECT tell(v) FROM s", 10)
	var ee *source.EngineError
	if !errors.As(err, &ee) || ee.Message != "quiet harbour lantern" {
		t.Fatalf("got %v, want the function's own message", err)
	}
	if got := ee.Redacted(); strings.Contains(got, "harbour") || !strings.Contains(got, "22P02") {
		t.Errorf("Redacted() = %q: want the SQLSTATE without the raised words", got)
	}
	_, err = db.Query(t.Context(), "SELECT 1 / (length(v) - 21) FROM s", 10)
	if !errors.As(err, &ee) || ee.Redacted() != "division by zero (SQLSTATE 22012)" {
		t.Errorf("the engine's own error logs as %q, want its wording kept", ee.Redacted())
	}
}
