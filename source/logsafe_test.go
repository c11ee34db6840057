package source_test

import (
	"testing"

	"github.com/sqlmcp/sqlmcp/source"
)

func TestRedactValues(t *testing.T) {
	tests := []struct{ msg, want string }{
		{`invalid input syntax for type integer: "secret-2"`, `invalid input syntax for type integer: …`},
		{`value "99999999999" is out of range for type integer`, `value "…" is out of range for type integer`},
		{`value "a" secret "b" is out of range for type integer`, `value "…" is out of range for type integer`},
		{`column "mail" does not exist`, `column "…" does not exist`},
		{`index 12 out of valid range, 0..3`, `index … out of valid range, …`},
		{`value too long for type character varying(5)`, `value too long for type character …`},
		{`invalid byte sequence for encoding "UTF8": 0x00`, `invalid byte sequence for encoding "…": …`},
		{`unterminated "secret`, `unterminated "…"`},
		{`ungültige Eingabesyntax für Typ integer: »geheim«`, `ungültige Eingabesyntax für Typ integer: …`},
		{`near "secret": syntax error`, `near "…": …`},
		{`no such column: secret`, `no such column: …`},
		{`division by zero`, `division by zero`},
		{"Could not parse string \"x\" according to format \"%Y\"\nROWSECRET\n^\nError: x", `Could not parse string "…" …`},
		{`ROWSECRET_ALICE`, `…`},
		{`mimFmikgmlnomhmDngmCmliEmjmFmD`, `…`},
		{`Invalid Input Error: x`, `Invalid Input Error: …`},
		{`Malformed JSON at byte 7 of input`, `Malformed … at byte … of input`},
	}
	for _, tt := range tests {
		if got := source.RedactValues(tt.msg); got != tt.want {
			t.Errorf("RedactValues(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}
