package sqlite

import (
	"database/sql"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// sqliteFile is the SQLite file a DB reads and the pool open on it. A file
// replaced on disk (a new export renamed over the old path) is another
// file: calls look the path up again (at most once a millisecond,
// lookEvery), and when it names another file the pool is reopened on it;
// calls already running finish on the old one.
type sqliteFile struct {
	path     string
	maxConns int
	mu       sync.Mutex
	fi       os.FileInfo // the file the pool was opened on
	db       *sql.DB
	closed   bool
	looked   time.Time // when the path was last looked up
}

// lookEvery is how often a call looks the path up again: a call within
// it of the last look reads the same file. A file is replaced by a person
// or a job, not within a millisecond of a call, and the lookup (a stat)
// was 4% of a trivial call's CPU.
const lookEvery = time.Millisecond

// openSQLiteFile opens the pool on path, noting which file it is.
func openSQLiteFile(path string, maxConns int) (*sqliteFile, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	db, err := openSQLitePool(path, maxConns)
	if err != nil {
		return nil, err
	}
	return &sqliteFile{path: path, maxConns: maxConns, fi: fi, db: db}, nil
}

// openSQLitePool opens the guarded, read-only pool of maxConns
// connections on path.
func openSQLitePool(path string, maxConns int) (*sql.DB, error) {
	db, err := openSQLite(path, true, maxConns)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	return db, nil
}

// current returns the pool on the file the path names now, reopening it
// when the file was replaced. When the path names nothing for a moment (a
// replacement between its remove and its rename), the old file is read.
func (f *sqliteFile) current() (*sql.DB, error) {
	now := time.Now()
	f.mu.Lock()
	if now.Sub(f.looked) < lookEvery {
		defer f.mu.Unlock()
		return f.db, nil
	}
	f.mu.Unlock()
	fi, err := os.Stat(f.path)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.looked = now
	if err != nil || os.SameFile(fi, f.fi) || f.closed {
		return f.db, nil
	}
	if cerr := checkHeader(f.path); cerr != nil {
		return nil, fmt.Errorf("the database file was replaced by one sqlmcp cannot read: %w", cerr)
	}
	db, err := openSQLitePool(f.path, f.maxConns)
	if err != nil {
		return nil, err
	}
	old := f.db
	f.db, f.fi = db, fi
	// Close waits for the calls still reading the old file.
	go old.Close()
	return db, nil
}

// Close closes the pool.
func (f *sqliteFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return f.db.Close()
}

// sqliteRollbackJournal reports whether the file at path is in
// rollback-journal mode rather than WAL: the header's read and write
// versions (bytes 18 and 19) are 2 in WAL mode.
func sqliteRollbackJournal(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 20)
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	return head[18] != 2
}

// journalWarning words what rollback-journal mode means for a file
// another process writes, for a reader with timeout.
func journalWarning(path string, timeout time.Duration) string {
	return fmt.Sprintf("%s is in rollback-journal mode: while sqlmcp reads it, a process writing it waits, or fails with "+
		"\"database is locked\", for up to the %s timeout; WAL mode (PRAGMA journal_mode=WAL, once, by the writer) lets readers and the writer work at once", path, timeout)
}

// fileStamp is what a SQLite file and its write-ahead log look like from
// outside: a commit by any writer changes at least one field (the header's
// change counter in rollback mode; the log's size or, when the log starts
// over, its salt in WAL mode), whatever the clock's resolution.
type fileStamp struct {
	size, walSize   int64
	mtime, walMtime time.Time
	header          [4]byte // the file change counter, bytes 24-27
	salt            [8]byte // the log's salts, bytes 16-23 of its header
}

// stampOf reads path's stamp. A missing file or log reads as zero fields,
// so its coming into being is a change too.
func stampOf(path string) fileStamp {
	var s fileStamp
	if fi, err := os.Stat(path); err == nil {
		s.size, s.mtime = fi.Size(), fi.ModTime()
		readAt(path, s.header[:], 24)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil {
		s.walSize, s.walMtime = fi.Size(), fi.ModTime()
		readAt(path+"-wal", s.salt[:], 16)
	}
	return s
}

// readAt fills b from path at off, leaving it zero where it cannot.
func readAt(path string, b []byte, off int64) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
		clear(b)
	}
}
