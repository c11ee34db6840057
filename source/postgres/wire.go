package postgres

import (
	"encoding/binary"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/sqlmcp/sqlmcp/internal/text"
)

// rowCutter sits between the PostgreSQL connection and pgx's protocol
// reader, so that no message sqlmcp holds is bigger than a bound known
// from the limits: a data row longer than over bytes is rewritten as it
// streams past, keeping at most cell bytes of each value and row bytes of
// all its values, and a cut value becomes its prefix, a NUL byte and its
// real length in decimal (text-format values never hold a NUL, so the cut
// cannot be mistaken for data; see splitCut). A long error or notice keeps
// the start of each field. Every other message passes through as it is,
// read straight into pgx's buffer, and pgx refuses those longer than its
// own bound.
type rowCutter struct {
	r               io.Reader
	over, cell, row int

	hdr   [5]byte
	nhdr  int    // bytes of hdr read but not handed on: a header split by a read
	out   []byte // rewritten bytes not yet handed on
	in    []byte // bytes read but not yet looked at
	pass  int    // bytes of the current message to hand on as they come
	c     *cutRow
	spare []byte // a buffer to read a cut message's body through
}

// cutRow is the state of one message being rewritten.
type cutRow struct {
	left      int    // body bytes still to read
	body      []byte // the rewritten body
	cols      int    // columns still to read; -1 before the count
	num       [4]byte
	nnum      int
	inValue   bool
	vlen      int // the current value's length; for fields, where its text starts
	vread     int // bytes of it read
	keep      int // bytes of it kept
	kept      int // bytes of values kept in this row
	cellLimit int
	rowLimit  int
	// fields: the body is an error's or notice's fields, each a code byte
	// and a NUL-terminated text, ended by a NUL.
	fields bool
}

// pgFieldBytes is how much of each field of a long error or notice is
// kept.
const pgFieldBytes = 4 << 10

func newRowCutter(r io.Reader, over, cell, row int) *rowCutter {
	return &rowCutter{r: r, over: over, cell: cell, row: row}
}

// Read hands on the stream with oversized messages rewritten. An error of
// the underlying reader leaves the state as it was, so a retried Read goes
// on where it stopped.
func (c *rowCutter) Read(p []byte) (int, error) {
	for {
		if len(c.out) > 0 {
			n := copy(p, c.out)
			c.out = c.out[n:]
			return n, nil
		}
		if c.c != nil {
			if err := c.readCut(); err != nil {
				return 0, err
			}
			continue
		}
		n, err := c.fill(p)
		if c.nhdr > 0 { // finish the header an earlier read split
			k := copy(c.hdr[c.nhdr:], p[:n])
			c.nhdr += k
			if c.nhdr < len(c.hdr) {
				if err != nil {
					return 0, err
				}
				continue
			}
			c.nhdr = 0
			c.keepBack(p[k:n])
			if !c.start() {
				c.out = c.hdr[:] // hdr is read again only once out is handed on
			}
			continue
		}
		if m := c.scan(p[:n]); m > 0 || err != nil {
			return m, err
		}
	}
}

// fill reads what was kept back first, then the connection.
func (c *rowCutter) fill(p []byte) (int, error) {
	if len(c.in) > 0 {
		n := copy(p, c.in)
		c.in = c.in[n:]
		return n, nil
	}
	return c.r.Read(p)
}

// keepBack puts b before what is kept back, to be read again.
func (c *rowCutter) keepBack(b []byte) {
	if len(b) > 0 {
		c.in = append(append(make([]byte, 0, len(b)+len(c.in)), b...), c.in...)
	}
}

// scan follows the messages in b, just read, and returns how many of its
// bytes to hand on as they are: all of them, or those before a header the
// read split or before a message to rewrite (the rest is kept back).
func (c *rowCutter) scan(b []byte) int {
	i := 0
	for i < len(b) {
		if c.pass > 0 {
			k := min(c.pass, len(b)-i)
			c.pass -= k
			i += k
			continue
		}
		if len(b)-i < len(c.hdr) {
			c.nhdr = copy(c.hdr[:], b[i:])
			return i
		}
		copy(c.hdr[:], b[i:])
		if c.start() {
			c.keepBack(b[i+len(c.hdr):])
			return i
		}
		i += len(c.hdr)
	}
	return i
}

// start reads the message header in hdr: it reports true, with the cut
// begun, for a message to rewrite, and otherwise lets its body pass.
func (c *rowCutter) start() bool {
	body := int(int32(binary.BigEndian.Uint32(c.hdr[1:]))) - 4
	if body > c.over {
		switch c.hdr[0] {
		case 'D':
			c.c = &cutRow{left: body, cols: -1, cellLimit: c.cell, rowLimit: c.row}
			return true
		case 'E', 'N': // an error or notice, quoting a long value
			c.c = &cutRow{left: body, fields: true, cellLimit: pgFieldBytes, rowLimit: c.over / 2}
			return true
		}
	}
	c.pass = max(body, 0)
	return false
}

// readCut reads more of the row being cut; once it is read whole, the
// rewritten message is ready in out.
func (c *rowCutter) readCut() error {
	if c.spare == nil {
		c.spare = make([]byte, 32<<10)
	}
	r := c.c
	n, err := c.fill(c.spare[:min(len(c.spare), r.left)])
	r.left -= n
	r.feed(c.spare[:n])
	if r.left > 0 {
		if err == nil || n > 0 {
			return nil
		}
		return err
	}
	msg := make([]byte, 5, 5+len(r.body))
	msg[0] = c.hdr[0]
	binary.BigEndian.PutUint32(msg[1:], uint32(len(r.body)+4))
	c.out = append(msg, r.body...)
	c.c = nil
	return nil
}

// feed takes the next bytes of a data row's body: the column count, then
// for each column its length (-1 for NULL) and its bytes.
func (r *cutRow) feed(b []byte) {
	if r.fields {
		r.feedFields(b)
		return
	}
	for len(b) > 0 {
		if r.cols == 0 { // more than the count said: pgx will refuse it
			r.body = append(r.body, b...)
			return
		}
		if r.cols < 0 { // the two-byte column count
			r.num[r.nnum] = b[0]
			r.nnum, b = r.nnum+1, b[1:]
			if r.nnum == 2 {
				r.body = append(r.body, r.num[:2]...)
				r.cols, r.nnum = int(binary.BigEndian.Uint16(r.num[:2])), 0
			}
			continue
		}
		if !r.inValue {
			r.num[r.nnum] = b[0]
			r.nnum, b = r.nnum+1, b[1:]
			if r.nnum < 4 {
				continue
			}
			r.nnum = 0
			r.vlen = int(int32(binary.BigEndian.Uint32(r.num[:])))
			if r.vlen <= 0 { // NULL or empty
				r.body = append(r.body, r.num[:]...)
				r.cols--
				continue
			}
			r.keep = min(r.vlen, r.cellLimit, max(r.rowLimit-r.kept, 0))
			r.kept += r.keep
			r.vread = 0
			r.inValue = true
			size := r.vlen
			if r.keep < r.vlen {
				size = r.keep + 1 + len(strconv.Itoa(r.vlen))
			}
			r.body = binary.BigEndian.AppendUint32(r.body, uint32(size))
			continue
		}
		n := min(len(b), r.vlen-r.vread)
		if r.vread < r.keep {
			r.body = append(r.body, b[:min(n, r.keep-r.vread)]...)
		}
		r.vread += n
		b = b[n:]
		if r.vread == r.vlen {
			if r.keep < r.vlen {
				r.body = append(r.body, 0)
				r.body = strconv.AppendInt(r.body, int64(r.vlen), 10)
			}
			r.inValue = false
			r.cols--
		}
	}
}

// feedFields takes the next bytes of an error's or notice's fields,
// keeping the first cellLimit bytes of each text and rowLimit in all; a
// text cut short ends with the marker every cut text carries (text.Marker).
func (r *cutRow) feedFields(b []byte) {
	for _, c := range b {
		switch {
		case !r.inValue: // a field's code, or the final NUL
			r.body = append(r.body, c)
			r.inValue, r.vread, r.vlen = c != 0, 0, len(r.body)
		case c == 0:
			if r.vread > r.keep {
				r.body = dropSplitRune(r.body, r.vlen)
				r.body = append(r.body, text.Marker(r.vread)...)
			}
			r.body = append(r.body, 0)
			r.inValue = false
		default:
			if r.vread == 0 {
				r.keep = min(r.cellLimit, max(r.rowLimit-r.kept, 0))
			}
			if r.vread < r.keep {
				r.body = append(r.body, c)
				r.kept++
			}
			r.vread++
		}
	}
}

// dropSplitRune drops the last rune of b[start:] when a cut split it.
func dropSplitRune(b []byte, start int) []byte {
	for i := len(b) - 1; i >= start && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}
