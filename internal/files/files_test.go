package files

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "notes.md")
	for _, data := range []string{"first\n", "second\n"} {
		if err := Write(path, []byte(data), 0o640); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, %v; want 0640", fi.Mode(), err)
	}
	left, _ := os.ReadDir(filepath.Dir(path))
	if len(left) != 1 {
		t.Errorf("%d files in the directory, want only the written one", len(left))
	}
	// A directory in the way: an error, nothing left behind.
	if err := Write(filepath.Dir(path), []byte("x"), 0o644); err == nil {
		t.Error("replacing a directory: no error")
	}
}
