package sqlite

// SQLite writes a sort, a DISTINCT or GROUP BY's table, a materialized
// subquery or view that outgrows its page cache to a temporary file, and
// nothing bounds its size: a sort of a cross join grew one by 200 MB a
// second until the timeout. sqlmcp's file system for SQLite is the
// system's own with one change: a temporary file may not grow past
// tempFileLimit, and a write past it fails as a full disk (SQLITE_FULL),
// which ends the statement. Every other file (the database, its journal
// and log) is the system's file system's, untouched.
//
// The file system is SQLite's shim pattern over its public C interface:
// the default file system's table, copied, with its own xOpen, which
// wraps temporary files only.

/*
typedef long long tv_int64;
typedef struct sqlite3_file sqlite3_file;
typedef struct sqlite3_io_methods sqlite3_io_methods;
typedef struct sqlite3_vfs sqlite3_vfs;

// The public interface's file, file methods (version 1, what a
// temporary file needs) and file system (version 3), as sqlite3.h
// declares them.
struct sqlite3_file { const sqlite3_io_methods *pMethods; };
struct sqlite3_io_methods {
	int iVersion;
	int (*xClose)(sqlite3_file*);
	int (*xRead)(sqlite3_file*, void*, int, tv_int64);
	int (*xWrite)(sqlite3_file*, const void*, int, tv_int64);
	int (*xTruncate)(sqlite3_file*, tv_int64);
	int (*xSync)(sqlite3_file*, int);
	int (*xFileSize)(sqlite3_file*, tv_int64*);
	int (*xLock)(sqlite3_file*, int);
	int (*xUnlock)(sqlite3_file*, int);
	int (*xCheckReservedLock)(sqlite3_file*, int*);
	int (*xFileControl)(sqlite3_file*, int, void*);
	int (*xSectorSize)(sqlite3_file*);
	int (*xDeviceCharacteristics)(sqlite3_file*);
};
struct sqlite3_vfs {
	int iVersion;
	int szOsFile;
	int mxPathname;
	sqlite3_vfs *pNext;
	const char *zName;
	void *pAppData;
	int (*xOpen)(sqlite3_vfs*, const char*, sqlite3_file*, int, int*);
	void *rest[15]; // xDelete to xNextSystemCall, copied as they are
};
extern sqlite3_vfs *sqlite3_vfs_find(const char*);
extern int sqlite3_vfs_register(sqlite3_vfs*, int);

enum {
	TV_OK = 0,
	TV_FULL = 13,
	// SQLITE_OPEN_TEMP_DB, _TRANSIENT_DB, _TEMP_JOURNAL, _SUBJOURNAL.
	TV_TEMP = 0x200 | 0x400 | 0x1000 | 0x2000,
};

// tv_file is a temporary file: the system's file follows it.
typedef struct tv_file {
	sqlite3_file base;
	tv_int64 limit;
} tv_file;

#define TV_REAL(f) ((sqlite3_file *)(((tv_file *)(f)) + 1))

// TV_LIMIT is the bound of a temporary file: PostgreSQL's default
// temp_file_limit.
#define TV_LIMIT (1LL << 30)

static sqlite3_vfs *tv_base;
static sqlite3_vfs tv_vfs;
static tv_int64 tv_limit = TV_LIMIT;

static int tv_close(sqlite3_file *f) { return TV_REAL(f)->pMethods->xClose(TV_REAL(f)); }
static int tv_read(sqlite3_file *f, void *b, int n, tv_int64 off) { return TV_REAL(f)->pMethods->xRead(TV_REAL(f), b, n, off); }
static int tv_write(sqlite3_file *f, const void *b, int n, tv_int64 off) {
	if (off + n > ((tv_file *)f)->limit) {
		return TV_FULL;
	}
	return TV_REAL(f)->pMethods->xWrite(TV_REAL(f), b, n, off);
}
static int tv_truncate(sqlite3_file *f, tv_int64 size) { return TV_REAL(f)->pMethods->xTruncate(TV_REAL(f), size); }
static int tv_sync(sqlite3_file *f, int flags) { return TV_REAL(f)->pMethods->xSync(TV_REAL(f), flags); }
static int tv_file_size(sqlite3_file *f, tv_int64 *size) { return TV_REAL(f)->pMethods->xFileSize(TV_REAL(f), size); }
static int tv_lock(sqlite3_file *f, int l) { return TV_REAL(f)->pMethods->xLock(TV_REAL(f), l); }
static int tv_unlock(sqlite3_file *f, int l) { return TV_REAL(f)->pMethods->xUnlock(TV_REAL(f), l); }
static int tv_check_reserved(sqlite3_file *f, int *out) { return TV_REAL(f)->pMethods->xCheckReservedLock(TV_REAL(f), out); }
static int tv_file_control(sqlite3_file *f, int op, void *arg) { return TV_REAL(f)->pMethods->xFileControl(TV_REAL(f), op, arg); }
static int tv_sector_size(sqlite3_file *f) { return TV_REAL(f)->pMethods->xSectorSize(TV_REAL(f)); }
static int tv_device(sqlite3_file *f) { return TV_REAL(f)->pMethods->xDeviceCharacteristics(TV_REAL(f)); }

static const sqlite3_io_methods tv_methods = {
	1, tv_close, tv_read, tv_write, tv_truncate, tv_sync, tv_file_size, tv_lock, tv_unlock,
	tv_check_reserved, tv_file_control, tv_sector_size, tv_device,
};

static int tv_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out) {
	if (!(flags & TV_TEMP)) {
		return tv_base->xOpen(tv_base, name, f, flags, out);
	}
	int rc = tv_base->xOpen(tv_base, name, TV_REAL(f), flags, out);
	if (rc != TV_OK) {
		f->pMethods = 0;
		return rc;
	}
	((tv_file *)f)->limit = __atomic_load_n(&tv_limit, __ATOMIC_RELAXED);
	f->pMethods = &tv_methods;
	return TV_OK;
}

// tv_register makes the bounded file system SQLite's default; 0 when it
// is, else the error.
static int tv_register(void) {
	tv_base = sqlite3_vfs_find(0);
	if (!tv_base) {
		return 1;
	}
	tv_vfs = *tv_base;
	if (tv_vfs.iVersion > 3) {
		tv_vfs.iVersion = 3; // the fields this copy holds
	}
	tv_vfs.zName = "sqlmcp";
	tv_vfs.pNext = 0;
	tv_vfs.szOsFile = (int)sizeof(tv_file) + tv_base->szOsFile;
	tv_vfs.xOpen = tv_open;
	return sqlite3_vfs_register(&tv_vfs, 1);
}

static void tv_set_limit(tv_int64 n) { __atomic_store_n(&tv_limit, n, __ATOMIC_RELAXED); }
static tv_int64 tv_get_limit(void) { return __atomic_load_n(&tv_limit, __ATOMIC_RELAXED); }
*/
import "C"

import (
	"fmt"
	"sync"
)

// boundTempFiles makes SQLite's default file system the bounded one,
// once a process, before the first database opens.
var boundTempFiles = sync.OnceValue(func() error {
	if rc := C.tv_register(); rc != 0 {
		return fmt.Errorf("bounding SQLite's temporary files: error %d", int(rc))
	}
	return nil
})

// setTempFileLimit sets the bound of the temporary files opened from now
// on.
func setTempFileLimit(n int64) { C.tv_set_limit(C.tv_int64(n)) }

// tempLimitNow is the bound of a temporary file opened now.
func tempLimitNow() int64 { return int64(C.tv_get_limit()) }
