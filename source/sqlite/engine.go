package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/source"
)

// Engine opens SQLite files. The zero value is ready; it has no settings.
type Engine struct{}

// Dialect is sqlmcp.SQLite.
func (Engine) Dialect() sqlmcp.Dialect { return sqlmcp.SQLite }

// Claims takes sqlite: and file: URLs, and anything that is not a URL: a
// path, which Open checks is a SQLite file.
func (Engine) Claims(dsn string) bool {
	if strings.HasPrefix(dsn, "sqlite:") || strings.HasPrefix(dsn, "file:") {
		return true
	}
	return !strings.Contains(dsn, "://")
}

// Forms are the forms of --db a SQLite file takes.
func (Engine) Forms() []string {
	return []string{"PATH, sqlite:PATH or file:PATH?mode=ro (a SQLite file, opened read-only)"}
}

// Open opens the SQLite file dsn names, read-only, and reads its schema
// table once to prove it is a database. It refuses allowed extensions and
// functions: SQLite loads no extensions.
func (Engine) Open(ctx context.Context, dsn string, cfg source.Config) (source.Backend, error) {
	if len(cfg.AllowExtensions)+len(cfg.AllowFunctions) > 0 {
		return nil, errors.New("--allow-extension and --allow-function apply to PostgreSQL only")
	}
	path, err := sqlitePath(dsn)
	if err != nil {
		return nil, err
	}
	f, err := openSQLiteFile(path, cfg.MaxConns)
	if err != nil {
		return nil, err
	}
	b := &backend{file: f, limits: cfg.Limits}
	b.info = source.Info{Dialect: sqlmcp.SQLite, Name: path, Database: filepath.Base(path), Path: path,
		Guard: []string{"sqlite compiler and authorizer: one read-only statement", "engine: read-only open, query_only, no ATTACH"}}
	ctx, cancel := context.WithTimeout(ctx, cfg.Limits.Timeout)
	defer cancel()
	if _, err := source.Door(b, cfg.Limits).Catalog(ctx, "SELECT count(*) FROM sqlite_schema"); err != nil {
		f.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return b, nil
}

// backend is one open SQLite file.
type backend struct {
	file   *sqliteFile
	limits sqlmcp.Limits
	info   source.Info
	policy atomic.Pointer[policyBox] // nil until SetPolicy
}

// policyBox holds a policy for an atomic.Pointer.
type policyBox struct{ p guard.PolicyCatalog }

// SetPolicy makes every statement that is not sqlmcp's own judged under
// p from the next call on (nil: none); calls already running keep the one
// they started with. It implements source.PolicyEnforcer.
func (b *backend) SetPolicy(p guard.PolicyCatalog) {
	if p == nil {
		b.policy.Store(nil)
		return
	}
	b.policy.Store(&policyBox{p})
}

// currentPolicy is the policy set last, nil for none.
func (b *backend) currentPolicy() guard.PolicyCatalog {
	if box := b.policy.Load(); box != nil {
		return box.p
	}
	return nil
}

func (b *backend) Info() source.Info { return b.info }

func (b *backend) Close() error { return b.file.Close() }

// Quote double-quotes an identifier.
func (b *backend) Quote(name string) string { return quote(name) }

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// Ready reads the file's schema version.
func (b *backend) Ready(ctx context.Context) error {
	_, err := source.Door(b, b.limits).Catalog(ctx, "SELECT 1")
	return err
}

// Acquire takes a guarded connection on the file the path names now.
func (b *backend) Acquire(ctx context.Context) (source.Conn, error) {
	pool, err := b.file.current()
	if err != nil {
		return nil, err
	}
	c, err := pool.Conn(ctx)
	if err != nil {
		return nil, err
	}
	cn := &conn{c: c, limits: b.limits, policy: b.currentPolicy()}
	err = c.Raw(func(dc any) error {
		cn.sc = dc.(*sqliteConn)
		cn.sc.stop.set(false) // before Cancel can be armed on this call
		cn.h, err = connHandle(cn.sc.SQLiteConn)
		return err
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	return cn, nil
}

// conn is one pooled connection, held for a call.
type conn struct {
	c      *sql.Conn
	sc     *sqliteConn
	h      *cHandle
	limits sqlmcp.Limits
	policy guard.PolicyCatalog // the backend's when the call began; nil for none
}

// Run prepares st through the guard and steps the very statement the
// guard judged. The model's queries (st.Cut set) read no more of a long
// value than the answer shows, with its real size; sqlmcp's own reads get
// whole values.
func (c *conn) Run(ctx context.Context, st source.Statement, sink source.Sink) error {
	return c.c.Raw(func(any) (runErr error) {
		var p guard.PolicyCatalog
		if !st.Own && !st.Builtin {
			p = c.policy
		}
		// Under a policy no statement, sqlmcp's own samples included,
		// may come in the order of an index on a hidden column; the
		// guard refuses what would still use one (PreparePolicy).
		c.sc.policed(c.h, c.policy != nil)
		// SQLite's guard judges the statement as it compiles it: the span
		// is the guarded compile.
		// With no policy in force the connection keeps the statement
		// for the text's next run (stmtCache).
		keep := c.policy == nil
		_, span := source.StartStep(ctx, source.Step{Name: source.StepGuard, Dialect: sqlmcp.SQLite, Own: st.Own})
		ps, masked, err := c.sc.prepare(st.SQL, p, keep)
		span.End(-1, err)
		if err != nil {
			var se sqlite3.Error
			if errors.As(err, &se) {
				return limitError(se.Code, se.Error())
			}
			return err
		}
		defer func() { c.sc.done(st.SQL, ps, keep, runErr) }()
		maxText, blobHead := 0, 0
		if st.Cut > 0 {
			maxText, blobHead = st.Cut, blobShow
		}
		columns := sink.Columns
		if len(masked) > 0 {
			columns = func(cols []source.Column) {
				for i := range masked {
					if m := &masked[i]; m.Position < len(cols) {
						cols[m.Position].Mask = m
					}
				}
				if sink.Columns != nil {
					sink.Columns(cols)
				}
			}
			n, err := columnCount(ps)
			if err != nil {
				return err
			}
			for _, m := range masked {
				// Redaction keys on the position: one past the result
				// would let the masked values through.
				if m.Position < 0 || m.Position >= n {
					return fmt.Errorf("the guard found a masked column at position %d of a result of %d columns", m.Position, n)
				}
			}
		}
		err = stepSQLite(ps, st.Args, maxText, blobHead, p != nil, columns, sink.Row)
		if err != nil && c.sc.guard != nil {
			// The engine's error would name what the policy refused, or
			// say only "not authorized" of a view too costly to compile.
			if e := c.sc.guard.StepRefusal(errors.Is(err, errRecompiled)); e != nil {
				return e
			}
		}
		return err
	})
}

// Cancel stops the connection's call: SQLite stops compiling or stepping
// at its next check, and a statement that starts later in the call stops at
// once (the stop flag, which the next Acquire clears).
func (c *conn) Cancel() {
	c.sc.stop.set(true)
	interrupt(c.h)
}

// Release hands the connection back: a read-only handle with no
// transaction open (the guard refuses BEGIN) has nothing to reset.
func (c *conn) Release(err error) error {
	c.c.Close()
	return err
}

// blobShow is how many bytes of a BLOB a cell's preview shows (as
// source.Cell shows them).
const blobShow = 16

// SchemaVersion is SQLite's schema_version, which any schema change bumps.
func (b *backend) SchemaVersion(ctx context.Context, r source.Reader) (int64, bool, error) {
	rows, err := r.Catalog(ctx, "SELECT schema_version FROM pragma_schema_version")
	if err != nil {
		return 0, false, fmt.Errorf("reading the schema version: %w", err)
	}
	v, _ := rows[0][0].(int64)
	return v, true, nil
}

// DataStamp is the file's and its log's stamp: any writer's commit
// changes it.
func (b *backend) DataStamp() any { return stampOf(b.info.Path) }

// Warnings says when the file is in rollback-journal mode.
func (b *backend) Warnings() []source.Warning {
	if !sqliteRollbackJournal(b.info.Path) {
		return nil
	}
	return []source.Warning{{Event: "journal", Message: journalWarning(b.info.Path, b.limits.Timeout)}}
}
