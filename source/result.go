package source

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/text"
)

// Column describes one result column.
type Column struct {
	Name string `json:"name"`
	// Type is, on SQLite, the declared type of the column the value comes
	// from, as written ("INTEGER", "VARCHAR(20)"), "" for expressions; on
	// PostgreSQL, the value's type as format_type names it, without
	// modifiers ("integer", "character varying", "text[]").
	Type string `json:"type"`
	// Mask is set, by an engine enforcing a policy (see PolicyEnforcer),
	// on a column that carries a masked column's values: the door redacts
	// them before anything else sees them.
	Mask *guard.MaskedColumn `json:"-"`
}

// Result is a query's answer, cut to the limits with the cut reported.
type Result struct {
	Columns []Column
	// Rows hold typed cells: numbers (int64, float64, json.Number, at
	// full precision: JSON output spells those a double would change, see
	// tools), strings, bools, JSON documents (json.RawMessage), arrays
	// ([]any of cells) or nil. A BLOB becomes a short preview with its
	// size; long text is cut with a marker (internal/text).
	Rows [][]any
	// Truncated is true when the query had more rows than Rows holds: it is
	// exact, since one row past the cap is read to know.
	Truncated bool
	// TruncatedBy says which limit cut the rows: "rows", "bytes" or "".
	TruncatedBy string
	Elapsed     time.Duration
}

// budget counts rows and bytes against the limits.
type budget struct {
	maxRows, maxBytes, maxCell int
	rows, bytes                int
	cut                        string // "rows" or "bytes" once a row did not fit
}

func newBudget(l sqlmcp.Limits, maxRows int) *budget {
	return &budget{maxRows: maxRows, maxBytes: l.MaxBytes, maxCell: l.MaxCellBytes}
}

// maxColumnName is the most bytes of a column's name an answer shows: a
// query names an expression by its text, which can be megabytes, and the
// answer carries every name once or twice (PostgreSQL allows 1,664
// columns, SQLite 2,000).
const maxColumnName = 256

// cutNames is cols, copied, with every name longer than maxColumnName cut
// as a text cell is.
func cutNames(cols []Column) []Column {
	out := slices.Clone(cols)
	for i := range out {
		out[i].Name = text.Inline(out[i].Name, maxColumnName)
	}
	return out
}

// add converts row to JSON-safe cells and reports whether it fits; once a
// row does not fit, the result is cut and no more rows are wanted.
func (b *budget) add(row []any) ([]any, bool) {
	if b.rows == b.maxRows {
		b.cut = "rows"
		return nil, false
	}
	cells := make([]any, len(row))
	size := 2 // [ ]
	for i, v := range row {
		cells[i] = Cell(v, b.maxCell)
		size += cellSize(cells[i]) + 1
		// Stop converting as soon as the row cannot fit: the cells left
		// are not converted at all.
		if b.bytes+size > b.maxBytes {
			b.cut = "bytes"
			return nil, false
		}
	}
	b.rows++
	b.bytes += size
	return cells, true
}

// Cell turns an engine's value (see Conn.Run) into a cell: numbers stay
// numbers at full precision (infinities and NaN become strings, since JSON
// has none), text longer than maxText bytes is cut with a marker, and a
// BLOB becomes a preview with its size. A json.Number or JSON document
// stays as it is unless longer than maxText, when it becomes cut text; an
// array keeps the elements that fit in maxText, each a cell, and ends with
// a marker when some did not. A Partial shows what was read and the real
// size; a Lazy converts itself.
func Cell(v any, maxText int) any {
	switch v := v.(type) {
	case nil, bool, int64:
		return v
	case Lazy:
		return v.Cell(maxText)
	case json.Number:
		return v
	case json.RawMessage:
		if len(v) > maxText {
			return text.Inline(string(v), maxText)
		}
		return v
	case []any:
		return CutArray(v, maxText)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
		return v
	case string:
		return text.Inline(v, maxText)
	case []byte:
		return blobPreview(v, len(v))
	case Partial:
		if v.Blob {
			return blobPreview(v.Head, v.Size)
		}
		return text.Head(string(v.Head), maxText, v.Size)
	case time.Time:
		return v.Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// Lazy is a value whose conversion waits for Cell, so that a row the
// budget refuses is never converted whole (PostgreSQL's arrays, read as
// text). Cell returns what the value shows in at most about maxText bytes.
type Lazy interface{ Cell(maxText int) any }

// Partial is a text or BLOB value of which only the first bytes, Head,
// were read: Size is its real length in bytes.
type Partial struct {
	Head []byte
	Size int
	Blob bool
}

// JSONSafe spells a cell for JSON readers that decode numbers as
// doubles (JavaScript, and the MCP SDK when it checks output): an integer
// past 2^53, or a decimal with more than 15 significant digits, becomes
// its digits as a string; arrays are spelled element by element. Other
// cells are returned as they are.
func JSONSafe(c any) any {
	v, _ := jsonSafe(c)
	return v
}

// jsonSafe is JSONSafe, reporting whether it changed c.
func jsonSafe(c any) (any, bool) {
	switch v := c.(type) {
	case int64:
		if v > 1<<53 || v < -(1<<53) {
			return strconv.FormatInt(v, 10), true
		}
	case json.Number:
		if significantDigits(string(v)) > 15 {
			return string(v), true // more digits than a double keeps
		}
	case []any:
		var out []any
		for i, e := range v {
			s, changed := jsonSafe(e)
			if changed && out == nil {
				out = append(make([]any, 0, len(v)), v[:i]...)
			}
			if out != nil {
				out = append(out, s)
			}
		}
		if out != nil {
			return out, true
		}
	}
	return c, false
}

// significantDigits counts the significant digits of a decimal number.
func significantDigits(n string) int {
	n = strings.TrimLeft(strings.TrimLeft(n, "+-"), "0.")
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		n = n[:i]
	}
	if strings.Contains(n, ".") {
		n = strings.TrimRight(n, "0")
	}
	return len(strings.ReplaceAll(n, ".", ""))
}

// CutArray turns an array's elements into cells, keeping those that fit in
// max bytes and ending with a marker when some did not.
func CutArray(a []any, max int) []any { return CutArrayOf(a, len(a), max) }

// CutArrayOf is CutArray of an array of n elements of which only the
// first, head, were read.
func CutArrayOf(head []any, n, max int) []any {
	out := FitArray(head, max)
	if len(out) < n {
		return append(out, fmt.Sprintf("…[cut: %d of %d elements shown]", len(out), n))
	}
	return out
}

// FitArray turns the first elements of a that fit in max bytes into cells.
func FitArray(a []any, max int) []any {
	out := make([]any, 0, min(len(a), 64))
	size := 2 // [ ]
	for _, v := range a {
		c := Cell(v, max)
		if size+cellSize(c)+1 > max {
			break
		}
		size += cellSize(c) + 1
		out = append(out, c)
	}
	return out
}

// blobShow is how many bytes of a BLOB its preview shows.
const blobShow = 16

// blobPreview shows the size and first bytes of a BLOB of size bytes
// that starts with b.
func blobPreview(b []byte, size int) string {
	if size <= blobShow && len(b) == size {
		return fmt.Sprintf("<blob %d bytes: x'%s'>", size, hex.EncodeToString(b))
	}
	return fmt.Sprintf("<blob %d bytes: x'%s'…>", size, hex.EncodeToString(b[:min(blobShow, len(b))]))
}

// cellSize approximates a cell's JSON size.
func cellSize(c any) int {
	switch c := c.(type) {
	case nil:
		return 4
	case string:
		return len(c) + 2
	case int64:
		return len(strconv.FormatInt(c, 10))
	case float64:
		return len(strconv.FormatFloat(c, 'g', -1, 64))
	case bool:
		return 5
	case json.Number:
		return len(c)
	case json.RawMessage:
		return len(c)
	case []any:
		n := 2
		for _, e := range c {
			n += cellSize(e) + 1
		}
		return n
	}
	return len(fmt.Sprint(c))
}
