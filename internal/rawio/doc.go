// Package rawio reads and writes descriptors in non-blocking mode with raw
// system calls, and waits in the runtime's network poller when a call
// would block.
//
// Why: the Go runtime's monitor thread (sysmon) goes to sleep whenever
// every processor is idle, and the next system call made the usual way
// (syscall.Syscall, which calls the runtime's entersyscall) wakes it with a
// futex. A server waiting between short calls goes idle two or three times
// a call (for the client, for the database), so every call paid as many
// wake-ups of a thread on another CPU: about a tenth of a trivial call's
// CPU here. A raw call (syscall.RawSyscall) skips entersyscall; on a
// non-blocking descriptor it never blocks, and RawConn's Read and Write
// wait in the poller, deadlines and all, when it would.
//
// The fix belongs in the runtime (entersyscall need not wake sysmon for a
// call that cannot block); until then this is a wrapper over public APIs
// only, and dropping it changes nothing but the cost.
package rawio
