package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/sqlmcp/sqlmcp/source"
)

// sandbox is a source's private directory, which holds the catalog of
// views over the served files and the workers' spill folders, and the
// database the worker opens in it.
type sandbox struct {
	dir string
	// release gives up the private directory's lock (holdPrivate).
	release func()
	// db is the database the worker opens read-only: the served DuckDB
	// file, or the views' catalog.
	db string
}

// Close removes the private directory.
func (s *sandbox) Close() error {
	err := os.RemoveAll(s.dir)
	if s.release != nil {
		s.release()
	}
	return err
}

// privatePrefix begins the name of every private directory.
const privatePrefix = "sqlmcp-duckdb-"

// sweepOnce removes, once a process, the private directories killed
// processes left (sweepPrivate).
var sweepOnce sync.Once

// limits are the per-source budgets.
type limits struct {
	memory, temp string
	threads      int
}

// prepareSandbox makes the private directory for the DuckDB file at
// dbPath or, when views is not empty, names the catalog of views over
// them that the first worker makes in it (buildCatalog).
func prepareSandbox(dbPath string, views []served) (_ *sandbox, err error) {
	sweepOnce.Do(func() { sweepPrivate() })
	dir, err := os.MkdirTemp("", privatePrefix)
	if err != nil {
		return nil, fmt.Errorf("making a private directory for DuckDB: %w", err)
	}
	s := &sandbox{dir: dir, db: dbPath}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if s.release, err = holdPrivate(dir); err != nil {
		return nil, fmt.Errorf("locking DuckDB's private directory: %w", err)
	}
	if len(views) > 0 {
		s.db = filepath.Join(dir, catalogName(views)+".duckdb")
	}
	return s, nil
}

// buildCatalog makes, in the worker, the catalog of views at path, with
// Parquet's key-value descriptions as comments, and says what it made:
// the files of the views made, Parquet's row counts, and a warning for
// each file DuckDB cannot read, which is left out.
func buildCatalog(ctx context.Context, path string, want []wireView) (*built, error) {
	w, err := sql.Open("duckdb", path+"?threads=1&autoload_known_extensions=false&autoinstall_known_extensions=false")
	if err != nil {
		return nil, fmt.Errorf("making the views' catalog: %w", err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	b := &built{Estimates: map[string]int64{}}
	for _, wv := range want {
		v := served{name: wv.Name, path: wv.Path, kind: dataKind(wv.Kind), files: wv.Files}
		// Said first, so that when reading the file crashes the worker,
		// sqlmcp knows which file to leave out (buildingMark).
		fmt.Fprintf(os.Stderr, "\n%s%s\n", buildingMark, strconv.Quote(v.path))
		if _, err := w.ExecContext(ctx, "CREATE VIEW "+quote(v.name)+" AS SELECT * FROM "+v.reader()); err != nil {
			b.Warnings = append(b.Warnings, source.Warning{Event: "file",
				Message: fmt.Sprintf("%s is not served: DuckDB cannot read it: %s", v.path, firstLine(err.Error()))})
			continue
		}
		b.Files = append(b.Files, v.readable()...)
		if v.kind != parquetData {
			continue
		}
		var n sql.NullInt64
		if err := w.QueryRowContext(ctx, "SELECT sum(num_rows) FROM parquet_file_metadata("+v.list()+")").Scan(&n); err == nil && n.Valid {
			b.Estimates[v.name] = n.Int64
		}
		if err := describe(ctx, w, v.name, v.list()); err != nil {
			return nil, err
		}
	}
	if len(b.Files) == 0 {
		return nil, errors.New(b.Warnings[0].Message)
	}
	return b, nil
}

// wireViews are views as opening.Build carries them.
func wireViews(views []served) []wireView {
	out := make([]wireView, len(views))
	for i, v := range views {
		out[i] = wireView{Name: v.name, Path: v.path, Kind: int(v.kind), Files: v.files}
	}
	return out
}

// openInstance opens o's database read-only, in the worker, and locks the
// instance down; it returns the instance and its settings as DuckDB reads
// them back.
func openInstance(ctx context.Context, o opening) (*sql.DB, []string, error) {
	config := [][2]string{
		{"access_mode", "READ_ONLY"},
		{"threads", strconv.Itoa(o.Threads)},
		{"memory_limit", o.Memory},
		{"temp_directory", o.Spill},
		{"max_temp_directory_size", o.Temp},
		{"autoload_known_extensions", "false"},
		{"autoinstall_known_extensions", "false"},
		{"allow_community_extensions", "false"},
		{"allow_unsigned_extensions", "false"},
		{"allow_persistent_secrets", "false"},
	}
	q := url.Values{}
	for _, kv := range config {
		q.Set(kv[0], kv[1])
	}
	connector, err := duckdb.NewConnector(o.DB+"?"+q.Encode(), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("opening %s: %w", o.DB, err)
	}
	db := sql.OpenDB(connector)
	// As many again for the parsers the worker keeps.
	db.SetMaxOpenConns(2 * o.Conns)
	db.SetMaxIdleConns(o.Conns)
	if err := lock(ctx, db, o.Files); err != nil {
		db.Close()
		return nil, nil, err
	}
	settings, err := report(ctx, db, o)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, settings, nil
}

// lock makes files the only ones DuckDB may read, turns external access
// off and locks the configuration. Every setting is global to the
// instance, so one connection sets them for all.
func lock(ctx context.Context, db *sql.DB, files []string) error {
	var paths []string
	for _, f := range files {
		paths = append(paths, quoteString(f))
		// A view reads a file whose name holds a glob character by a
		// pattern that matches only it (literalPath), and DuckDB judges
		// the pattern before it lists the folder.
		if p := literalPath(f); p != f {
			paths = append(paths, quoteString(p))
		}
	}
	// Files only, never a directory: DuckDB lets a statement write where
	// it may read, and a directory would let it make new files.
	stmts := []string{
		"SET allowed_paths = [" + strings.Join(paths, ", ") + "]",
		"SET enable_external_access = false",
		"SET lock_configuration = true",
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connecting to DuckDB: %w", err)
	}
	defer conn.Close()
	for _, st := range stmts {
		if _, err := conn.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("locking DuckDB down (%s): %w", st, err)
		}
	}
	return nil
}

// reported are the settings the sandbox's report reads back, in order.
var reported = []string{"enable_external_access", "lock_configuration", "access_mode", "memory_limit", "threads",
	"temp_directory", "max_temp_directory_size", "autoload_known_extensions", "autoinstall_known_extensions",
	"allow_community_extensions", "allow_unsigned_extensions", "allow_persistent_secrets"}

// report reads the sandbox's settings back from the locked instance, so
// that what sqlmcp check shows is what DuckDB enforces, and says which
// files it serves, whether sqlmcp's user could write them, and the
// worker's own bounds.
func report(ctx context.Context, db *sql.DB, o opening) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name, value FROM duckdb_settings() WHERE list_contains(?, name)", reported)
	if err != nil {
		return nil, fmt.Errorf("reading DuckDB's settings back: %w", err)
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		got[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	asked := map[string]string{"memory_limit": o.Memory, "max_temp_directory_size": o.Temp}
	var parts []string
	for _, k := range reported {
		v, ok := got[k]
		if !ok {
			return nil, fmt.Errorf("reading DuckDB's settings back: %s is missing", k)
		}
		if a := asked[k]; a != "" && a != v {
			v += " (" + a + ")"
		}
		parts = append(parts, k+"="+v)
	}
	files := o.Files
	line := fmt.Sprintf("files: %d served, the only paths DuckDB may open beside sqlmcp's own catalog and spill folder", len(files))
	if len(files) == 0 {
		files = []string{o.DB}
		line = "files: the database file alone, opened read-only"
	}
	switch n := writable(files); {
	case n == len(files) && len(files) == 1:
		line += "; writable by sqlmcp's user" + writableNote
	case n > 0:
		line += fmt.Sprintf("; %d of them writable by sqlmcp's user", n) + writableNote
	default:
		line += "; none writable by sqlmcp's user"
	}
	process := "process: DuckDB runs in a worker process of its own, stopped when a statement outlives its time limit"
	switch {
	case o.DataLimit > 0:
		process += fmt.Sprintf(", its data memory bounded at %d MiB (RLIMIT_DATA)", o.DataLimit>>20)
	case o.Unbounded != "":
		process += ", its memory not bounded by the system (" + o.Unbounded + ")"
	}
	return []string{"sandbox: " + strings.Join(parts, ", "), process, line}, nil
}

// writableNote says what a writable served file means.
const writableNote = ": DuckDB lets a statement write any file it may read, so only the guard and the engine's check keep COPY TO off them (serve them read-only to that user, as a read-only mount, for a wall of the system's own)"

// writable counts the files sqlmcp's user could open for writing. It
// opens each without truncating and writes nothing.
func writable(files []string) int {
	n := 0
	for _, f := range files {
		if w, err := os.OpenFile(f, os.O_WRONLY, 0); err == nil {
			w.Close()
			n++
		}
	}
	return n
}

// readable lists every file the views read.
func readable(views []served) []string {
	var files []string
	for _, v := range views {
		files = append(files, v.readable()...)
	}
	return files
}

// describe turns a Parquet file's key-value metadata into comments on the
// view: the key "description" describes the table, "description:COLUMN"
// a column (the first file's, for a folder).
func describe(ctx context.Context, w *sql.DB, view, files string) error {
	rows, err := w.QueryContext(ctx, "SELECT decode(key), decode(value) FROM parquet_kv_metadata("+files+
		") WHERE file_name = (SELECT min(file_name) FROM parquet_kv_metadata("+files+")) AND starts_with(decode(key), 'description')")
	if err != nil {
		return nil // no key-value metadata to read
	}
	var notes [][2]string
	for rows.Next() {
		var k, v string
		if rows.Scan(&k, &v) == nil {
			notes = append(notes, [2]string{k, v})
		}
	}
	rows.Close()
	for _, n := range notes {
		target := "VIEW " + quote(view)
		if col, ok := strings.CutPrefix(n[0], "description:"); ok {
			target = "COLUMN " + quote(view) + "." + quote(col)
		} else if n[0] != "description" {
			continue
		}
		if _, err := w.ExecContext(ctx, "COMMENT ON "+target+" IS "+quoteString(n[1])); err != nil {
			return fmt.Errorf("describing %s from its Parquet metadata: %w", view, err)
		}
	}
	return nil
}

// catalogName names the views' database after the served folder or file.
func catalogName(views []served) string {
	name := filepath.Base(views[0].path)
	if len(views) > 1 {
		name = filepath.Base(filepath.Dir(views[0].path))
	}
	name = viewName(name)
	b := []byte(name)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		b = append([]byte("files_"), b...)
	}
	return string(b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
