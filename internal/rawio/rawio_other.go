//go:build !linux

package rawio

import (
	"io"
	"net"
	"os"
	"time"
)

// WrapConn returns c: raw calls are made on Linux only.
func WrapConn(c net.Conn) net.Conn { return c }

// File is never made off Linux.
type File struct{ io.ReadWriter }

// OpenFile returns nil: raw calls are made on Linux only.
func OpenFile(*os.File) *File { return nil }

// ReadSpin is Read.
func (f *File) ReadSpin(p []byte, _ time.Duration) (int, error) { return f.Read(p) }

// Close does nothing.
func (*File) Close() error { return nil }

// LogWriter returns f.
func LogWriter(f *os.File) io.Writer { return f }
