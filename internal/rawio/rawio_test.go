//go:build linux

package rawio_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp/internal/rawio"
)

// tcpPair is a connected loopback pair: c raw, peer as the net package
// made it.
func tcpPair(t *testing.T) (c, peer net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		a, _ := l.Accept()
		accepted <- a
	}()
	d, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer = <-accepted
	if peer == nil {
		t.Fatal("no connection accepted")
	}
	c = rawio.WrapConn(d)
	if _, ok := c.(*rawio.Conn); !ok {
		t.Fatalf("a TCP connection was not wrapped: %T", c)
	}
	t.Cleanup(func() { c.Close(); peer.Close() })
	return c, peer
}

// TestConn: bytes go both ways whole, small writes raw and big ones the
// usual way; a deadline, a close and the peer's hang-up read as they do on
// the net package's connections.
func TestConn(t *testing.T) {
	c, peer := tcpPair(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 40<<10) // 640 KiB: more than a raw write and the socket buffers
	for _, msg := range [][]byte{[]byte("hello"), big} {
		got := make(chan []byte, 1)
		go func() {
			b := make([]byte, len(msg))
			_, err := io.ReadFull(peer, b)
			if err != nil {
				b = nil
			}
			got <- b
		}()
		if n, err := c.Write(msg); n != len(msg) || err != nil {
			t.Fatalf("Write of %d bytes: %d, %v", len(msg), n, err)
		}
		if b := <-got; !bytes.Equal(b, msg) {
			t.Fatalf("the peer read %d bytes that differ from the %d written", len(b), len(msg))
		}
		go peer.Write(msg)
		b := make([]byte, len(msg))
		if _, err := io.ReadFull(c, b); err != nil || !bytes.Equal(b, msg) {
			t.Fatalf("read back %d bytes: %v", len(msg), err)
		}
	}

	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := c.Read(make([]byte, 8))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past its deadline: %v, want a timeout", err)
	}
	c.SetReadDeadline(time.Time{})

	peer.Close()
	if _, err := c.Read(make([]byte, 8)); err != io.EOF {
		t.Fatalf("a read after the peer hung up: %v, want io.EOF", err)
	}
	c.Close()
	if _, err := c.Read(make([]byte, 8)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a read after Close: %v, want net.ErrClosed", err)
	}
}

// TestConnReset: an error of the system call reads as the net package's
// *net.OpError around it.
func TestConnReset(t *testing.T) {
	c, peer := tcpPair(t)
	peer.(*net.TCPConn).SetLinger(0) // close with a reset
	peer.Close()
	time.Sleep(20 * time.Millisecond)
	_, err := c.Read(make([]byte, 8))
	var oe *net.OpError
	if !errors.As(err, &oe) || !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("a read of a reset connection: %v (%T), want a *net.OpError of ECONNRESET", err, err)
	}
}

// TestFile: a pipe is made non-blocking while its File is used and put
// back after; a writer that fills it waits in the poller, not in the
// kernel, so the process's one processor goes on running the rest.
func TestFile(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	r, w := clientPipe(t)
	if nonblocking(t, w) {
		t.Fatal("a new pipe is non-blocking")
	}
	rf, wf := rawio.OpenFile(r), rawio.OpenFile(w)
	if rf == nil || wf == nil {
		t.Fatal("a pipe was not opened raw")
	}
	if !nonblocking(t, w) {
		t.Fatal("the pipe is still blocking")
	}
	// More than the pipe holds (64 KiB): the write waits until the reader
	// has read, and a timer goroutine runs meanwhile.
	msg := bytes.Repeat([]byte("x"), 60<<10)
	done := make(chan error, 1)
	go func() {
		var err error
		for range 4 {
			if _, err = wf.Write(msg); err != nil {
				break
			}
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("four writes of 60 KiB into an unread pipe returned: %v", err)
	case <-time.After(50 * time.Millisecond): // the timer fired: the processor is free
	}
	got, err := io.ReadAll(io.LimitReader(rf, int64(4*len(msg))))
	if err != nil || len(got) != 4*len(msg) {
		t.Fatalf("read %d bytes: %v", len(got), err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := rf.Read(make([]byte, 8)); err != io.EOF {
		t.Fatalf("a read after the writer closed: %v, want io.EOF", err)
	}
	rf.Close()
	wf.Close()
	if nonblocking(t, r) {
		t.Fatal("Close did not put the pipe back in blocking mode")
	}

	// One the runtime polls already (os.Pipe's) is used as it is.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	prf, pwf := rawio.OpenFile(pr), rawio.OpenFile(pw)
	if prf == nil || pwf == nil {
		t.Fatal("os.Pipe's pipe was not opened raw")
	}
	go pwf.Write([]byte("ping"))
	if b, err := io.ReadAll(io.LimitReader(prf, 4)); err != nil || string(b) != "ping" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// TestFileReadSpin: a read that spins gets what arrives while it spins,
// and what arrives after it, waiting in the poller once its spin is over
// rather than spinning on: a quarter of a second of waiting costs far
// less than a quarter of a second of CPU.
func TestFileReadSpin(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	rf := rawio.OpenFile(pr)
	if rf == nil {
		t.Fatal("a pipe was not opened raw")
	}
	buf := make([]byte, 16)
	for _, c := range []struct {
		after time.Duration // when the writer writes
		spin  time.Duration
	}{
		{0, time.Second},
		{time.Millisecond, time.Second},
		{250 * time.Millisecond, time.Millisecond},
		{10 * time.Millisecond, 0},
	} {
		before := cpuTime()
		go func() {
			time.Sleep(c.after)
			pw.Write([]byte("ping"))
		}()
		n, err := rf.ReadSpin(buf, c.spin)
		if err != nil || string(buf[:n]) != "ping" {
			t.Fatalf("after %v, spinning %v: read %q, %v", c.after, c.spin, buf[:n], err)
		}
		if used := cpuTime() - before; c.spin < c.after && used > c.after/2 {
			t.Errorf("waiting %v with a spin of %v used %v of CPU: the read spun on", c.after, c.spin, used)
		}
	}
	pw.Close()
	if _, err := rf.ReadSpin(buf, time.Millisecond); err != io.EOF {
		t.Fatalf("a read after the writer closed: %v, want io.EOF", err)
	}
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestFileNotAPipe: a regular file is left as it is.
func TestFileNotAPipe(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if rawio.OpenFile(f) != nil {
		t.Fatal("a regular file was opened raw")
	}
}

// clientPipe is a pipe as a client hands one over: blocking, and not yet
// polled by the runtime (os.Pipe's are both).
func clientPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	sc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags uintptr
	sc.Control(func(fd uintptr) {
		flags, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	})
	return flags&syscall.O_NONBLOCK != 0
}

// TestLogWriter: lines reach a pipe whole and in order, raw while it has
// room and the usual way when it is full, and the pipe's mode is left as
// it was.
func TestLogWriter(t *testing.T) {
	r, w := clientPipe(t)
	lw := rawio.LogWriter(w)
	if lw == io.Writer(w) {
		t.Fatal("a pipe was not wrapped")
	}
	line := func(i int) []byte { return []byte(strings.Repeat(string(rune('a'+i%26)), 100+i%3000) + "\n") }
	var want bytes.Buffer
	done := make(chan error, 1)
	go func() {
		// 2,000 lines, 3 MB: the pipe fills many times over, so writes
		// take both ways.
		for i := range 2000 {
			want.Write(line(i))
			if n, err := lw.Write(line(i)); err != nil || n != len(line(i)) {
				done <- fmt.Errorf("line %d: %d, %v", i, n, err)
				return
			}
		}
		done <- w.Close()
	}()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("read %d bytes that differ from the %d written", len(got), want.Len())
	}
	if nonblocking(t, r) {
		t.Fatal("the pipe was made non-blocking")
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if rawio.LogWriter(null) != io.Discard {
		t.Fatal("the null device is not io.Discard")
	}
}
