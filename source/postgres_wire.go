package source

import (
	"encoding/binary"
	"io"
	"strconv"
)

// rowCutter sits between the PostgreSQL connection and pgx's protocol
// reader, so that no message sqlmcp holds is bigger than a bound known
// from the limits: a data row longer than over bytes is rewritten as it
// streams past, keeping at most cell bytes of each value and row bytes of
// all its values, and a cut value becomes its prefix, a NUL byte and its
// real length in decimal (text-format values never hold a NUL, so the cut
// cannot be mistaken for data; see splitCut). Every other message passes
// through as it is, and pgx refuses those longer than its own bound.
type rowCutter struct {
	r               io.Reader
	over, cell, row int

	hdr   [5]byte
	nhdr  int
	out   []byte // rewritten bytes not yet handed on
	pass  int    // bytes of the current message to copy as they come
	c     *cutRow
	spare []byte // a buffer to read a cut row's body through
}

// cutRow is the state of one data row being rewritten.
type cutRow struct {
	left      int    // body bytes still to read
	body      []byte // the rewritten body
	cols      int    // columns still to read; -1 before the count
	num       [4]byte
	nnum      int
	inValue   bool
	vlen      int // the current value's length
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

// Read hands on the stream with oversized data rows rewritten. An error of
// the underlying reader leaves the state as it was, so a retried Read goes
// on where it stopped.
func (c *rowCutter) Read(p []byte) (int, error) {
	for {
		switch {
		case len(c.out) > 0:
			n := copy(p, c.out)
			c.out = c.out[n:]
			return n, nil
		case c.pass > 0:
			n, err := c.r.Read(p[:min(len(p), c.pass)])
			c.pass -= n
			return n, err
		case c.c != nil:
			if err := c.readCut(); err != nil {
				return 0, err
			}
		default:
			n, err := c.r.Read(c.hdr[c.nhdr:])
			c.nhdr += n
			if c.nhdr < len(c.hdr) {
				if err == nil {
					continue
				}
				return 0, err
			}
			c.nhdr = 0
			body := int(int32(binary.BigEndian.Uint32(c.hdr[1:]))) - 4
			if body > c.over {
				switch c.hdr[0] {
				case 'D':
					c.c = &cutRow{left: body, cols: -1, cellLimit: c.cell, rowLimit: c.row}
					continue
				case 'E', 'N': // an error or notice, quoting a long value
					c.c = &cutRow{left: body, fields: true, cellLimit: pgFieldBytes, rowLimit: c.over / 2}
					continue
				}
			}
			c.out = append(c.out[:0], c.hdr[:]...)
			c.pass = max(body, 0)
			// An error with the header whole is reported by the next Read.
		}
	}
}

// readCut reads more of the row being cut; once it is read whole, the
// rewritten message is ready in out.
func (c *rowCutter) readCut() error {
	if c.spare == nil {
		c.spare = make([]byte, 32<<10)
	}
	r := c.c
	n, err := c.r.Read(c.spare[:min(len(c.spare), r.left)])
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
// text cut short ends with "…".
func (r *cutRow) feedFields(b []byte) {
	for _, c := range b {
		switch {
		case !r.inValue: // a field's code, or the final NUL
			r.body = append(r.body, c)
			r.inValue, r.vread = c != 0, 0
		case c == 0:
			if r.vread > r.keep {
				r.body = append(r.body, "…"...)
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
