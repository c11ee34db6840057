//go:build unix

package audit

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lock takes f's exclusive lock, so that a second server given the same
// file refuses to start instead of interleaving its lines with this one's
// and breaking the chain.
func lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("another process is writing it: give each server its own --audit-file")
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil // not a file that locks (a pipe, a device)
	}
	return err
}
