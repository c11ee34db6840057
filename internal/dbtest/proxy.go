package dbtest

import (
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
)

// CountingProxy forwards a local port to addr and counts the bytes the
// server sends. It returns the proxy's address.
func CountingProxy(t testing.TB, addr string) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(s, c); s.Close() }()
			go func() {
				w, _ := io.Copy(io.MultiWriter(c, countWriter{&n}), s)
				_ = w
				c.Close()
			}()
		}
	}()
	return ln.Addr().String(), &n
}

type countWriter struct{ n *atomic.Int64 }

func (w countWriter) Write(p []byte) (int, error) { w.n.Add(int64(len(p))); return len(p), nil }

// PostgresBigTable adds the table big with n rows to the database dsn names.
func PostgresBigTable(t testing.TB, dsn string, n int) {
	t.Helper()
	PostgresExec(t, dsn, fmt.Sprintf(`CREATE TABLE big AS
		SELECT g AS id, 'customer ' || g AS name, (g::bigint * 7919) %% 100003 / 100.0 AS score
		FROM generate_series(1, %d) AS g;
		ANALYZE big`, n))
}
