package duckdb

import (
	"syscall"
	"unsafe"
)

// nameWorker names the process sqlmcp-duckdb in ps and top, where it
// would otherwise be "exe", the name of the link it was started from.
func nameWorker() {
	name := []byte("sqlmcp-duckdb\x00")
	// PR_SET_NAME (15) names the calling thread; the worker calls it first,
	// on its main thread, whose name is the process's.
	syscall.RawSyscall(syscall.SYS_PRCTL, 15, uintptr(unsafe.Pointer(&name[0])), 0)
}
