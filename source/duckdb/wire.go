package duckdb

import (
	"encoding/gob"
	"encoding/json"
	"sync"
	"time"

	"github.com/sqlmcp/sqlmcp/source"
)

// DuckDB runs in a worker process of its own, a second copy of the
// program (see ServeWorker), and sqlmcp speaks to it over the worker's
// standard input and output: a stream of gob-encoded requests one way and
// replies the other, each carrying the id of its request, so that calls
// share the pipes. The worker exists to be bounded and stopped by the
// system: a single DuckDB function can build a value of gigabytes outside
// memory_limit (repeat, lpad, printf's width, range) and run on past its
// interrupt, and only a process can be given a memory bound and killed.

// op is what a request asks of the worker.
type op uint8

const (
	// opOpen opens the locked instance; the worker's first request.
	opOpen op = iota + 1
	// opRun runs one query: the engine's own check that the text is one
	// SELECT or EXPLAIN, then its rows.
	opRun
	// opParse is DuckDB's json_serialize_sql of the text, for the guard.
	opParse
	// opPing checks that the instance answers.
	opPing
	// opCancel stops the request whose id it names.
	opCancel
	// opRaw runs every statement of a text with no check at all: for
	// tests that prove what the locked instance holds alone. The worker
	// takes it only when its opening allowed it.
	opRaw
)

// request is one request to the worker.
type request struct {
	ID uint64
	Op op
	// SQL is the text to run or parse; Args its parameters.
	SQL  string
	Args []any
	// Deadline, when set, stops the statement in the worker too.
	Deadline time.Time
	// Cut is source.Statement.Cut: a longer text or BLOB is sent as a
	// source.Partial, a longer list cut short.
	Cut int
	// Budget, when positive, is how many bytes of rows the worker sends
	// before it stops the statement: past what the answer can hold.
	Budget int
	// Target is the request opCancel stops.
	Target uint64
	Open   *opening
}

// opening is what opOpen opens, and the bounds it opens it under.
type opening struct {
	// DB is the DuckDB file, opened read-only; Files are the only files
	// it may read besides (the served data files).
	DB    string
	Files []string
	// Spill is the folder for spill files.
	Spill        string
	Memory, Temp string
	Threads      int
	Conns        int
	// DataLimit bounds the worker's data memory (RLIMIT_DATA), in bytes;
	// zero for none.
	DataLimit int64
	// Unbounded says why the system could not bound it, in the worker.
	Unbounded string
	// Raw allows opRaw.
	Raw bool
	// Build, for the first worker of a source of data files, are the
	// views to make in a new catalog at DB before opening it; the reply's
	// Built says what was made.
	Build []wireView
}

// wireView is a view to make over files (served).
type wireView struct {
	Name, Path string
	Kind       int
	Files      []string
}

// built is what the worker made of opening.Build: the views' files, the
// row counts Parquet's metadata gives, the files left out.
type built struct {
	Files     []string
	Estimates map[string]int64
	Warnings  []source.Warning
}

// estimate is the row count Parquet's metadata gives for the view name;
// b may be nil (a DuckDB file).
func (b *built) estimate(name string) (int64, bool) {
	if b == nil {
		return 0, false
	}
	n, ok := b.Estimates[name]
	return n, ok
}

// reply is one message of the worker's answer to a request: the columns,
// then rows in batches, then one with Done set (and Err when it failed).
type reply struct {
	ID      uint64
	Columns []wireColumn
	Rows    [][]any
	// Text is opParse's answer; Settings and Built opOpen's.
	Text     string
	Settings []string
	Built    *built
	Done     bool
	Err      *wireError
	// Retire, on a last reply, says the worker holds most of its memory
	// bound after the statement (its allocator keeps what it freed): it
	// is to be replaced once its calls are done.
	Retire bool
}

// wireColumn is a result column as the worker reads it.
type wireColumn struct{ Name, Type string }

// errKind tells the parent which error to make of a wireError.
type errKind uint8

const (
	// errOther is any other error, in its words.
	errOther errKind = iota
	// errEngine is DuckDB's error about the statement (source.EngineError).
	errEngine
	// errNotOneQuery is the engine's own refusal of a statement that is
	// not one query.
	errNotOneQuery
	// errStopped means the statement was interrupted: its deadline, a
	// cancel, or the parent's stop.
	errStopped
)

// wireError is an error of the worker's, as the parent needs to classify
// it.
type wireError struct {
	Kind    errKind
	Message string
	// Code and Name are source.EngineError's.
	Code, Name string
}

// registerCells tells gob, once a process, the cells source.Conn.Run
// promises that it does not know by itself.
var registerCells = sync.OnceFunc(func() {
	gob.Register(json.Number(""))
	gob.Register(json.RawMessage(nil))
	gob.Register(time.Time{})
	gob.Register([]any(nil))
	gob.Register(source.Partial{})
	gob.Register(cutList{})
})
