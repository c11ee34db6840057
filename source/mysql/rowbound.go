//go:build !nomysql

package mysql

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The driver reads a row whole before sqlmcp sees any of it, and a row has
// no bound of its own: the server's max_allowed_packet bounds each value,
// and a row of 32 values of 15 MB, which one short SELECT of REPEAT makes,
// arrives as one 480 MB message (sent as packets of 16 MiB that the driver
// joins) that sqlmcp held three times over. The connection below the
// driver follows the packets the server sends, without changing a byte,
// and ends the connection when one message outgrows maxMessage: the call
// fails with rowTooBig, and nothing larger is ever held.
//
// Only the packets' headers are read, so this holds on connections in the
// clear. Over TLS the driver reads the packets inside the encryption,
// where the bound cannot see them (the README says so).

// minMessage is the least bound of one message from the server: twice the
// default max_allowed_packet of MariaDB and MySQL 5.7.
const minMessage = 32 << 20

// errRowTooBig is what the call gets when a row outgrew the bound.
type errRowTooBig struct{ limit int }

func (e *errRowTooBig) Error() string {
	return fmt.Sprintf("a row of the result is larger than %d MiB, which this server does not read; "+
		"select fewer or shorter columns (LEFT(col, 1000), LENGTH(col) for the size) or aggregate", e.limit>>20)
}

// boundedConns are the connections of one backend by the server's id for
// them, so a call learns why its connection ended.
type boundedConns struct {
	limit atomic.Int64 // the bound of one message; 0 until the server's max_allowed_packet is known
	mu    sync.Mutex
	byID  map[uint32]*boundedConn
}

// dial connects as the driver would and bounds the connection, unless it
// is to be encrypted.
func (bc *boundedConns) dial(tls bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil || tls {
			return c, err
		}
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetKeepAlive(true) // as the driver does for its own
		}
		return &boundedConn{Conn: c, owner: bc}, nil
	}
}

// tooBig reports whether the connection with the server's id ended on a
// message past the bound, with the error to give.
func (bc *boundedConns) tooBig(id uint64) error {
	bc.mu.Lock()
	defer bc.mu.Unlock()
	c := bc.byID[uint32(id)]
	if c == nil || !c.over.Load() {
		return nil
	}
	delete(bc.byID, uint32(id))
	return &errRowTooBig{limit: int(bc.max())}
}

// max is the bound of one message.
func (bc *boundedConns) max() int64 { return max(bc.limit.Load(), minMessage) }

// boundedConn is a connection to the server whose incoming packets are
// followed: hdr gathers a header split between reads, left is what is
// still to come of the current packet's body, size is the current
// message so far (packets of 2^24-1 bytes are continued by the next).
type boundedConn struct {
	net.Conn
	owner *boundedConns

	hdr  [4]byte
	nhdr int
	left int
	size int64

	// The server's first packet, its greeting, names the connection:
	// protocol version, a NUL-terminated version text, then the id.
	greeted  bool
	greeting []byte
	id       uint32
	over     atomic.Bool
}

// maxPacket is the length of a packet that the next one continues.
const maxPacket = 1<<24 - 1

func (c *boundedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	for b := p[:n]; len(b) > 0; {
		if c.left == 0 {
			k := copy(c.hdr[c.nhdr:], b)
			c.nhdr += k
			b = b[k:]
			if c.nhdr < len(c.hdr) {
				break
			}
			c.nhdr = 0
			l := int(c.hdr[0]) | int(c.hdr[1])<<8 | int(c.hdr[2])<<16
			c.size += int64(l)
			if c.size > c.owner.max() {
				c.over.Store(true)
				return 0, &errRowTooBig{limit: int(c.owner.max())}
			}
			c.left = l
			if l < maxPacket {
				c.size = 0 // the message ends with this packet
			}
			continue
		}
		k := min(c.left, len(b))
		c.greet(b[:k])
		c.left -= k
		b = b[k:]
	}
	return n, err
}

// greet reads the connection's id from the server's greeting, the first
// packet's body, as its pieces come.
func (c *boundedConn) greet(body []byte) {
	if c.greeted {
		return
	}
	c.greeting = append(c.greeting, body...)
	if c.left > len(body) {
		return // more of it to come
	}
	c.greeted = true
	g := c.greeting
	c.greeting = nil
	if len(g) < 2 || g[0] != 10 { // protocol 10, every server since 3.21
		return
	}
	end := 1
	for end < len(g) && g[end] != 0 {
		end++
	}
	if end+5 > len(g) {
		return
	}
	c.id = binary.LittleEndian.Uint32(g[end+1:])
	c.owner.mu.Lock()
	if c.owner.byID == nil {
		c.owner.byID = map[uint32]*boundedConn{}
	}
	c.owner.byID[c.id] = c
	c.owner.mu.Unlock()
}

// Close forgets the connection, unless it ended on a message past the
// bound: the driver closes it before the call asks why (tooBig).
func (c *boundedConn) Close() error {
	if c.greeted && !c.over.Load() {
		c.owner.mu.Lock()
		if c.owner.byID[c.id] == c {
			delete(c.owner.byID, c.id)
		}
		c.owner.mu.Unlock()
	}
	return c.Conn.Close()
}

// driverLog writes what the driver reports (a connection that broke, a
// row past the bound) as the program's log lines are written, a JSON
// object a line on stderr, rather than the driver's own plain text. An
// engine has no logger of its own, so the line is made here.
type driverLog struct{ w io.Writer }

func (d driverLog) Print(v ...any) {
	line, err := json.Marshal(struct {
		Level string `json:"level"`
		Event string `json:"event"`
		Time  string `json:"time"`
		Msg   string `json:"message"`
	}{"warn", "mysql_driver", time.Now().UTC().Format(time.RFC3339), fmt.Sprint(v...)})
	if err == nil {
		d.w.Write(append(line, '\n'))
	}
}

func init() { mysql.SetLogger(driverLog{os.Stderr}) }
