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
// it serves at once, until the test ends.
func SetMaxRequests(n int) (restore func()) {
	old := maxRequests
	maxRequests = n
	return func() { maxRequests = old }
}
