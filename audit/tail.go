package audit

import (
	"bytes"
	"encoding/json"
	"os"
)

// tail is where a file's chain stands: its last line, and whether a crash
// tore it.
type tail struct {
	size int64
	// last is the last complete line, its newline included, or with torn
	// the bytes after the last newline.
	last []byte
	torn bool
	// lastSeq is the seq of the last complete line: with torn, the one
	// before the torn bytes; 0 when there is none.
	lastSeq int64
}

// readTail reads f's last lines from its end, a chunk at a time.
func readTail(f *os.File) (tail, error) {
	st, err := f.Stat()
	if err != nil {
		return tail{}, err
	}
	t := tail{size: st.Size()}
	if t.size == 0 {
		return t, nil
	}
	var buf []byte
	off := t.size
	for {
		if off < t.size && len(buf) > 0 {
			t.torn = buf[len(buf)-1] != '\n'
			body := bytes.TrimSuffix(buf, []byte{'\n'})
			need := 1
			if t.torn {
				need = 2
			}
			if off == 0 || bytes.Count(body, []byte{'\n'}) >= need {
				break
			}
		}
		n := min(int64(64<<10), off)
		off -= n
		chunk := make([]byte, n, int(n)+len(buf))
		if _, err := f.ReadAt(chunk, off); err != nil {
			return tail{}, err
		}
		buf = append(chunk, buf...)
	}
	body := buf
	if !t.torn {
		body = buf[:len(buf)-1]
	}
	i := bytes.LastIndexByte(body, '\n')
	if t.torn {
		t.last = body[i+1:]
		if i < 0 {
			return t, nil
		}
		body = body[:i]
		j := bytes.LastIndexByte(body, '\n')
		t.lastSeq = seqOf(body[j+1:])
		return t, nil
	}
	t.last = buf[i+1:]
	t.lastSeq = seqOf(t.last)
	return t, nil
}

// seqOf is a line's seq, 0 when it has none.
func seqOf(line []byte) int64 {
	var v struct {
		Seq int64 `json:"seq"`
	}
	if json.Unmarshal(line, &v) != nil {
		return 0
	}
	return v.Seq
}
