// Package files writes files whole: a reader sees the old file or the new
// one, never a part. It imports only the standard library.
package files

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, creating its directory when missing,
// through a temporary file in the same directory that is synced, given
// perm, and renamed into place. On error the temporary file is removed and
// path is untouched. Concurrent writers to one path are safe: the last
// rename wins.
func Write(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
