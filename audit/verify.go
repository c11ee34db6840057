package audit

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Report is what Verify found.
type Report struct {
	// Files are the files checked, oldest first.
	Files []string
	// Lines is how many lines they hold; FirstSeq and LastSeq the first
	// and last seq read.
	Lines             int
	FirstSeq, LastSeq int64
	// Last is the hex SHA-256 of the last line: kept elsewhere, it shows
	// later whether that line was edited or lines cut from the end, which
	// no chain can.
	Last string
	// Notes are what is sound but worth saying: a line torn by a crash,
	// a chain that starts after files rotated away.
	Notes []Problem
	// Problems are the breaks in the chain: when there is one, the files
	// were changed after they were written.
	Problems []Problem
}

// Problem is one finding, at a line.
type Problem struct {
	File string
	Line int // 1-based, in File
	What string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.What) }

// entry is one line as Verify reads it.
type entry struct {
	file    string
	line    int
	hash    string
	newline bool // the line ends in a newline
	valid   bool // a JSON object with a seq
	seq     int64
	prev    string
	chained bool // it has a prev
	event   string
	reason  string

	reported bool // a problem named it already
}

func (e *entry) at(what string, args ...any) Problem {
	return Problem{File: e.file, Line: e.line, What: fmt.Sprintf(what, args...)}
}

// Verify checks the chain through the files paths name, in any order: a
// name ending in .N is older than one ending in .N-1, which is older than
// one with no number (PATH.2, PATH.1, PATH). It returns an error only when
// a file cannot be read; what is wrong with the chain is in the Report,
// one Problem per break, saying which line was edited, removed, inserted
// or moved.
func Verify(paths ...string) (*Report, error) { return VerifyThrough("", paths...) }

// VerifyThrough is Verify, and with through (a Report.Last kept from an
// earlier verify) also checks that the chain still holds the line whose
// hash it is: when none does, that line was edited or removed, or the
// lines up to it cut from the end, which no chain shows by itself.
func VerifyThrough(through string, paths ...string) (*Report, error) {
	if len(paths) == 0 {
		return nil, errors.New("no audit file to verify")
	}
	files := slices.Clone(paths)
	slices.SortStableFunc(files, func(a, b string) int { return rotation(b) - rotation(a) })
	r := &Report{Files: files}
	it := &lines{files: files}
	var p1, p2 *entry // the line before, and the one before it
	var last *entry   // the last line read
	for {
		e, err := it.next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		r.Lines++
		last = e
		if through != "" && e.hash == through {
			r.Notes = append(r.Notes, e.at("the line whose hash was kept: the chain holds it"))
			through = ""
		}
		nx, err := it.peek()
		if err != nil {
			return nil, err
		}
		switch {
		case !e.valid:
			switch {
			case nx == nil && !e.newline:
				r.Notes = append(r.Notes, e.at("the last line is torn: the server stopped while writing it; the chain up to it holds"))
			case nx != nil && nx.event == "audit_torn" && nx.prev == e.hash:
				r.Notes = append(r.Notes, e.at("a line torn when the server stopped while writing it; the server marked it on its next start"))
			default:
				r.Problems = append(r.Problems, e.at("not an audit line (not a JSON object with a seq): it was edited"))
			}
			// A torn or broken line had its number.
			if p1 != nil {
				e.seq = p1.seq + 1
			}
		case p1 == nil:
			r.FirstSeq = e.seq
			switch {
			case !e.chained:
				r.Problems = append(r.Problems, e.at("the line has no prev: the file has no hash chain (written with --audit-chain=false), and only its seq numbers can be read"))
				return r, nil
			case e.prev == Genesis && e.seq == 1:
			case e.event == "audit_open" && e.reason == "rotated":
				r.Notes = append(r.Notes, e.at("the chain starts here, at seq %d, after older files rotated away or not given", e.seq))
			default:
				r.Problems = append(r.Problems, e.at("the chain's first line neither starts the chain (seq 1, the genesis prev) nor opens a rotated file: the lines before it were removed (or give the older files too)"))
			}
		default:
			if skip := check(r, e, nx, p1, p2); skip != nil {
				if skip == e {
					continue // an inserted line: the next chains to p1
				}
				if _, err := it.next(); err != nil { // a swapped pair: nx is done too
					return nil, err
				}
				r.Lines++
				p2, p1 = nx, e
				r.Last, r.LastSeq = e.hash, e.seq
				continue
			}
		}
		p2, p1 = p1, e
		r.Last, r.LastSeq = e.hash, e.seq
	}
	if through != "" {
		p := Problem{File: files[len(files)-1], What: "no line has the hash kept from an earlier verify: that line was edited or removed, or the lines up to it cut from the end"}
		if last != nil {
			p.File, p.Line = last.file, last.line
		}
		r.Problems = append(r.Problems, p)
	}
	if r.Lines == 0 {
		r.Problems = append(r.Problems, Problem{File: files[len(files)-1], What: "no lines"})
	}
	return r, nil
}

// check judges e, which follows p1 (and p2 before it) and comes before
// nx, adding what it finds to r. It returns e when e is an inserted line
// to skip, nx when e and nx are a swapped pair, nil otherwise.
func check(r *Report, e, nx, p1, p2 *entry) *entry {
	if e.prev == p1.hash && e.seq == p1.seq+1 {
		return nil
	}
	valid := func(x *entry) bool { return x != nil && x.valid }
	switch {
	case valid(nx) && e.seq == p1.seq+2 && nx.seq == p1.seq+1 && nx.prev == p1.hash && e.prev == nx.hash:
		r.Problems = append(r.Problems, e.at("out of order: it (seq %d) and the line after it (seq %d) were swapped", e.seq, nx.seq))
		return nx
	case valid(nx) && nx.prev == p1.hash && nx.seq == p1.seq+1:
		r.Problems = append(r.Problems, e.at("inserted: the line after it chains to the line before it"))
		return e
	case p2 != nil && e.prev == p2.hash && e.seq == p2.seq+1:
		r.Problems = append(r.Problems, p1.at("inserted: the line after it chains to the line before it"))
	case e.seq == p1.seq+1 && valid(nx) && nx.seq == e.seq+1 && nx.prev != e.hash:
		// Neither side of e chains: e itself (its prev) was changed.
		r.Problems = append(r.Problems, e.at("edited: its prev is not the hash of the line before it, and the line after it holds the hash of other bytes"))
		e.reported = true
	case e.seq == p1.seq+1:
		if p1.valid && !p1.reported { // else already said
			r.Problems = append(r.Problems, p1.at("edited: the line after it holds the hash of other bytes"))
		}
	case e.prev == p1.hash:
		r.Problems = append(r.Problems, e.at("edited: it chains to the line before it but its seq is %d, not %d", e.seq, p1.seq+1))
	case e.seq > p1.seq+1:
		n := e.seq - p1.seq - 1
		what := fmt.Sprintf("%d lines (seq %d to %d) were removed before it", n, p1.seq+1, e.seq-1)
		if n == 1 {
			what = fmt.Sprintf("1 line (seq %d) was removed before it", p1.seq+1)
		}
		if p1.file != e.file {
			what += fmt.Sprintf(", after the last line of %s", p1.file)
		}
		r.Problems = append(r.Problems, e.at("%s", what))
	default:
		r.Problems = append(r.Problems, e.at("does not follow the line before it (seq %d after %d, and another hash): edited, inserted or moved", e.seq, p1.seq))
	}
	return nil
}

// rotation is the N of a name ending in .N, 0 for none.
func rotation(path string) int {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	n, err := strconv.Atoi(ext)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// lines reads the lines of files in turn, one ahead.
type lines struct {
	files  []string
	i      int
	f      *os.File
	r      *bufio.Reader
	line   int
	peeked *entry
	done   bool
}

func (l *lines) peek() (*entry, error) {
	if l.peeked == nil && !l.done {
		e, err := l.read()
		if err != nil {
			return nil, err
		}
		l.peeked = e
		l.done = e == nil
	}
	return l.peeked, nil
}

func (l *lines) next() (*entry, error) {
	if _, err := l.peek(); err != nil {
		return nil, err
	}
	e := l.peeked
	l.peeked = nil
	return e, nil
}

func (l *lines) read() (*entry, error) {
	for {
		if l.r == nil {
			if l.i == len(l.files) {
				return nil, nil
			}
			f, err := os.Open(l.files[l.i])
			if err != nil {
				return nil, err
			}
			l.f, l.r, l.line = f, bufio.NewReaderSize(f, 1<<20), 0
		}
		b, err := l.r.ReadBytes('\n')
		if len(b) > 0 {
			l.line++
			return parse(l.files[l.i], l.line, b), nil
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		l.f.Close()
		l.r = nil
		l.i++
	}
}

// parse reads the fields of one line that Verify checks.
func parse(file string, n int, b []byte) *entry {
	sum := sha256.Sum256(b)
	e := &entry{file: file, line: n, hash: hex.EncodeToString(sum[:]), newline: bytes.HasSuffix(b, []byte{'\n'})}
	var v struct {
		Seq    *int64  `json:"seq"`
		Prev   *string `json:"prev"`
		Event  string  `json:"event"`
		Reason string  `json:"reason"`
	}
	if !e.newline || json.Unmarshal(b, &v) != nil || v.Seq == nil {
		return e
	}
	e.valid, e.seq, e.event, e.reason = true, *v.Seq, v.Event, v.Reason
	if v.Prev != nil {
		e.chained, e.prev = true, *v.Prev
	}
	return e
}
