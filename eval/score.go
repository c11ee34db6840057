package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/builtin"
)

// Timeout is how long the scorer lets one statement run, as BIRD's
// evaluation script does.
const Timeout = 30 * time.Second

// scoreLimits let the scorer see a whole result: BIRD compares every row,
// so a result is never cut; one larger than this is an error instead.
var scoreLimits = sqlmcp.Limits{
	MaxRows:      1_000_000,
	MaxRowsLimit: 1_000_000,
	MaxBytes:     1 << 30,
	MaxCellBytes: 1 << 30,
}

// OpenDB opens the database dsn names for scoring with the first of
// engines that claims it (nil: the built-in ones): read-only and guarded
// like every sqlmcp connection, with no practical row cap, each statement
// stopped after timeout (zero means Timeout).
func OpenDB(ctx context.Context, dsn string, timeout time.Duration, engines []source.Engine) (*source.DB, error) {
	l := scoreLimits
	l.Timeout = timeout
	if l.Timeout <= 0 {
		l.Timeout = Timeout
	}
	if len(engines) == 0 {
		engines = builtin.Engines(nil)
	}
	return source.Open(ctx, dsn, &source.Options{Limits: l, Engines: engines})
}

// SideError is an error running the gold or the predicted SQL while
// scoring: either makes the prediction wrong.
type SideError struct {
	Side string // "gold" or "predicted"
	Err  error
}

func (e *SideError) Error() string { return e.Side + " SQL: " + e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }

// Score runs gold and predicted on db and reports whether the prediction
// is right by BIRD's rule: the set of predicted rows equals the set of
// gold rows. Row order and duplicate rows do not matter; column order and
// count do; values compare as Python compares sqlite3's values (1 equals
// 1.0, the text '1' differs from the integer 1, NULL equals NULL within a
// row) and, on PostgreSQL and MySQL, psycopg's and PyMySQL's (a numeric
// or DECIMAL equals an integer or a float of exactly its value, true
// equals 1), except that dates and times
// compare as the text source gives them, so a date equals its text. An
// error on either side, a timeout, or a result too large to hold whole
// makes it wrong: Score then returns false and a *SideError saying which
// side failed. db should come from OpenDB.
func Score(ctx context.Context, db *source.DB, gold, predicted string) (bool, error) {
	g, err := rowSet(ctx, db, gold)
	if err != nil {
		return false, &SideError{"gold", err}
	}
	p, err := rowSet(ctx, db, predicted)
	if err != nil {
		return false, &SideError{"predicted", err}
	}
	if len(g) != len(p) {
		return false, nil
	}
	for k := range g {
		if !p[k] {
			return false, nil
		}
	}
	return true, nil
}

// errTooLarge is a result larger than scoreLimits: scoring a cut result
// could call a wrong answer right.
var errTooLarge = errors.New("the result is larger than the scorer holds")

// rowSet runs sql and returns the set of its rows' keys.
func rowSet(ctx context.Context, db *source.DB, sql string) (map[string]bool, error) {
	res, err := db.Query(ctx, sql, db.Limits().MaxRowsLimit)
	if err != nil {
		return nil, err
	}
	if res.Truncated {
		return nil, fmt.Errorf("%w (cut by %s at %d rows)", errTooLarge, res.TruncatedBy, len(res.Rows))
	}
	// Cells are the engine's values at full precision (source spells
	// none as text), so each compares as it is.
	set := make(map[string]bool, len(res.Rows))
	for _, row := range res.Rows {
		set[rowKey(row)] = true
	}
	return set, nil
}

// rowKey is a row's identity for the set comparison: each cell's key,
// length-prefixed so no two rows share one.
func rowKey(row []any) string {
	var b []byte
	for _, v := range row {
		k := cellKey(v)
		b = strconv.AppendInt(b, int64(len(k)), 10)
		b = append(b, ':')
		b = append(b, k...)
	}
	return string(b)
}

// cellKey is a value's identity: numbers by their exact value, so the
// integer 1, the real 1.0 and PostgreSQL's numeric 1.00 share a key as
// they are equal in Python; text by its bytes, never equal to a number;
// NULL as itself.
func cellKey(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool: // Python's True == 1
		if v {
			return "n1"
		}
		return "n0"
	case int64:
		return "n" + strconv.FormatInt(v, 10)
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(v) == nil {
			return "f" + strconv.FormatFloat(v, 'g', -1, 64) // NaN and infinities, which source sends as text anyway
		}
		return "n" + r.RatString()
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(v)); ok {
			return "n" + r.RatString()
		}
		return "t" + string(v)
	case string:
		return "t" + v
	case json.RawMessage:
		return "j" + string(v)
	}
	b, _ := json.Marshal(v)
	return "j" + string(b)
}

// errorKind names the kind of a scoring or answering error, for the
// summary: "refused" (the guard), "timeout", "too large", "gold" (the
// gold SQL failed) or "sql error".
func errorKind(err error) string {
	var se *SideError
	if errors.As(err, &se) && se.Side == "gold" {
		return "gold"
	}
	var ge *guard.Error
	var te *source.TimeoutError
	switch {
	case errors.As(err, &ge):
		return "refused"
	case errors.As(err, &te):
		return "timeout"
	case errors.Is(err, errTooLarge):
		return "too large"
	}
	return "sql error"
}
