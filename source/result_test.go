package source_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sqlmcp/sqlmcp/source"
)

// TestJSONSafeKeepsEveryDigit: a cell keeps its number as the engine gave
// it, and JSONSafe spells one a double cannot hold exactly as text, since
// clients (and the MCP SDK's own output check) read JSON numbers as
// doubles.
func TestJSONSafeKeepsEveryDigit(t *testing.T) {
	tests := []struct {
		in   any
		want any
	}{
		{int64(9007199254740992), int64(9007199254740992)},
		{int64(9007199254740993), "9007199254740993"},
		{int64(-9007199254740993), "-9007199254740993"},
		{json.Number("29.50"), json.Number("29.50")},
		{json.Number("123456789012345"), json.Number("123456789012345")},
		{json.Number("12345678901234567890.123456789"), "12345678901234567890.123456789"},
		{json.Number("0.000001234567890123456"), "0.000001234567890123456"},
		{json.Number("-1e300"), json.Number("-1e300")},
	}
	for _, tt := range tests {
		if got := source.Cell(tt.in, 100); !cmp.Equal(got, tt.in) {
			t.Errorf("Cell(%#v) = %#v, want it as it is", tt.in, got)
		}
		if got := source.JSONSafe(tt.in); !cmp.Equal(got, tt.want) {
			t.Errorf("JSONSafe(%#v) = %#v, want %#v", tt.in, got, tt.want)
		}
		if got := source.JSONSafe([]any{tt.in, "x"}); !cmp.Equal(got, []any{tt.want, "x"}) {
			t.Errorf("JSONSafe of an array of %#v = %#v", tt.in, got)
		}
	}
}
