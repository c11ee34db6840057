//go:build unix

package duckdb

import (
	"os"
	"path/filepath"
	"syscall"
)

// privateLock is the file in a private directory whose lock says the
// directory's process is alive.
const privateLock = ".lock"

// holdPrivate locks dir's lock file until release, or until the process
// ends however it ends (the kernel drops the lock of a killed process), so
// that sweepPrivate can tell an abandoned directory from one in use. The
// file is locked under another name first and renamed into place, so no
// sweep ever finds it unlocked.
func holdPrivate(dir string) (release func(), err error) {
	tmp := filepath.Join(dir, privateLock+".new")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, privateLock)); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// sweepPrivate removes, from the system's temporary directory, the
// private directories that processes which ended without removing them
// left behind (a kill, a crash): those whose lock file nobody holds. A
// directory without a lock file is left alone: it is being made, or is
// not one of these.
func sweepPrivate() (removed []string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), privatePrefix+"*"))
	for _, d := range dirs {
		f, err := os.OpenFile(filepath.Join(d, privateLock), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil && os.RemoveAll(d) == nil {
			removed = append(removed, d)
		}
		f.Close()
	}
	return removed
}
