package mysql

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// leftPoll is how often the server is asked whether the connections sqlmcp
// killed, whose statement the server ran on (a function that never looks
// at the kill flag, such as ENCRYPT's crypt() over many rounds), have
// ended.
const leftPoll = 250 * time.Millisecond

// LeftRunning reports how many statements the server still runs after
// sqlmcp killed them (source.LeftRunner), and a channel closed at the next
// change of that number.
func (b *backend) LeftRunning() (int, <-chan struct{}) { return b.left.Count() }

// stillRunning reports which of the connections ids the process list
// still shows (source.Left's question).
func (b *backend) stillRunning(ids []uint64) (map[uint64]bool, error) {
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = strconv.FormatUint(id, 10)
	}
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	rows, err := b.kill.QueryContext(ctx, "SELECT ID FROM information_schema.PROCESSLIST WHERE ID IN ("+strings.Join(list, ", ")+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	still := map[uint64]bool{}
	for rows.Next() {
		var id uint64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		still[id] = true
	}
	return still, rows.Err()
}
