package postgres

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sqlmcp/sqlmcp/internal/text"
)

// pgMessage frames body as a protocol message of type typ.
func pgMessage(typ byte, body []byte) []byte {
	m := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(m[1:], uint32(len(body)+4))
	return append(m, body...)
}

// pgDataRow builds a DataRow body; a nil value is NULL.
func pgDataRow(values ...[]byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(values)))
	for _, v := range values {
		if v == nil {
			b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return b
}

// trickle hands out one byte per Read, and a timeout before every fifth,
// as a slow socket with deadlines would.
type trickle struct {
	b []byte
	n int
}

var errTimeout = errors.New("i/o timeout")

func (t *trickle) Read(p []byte) (int, error) {
	if len(t.b) == 0 {
		return 0, io.EOF
	}
	if t.n++; t.n%5 == 0 {
		return 0, errTimeout
	}
	p[0], t.b = t.b[0], t.b[1:]
	return 1, nil
}

func TestRowCutter(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 100)
	var in, want []byte
	// A short row passes as it is, a long one is cut value by value, with
	// the row's allowance (22 bytes) spent on the first values.
	in = append(in, pgMessage('D', pgDataRow([]byte("a"), nil))...)
	want = append(want, pgMessage('D', pgDataRow([]byte("a"), nil))...)
	in = append(in, pgMessage('D', pgDataRow(long, nil, []byte("short"), long, long, []byte{}))...)
	want = append(want, pgMessage('D', pgDataRow([]byte("xxxxxxxxxx\x00100"), nil, []byte("short"),
		[]byte("xxxxxxx\x00100"), []byte("\x00100"), []byte{}))...)
	in = append(in, pgMessage('D', pgDataRow(bytes.Repeat(long, 20)))...)
	want = append(want, pgMessage('D', pgDataRow([]byte("xxxxxxxxxx\x002000")))...)
	// A long error keeps the start of each field, and half the bound in
	// all; other messages pass.
	in = append(in, pgMessage('E', []byte("SERROR\x00M"+strings.Repeat("m", 5000)+"\x00\x00"))...)
	want = append(want, pgMessage('E', []byte("SERROR\x00M"+strings.Repeat("m", 20)+"…[cut: 5000 bytes in all]\x00\x00"))...)
	in = append(in, pgMessage('C', []byte(strings.Repeat("c", 300)+"\x00"))...)
	want = append(want, pgMessage('C', []byte(strings.Repeat("c", 300)+"\x00"))...)

	for _, tt := range []struct {
		name string
		r    io.Reader
		buf  int
	}{
		{"a byte at a time, with timeouts", &trickle{b: in}, 7},
		{"in one read", bytes.NewReader(in), 1 << 16},
		{"in reads of 100 bytes", bytes.NewReader(in), 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newRowCutter(tt.r, 50, 10, 22)
			var got []byte
			buf := make([]byte, tt.buf)
			for {
				n, err := c.Read(buf)
				got = append(got, buf[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil && err != errTimeout {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stream (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitCut(t *testing.T) {
	for _, tt := range []struct {
		in     string
		prefix string
		total  int
		cut    bool
	}{
		{"plain", "plain", 5, false},
		{"abc\x00123456", "abc", 123456, true},
		{"\x007", "", 7, true},
	} {
		p, n, cut := splitCut([]byte(tt.in))
		if string(p) != tt.prefix || n != tt.total || cut != tt.cut {
			t.Errorf("splitCut(%q) = %q, %d, %v", tt.in, p, n, cut)
		}
	}
}

// TestCutKeepsRunesWhole: a value or an error field cut inside a
// multi-byte character loses that character, not half of it.
func TestCutKeepsRunesWhole(t *testing.T) {
	if got := text.Head("aé", 2, 3); got != "a…[cut: 3 bytes in all]" {
		t.Errorf("cut.Head = %q", got)
	}
	if got := text.Head("ab\xc3", 9, 30); got != "ab…[cut: 30 bytes in all]" {
		t.Errorf("cut.Head of a prefix read cut = %q", got)
	}
	if got := dropSplitRune([]byte("Mxé\xc3"), 1); string(got) != "Mxé" {
		t.Errorf("dropSplitRune = %q", got)
	}
}

func TestIdentAt(t *testing.T) {
	for _, tt := range []struct {
		sql  string
		pos  int
		want string
	}{
		{"SELECT mail FROM customers", 8, "mail"},
		{"SELECT * FROM Public.Customer", 15, "public.customer"},
		{`SELECT * FROM "My ""T"".x".y WHERE 1`, 15, `My "T".x.y`},
		{"SELECT c.mail FROM customers c", 8, "c.mail"},
		{"SELECT é FROM t", 8, "é"},
		{"SELECT ‹x› FROM customer", 17, "customer"},
		{"SELECT 1", 8, ""},
		{"SELECT 1", 0, ""},
		{"SELECT 1", 99, ""},
	} {
		if got := identAt(tt.sql, tt.pos); got != tt.want {
			t.Errorf("identAt(%q, %d) = %q, want %q", tt.sql, tt.pos, got, tt.want)
		}
	}
}
