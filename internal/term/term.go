// Package term draws for a person at a terminal: a query result as an
// aligned table, psql's way, and a status line that rewrites itself while
// the work goes on. It knows nothing of MCP or models; cmd/sqlmcp feeds
// it.
package term

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	xterm "golang.org/x/term"

	"github.com/sqlmcp/sqlmcp/internal/text"
)

// IsTerminal reports whether f is an *os.File open on a terminal.
func IsTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && xterm.IsTerminal(int(file.Fd()))
}

// Result is a query result as Table prints it. Cells are nil, bool,
// numbers, strings, or anything JSON can write.
type Result struct {
	Columns []string
	Rows    [][]any
	// RowCount is how many rows the query returned (Rows may hold more);
	// Truncated says the server cut the result there.
	RowCount  int
	Truncated bool
}

// Table prints r as an aligned table of at most maxRows rows, numbers to
// the right, and a last line saying how many rows there are.
func Table(w io.Writer, r Result, maxRows int) {
	rows := r.Rows
	if len(rows) > maxRows {
		rows = rows[:maxRows]
	}
	widths := make([]int, len(r.Columns))
	right := make([]bool, len(r.Columns))
	cells := make([][]string, len(rows))
	for c, name := range r.Columns {
		widths[c] = utf8.RuneCountInString(name)
		right[c] = true
	}
	for i, row := range rows {
		cells[i] = make([]string, len(r.Columns))
		for c := range r.Columns {
			var v any
			if c < len(row) {
				v = row[c]
			}
			cells[i][c] = Cell(v)
			widths[c] = max(widths[c], utf8.RuneCountInString(cells[i][c]))
			switch v.(type) {
			case nil, float64, json.Number, int64, int:
			default:
				right[c] = false
			}
		}
	}
	pad := func(s string, c int, alignRight bool) string {
		gap := strings.Repeat(" ", widths[c]-utf8.RuneCountInString(s))
		if alignRight {
			return gap + s
		}
		return s + gap
	}
	line := func(vals []string, header bool) {
		parts := make([]string, len(vals))
		for c, v := range vals {
			parts[c] = " " + pad(v, c, right[c] && !header) + " "
		}
		fmt.Fprintln(w, strings.TrimRight(strings.Join(parts, "|"), " "))
	}
	if len(r.Columns) > 0 {
		line(r.Columns, true)
		dashes := make([]string, len(r.Columns))
		for c := range dashes {
			dashes[c] = strings.Repeat("-", widths[c]+2)
		}
		fmt.Fprintln(w, strings.Join(dashes, "+"))
		for _, cs := range cells {
			line(cs, false)
		}
	}
	total := max(r.RowCount, len(r.Rows))
	var note string
	switch {
	case len(rows) < total:
		note = fmt.Sprintf("first %d of %d rows", len(rows), total)
	case total == 1:
		note = "1 row"
	default:
		note = fmt.Sprintf("%d rows", total)
	}
	if r.Truncated {
		note += fmt.Sprintf("; the server cut the result at %d rows, and there are more", total)
	}
	fmt.Fprintf(w, "(%s)\n", note)
}

// Cell renders a value for a table on one line of at most 60 characters:
// NULL for nil, line breaks as ↵.
func Cell(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		s = x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool, json.Number, int, int64:
		return fmt.Sprint(x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		s = string(b)
	}
	s = strings.NewReplacer("\r\n", "↵", "\n", "↵", "\r", "↵", "\t", " ").Replace(s)
	return text.Clip(s, 60)
}

// Duration words a duration briefly: "850 ms", "2.5 s".
func Duration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// Progress shows work going on: permanent lines, and on a terminal one
// status line below them that rewrites itself (with the seconds it has
// been showing when it was set with Status) and is gone when cleared. On
// anything but a terminal only the lines are written. It is safe for
// concurrent use; Close stops it.
type Progress struct {
	mu     sync.Mutex
	w      io.Writer
	live   bool      // w is a terminal
	text   string    // the status; "" for none
	timed  bool      // the status shows its seconds
	since  time.Time // when the status was set
	shown  string    // the status line on the screen, "" for none
	done   chan struct{}
	closed sync.Once
}

// NewProgress writes to w, drawing a status line when w is a terminal.
func NewProgress(w io.Writer) *Progress {
	p := &Progress{w: w, live: IsTerminal(w), done: make(chan struct{})}
	if p.live {
		go func() {
			t := time.NewTicker(250 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					p.mu.Lock()
					p.draw()
					p.mu.Unlock()
				case <-p.done:
					return
				}
			}
		}()
	}
	return p
}

// Live reports whether the status line shows: w is a terminal.
func (p *Progress) Live() bool { return p.live }

// Status sets the status line, which counts the seconds since; "" clears it.
func (p *Progress) Status(s string) { p.set(s, true) }

// Show sets the status line without a count of seconds; "" clears it.
func (p *Progress) Show(s string) { p.set(s, false) }

func (p *Progress) set(s string, timed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.text, p.timed, p.since = s, timed, time.Now()
	p.draw()
}

// Line prints a permanent line above the status line.
func (p *Progress) Line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintln(p.w, s)
	p.draw()
}

// Writer is an io.Writer whose text goes above the status line, as a
// child process's log.
func (p *Progress) Writer() io.Writer { return writerFunc(p.write) }

func (p *Progress) write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	n, err := p.w.Write(b)
	p.draw()
	return n, err
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// Close clears the status line and stops redrawing it.
func (p *Progress) Close() {
	p.closed.Do(func() {
		close(p.done)
		p.Status("")
	})
}

// draw rewrites the status line when it changed; p.mu is held.
func (p *Progress) draw() {
	if !p.live {
		return
	}
	s := p.text
	if s != "" && p.timed {
		s = fmt.Sprintf("%s … %ds", p.text, int(time.Since(p.since).Seconds()))
	}
	if s == p.shown {
		return
	}
	p.clear()
	fmt.Fprint(p.w, s)
	p.shown = s
}

// clear takes the status line off the screen; p.mu is held.
func (p *Progress) clear() {
	if p.shown != "" {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = ""
	}
}
