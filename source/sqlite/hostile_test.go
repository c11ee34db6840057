package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/source"
	"github.com/sqlmcp/sqlmcp/source/sqlite"
)

// columns selects expr n times.
func columns(n int, expr string) string { return "SELECT " + repeatJoin(expr, ", ", n) }

// hostileSQLite are statements written to break sqlmcp's bounds on SQLite:
// compile bombs, work SQLite does not interrupt, giant and many wide cells.
var hostileSQLite = []struct{ name, sql string }{
	{"compile bomb 24 levels", bomb(24)},
	// SQLite compiles each window function against the others, in time
	// that grows faster than their square: 2,000 took about 13 s.
	{"2,000 window functions", "SELECT count(*) OVER (ORDER BY x)" + strings.Repeat(", count(*) OVER (PARTITION BY x + 1)", 2000) + " FROM t"},
	// SQLite checks each name a WITH defines against those before it: a
	// megabyte of them holds a core until the timeout.
	{"45,000 common table expressions", "WITH " + repeatJoin("a{i} AS (SELECT 1)", ", ", 45000) + " SELECT 1"},
	{"quadratic instr", `WITH s(h, n) AS (SELECT replace(hex(zeroblob(1000000)), '0', 'a'), replace(hex(zeroblob(500000)), '0', 'a') || 'b') SELECT instr(h, n) FROM s`},
	{"quadratic replace", `WITH s(h, n) AS (SELECT replace(hex(zeroblob(1000000)), '0', 'a'), replace(hex(zeroblob(500000)), '0', 'a') || 'b') SELECT length(replace(h, n, 'x')) FROM s`},
	{"40 giant zeroblobs", columns(40, "zeroblob(60000000)")},
	{"40 big zeroblobs", columns(40, "zeroblob(4000000)")},
	{"40 big texts", "WITH s AS MATERIALIZED (SELECT randomblob(2000000) AS b) " + columns(40, "hex(b)") + " FROM s"},
	{"one literal in 200 columns", "WITH s AS (SELECT '" + strings.Repeat("x", 900000) + "' AS x) " + columns(200, "x") + " FROM s"},
	{"2000 wide columns", columns(2000, "hex(randomblob(4000))")},
	{"LIKE over 4 MB", "WITH s(h) AS (SELECT replace(hex(zeroblob(2000000)), '0', 'a')) SELECT h LIKE '%' || replace(hex(zeroblob(23)), '0', 'a') || 'b%' FROM s"},
	{"GLOB over 4 MB", "WITH s(h) AS (SELECT replace(hex(zeroblob(2000000)), '0', 'a')) SELECT h GLOB '*' || replace(hex(zeroblob(23)), '0', 'a') || 'b*' FROM s"},
	{"trim with a long set", "WITH s(h, y) AS (SELECT replace(hex(zeroblob(500000)), '0', 'a'), replace(hex(zeroblob(100000)), '0', 'b') || 'a') SELECT length(trim(h, y)) FROM s"},
	{"unhex with a long set", "WITH s(h, y) AS (SELECT replace(hex(zeroblob(500000)), '0', '-'), replace(hex(zeroblob(500000)), '0', 'b') || '-') SELECT length(unhex(h, y)) FROM s"},
	{"json_patch of big objects", "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100000), o(j) AS (SELECT json_group_object('k' || n, n) FROM c) SELECT length(json_patch(j, j)) FROM o"},
	{"group_concat past the length limit", "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000) SELECT group_concat(hex(n), 'xxxxxxxx') FROM c"},
}

// hostileResult is what the child process reports of one hostile call.
type hostileResult struct {
	Elapsed time.Duration
	Error   string
	Rows    int
	Cut     string
	PeakRSS int64 // bytes, VmHWM
}

const (
	hostileTimeout = 2 * time.Second
	hostileConns   = 2 // --max-concurrency 0 gives 8; 2 makes the bound tight
)

// TestMain runs one hostile call and exits when started as the child of
// TestHostileSQLiteBounded.
func TestMain(m *testing.M) {
	if f := os.Getenv("SQLMCP_HOSTILE_SQL_FILE"); f != "" {
		q, err := os.ReadFile(f)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		os.Exit(hostileChild(string(q)))
	}
	os.Exit(m.Run())
}

// hostileChild runs q hostileConns times at once on a fresh database and
// prints the slowest call's result with the process's peak RSS.
func hostileChild(q string) int {
	dir, err := os.MkdirTemp("", "hostile")
	if err != nil {
		return 1
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "h.db")
	w, err := sql.Open("sqlite3", path)
	if err == nil {
		_, err = w.Exec("CREATE TABLE t (x)")
		w.Close()
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	db, err := source.Open(context.Background(), path, dbtest.Options(&source.Options{Limits: sqlmcp.Limits{Timeout: hostileTimeout}, MaxConns: hostileConns}))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	var (
		mu    sync.Mutex
		worst hostileResult
		wg    sync.WaitGroup
	)
	for range hostileConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			res, err := db.Query(context.Background(), q, 0)
			r := hostileResult{Elapsed: time.Since(start)}
			if err != nil {
				r.Error = err.Error()
			} else {
				r.Rows, r.Cut = len(res.Rows), res.TruncatedBy
			}
			mu.Lock()
			if r.Elapsed >= worst.Elapsed {
				worst = r
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	worst.PeakRSS = peakRSS()
	out, _ := json.Marshal(worst)
	fmt.Println("RESULT " + string(out))
	return 0
}

// peakRSS reads the process's peak resident set size from /proc.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return -1
}

// TestHostileSQLiteBounded runs each hostile shape, hostileConns calls at
// once, in a child process, and checks the README's bound: the peak RSS
// stays under the formula of the flags, every call ends within the timeout
// and a small grace, and each ends as an answer or a clear error.
func TestHostileSQLiteBounded(t *testing.T) {
	limits := sqlmcp.Limits{}.WithDefaults()
	bound := sqlite.MemoryBound(limits, hostileConns) + hostileBase
	for _, c := range hostileSQLite {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
			file := filepath.Join(t.TempDir(), "hostile.sql")
			if err := os.WriteFile(file, []byte(c.sql), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd.Env = append(os.Environ(), "SQLMCP_HOSTILE_SQL_FILE="+file)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			_, line, ok := strings.Cut(string(out), "RESULT ")
			var r hostileResult
			if !ok || json.Unmarshal([]byte(line), &r) != nil {
				t.Fatalf("child said:\n%s", out)
			}
			t.Logf("%s: %.2fs, peak RSS %d MiB (bound %d MiB), error %.100q, rows %d, cut %q",
				c.name, r.Elapsed.Seconds(), r.PeakRSS>>20, bound>>20, r.Error, r.Rows, r.Cut)
			if r.PeakRSS > bound {
				t.Errorf("peak RSS %d MiB, over the bound of %d MiB", r.PeakRSS>>20, bound>>20)
			}
			if r.Elapsed > hostileTimeout+hostileGrace {
				t.Errorf("the call took %s; the timeout is %s", r.Elapsed, hostileTimeout)
			}
			if r.Error != "" && !clearLimitError(r.Error) {
				t.Errorf("error %q does not say which limit stopped the query", r.Error)
			}
		})
	}
}

// hostileBase is the child's own footprint with a database open: the Go
// runtime, the test binary and SQLite's code.
const hostileBase = 48 << 20

// hostileGrace is how far past the timeout a call may end: work SQLite
// does in one piece is bounded by the length and heap limits.
const hostileGrace = hostileTimeout

// clearLimitError reports whether msg names the limit that stopped it.
func clearLimitError(msg string) bool {
	for _, s := range []string{"more memory than this server lets SQLite use", "no value may be longer than", "timeout",
		"is not available on this server", "at most 64 characters to strip", "window functions (OVER); the limit is",
		"named windows (name AS (...)); the limit is"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
