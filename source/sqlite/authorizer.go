package sqlite

// The authorizer go-sqlite3 installs passes its callback three of SQLite's
// four arguments; a policy needs the fourth, the innermost view an access
// comes from, so sqlmcp installs its own.

/*
#include <stdint.h>
*/
import "C"

import (
	"runtime/cgo"
)

//export sqlmcpAuthorize
func sqlmcpAuthorize(h C.uintptr_t, op C.int, a1, a2, a3, a4 *C.char) C.int {
	f := cgo.Handle(h).Value().(func(int, string, string, string, string) int)
	return C.int(f(int(op), C.GoString(a1), C.GoString(a2), C.GoString(a3), C.GoString(a4)))
}
