//go:build linux

package rawio

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// maxRaw is the largest write made raw: a raw call keeps its processor
// while the kernel copies, so a bigger one takes the usual path, which
// lets the runtime run other goroutines meanwhile.
const maxRaw = 64 << 10

// read reads into p on rc's descriptor, waiting in the poller while there
// is nothing to read. errno is the system call's error, err the poller's
// (a deadline, a closed descriptor).
func read(rc syscall.RawConn, p []byte) (n int, errno syscall.Errno, err error) {
	err = rc.Read(func(fd uintptr) bool {
		r, e := sysRead(fd, p)
		if e == syscall.EAGAIN {
			return false
		}
		n, errno = r, e
		return true
	})
	return n, errno, err
}

// sysRead is one read(2) of fd into p, made again when a signal
// interrupts it.
func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e != syscall.EINTR {
			return int(r), e
		}
	}
}

// readSpin is read, trying again for up to spin before it waits in the
// poller. It is a twin of read rather than read with a spin of zero: the
// callback is made on every read, and the spin's state in it made every
// read of a connection that never spins allocate more (a PostgreSQL
// result is streamed in small reads: TestPostgresUnknownTypeNoSpareConnection
// counted 4.9-5.5 MB against 4.2).
func readSpin(rc syscall.RawConn, p []byte, spin time.Duration) (n int, errno syscall.Errno, err error) {
	var since time.Time
	err = rc.Read(func(fd uintptr) bool {
		for {
			r, e := sysRead(fd, p)
			if e != syscall.EAGAIN {
				n, errno = r, e
				return true
			}
			if since.IsZero() {
				since = time.Now()
			} else if time.Since(since) >= spin {
				return false
			}
		}
	})
	return n, errno, err
}

// write writes all of p on rc's descriptor, waiting in the poller while
// the descriptor's buffer is full.
func write(rc syscall.RawConn, p []byte) (n int, errno syscall.Errno, err error) {
	err = rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
			switch e {
			case 0:
				n += int(r)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	return n, errno, err
}

// Conn is a net.Conn whose reads, and writes of up to 64 KiB, are raw.
type Conn struct {
	net.Conn
	rc syscall.RawConn
}

// WrapConn returns c with raw reads and writes when c is a socket the
// runtime polls (a TCP or Unix connection), and c itself otherwise.
func WrapConn(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	return &Conn{Conn: c, rc: rc}
}

func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return c.Conn.Read(p)
	}
	n, errno, err := read(c.rc, p)
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, c.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *Conn) Write(p []byte) (int, error) {
	if len(p) == 0 || len(p) > maxRaw {
		return c.Conn.Write(p)
	}
	n, errno, err := write(c.rc, p)
	if err == nil && errno != 0 {
		err = c.opError("write", errno)
	}
	return n, err
}

// SyscallConn is the connection's own, for drivers that look at the
// descriptor (a liveness check before reuse).
func (c *Conn) SyscallConn() (syscall.RawConn, error) { return c.rc, nil }

// opError words errno as the net package words a failed read or write.
func (c *Conn) opError(op string, errno syscall.Errno) error {
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(),
		Err: os.NewSyscallError(op, errno)}
}

// File is a pipe or socket sqlmcp was handed (stdin, stdout), put in
// non-blocking mode, with raw reads and writes of up to 64 KiB.
type File struct {
	f     *os.File
	rc    syscall.RawConn
	fd    int
	reset bool // the descriptor was blocking: put it back on Close
}

// OpenFile returns a File for f when f is a pipe or a socket, and nil
// otherwise: a terminal or a regular file may be shared with other
// processes, which a non-blocking mode would surprise. f must stay open
// while the File is used; Close puts the descriptor back as it was and
// leaves it open.
func OpenFile(f *os.File) *File {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil
	}
	src, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	src.Control(func(d uintptr) { fd = int(d) })
	if fd < 0 {
		return nil
	}
	nb, err := isNonblock(fd)
	if err != nil {
		return nil
	}
	if nb {
		// The runtime polls a descriptor that was non-blocking when its
		// *os.File was made (os.Pipe's too).
		return &File{f: f, rc: src, fd: fd}
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return nil
	}
	// A second *os.File of the descriptor, made once it is non-blocking,
	// is one the runtime polls. It is kept for the life of the process:
	// closing it, as its collection would, would close f's descriptor.
	p := os.NewFile(uintptr(fd), f.Name())
	keptMu.Lock()
	kept = append(kept, p)
	keptMu.Unlock()
	rc, err := p.SyscallConn()
	if err != nil {
		syscall.SetNonblock(fd, false)
		return nil
	}
	return &File{f: p, rc: rc, fd: fd, reset: true}
}

func (f *File) Read(p []byte) (int, error) { return f.ReadSpin(p, 0) }

// ReadSpin is Read, except that when there is nothing to read it tries
// again for up to spin before it waits in the poller. A process that
// waits in the poller sleeps, and the next message then pays for waking
// it: the kernel's wake-up of the thread, the runtime's of its monitor
// (see the package comment), on a virtual machine the host's of an idle
// processor. A client that sends its next call within spin of the last
// reply, a script or an agent's calls in a row, gets it read at once.
func (f *File) ReadSpin(p []byte, spin time.Duration) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	read := read
	if spin > 0 {
		read = func(rc syscall.RawConn, p []byte) (int, syscall.Errno, error) { return readSpin(rc, p, spin) }
	}
	n, errno, err := read(f.rc, p)
	switch {
	case err != nil:
		return 0, &os.PathError{Op: "read", Path: f.f.Name(), Err: err}
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: f.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (f *File) Write(p []byte) (int, error) {
	if len(p) > maxRaw {
		return f.f.Write(p)
	}
	n, errno, err := write(f.rc, p)
	switch {
	case err != nil:
		return n, &os.PathError{Op: "write", Path: f.f.Name(), Err: err}
	case errno != 0:
		return n, &os.PathError{Op: "write", Path: f.f.Name(), Err: errno}
	}
	return n, nil
}

// Close puts the descriptor back in blocking mode if it was, and leaves it
// open.
func (f *File) Close() error {
	if f.reset {
		return syscall.SetNonblock(f.fd, false)
	}
	return nil
}

var (
	keptMu sync.Mutex
	kept   []*os.File
)

// isNonblock reports whether fd is in non-blocking mode.
func isNonblock(fd int) (bool, error) {
	flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if e != 0 {
		return false, e
	}
	return flags&syscall.O_NONBLOCK != 0, nil
}

// pipeBuf is PIPE_BUF on Linux: a write of at most this many bytes to a
// pipe goes in whole or not at all.
const pipeBuf = 4096

const pollOut = 0x4 // POLLOUT

// pollFd is struct pollfd.
type pollFd struct {
	fd             int32
	events, revent int16
}

// logFile is a pipe the log goes to, left in whatever mode it has.
type logFile struct {
	f  *os.File
	rc syscall.RawConn
}

// LogWriter returns f, where the log goes (stderr), as a writer that
// sends a line of at most 4 KiB with raw system calls when f is a pipe
// with room for it (ppoll with no wait, then write; a write that small
// into a pipe with room cannot block), and the usual way otherwise. It
// leaves the descriptor's mode alone, since stderr is often shared with
// the process that started sqlmcp. A line the usual way would wake the
// runtime's monitor thread on every call (see the package comment). The
// null device is io.Discard.
func LogWriter(f *os.File) io.Writer {
	fi, err := f.Stat()
	if err != nil {
		return f
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return io.Discard // what writing there does, without the system call
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		return f
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	return &logFile{f: f, rc: rc}
}

func (l *logFile) Write(p []byte) (int, error) {
	n := 0
	if len(p) > 0 && len(p) <= pipeBuf {
		l.rc.Control(func(fd uintptr) {
			pfd := pollFd{fd: int32(fd), events: pollOut}
			var ts syscall.Timespec
			r, _, e := syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
			if e != 0 || r != 1 || pfd.revent&pollOut == 0 {
				return
			}
			w, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			if e == 0 {
				n = int(w)
			}
		})
	}
	if n == len(p) {
		return n, nil
	}
	m, err := l.f.Write(p[n:])
	return n + m, err
}
