package serve

import "time"

// SetWriteStall sets how long a response's write waits for a client that
// stopped reading, until the test ends.
func SetWriteStall(d time.Duration) (restore func()) {
	old := writeStall
	writeStall = d
	return func() { writeStall = old }
}

// SetMaxRequests sets how many /mcp requests an HTTP server started after
// it serves at once, in all and of one caller, until the test ends.
func SetMaxRequests(total, perCaller int) (restore func()) {
	oldTotal, oldCaller := maxRequests, maxCallerRequests
	maxRequests, maxCallerRequests = total, perCaller
	return func() { maxRequests, maxCallerRequests = oldTotal, oldCaller }
}
