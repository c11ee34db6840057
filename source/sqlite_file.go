package source

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// sqliteFile is the SQLite file a DB reads and the pool open on it. A file
// replaced on disk (a new export renamed over the old path) is another
// file: at each call the path is looked up again, cheaply, and when it
// names another file the pool is reopened on it; calls already running
// finish on the old one.
type sqliteFile struct {
	path     string
	maxConns int
	mu       sync.Mutex
	fi       os.FileInfo // the file the pool was opened on
	db       *sql.DB
	closed   bool
}

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
	fi, err := os.Stat(f.path)
	f.mu.Lock()
	defer f.mu.Unlock()
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

// JournalWarning says, for a SQLite file in rollback-journal mode, that
// reads block writers for up to Limits.Timeout and that WAL mode avoids
// it; it is "" in WAL mode and on PostgreSQL.
func (db *DB) JournalWarning() string {
	if db.sq == nil || !sqliteRollbackJournal(db.path) {
		return ""
	}
	return journalWarning(db.path, db.limits.Timeout)
}

// sqlitePool returns the pool a call uses.
func (db *DB) sqlitePool(context.Context) (*sql.DB, error) { return db.sq.current() }
