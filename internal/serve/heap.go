package serve

import "sync"

// heapFloor is memory the garbage collector counts as live but that
// nothing reads or writes, so the operating system never maps it: it
// raises the heap size at which a collection starts, by twice its size,
// without using the memory. A server whose live heap is a few MiB would
// otherwise collect every 2 MiB of allocation, about every 30 trivial
// calls (the SDK allocates 64 KiB per call decoding it, see UPSTREAM.md),
// and each collection marks the whole live heap: over half the CPU of a
// trivial call. With the floor a collection comes about every 18 MiB; on
// a large live heap (a big result) the floor adds little, unlike a higher
// GOGC, which would let every heap grow by a multiple. It shows in the Go
// heap metrics, not in the resident memory: the runtime takes it fresh
// from the system, already zero, and never touches it.
var heapFloor struct {
	once sync.Once
	mem  []byte
}

// heapFloorSize is the floor: measured on stdio SELECT 1, half the
// instructions per call, 7 MiB more resident memory under load and none
// idle.
const heapFloorSize = 8 << 20

// raiseHeapFloor sets the floor once per process.
func raiseHeapFloor() {
	heapFloor.once.Do(func() { heapFloor.mem = make([]byte, heapFloorSize) })
}
