package sqlite

// SQLite writes a sort, a DISTINCT or GROUP BY's table, a materialized
// subquery or view that outgrows its page cache to a temporary file, and
// nothing bounds its size: a sort of a cross join grew one by 200 MB a
// second until the timeout. sqlmcp's file system for SQLite is the
// system's own with one change: the temporary files a statement writes
// may not hold more than TV_LIMIT together, and a write past it fails as
// a full disk (SQLITE_FULL), which ends the statement. Every other file
// (the database, its journal and log) is the system's file system's,
// untouched.
//
// A statement's files are those opened while it steps: the step runs in
// one C call on one thread (tv_step), which names the statement's budget
// in a thread-local variable that the file system's xOpen reads. A file
// opened outside such a step (sqlmcp's own reads, through go-sqlite3) has
// a budget of its own. One budget for all of a statement's files, like
// PostgreSQL's temp_file_limit for all of a session's: with a bound per
// file, each of a statement's materialized results could hold as much.
//
// The file system is SQLite's shim pattern over its public C interface:
// the default file system's table, copied, with its own xOpen, which
// wraps temporary files only.

/*
#include <stdlib.h>

typedef long long tv_int64;
typedef struct sqlite3_stmt sqlite3_stmt;
extern int sqlite3_step(sqlite3_stmt*);
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

// tv_budget is what a statement's temporary files may hold together:
// used of limit bytes. It is freed when the statement's run and every
// file that charged it have let it go (refs).
typedef struct tv_budget {
	tv_int64 limit;
	tv_int64 used;
	int refs;
} tv_budget;

// tv_file is a temporary file: the system's file follows it. size is
// what it has charged its budget: the end of its furthest write.
typedef struct tv_file {
	sqlite3_file base;
	tv_budget *budget;
	tv_int64 size;
} tv_file;

#define TV_REAL(f) ((sqlite3_file *)(((tv_file *)(f)) + 1))

// TV_LIMIT is the bound of a statement's temporary files: PostgreSQL's
// default temp_file_limit.
#define TV_LIMIT (1LL << 30)

static sqlite3_vfs *tv_base;
static sqlite3_vfs tv_vfs;
static tv_int64 tv_limit = TV_LIMIT;

// tv_current is the budget of the statement this thread steps, if any.
static __thread tv_budget *tv_current;

static tv_budget *tv_budget_new(void) {
	tv_budget *b = (tv_budget *)malloc(sizeof *b);
	if (b) {
		b->limit = __atomic_load_n(&tv_limit, __ATOMIC_RELAXED);
		b->used = 0;
		b->refs = 1;
	}
	return b;
}

static void tv_budget_release(tv_budget *b) {
	if (b && __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		free(b);
	}
}

// tv_step steps st with b (a tv_budget, or 0 for none) as the budget of
// the files it opens.
int tv_step(sqlite3_stmt *st, void *b) {
	tv_budget *was = tv_current;
	tv_current = (tv_budget *)b;
	int rc = sqlite3_step(st);
	tv_current = was;
	return rc;
}

// tv_charge changes what f has charged its budget to end, failing when the
// budget cannot hold it.
static int tv_charge(tv_file *f, tv_int64 end) {
	tv_int64 grow = end - f->size;
	if (grow > 0 && __atomic_add_fetch(&f->budget->used, grow, __ATOMIC_RELAXED) > f->budget->limit) {
		__atomic_sub_fetch(&f->budget->used, grow, __ATOMIC_RELAXED);
		return TV_FULL;
	}
	if (grow < 0) {
		__atomic_add_fetch(&f->budget->used, grow, __ATOMIC_RELAXED);
	}
	f->size = end;
	return TV_OK;
}

static int tv_close(sqlite3_file *f) {
	tv_file *t = (tv_file *)f;
	int rc = TV_REAL(f)->pMethods->xClose(TV_REAL(f));
	tv_charge(t, 0);
	tv_budget_release(t->budget);
	return rc;
}
static int tv_read(sqlite3_file *f, void *b, int n, tv_int64 off) { return TV_REAL(f)->pMethods->xRead(TV_REAL(f), b, n, off); }
static int tv_write(sqlite3_file *f, const void *b, int n, tv_int64 off) {
	tv_file *t = (tv_file *)f;
	if (off + n > t->size && tv_charge(t, off + n) != TV_OK) {
		return TV_FULL;
	}
	return TV_REAL(f)->pMethods->xWrite(TV_REAL(f), b, n, off);
}
static int tv_truncate(sqlite3_file *f, tv_int64 size) {
	tv_file *t = (tv_file *)f;
	int rc = TV_REAL(f)->pMethods->xTruncate(TV_REAL(f), size);
	if (rc == TV_OK && size < t->size) {
		tv_charge(t, size);
	}
	return rc;
}
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
	tv_file *t = (tv_file *)f;
	t->budget = tv_current;
	if (t->budget) {
		__atomic_add_fetch(&t->budget->refs, 1, __ATOMIC_RELAXED);
	} else if (!(t->budget = tv_budget_new())) {
		f->pMethods = 0;
		return 7; // SQLITE_NOMEM
	}
	t->size = 0;
	int rc = tv_base->xOpen(tv_base, name, TV_REAL(f), flags, out);
	if (rc != TV_OK) {
		tv_budget_release(t->budget);
		f->pMethods = 0;
		return rc;
	}
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
	"unsafe"
)

// boundTempFiles makes SQLite's default file system the bounded one,
// once a process, before the first database opens.
var boundTempFiles = sync.OnceValue(func() error {
	if rc := C.tv_register(); rc != 0 {
		return fmt.Errorf("bounding SQLite's temporary files: error %d", int(rc))
	}
	return nil
})

// newTempBudget is the budget of one run of a statement, for tv_step; nil
// when there is no memory for one, and its files then have one each.
// releaseTempBudget frees it once the statement is reset.
func newTempBudget() unsafe.Pointer { return unsafe.Pointer(C.tv_budget_new()) }

func releaseTempBudget(b unsafe.Pointer) { C.tv_budget_release((*C.tv_budget)(b)) }

// setTempFileLimit sets the bound of the temporary files of the
// statements run from now on.
func setTempFileLimit(n int64) { C.tv_set_limit(C.tv_int64(n)) }

// tempLimitNow is the bound of the temporary files of a statement run
// now.
func tempLimitNow() int64 { return int64(C.tv_get_limit()) }
