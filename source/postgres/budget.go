package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/source"
)

// The budgets PostgreSQL itself enforces, set on every connection beside
// the timeouts (see pgStartup).
const (
	// DefaultWorkMem is work_mem for every call: the memory one
	// sort or hash may take before it spills to temporary files.
	DefaultWorkMem = "32MB"
	// DefaultTempFileLimit is temp_file_limit for every call: the
	// temporary disk one process may write.
	DefaultTempFileLimit = "1GB"
)

// pgMemory matches a memory setting as PostgreSQL writes it, without
// spaces: "32MB", "1GB", "512kB", "1TB".
var pgMemory = regexp.MustCompile(`^([0-9]{1,9})(kB|MB|GB|TB)$`)

// pgKB reads a memory setting in kB; ok false for anything else.
func pgKB(v string) (kb int64, ok bool) {
	m := pgMemory.FindStringSubmatch(v)
	if m == nil {
		return 0, false
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	switch m[2] {
	case "MB":
		n <<= 10
	case "GB":
		n <<= 20
	case "TB":
		n <<= 30
	}
	return n, n > 0
}

// pgBudget is the work_mem and temp_file_limit every call sets, and what
// the role allows of them.
type pgBudget struct {
	workMem, tempFileLimit string // "" for temp_file_limit: not set per call
	// warning says, when not "", that temp_file_limit cannot be set per
	// call and the server's own does not bound the disk, with the
	// commands that fix it.
	warning string
}

// startup puts the budgets that are the same for every call among a
// connection's startup parameters, which cost nothing per call and
// override the role's and the database's settings: work_mem for each sort
// and hash, hashes held to it too (hash_mem_multiplier is 2 by default),
// no JIT compilation (LLVM's work does not stop on the timeout), a join
// search whose memory is bounded (pgJoinSearch), and a check every
// second, while a query runs, that sqlmcp is still there, so one it gave
// up on stops.
func (b pgBudget) startup(params map[string]string) {
	params["work_mem"] = b.workMem
	params["hash_mem_multiplier"] = "1"
	params["jit"] = "off"
	params["client_connection_check_interval"] = "1s"
	params["geqo"] = "on"
	params["geqo_threshold"] = pgJoinSearch
}

// pgJoinSearch is the fewest relations joined in one problem that the
// planner leaves to its genetic search rather than trying every order.
// Every order of n relations keeps up to 2^n joins in memory, before a
// row is read: on PostgreSQL 15, eleven self-joins on one key (under the
// default threshold of 12) took 280 MB in 0.4 s, ten 108 MB; with 9 the
// largest exhaustive search, eight relations, takes about 30 MB, and the
// genetic search held 80 such joins to 43 MB, stopping at the timeout.
// It and geqo are set for every connection, whatever the server says.
const pgJoinSearch = "9"

// pgStartup puts the settings every call runs under among a connection's
// startup parameters, which cost nothing per call, outrank the role's,
// the database's and the URL's options, and survive the DISCARD ALL that
// ends each call (RESET ALL goes back to them): the statement timeout, an
// idle-in-transaction timeout in case sqlmcp itself stalls, and the output
// formats the value conversion reads. A timeout under 1ms is 1ms, since
// zero would turn it off.
func pgStartup(params map[string]string, limits sqlmcp.Limits) {
	params["statement_timeout"] = strconv.FormatInt(max(limits.Timeout.Milliseconds(), 1), 10)
	params["idle_in_transaction_session_timeout"] = strconv.FormatInt((limits.Timeout + pgBackstop).Milliseconds(), 10)
	params["DateStyle"] = "ISO"
	params["IntervalStyle"] = "postgres"
	params["bytea_output"] = "hex"
	params["extra_float_digits"] = "1"
}

// pgSession is what Open learns of the server and the role, and adds to
// every connection's startup parameters: at most two parallel workers,
// each of which has work_mem again (fewer if the server says so), and
// temp_file_limit when the role may set it.
type pgSession struct {
	params        map[string]string
	tempFileLimit bool // temp_file_limit is among params
}

// apply adds the session's parameters to a connection's.
func (s *pgSession) apply(params map[string]string) {
	for k, v := range s.params {
		params[k] = v
	}
}

// session returns the settings every new connection takes.
func (p *backend) session() *pgSession { return p.sess.Load() }

// pgWorkersSQL reads the server's (or the database's, or the role's)
// max_parallel_workers_per_gather, with only what the bootstrap catalog
// knows.
const pgWorkersSQL = `SELECT setting FROM pg_catalog.pg_settings WHERE name = 'max_parallel_workers_per_gather'`

// decideSession reads the server's parallel workers and whether the role
// may set temp_file_limit (see probe) and puts them in the settings every
// connection made after takes; the caller resets the pool, so that none
// made before runs a call without them. The server's workers are read
// once: lowering them later takes effect at the next start.
func (p *backend) decideSession(ctx context.Context) error {
	rows, err := p.ownRows(ctx, pgWorkersSQL, bootstrapCatalog)
	if err != nil {
		return fmt.Errorf("reading max_parallel_workers_per_gather: %w", err)
	}
	workers := 2
	if len(rows) == 1 {
		if n, err := strconv.Atoi(source.CellText(rows[0][0])); err == nil {
			workers = min(n, workers)
		}
	}
	if err := p.budget.probe(ctx, p); err != nil {
		return err
	}
	s := &pgSession{params: map[string]string{"max_parallel_workers_per_gather": strconv.Itoa(workers)}}
	if p.budget.tempFileLimit != "" {
		s.params["temp_file_limit"], s.tempFileLimit = p.budget.tempFileLimit, true
	}
	p.sess.Store(s)
	return nil
}

// newPGBudget checks the budgets; "" means the default, and a
// tempFileLimit of "-1" sets none.
func newPGBudget(workMem, tempFileLimit string) (pgBudget, error) {
	b := pgBudget{workMem: workMem, tempFileLimit: tempFileLimit}
	if b.workMem == "" {
		b.workMem = DefaultWorkMem
	}
	if b.tempFileLimit == "" {
		b.tempFileLimit = DefaultTempFileLimit
	}
	if kb, ok := pgKB(b.workMem); !ok || kb < 64 || kb > 2<<30 {
		return b, fmt.Errorf("the PostgreSQL work_mem %q is not a size from 64kB to 2TB, written like 32MB", b.workMem)
	}
	if b.tempFileLimit == "-1" {
		b.tempFileLimit = ""
	} else if _, ok := pgKB(b.tempFileLimit); !ok {
		return b, fmt.Errorf("the PostgreSQL temp_file_limit %q is not a size written like 1GB, or -1 for none", b.tempFileLimit)
	}
	return b, nil
}

// probe finds whether the role may set temp_file_limit (a superuser's
// setting, or one granted with GRANT SET ON PARAMETER): if not,
// connections do not set it, and when the server's own value does not bound the disk
// either, warning says what to run.
func (b *pgBudget) probe(ctx context.Context, p *backend) error {
	var role string
	if b.tempFileLimit == "" {
		return nil
	}
	tx, err := p.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "SAVEPOINT sqlmcp_probe"); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, "SELECT set_config('temp_file_limit', $1, true)", b.tempFileLimit)
	var pe *pgconn.PgError
	if err == nil {
		return nil
	}
	if !errors.As(err, &pe) || pe.Code != "42501" {
		return fmt.Errorf("setting temp_file_limit: %w", err)
	}
	if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT sqlmcp_probe"); err != nil {
		return err
	}
	var current int64 // in kB; -1 is none
	if err := tx.QueryRow(ctx, "SELECT setting::bigint, current_user FROM pg_catalog.pg_settings WHERE name = 'temp_file_limit'").Scan(&current, &role); err != nil {
		return fmt.Errorf("reading temp_file_limit: %w", err)
	}
	want, _ := pgKB(b.tempFileLimit)
	limit := b.tempFileLimit
	b.tempFileLimit = ""
	if current >= 0 && current <= want {
		return nil // the role's or the server's own setting bounds it
	}
	q := quoteIdent(role)
	b.warning = fmt.Sprintf("the role %s may not set temp_file_limit, and the server's (%s) does not bound the temporary disk a query may write: "+
		"as a superuser, run ALTER ROLE %s SET temp_file_limit = '%s'; (or GRANT SET ON PARAMETER temp_file_limit TO %s; so sqlmcp sets it for every call, "+
		"or ALTER SYSTEM SET temp_file_limit = '%s'; SELECT pg_reload_conf(); for every role)", q, kbWords(current), q, limit, q, limit)
	return nil
}

// kbWords spells a setting in kB, -1 as none.
func kbWords(kb int64) string {
	if kb < 0 {
		return "-1, no limit"
	}
	return strconv.FormatInt(kb, 10) + "kB"
}

// pgKBInMessage finds the limit a message names, as "(1048576kB)".
var pgKBInMessage = regexp.MustCompile(`\(([0-9]+)kB\)`)

// pgBudgetError words a budget PostgreSQL enforced for the model, or
// returns nil when pe is not one.
func pgBudgetError(pe *pgconn.PgError) error {
	// 53400 configuration_limit_exceeded: "temporary file size exceeds
	// temp_file_limit (1048576kB)". Messages may be translated; the
	// setting's name is not.
	if pe.Code != "53400" || !strings.Contains(pe.Message, "temp_file_limit") {
		return nil
	}
	limit := "the server's limit"
	if m := pgKBInMessage.FindStringSubmatch(pe.Message); m != nil {
		kb, _ := strconv.ParseInt(m[1], 10, 64)
		limit = sizeWords(kb)
	}
	return fmt.Errorf("the query needed more than %s of temporary disk space (temp_file_limit) and was stopped inside the database; "+
		"make it cheaper: filter with WHERE before sorting or joining, aggregate before joining, select fewer columns, or add LIMIT: %w", limit, pe)
}

// sizeWords spells a size in kB in the largest whole unit.
func sizeWords(kb int64) string {
	for _, u := range []struct {
		unit  string
		shift uint
	}{{"TB", 30}, {"GB", 20}, {"MB", 10}} {
		if kb >= 1<<u.shift && kb%(1<<u.shift) == 0 {
			return strconv.FormatInt(kb>>u.shift, 10) + " " + u.unit
		}
	}
	return strconv.FormatInt(kb, 10) + " kB"
}
