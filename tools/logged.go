package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"unicode/utf8"

	"github.com/sqlmcp/sqlmcp/guard"
)

// loggedHead is how much of an argument past guard.MaxSQLBytes the log
// and the audit file keep.
const loggedHead = 4 << 10

// logged is an argument as the log and the audit file hold it: whole when
// it is no longer than the longest SQL the guard reads, so every statement
// the server could run is logged as sent; past that (a call refused for
// its size) its first 4 KiB, its length and its SHA-256, so one call
// cannot write a line of hundreds of megabytes.
func logged(s string) string {
	if len(s) <= guard.MaxSQLBytes {
		return s
	}
	head := s[:loggedHead]
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1] // not in the middle of a character
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s… (%d bytes, sha256 %s)", head, len(s), hex.EncodeToString(sum[:]))
}
