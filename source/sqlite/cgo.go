package sqlite

// The SQLite calls sqlmcp makes beside go-sqlite3's own: stepping a
// statement while reading no more of each value than the answer can show,
// and the engine's limits. go-sqlite3 links SQLite into the binary, so these
// declarations resolve to the very library it uses.

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
extern int sqlite3_step(sqlite3_stmt*);
extern int tv_step(sqlite3_stmt*, void*);
extern int sqlite3_reset(sqlite3_stmt*);
extern int sqlite3_column_count(sqlite3_stmt*);
extern int sqlite3_column_type(sqlite3_stmt*, int);
extern long long sqlite3_column_int64(sqlite3_stmt*, int);
extern double sqlite3_column_double(sqlite3_stmt*, int);
extern const void *sqlite3_column_blob(sqlite3_stmt*, int);
extern const unsigned char *sqlite3_column_text(sqlite3_stmt*, int);
extern int sqlite3_column_bytes(sqlite3_stmt*, int);
extern const char *sqlite3_column_name(sqlite3_stmt*, int);
extern const char *sqlite3_column_decltype(sqlite3_stmt*, int);
extern int sqlite3_bind_int64(sqlite3_stmt*, int, long long);
extern int sqlite3_bind_double(sqlite3_stmt*, int, double);
extern int sqlite3_bind_text(sqlite3_stmt*, int, const char*, int, void(*)(void*));
extern int sqlite3_bind_blob(sqlite3_stmt*, int, const void*, int, void(*)(void*));
extern int sqlite3_bind_null(sqlite3_stmt*, int);
extern int sqlite3_clear_bindings(sqlite3_stmt*);
extern sqlite3 *sqlite3_db_handle(sqlite3_stmt*);
extern void sqlite3_interrupt(sqlite3*);
extern const char *sqlite3_errmsg(sqlite3*);
extern int sqlite3_extended_errcode(sqlite3*);
extern long long sqlite3_hard_heap_limit64(long long);
extern long long sqlite3_soft_heap_limit64(long long);
extern int sqlite3_test_control(int, ...);
extern int sqlite3_db_config(sqlite3*, int, ...);
extern int sqlite3_stmt_status(sqlite3_stmt*, int, int);

typedef struct sqlite3_context sqlite3_context;
typedef struct sqlite3_value sqlite3_value;
extern int sqlite3_value_type(sqlite3_value*);
extern const void *sqlite3_value_blob(sqlite3_value*);
extern const unsigned char *sqlite3_value_text(sqlite3_value*);
extern int sqlite3_value_bytes(sqlite3_value*);
extern void sqlite3_result_int64(sqlite3_context*, long long);
extern void sqlite3_result_text(sqlite3_context*, const char*, int, void(*)(void*));
extern void sqlite3_result_error_nomem(sqlite3_context*);
extern void sqlite3_result_error_toobig(sqlite3_context*);
extern sqlite3 *sqlite3_context_db_handle(sqlite3_context*);
extern int sqlite3_limit(sqlite3*, int, int);
extern void *sqlite3_malloc64(unsigned long long);
extern void *sqlite3_user_data(sqlite3_context*);
extern void sqlite3_result_error(sqlite3_context*, const char*, int);
extern void sqlite3_free(void*);
extern int sqlite3_create_function_v2(sqlite3*, const char*, int, int, void*,
	void (*)(sqlite3_context*, int, sqlite3_value**), void (*)(sqlite3_context*, int, sqlite3_value**),
	void (*)(sqlite3_context*), void (*)(void*));

extern void sqlite3_progress_handler(sqlite3*, int, int(*)(void*), void*);

// stop_set is the progress handler of every connection: it stops the
// statement running once *flag is set.
static int stop_set(void *flag) { return __atomic_load_n((int *)flag, __ATOMIC_ACQUIRE); }

// watch_stop makes db stop whatever it runs, within about 1,000 virtual
// machine steps, once *flag is set.
static void watch_stop(sqlite3 *db, int *flag) { sqlite3_progress_handler(db, 1000, stop_set, flag); }

// cover_scans turns SQLite's full scans of covering indexes on or off for
// db (SQLITE_TESTCTRL_GETOPT and _OPTIMIZATIONS; SQLITE_CoverIdxScan).
static void cover_scans(sqlite3 *db, int on) {
	int opt = 0;
	sqlite3_test_control(16, db, &opt);
	opt = on ? (opt & ~0x20) : (opt | 0x20);
	sqlite3_test_control(15, db, (unsigned)opt);
}

// dqs_dml lets double-quoted text that names no column be a string in
// db's statements, or not (SQLITE_DBCONFIG_DQS_DML).
static void dqs_dml(sqlite3 *db, int on) {
	sqlite3_db_config(db, 1013, on, (int*)0);
}

// kmp_table fills fail for needle n of m bytes (m > 0).
static void kmp_table(const unsigned char *n, int m, int *fail) {
	fail[0] = 0;
	for (int i = 1, k = 0; i < m; i++) {
		while (k > 0 && n[i] != n[k]) k = fail[k-1];
		if (n[i] == n[k]) k++;
		fail[i] = k;
	}
}

// instr_func is SQLite's instr(X, Y) in linear time: the built-in compares
// the needle at every position (O(n*m)) and cannot be interrupted. Same
// rules: NULL if either is NULL; byte positions when both are BLOBs, else
// character positions in the values as text; 1 for an empty needle.
static void instr_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	int th = sqlite3_value_type(argv[0]), tn = sqlite3_value_type(argv[1]);
	const unsigned char *h, *n;
	int nh, nn, text = 1;
	if (th == 5 || tn == 5) return;
	if (th == 4 && tn == 4) {
		h = sqlite3_value_blob(argv[0]); nh = sqlite3_value_bytes(argv[0]);
		n = sqlite3_value_blob(argv[1]); nn = sqlite3_value_bytes(argv[1]);
		text = 0;
	} else {
		h = sqlite3_value_text(argv[0]); nh = sqlite3_value_bytes(argv[0]);
		n = sqlite3_value_text(argv[1]); nn = sqlite3_value_bytes(argv[1]);
	}
	if ((nn > 0 && n == 0) || (nh > 0 && h == 0)) { sqlite3_result_error_nomem(ctx); return; }
	if (nn == 0) { sqlite3_result_int64(ctx, 1); return; }
	if (nn > nh) { sqlite3_result_int64(ctx, 0); return; }
	int *fail = sqlite3_malloc64((unsigned long long)nn * sizeof(int));
	if (fail == 0) { sqlite3_result_error_nomem(ctx); return; }
	kmp_table(n, nn, fail);
	long long found = -1;
	for (int i = 0, k = 0; i < nh; i++) {
		while (k > 0 && h[i] != n[k]) k = fail[k-1];
		if (h[i] == n[k]) k++;
		if (k == nn) {
			int start = i - nn + 1;
			// The built-in tries only positions that start a character.
			if (!text || start == 0 || (h[start] & 0xc0) != 0x80) { found = start; break; }
			k = fail[k-1];
		}
	}
	sqlite3_free(fail);
	if (found < 0) { sqlite3_result_int64(ctx, 0); return; }
	long long pos = 1;
	for (long long p = 1; p <= found; p++) {
		if (!text || (h[p] & 0xc0) != 0x80) pos++;
	}
	sqlite3_result_int64(ctx, pos);
}

// replace_func is SQLite's replace(X, Y, Z) in linear time, with its rules:
// NULL if any argument is NULL, X unchanged when Y is empty (or starts
// with a NUL byte), non-overlapping matches left to right, the result
// bounded by the length limit.
static void replace_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	const unsigned char *s = sqlite3_value_text(argv[0]);
	if (s == 0) return;
	int ns = sqlite3_value_bytes(argv[0]);
	const unsigned char *pat = sqlite3_value_text(argv[1]);
	if (pat == 0) return;
	if (pat[0] == 0) { sqlite3_result_text(ctx, (const char*)s, ns, (void(*)(void*))-1); return; }
	int np = sqlite3_value_bytes(argv[1]);
	const unsigned char *rep = sqlite3_value_text(argv[2]);
	if (rep == 0) return;
	int nr = sqlite3_value_bytes(argv[2]);
	int *fail = sqlite3_malloc64((unsigned long long)np * sizeof(int));
	if (fail == 0) { sqlite3_result_error_nomem(ctx); return; }
	kmp_table(pat, np, fail);
	long long count = 0;
	for (int i = 0, k = 0; i < ns; i++) {
		while (k > 0 && s[i] != pat[k]) k = fail[k-1];
		if (s[i] == pat[k]) k++;
		if (k == np) { count++; k = 0; }
	}
	long long nout = (long long)ns + count * ((long long)nr - np);
	if (nout > sqlite3_limit(sqlite3_context_db_handle(ctx), 0, -1)) {
		sqlite3_free(fail);
		sqlite3_result_error_toobig(ctx);
		return;
	}
	unsigned char *out = sqlite3_malloc64(nout + 1);
	if (out == 0) { sqlite3_free(fail); sqlite3_result_error_nomem(ctx); return; }
	long long j = 0;
	int last = 0; // the first byte of s not yet copied
	for (int i = 0, k = 0; i < ns; i++) {
		while (k > 0 && s[i] != pat[k]) k = fail[k-1];
		if (s[i] == pat[k]) k++;
		if (k == np) {
			int start = i - np + 1;
			memcpy(out + j, s + last, start - last); j += start - last;
			memcpy(out + j, rep, nr); j += nr;
			last = i + 1;
			k = 0;
		}
	}
	memcpy(out + j, s + last, ns - last); j += ns - last;
	out[j] = 0;
	sqlite3_free(fail);
	sqlite3_result_text(ctx, (const char*)out, (int)j, sqlite3_free);
}

// trimChars is the most characters trim(X, Y) may list in Y: SQLite
// compares every character of X it strips with every one of Y, so the work
// is bounded by X's length times this.
#define trimChars 64

// trim_func is SQLite's trim, ltrim and rtrim with two arguments, the same
// algorithm, refusing a Y of more than trimChars characters. The user data
// says which ends: 1 left, 2 right, 3 both.
static void trim_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	if (sqlite3_value_type(argv[0]) == 5) return;
	const unsigned char *in = sqlite3_value_text(argv[0]);
	if (in == 0) return;
	unsigned int nin = (unsigned int)sqlite3_value_bytes(argv[0]);
	const unsigned char *set = sqlite3_value_text(argv[1]);
	if (set == 0) return;
	const unsigned char *chars[trimChars];
	unsigned int lens[trimChars];
	int nchar = 0;
	for (const unsigned char *z = set; *z; nchar++) {
		if (nchar == trimChars) {
			sqlite3_result_error(ctx, "trim, ltrim and rtrim take at most 64 characters to strip on this server: "
				"their work grows with the text's length times the number of characters", -1);
			return;
		}
		chars[nchar] = z;
		if (*(z++) >= 0xc0) { while ((*z & 0xc0) == 0x80) z++; }
		lens[nchar] = (unsigned int)(z - chars[nchar]);
	}
	int flags = (int)(intptr_t)sqlite3_user_data(ctx);
	if (nchar > 0 && (flags & 1)) {
		while (nin > 0) {
			unsigned int len = 0;
			int i;
			for (i = 0; i < nchar; i++) {
				len = lens[i];
				if (len <= nin && memcmp(in, chars[i], len) == 0) break;
			}
			if (i >= nchar) break;
			in += len;
			nin -= len;
		}
	}
	if (nchar > 0 && (flags & 2)) {
		while (nin > 0) {
			unsigned int len = 0;
			int i;
			for (i = 0; i < nchar; i++) {
				len = lens[i];
				if (len <= nin && memcmp(&in[nin-len], chars[i], len) == 0) break;
			}
			if (i >= nchar) break;
			nin -= len;
		}
	}
	sqlite3_result_text(ctx, (const char*)in, (int)nin, (void(*)(void*))-1);
}

// refuse_func fails with the message in its user data.
static void refuse_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	sqlite3_result_error(ctx, (const char*)sqlite3_user_data(ctx), -1);
}

static const char unhexRefused[] = "unhex(X, Y) is not available on this server: its work grows with X's length times Y's "
	"and cannot be interrupted; remove the separators first, as in unhex(replace(X, '-', ''))";
static const char patchRefused[] = "json_patch is not available on this server: its work grows with the product of the "
	"two documents' sizes and cannot be interrupted; use json_set or json_insert with the keys to change";

// register_linear replaces, on db, the built-in functions whose work in one
// call grows with the product of their arguments' lengths (SQLite checks
// for interrupts only between calls): instr and replace with linear ones,
// trim with a bound on its second argument, and unhex(X, Y) and json_patch
// with a refusal that says why.
static int register_linear(sqlite3 *db) {
	int flags = 1 | 0x800 | 0x200000; // UTF8, DETERMINISTIC, INNOCUOUS
	int rc = sqlite3_create_function_v2(db, "instr", 2, flags, 0, instr_func, 0, 0, 0);
	if (rc == 0) rc = sqlite3_create_function_v2(db, "replace", 3, flags, 0, replace_func, 0, 0, 0);
	if (rc == 0) rc = sqlite3_create_function_v2(db, "ltrim", 2, flags, (void*)1, trim_func, 0, 0, 0);
	if (rc == 0) rc = sqlite3_create_function_v2(db, "rtrim", 2, flags, (void*)2, trim_func, 0, 0, 0);
	if (rc == 0) rc = sqlite3_create_function_v2(db, "trim", 2, flags, (void*)3, trim_func, 0, 0, 0);
	if (rc == 0) rc = sqlite3_create_function_v2(db, "unhex", 2, flags, (void*)unhexRefused, refuse_func, 0, 0, 0);
	if (rc == 0) rc = sqlite3_create_function_v2(db, "json_patch", 2, flags, (void*)patchRefused, refuse_func, 0, 0, 0);
	if (rc == 0) rc = sqlite3_create_function_v2(db, "jsonb_patch", 2, flags, (void*)patchRefused, refuse_func, 0, 0, 0);
	return rc;
}

typedef struct {
	int typ;
	int n;          // the value's size in bytes, for text and BLOBs
	long long i;
	double f;
	const void *p;  // the first bytes, valid until the next step
} cell;

// read_row reads each column of st's row: its type, size and a pointer to
// its bytes, without copying them. It returns SQLITE_ROW, or SQLITE_NOMEM.
static int read_row(sqlite3_stmt *st, int ncol, cell *cells) {
	for (int i = 0; i < ncol; i++) {
		cell *c = &cells[i];
		c->typ = sqlite3_column_type(st, i);
		c->p = 0;
		c->n = 0;
		switch (c->typ) {
		case 1: c->i = sqlite3_column_int64(st, i); break;
		case 2: c->f = sqlite3_column_double(st, i); break;
		case 3:
			c->p = sqlite3_column_text(st, i);
			c->n = sqlite3_column_bytes(st, i);
			if (c->p == 0) return 7;
			break;
		case 4:
			c->p = sqlite3_column_blob(st, i);
			c->n = sqlite3_column_bytes(st, i);
			if (c->n > 0 && c->p == 0) return 7;
			break;
		}
	}
	return 100;
}

// step_row steps st with its temporary files' budget (tv_step) and, on
// a row, reads it (read_row).
static int step_row(sqlite3_stmt *st, int ncol, cell *cells, void *budget) {
	int rc = tv_step(st, budget);
	if (rc != 100) return rc;
	return read_row(st, ncol, cells);
}

extern int sqlite3_set_authorizer(sqlite3*, int(*)(void*, int, const char*, const char*, const char*, const char*), void*);
extern int sqlmcpAuthorize(uintptr_t, int, char*, char*, char*, char*);

// authorize_trampoline hands an authorizer call, with all four of its
// arguments, to the Go callback the handle h names.
static int authorize_trampoline(void *h, int op, const char *a1, const char *a2, const char *a3, const char *a4) {
	return sqlmcpAuthorize((uintptr_t)h, op, (char*)a1, (char*)a2, (char*)a3, (char*)a4);
}

// set_authorizer installs the trampoline on db for handle h, or removes
// the authorizer for h 0.
static int set_authorizer(sqlite3 *db, uintptr_t h) {
	return sqlite3_set_authorizer(db, h ? authorize_trampoline : 0, (void*)h);
}

static int bind_text(sqlite3_stmt *st, int i, _GoString_ s) {
	return sqlite3_bind_text(st, i, _GoStringPtr(s), (int)_GoStringLen(s), (void(*)(void*))-1);
}

static int bind_blob(sqlite3_stmt *st, int i, const void *p, int n) {
	return sqlite3_bind_blob(st, i, p, n, (void(*)(void*))-1);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/cgo"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/source"
)

// stmtHandle returns the C statement inside a go-sqlite3 statement.
func stmtHandle(st *sqlite3.SQLiteStmt) (*C.sqlite3_stmt, error) {
	f := reflect.ValueOf(st).Elem().FieldByName("s")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return nil, fmt.Errorf("cannot read the compiled SQLite statement (driver changed)")
	}
	return (*C.sqlite3_stmt)(unsafe.Pointer(f.Pointer())), nil
}

// connHandle returns the C connection inside a go-sqlite3 connection.
func connHandle(c *sqlite3.SQLiteConn) (*C.sqlite3, error) {
	f := reflect.ValueOf(c).Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return nil, fmt.Errorf("cannot read the SQLite connection (driver changed)")
	}
	return (*C.sqlite3)(unsafe.Pointer(f.Pointer())), nil
}

// cHandle is a C connection, for the files that do not use cgo.
type cHandle = C.sqlite3

// policed readies the connection for a call under a policy, or under
// none: coverScans and quotedStrings, each off under a policy. It calls
// into SQLite only when the connection was last readied the other way.
func (c *sqliteConn) policed(db *cHandle, on bool) {
	want := int8(1)
	if on {
		want = 2
	}
	if c.mode == want {
		return
	}
	coverScans(db, !on)
	quotedStrings(db, !on)
	c.mode = want
}

// coverScans turns SQLite's full scans of covering indexes on or off on
// db. Off, a query that reads no column of an index's key never comes in
// the index's order: SELECT id FROM t, over an index on a column the
// policy hides, would otherwise list the ids in that column's order.
func coverScans(db *cHandle, on bool) {
	var v C.int
	if on {
		v = 1
	}
	C.cover_scans(db, v)
}

// quotedStrings lets "text" that names no column be a string on db, or
// not. Under a policy it must not: "salary" would be refused where the
// column is denied and read as the string 'salarx' where none is named
// so, which tells the two apart.
func quotedStrings(db *cHandle, on bool) {
	var v C.int
	if on {
		v = 1
	}
	C.dqs_dml(db, v)
}

// interrupt stops whatever db runs, compiling included.
func interrupt(db *cHandle) { C.sqlite3_interrupt(db) }

// stopFlag is a connection's flag that its progress handler watches
// (watchStop): once set, the statement running stops, and so does one that
// starts later. sqlite3_interrupt alone is lost when it comes before a
// statement starts stepping (SQLite clears it as the first statement
// starts), so a call cancelled between taking its connection and stepping
// would run on to its timeout. The flag lives in C memory: SQLite keeps
// the pointer.
type stopFlag struct{ p *C.int }

// watchStop gives db a flag, cleared, and the progress handler that
// watches it.
func watchStop(db *cHandle) stopFlag {
	f := stopFlag{(*C.int)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int(0)))))}
	C.watch_stop(db, f.p)
	return f
}

// set raises the flag (on) or clears it for the connection's next call:
// an atomic store, which stop_set's atomic load sees, without a call into
// C.
func (f stopFlag) set(on bool) {
	if f.p == nil {
		return
	}
	v := int32(0)
	if on {
		v = 1
	}
	atomic.StoreInt32((*int32)(unsafe.Pointer(f.p)), v)
}

// free lets go of the flag, once its connection is closed.
func (f stopFlag) free() {
	if f.p != nil {
		C.free(unsafe.Pointer(f.p))
	}
}

// errRecompiled is stepSQLite's error when SQLite compiled a statement
// that must run as compiled again as it started.
var errRecompiled = errors.New("the statement was compiled again as it started")

// stepSQLite binds args to st, reports its columns and hands each row to
// emit until emit returns false or the rows end. With asCompiled set (a
// statement judged under a policy, whose masks stand at the places the
// judged program put the columns), a statement SQLite compiled again as it
// started, because the schema changed meanwhile, returns errRecompiled
// before any column or row is handed on: the same reads may come in
// another order. Text longer than maxText
// bytes and BLOBs longer than blobHead are read only that far and come as a
// partial holding their real size; maxText 0 reads every value whole.
func stepSQLite(st *sqlite3.SQLiteStmt, args []any, maxText, blobHead int, asCompiled bool, columns func([]source.Column), emit func([]any) bool) error {
	s, err := stmtHandle(st)
	if err != nil {
		return err
	}
	db := C.sqlite3_db_handle(s)
	// The files the run opens share one budget, freed once the reset
	// below has closed them.
	budget := newTempBudget()
	defer releaseTempBudget(budget)
	defer C.sqlite3_reset(s)
	C.sqlite3_clear_bindings(s)
	for i, a := range args {
		var rc C.int
		n := C.int(i + 1)
		switch v := a.(type) {
		case nil:
			rc = C.sqlite3_bind_null(s, n)
		case int:
			rc = C.sqlite3_bind_int64(s, n, C.longlong(v))
		case int64:
			rc = C.sqlite3_bind_int64(s, n, C.longlong(v))
		case float64:
			rc = C.sqlite3_bind_double(s, n, C.double(v))
		case bool:
			b := 0
			if v {
				b = 1
			}
			rc = C.sqlite3_bind_int64(s, n, C.longlong(b))
		case string:
			rc = C.bind_text(s, n, v)
		case []byte:
			var p unsafe.Pointer
			if len(v) > 0 {
				p = C.CBytes(v)
				defer C.free(p)
			}
			rc = C.bind_blob(s, n, p, C.int(len(v)))
		default:
			return fmt.Errorf("cannot bind %T", a)
		}
		if rc != 0 {
			return engineError(db, rc)
		}
	}
	// The columns are read after the first step: SQLite compiles the
	// statement again as it starts when the schema changed since it was
	// compiled (a statement kept from an earlier call, or another process
	// changing the schema between the compile and the step), and SELECT *
	// then has the columns of now.
	rc := C.tv_step(s, budget)
	if asCompiled && C.sqlite3_stmt_status(s, 5, 0) > 0 { // SQLITE_STMTSTATUS_REPREPARE
		return errRecompiled
	}
	ncol := int(C.sqlite3_column_count(s))
	if columns != nil && (rc == 100 || rc == 101) {
		cols := make([]source.Column, ncol)
		for i := range cols {
			cols[i].Name = C.GoString(C.sqlite3_column_name(s, C.int(i)))
			if d := C.sqlite3_column_decltype(s, C.int(i)); d != nil {
				// A declared type is the schema's text, of any length.
				cols[i].Type = schemaText(strings.ToUpper(C.GoString(d)), maxTypeText)
			}
		}
		columns(cols)
	}
	cells := (*C.cell)(C.malloc(C.size_t(max(ncol, 1)) * C.size_t(unsafe.Sizeof(C.cell{}))))
	defer C.free(unsafe.Pointer(cells))
	row := unsafe.Slice(cells, max(ncol, 1))[:ncol]
	if rc == 100 {
		rc = C.read_row(s, C.int(ncol), cells)
	}
	for ; ; rc = C.step_row(s, C.int(ncol), cells, budget) {
		switch rc {
		case 100: // SQLITE_ROW
		case 101: // SQLITE_DONE
			return nil
		default:
			return engineError(db, rc)
		}
		out := make([]any, ncol)
		for i := range row {
			c := &row[i]
			switch c.typ {
			case 1:
				out[i] = int64(c.i)
			case 2:
				out[i] = float64(c.f)
			case 3, 4:
				n, limit := int(c.n), maxText
				if c.typ == 4 {
					limit = blobHead
				}
				if maxText == 0 || n <= limit {
					if c.typ == 3 {
						out[i] = C.GoStringN((*C.char)(c.p), c.n)
					} else {
						out[i] = C.GoBytes(c.p, c.n)
					}
					continue
				}
				head := C.GoBytes(c.p, C.int(limit))
				out[i] = source.Partial{Head: head, Size: n, Blob: c.typ == 4}
			}
		}
		if !emit(out) {
			return nil
		}
	}
}

// engineError words SQLite's error for the model.
func engineError(db *C.sqlite3, rc C.int) error {
	return limitError(sqlite3.ErrNo(rc&0xff), C.GoString(C.sqlite3_errmsg(db)))
}

// limitError words an error SQLite reported with code and msg, saying
// which of sqlmcp's limits stopped the statement when one did.
func limitError(code sqlite3.ErrNo, msg string) error {
	switch code {
	case sqlite3.ErrNomem:
		return fmt.Errorf("the query needed more memory than this server lets SQLite use (%d MiB, shared by all calls at once); "+
			"simplify it: fewer WITH levels that each repeat the level below (x + x AS x), fewer or shorter long values, "+
			"aggregate before joining", heapLimit()>>20)
	case sqlite3.ErrError:
		if msg == "LIKE or GLOB pattern too complex" {
			return fmt.Errorf("%s: LIKE and GLOB patterns may be at most %d bytes on this server, since matching one costs "+
				"up to the text's length times the pattern's; match a shorter, distinctive part", msg, sqliteLikePattern)
		}
	case sqlite3.ErrFull:
		return fmt.Errorf("the query needed more than %d MiB of temporary disk space for its sorts and intermediate results "+
			"(or the disk is full) and was stopped; make it cheaper: filter with WHERE before sorting or grouping, "+
			"select fewer columns, aggregate before joining, or add LIMIT to an ORDER BY", tempLimitNow()>>20)
	case sqlite3.ErrTooBig:
		return fmt.Errorf("%s: no value may be longer than %d bytes on this server; "+
			"select a part of it with substr() or its size with length(), or aggregate fewer rows", msg, sqliteMaxValueBytes)
	}
	return classify(msg)
}

// sqliteStates are the errors SQLite words alike whatever its build (its
// messages are not translated), given the SQLSTATE PostgreSQL uses for
// the same, so callers tell them apart by code. The name the message
// ends with, after the prefix, is what it is about.
var sqliteStates = []struct{ prefix, code string }{
	{"no such table: ", source.UndefinedTable},
	{"no such column: ", source.UndefinedColumn},
	{"no such function: ", source.UndefinedFunction},
}

// classify turns SQLite's message into an *source.EngineError with the
// code sqliteStates, or a syntax error's, gives it.
func classify(msg string) error {
	e := &source.EngineError{Message: msg}
	for _, st := range sqliteStates {
		if name, ok := strings.CutPrefix(msg, st.prefix); ok {
			e.Code, e.Name = st.code, name
			return e
		}
	}
	if strings.HasSuffix(msg, ": syntax error") || msg == "incomplete input" || strings.HasPrefix(msg, "unrecognized token: ") {
		e.Code = source.SyntaxError
	}
	return e
}

// heapBudget is the memory SQLite may use for the open databases, all
// connections together; the engine's hard heap limit is set to it.
var heapBudget struct {
	sync.Mutex
	total int64
}

// reserveHeap adds n bytes to SQLite's process-wide heap limit, for one
// open database; release takes them back.
func reserveHeap(n int64) (release func()) {
	set := func(d int64) {
		heapBudget.Lock()
		defer heapBudget.Unlock()
		heapBudget.total += d
		C.sqlite3_hard_heap_limit64(C.longlong(heapBudget.total))
		C.sqlite3_soft_heap_limit64(C.longlong(heapBudget.total / 2))
	}
	set(n)
	var once sync.Once
	return func() { once.Do(func() { set(-n) }) }
}

// heapLimit is SQLite's hard heap limit now.
func heapLimit() int64 { return int64(C.sqlite3_hard_heap_limit64(-1)) }

// linearFunctions replaces, on conn, SQLite's built-ins whose one call can
// cost the product of its arguments' lengths (see register_linear).
func linearFunctions(conn *sqlite3.SQLiteConn) error {
	db, err := connHandle(conn)
	if err != nil {
		return err
	}
	if rc := C.register_linear(db); rc != 0 {
		return fmt.Errorf("registering instr and replace: %w", engineError(db, rc))
	}
	return nil
}

// RegisterContextAuthorizer sets the connection's authorizer to callback,
// which receives all four of SQLite's arguments: for a read, the table,
// the column, the database and the innermost view (or trigger) the read
// comes from, "" when from the statement itself. A nil callback removes
// the authorizer. It implements guard.SQLiteContextAuthorizer.
func (c *sqliteConn) RegisterContextAuthorizer(callback func(action int, arg1, arg2, database, inner string) int) {
	db, err := connHandle(c.SQLiteConn)
	if err != nil {
		return
	}
	var h cgo.Handle
	if callback != nil {
		h = cgo.NewHandle(callback)
	}
	if C.set_authorizer(db, C.uintptr_t(h)) != 0 {
		if h != 0 {
			h.Delete()
		}
		return
	}
	// SQLite no longer calls the previous callback once replaced.
	if c.auth != 0 {
		c.auth.Delete()
	}
	c.auth = h
}

// Close closes the connection and lets go of its kept statements, its
// authorizer and its stop flag.
func (c *sqliteConn) Close() error {
	c.kept.clear() // before the connection: a statement of a closed one is not finalized
	if err := c.SQLiteConn.Close(); err != nil {
		return err
	}
	if c.auth != 0 {
		c.auth.Delete()
		c.auth = 0
	}
	c.stop.free()
	c.stop = stopFlag{}
	return nil
}

// stmtMemory is the heap memory SQLite holds for st's compiled program
// (SQLITE_STMTSTATUS_MEMUSED); -1 when st has no handle.
func stmtMemory(st *sqlite3.SQLiteStmt) int {
	s, err := stmtHandle(st)
	if err != nil {
		return -1
	}
	return int(C.sqlite3_stmt_status(s, 99, 0))
}

// columnCount is the number of columns st returns.
func columnCount(st *sqlite3.SQLiteStmt) (int, error) {
	s, err := stmtHandle(st)
	if err != nil {
		return 0, err
	}
	return int(C.sqlite3_column_count(s)), nil
}
