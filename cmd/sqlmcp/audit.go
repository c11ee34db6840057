package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/audit"
)

// auditFlags are serve's audit file settings.
type auditFlags struct {
	file    string
	sync    time.Duration
	maxSize byteSize
	keep    int
	chain   bool
}

func (f *auditFlags) define(fs *flag.FlagSet) {
	f.maxSize = 100 << 20
	fs.StringVar(&f.file, "audit-file", "", "append one JSON line per tool call (who, database, tool, SQL, verdict, rows, bytes, duration; never row data or tokens) to this `PATH`; check it with sqlmcp audit verify (SQLMCP_AUDIT_FILE)")
	fs.DurationVar(&f.sync, "audit-sync", time.Second, "the longest a line of the audit file waits before it is fsynced; a crash of the machine loses at most this much, a kill of the server next to nothing (SQLMCP_AUDIT_SYNC)")
	fs.Var(&f.maxSize, "audit-max-size", "rotate the audit file past this `SIZE`, e.g. 100MB, 1GB; 0 never (SQLMCP_AUDIT_MAX_SIZE)")
	fs.IntVar(&f.keep, "audit-keep", 10, "rotated audit files kept: FILE.1 (the newest) to FILE.N (SQLMCP_AUDIT_KEEP)")
	fs.BoolVar(&f.chain, "audit-chain", true, "chain each line of the audit file to the one before by its SHA-256, so that an edited, removed or inserted line shows (SQLMCP_AUDIT_CHAIN)")
}

// check says what is wrong with the settings.
func (f *auditFlags) check() error {
	switch {
	case f.sync <= 0:
		return usagef("--audit-sync must be positive, not %s", f.sync)
	case f.keep < 1:
		return usagef("--audit-keep must be 1 or more, not %d", f.keep)
	case f.maxSize < 0 || f.maxSize > 0 && f.maxSize < 4096:
		return usagef("--audit-max-size %s is too small: give at least 4KB, or 0 for no rotation", f.maxSize)
	}
	return nil
}

// describe is the settings as check and the start log word them.
func (f *auditFlags) describe() string {
	if f.file == "" {
		return "none (--audit-file)"
	}
	s := fmt.Sprintf("%s, fsynced every %s", f.file, f.sync)
	if f.maxSize > 0 {
		s += fmt.Sprintf(", rotated past %s keeping %d", f.maxSize, f.keep)
	}
	if f.chain {
		return s + ", hash-chained"
	}
	return s + ", not chained"
}

// problem is what stops the audit file being written, for check; "" when
// nothing does that check can see without writing it.
func (f *auditFlags) problem() string {
	if f.file == "" {
		return ""
	}
	dir := filepath.Dir(f.file)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Sprintf("the audit file's folder %s does not exist", dir)
	}
	if st, err := os.Stat(f.file); err == nil && st.IsDir() {
		return fmt.Sprintf("the audit file %s is a folder", f.file)
	}
	return ""
}

// open opens the audit file; nil when there is none.
func (f *auditFlags) open(log zerolog.Logger) (*audit.File, error) {
	if f.file == "" {
		return nil, nil
	}
	return audit.Open(f.file, &audit.Options{Sync: f.sync, MaxSize: int64(f.maxSize), Keep: f.keep, NoChain: !f.chain, Logger: log})
}

const auditUsage = `Usage: sqlmcp audit verify [--through HASH] FILE [FILE.1 ...]

Checks the hash chain of an audit file (serve's --audit-file) and its
rotated files, given in any order: each line must hold the SHA-256 of the
line before and the next seq. It names every line edited, removed,
inserted or moved, and exits with status 1 when the chain is broken. It
prints the last line's hash: keep it where the server cannot write, and a
later verify --through HASH finds the last line edited or lines cut from
the end, which no chain shows by itself.
`

// auditCommand is sqlmcp audit.
func auditCommand(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprint(stdout, auditUsage)
		if len(args) == 0 {
			return usagef("audit needs a command: sqlmcp audit verify FILE")
		}
		return nil
	}
	if args[0] != "verify" {
		return usagef("unknown audit command %q: the command is verify (see sqlmcp audit --help)", args[0])
	}
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	through := fs.String("through", "", "the last line's hash an earlier verify printed: check that the chain still holds that line")
	if err := fs.Parse(args[1:]); err != nil {
		return usagef("audit verify: %v (see sqlmcp audit --help)", err)
	}
	if fs.NArg() == 0 {
		return usagef("audit verify needs the audit file, and its rotated files if any (see sqlmcp audit --help)")
	}
	r, err := audit.VerifyThrough(*through, fs.Args()...)
	if err != nil {
		return fmt.Errorf("audit verify: %w", err)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(stdout, "%s\n", p)
	}
	fmt.Fprintf(stdout, "%s in %s, seq %d to %d; the last line's hash is %s\n",
		count(r.Lines, "line", "lines"), count(len(r.Files), "file", "files"), r.FirstSeq, r.LastSeq, r.Last)
	if len(r.Problems) > 0 {
		return fmt.Errorf("audit verify: the chain is broken: %s", count(len(r.Problems), "problem", "problems"))
	}
	fmt.Fprintln(stdout, "the chain is intact")
	return nil
}

// byteSize is a flag's size in bytes, written 100MB, 1GB, 512KB or a
// number of bytes; KB, MB and GB are powers of 1024, as are KiB and so on.
type byteSize int64

func (b byteSize) String() string {
	n := int64(b)
	for _, u := range []struct {
		unit string
		size int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.unit
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteSize) Set(s string) error {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		unit string
		size int64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.unit) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.unit)), u.size
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return errors.New("a size is a number of bytes, or one with KB, MB or GB, e.g. 100MB")
	}
	*b = byteSize(n * mult)
	return nil
}
