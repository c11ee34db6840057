package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// write writes n tool_call events numbered from first to a, then closes a.
func write(t testing.TB, a *File, first, n int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		if _, err := fmt.Fprintf(a, `{"event":"tool_call","tool":"run_query","sql":"SELECT %d"}`+"\n", i); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// fresh writes n events to a new audit file and returns its path.
func fresh(t *testing.T, n int, opts *Options) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	write(t, a, 1, n)
	return path
}

// readLines returns a file's lines, newlines kept.
func readLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(string(b), "\n")[:bytes.Count(b, []byte{'\n'})]
}

func writeLines(t testing.TB, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
}

// verify runs Verify and returns its problems and notes as strings.
func verify(t testing.TB, paths ...string) (problems, notes []string) {
	t.Helper()
	r, err := Verify(paths...)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		problems = append(problems, p.String())
	}
	for _, p := range r.Notes {
		notes = append(notes, p.String())
	}
	return problems, notes
}

// sqls are the sql fields of a file's tool_call lines, in order.
func sqls(t testing.TB, paths ...string) []string {
	t.Helper()
	var out []string
	for _, p := range paths {
		for _, l := range readLines(t, p) {
			var v struct{ Event, SQL string }
			if json.Unmarshal([]byte(l), &v) == nil && v.Event == "tool_call" {
				out = append(out, v.SQL)
			}
		}
	}
	return out
}

func TestFormat(t *testing.T) {
	path := fresh(t, 3, nil)
	lines := readLines(t, path)
	if len(lines) != 4 {
		t.Fatalf("%d lines, want an audit_open line and 3 events:\n%s", len(lines), strings.Join(lines, ""))
	}
	if !strings.HasPrefix(lines[0], `{"seq":1,"prev":"`+Genesis+`","time":"`) || !strings.Contains(lines[0], `"event":"audit_open","reason":"new"}`) {
		t.Errorf("first line %q, want seq 1, the genesis prev and audit_open", lines[0])
	}
	for i := 1; i < len(lines); i++ {
		sum := sha256.Sum256([]byte(lines[i-1]))
		want := fmt.Sprintf(`{"seq":%d,"prev":"%s","event":"tool_call","tool":"run_query","sql":"SELECT %d"}`+"\n", i+1, hex.EncodeToString(sum[:]), i)
		if lines[i] != want {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, lines[i], want)
		}
	}
	if p, n := verify(t, path); p != nil || n != nil {
		t.Errorf("problems %q, notes %q on an untouched file", p, n)
	}
}

func TestNoChain(t *testing.T) {
	path := fresh(t, 2, &Options{NoChain: true})
	lines := readLines(t, path)
	if strings.Contains(strings.Join(lines, ""), "prev") || !strings.HasPrefix(lines[2], `{"seq":3,"event":"tool_call"`) {
		t.Errorf("lines without a chain:\n%s", strings.Join(lines, ""))
	}
	if p, _ := verify(t, path); len(p) != 1 || !strings.Contains(p[0], "no hash chain") {
		t.Errorf("problems %q, want one saying the file has no chain", p)
	}
}

func TestTampering(t *testing.T) {
	cases := []struct {
		name   string
		change func([]string) []string
		want   []string // problems, as FILE:LINE: prefix
	}{
		{"edited line", func(l []string) []string {
			l[4] = strings.Replace(l[4], "SELECT 4", "SELECT 40", 1)
			return l
		}, []string{":5: edited: the line after it holds the hash of other bytes"}},
		{"edited last line but one's prev", func(l []string) []string {
			l[6] = strings.Replace(l[6], `"prev":"`, `"prev":"0`, 1)[:len(l[6])] + "\n"
			return l
		}, []string{":7: edited: its prev is not the hash of the line before it"}},
		{"removed line", func(l []string) []string {
			return slices.Delete(l, 3, 4)
		}, []string{":4: 1 line (seq 4) was removed before it"}},
		{"removed two lines", func(l []string) []string {
			return slices.Delete(l, 3, 5)
		}, []string{":4: 2 lines (seq 4 to 5) were removed before it"}},
		{"removed first line", func(l []string) []string {
			return l[1:]
		}, []string{":1: the chain's first line neither starts the chain"}},
		{"reordered pair", func(l []string) []string {
			l[3], l[4] = l[4], l[3]
			return l
		}, []string{":4: out of order: it (seq 5) and the line after it (seq 4) were swapped"}},
		{"inserted line", func(l []string) []string {
			return slices.Insert(l, 3, `{"seq":4,"prev":"`+Genesis+`","event":"tool_call","sql":"SELECT 'nothing'"}`+"\n")
		}, []string{":4: inserted: the line after it chains to the line before it"}},
		{"inserted line chained to the one before", func(l []string) []string {
			sum := sha256.Sum256([]byte(l[2]))
			return slices.Insert(l, 3, `{"seq":4,"prev":"`+hex.EncodeToString(sum[:])+`","event":"tool_call","sql":"SELECT 'nothing'"}`+"\n")
		}, []string{":4: inserted: the line after it chains to the line before it"}},
		{"line made not JSON", func(l []string) []string {
			l[2] = "garbage\n"
			return l
		}, []string{":3: not an audit line"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := fresh(t, 8, nil)
			writeLines(t, path, c.change(readLines(t, path)))
			problems, _ := verify(t, path)
			if len(problems) == 0 {
				t.Fatalf("no problem found")
			}
			if len(problems) != len(c.want) {
				t.Errorf("problems %q, want %d", problems, len(c.want))
			}
			for i, w := range c.want {
				if i >= len(problems) || !strings.Contains(problems[i], path+w) {
					t.Errorf("problems %q, want %d to be %s%s", problems, i, path, w)
				}
			}
		})
	}
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	a, err := Open(path, &Options{MaxSize: 2000, Keep: 3})
	if err != nil {
		t.Fatal(err)
	}
	write(t, a, 1, 100)
	files, _ := filepath.Glob(path + "*")
	slices.Sort(files)
	if want := []string{path, path + ".1", path + ".2", path + ".3"}; !slices.Equal(files, want) {
		t.Fatalf("files %q, want %q", files, want)
	}
	for _, f := range files {
		st, _ := os.Stat(f)
		if st.Size() > 2000 {
			t.Errorf("%s holds %d bytes, more than MaxSize", f, st.Size())
		}
		if l := readLines(t, f)[0]; !strings.Contains(l, `"event":"audit_open","reason":"rotated"`) {
			t.Errorf("%s begins %q, want its audit_open line", f, l)
		}
	}
	// Given in any order, oldest removed: the chain holds, and starts
	// after the files rotated away.
	problems, notes := verify(t, path, path+".2", path+".1", path+".3")
	if problems != nil {
		t.Errorf("problems %q after rotation", problems)
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], path+".3:1: the chain starts here") {
		t.Errorf("notes %q, want one on the chain starting in %s.3", notes, path)
	}
	got := sqls(t, path+".3", path+".2", path+".1", path)
	if got[len(got)-1] != "SELECT 100" {
		t.Errorf("the last event is %q, want SELECT 100", got[len(got)-1])
	}
	for i := 1; i < len(got); i++ {
		var a, b int
		fmt.Sscanf(got[i-1], "SELECT %d", &a)
		fmt.Sscanf(got[i], "SELECT %d", &b)
		if b != a+1 {
			t.Errorf("event %q follows %q", got[i], got[i-1])
		}
	}
	// A whole file removed from the middle is a break.
	problems, _ = verify(t, path, path+".1", path+".3")
	if len(problems) != 1 || !strings.Contains(problems[0], path+".1:1: ") || !strings.Contains(problems[0], "removed before it, after the last line of "+path+".3") {
		t.Errorf("problems %q, want lines removed before %s.1", problems, path)
	}
}

func TestRestart(t *testing.T) {
	path := fresh(t, 3, nil)
	for run := range 2 {
		a, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		write(t, a, 4+3*run, 3)
	}
	lines := readLines(t, path)
	if len(lines) != 10 || !strings.HasPrefix(lines[9], `{"seq":10,`) {
		t.Errorf("after two restarts %d lines, want 10 numbered to 10:\n%s", len(lines), strings.Join(lines, ""))
	}
	if p, n := verify(t, path); p != nil || n != nil {
		t.Errorf("problems %q, notes %q after restarts", p, n)
	}
	if got := sqls(t, path); len(got) != 9 || got[8] != "SELECT 9" {
		t.Errorf("events %q", got)
	}
}

func TestTornLastLine(t *testing.T) {
	path := fresh(t, 3, nil)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(readLines(t, path)[3]))
	fmt.Fprintf(f, `{"seq":5,"prev":"%x","event":"tool_call","sql":"SELE`, sum)
	f.Close()

	// Before a restart: the torn tail is what a crash leaves, not a break.
	problems, notes := verify(t, path)
	if problems != nil || len(notes) != 1 || !strings.Contains(notes[0], path+":5: the last line is torn") {
		t.Errorf("problems %q, notes %q, want a note on the torn line 5", problems, notes)
	}

	a, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, a, 4, 2)
	lines := readLines(t, path)
	if !strings.HasSuffix(lines[4], `"sql":"SELE`+"\n") || !strings.Contains(lines[5], `"seq":6,`) || !strings.Contains(lines[5], `"event":"audit_torn","torn_bytes":`) {
		t.Errorf("after the restart:\n%s", strings.Join(lines, ""))
	}
	problems, notes = verify(t, path)
	if problems != nil || len(notes) != 1 || !strings.Contains(notes[0], path+":5: a line torn") {
		t.Errorf("problems %q, notes %q, want a note on the torn line 5", problems, notes)
	}
	// Someone who cuts a line and calls it torn is found out: the marker
	// chains to the bytes that were there.
	lines[4] = lines[4][:len(lines[4])-5] + "\n"
	writeLines(t, path, lines)
	if problems, _ = verify(t, path); len(problems) == 0 {
		t.Errorf("no problem after editing the torn line")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCloseWhileWriting: events written while the file closes are either
// in it or refused, never a crash, and the chain holds.
func TestCloseWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				if _, err := fmt.Fprintf(a, `{"event":"tool_call","sql":"SELECT %d"}`, w*1000000+i); err != nil {
					return
				}
				mu.Lock()
				accepted++
				mu.Unlock()
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if got := len(sqls(t, path)); got != accepted {
		t.Errorf("%d events in the file, %d accepted", got, accepted)
	}
	if p, n := verify(t, path); p != nil || n != nil {
		t.Errorf("problems %q, notes %q", p, n)
	}
}

// BenchmarkWrite is the cost of one event, about the size of a tool
// call's, written to the file and chained. The loop soon fills the queue,
// so it measures the writer's pace: what each event costs in all.
func BenchmarkWrite(b *testing.B) {
	for _, c := range []struct {
		name string
		opts Options
	}{{"chain", Options{}}, {"no-chain", Options{NoChain: true}}} {
		b.Run(c.name, func(b *testing.B) {
			a, err := Open(filepath.Join(b.TempDir(), "audit.jsonl"), &c.opts)
			if err != nil {
				b.Fatal(err)
			}
			event := []byte(`{"time":"2026-12-01T15:00:00.123456Z","event":"tool_call","subject":"ana","issuer":"https://id.example.com","token_fingerprint":"","database":"shop","role":"","tool":"run_query","sql":"SELECT name, city FROM customers WHERE city = 'London' ORDER BY name","verdict":"ok","rows":2,"truncated":false,"bytes":120,"duration_ms":0.412}` + "\n")
			for b.Loop() {
				a.Write(event)
			}
			if err := a.Close(); err != nil {
				b.Fatal(err)
			}
			if s := a.Stats(); s.Lost > 0 {
				b.Errorf("%d lost", s.Lost)
			}
		})
	}
}

// TestOneWriter: a second File on the same path is refused while the
// first is open, and opens once it is closed.
func TestOneWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := Open(path, nil); err == nil || !strings.Contains(err.Error(), "another process is writing it") {
		t.Errorf("a second writer: %v", err)
		if b != nil {
			b.Close()
		}
	}
	a.Close()
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
}

// TestAnyChangeShows: every removal of a line, swap of two neighbours and
// change of one byte is a problem, but for the last line, which no line
// after it records: cut or edited, it is what Report.Last is for.
func TestAnyChangeShows(t *testing.T) {
	path := fresh(t, 12, nil)
	orig := readLines(t, path)
	check := func(what string, lines []string) {
		t.Helper()
		writeLines(t, path, lines)
		if problems, _ := verify(t, path); len(problems) == 0 {
			t.Errorf("%s: no problem found", what)
		}
	}
	for i := range orig {
		if i+1 < len(orig) { // the last line cut leaves no trace: see Report.Last
			check(fmt.Sprintf("line %d removed", i+1), slices.Delete(slices.Clone(orig), i, i+1))
		}
		if i+1 < len(orig) {
			l := slices.Clone(orig)
			l[i], l[i+1] = l[i+1], l[i]
			check(fmt.Sprintf("lines %d and %d swapped", i+1, i+2), l)
		}
	}
	for i := range len(orig) - 1 {
		for j := 0; j < len(orig[i])-1; j += 7 {
			l := slices.Clone(orig)
			b := []byte(l[i])
			b[j] ^= 1
			l[i] = string(b)
			check(fmt.Sprintf("line %d byte %d changed", i+1, j), l)
		}
	}
}

// TestVerifyThrough: with the last hash of an earlier verify kept, the last
// line edited or cut shows.
func TestVerifyThrough(t *testing.T) {
	path := fresh(t, 3, nil)
	r, err := Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	kept := r.Last
	a, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, a, 4, 2)
	if r, err = VerifyThrough(kept, path); err != nil || r.Problems != nil || len(r.Notes) != 1 || !strings.Contains(r.Notes[0].String(), path+":4: the line whose hash was kept") {
		t.Fatalf("after more lines: %v %+v", err, r)
	}
	lines := readLines(t, path)
	for name, l := range map[string][]string{
		"cut":    lines[:3],
		"edited": append(slices.Clone(lines[:3]), strings.Replace(lines[3], "SELECT 3", "SELECT 9", 1)),
	} {
		writeLines(t, path, l)
		r, err := VerifyThrough(kept, path)
		if err != nil || len(r.Problems) != 1 || !strings.Contains(r.Problems[0].String(), path+":") || !strings.Contains(r.Problems[0].What, "no line has the hash kept") {
			t.Errorf("%s: %v %+v", name, err, r)
		}
		if r, _ := Verify(path); r.Problems != nil {
			t.Errorf("%s: without the kept hash, problems %v (the chain alone cannot tell)", name, r.Problems)
		}
	}
}
