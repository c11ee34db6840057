package sources

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/config"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
)

// retryAfter is how long a source that could not be opened is left alone
// before a call tries it again: calls meanwhile get the last error at once.
const retryAfter = 2 * time.Second

// Set is the databases one server serves, by name. It is safe for
// concurrent use.
type Set struct {
	list   []*Source
	byName map[string]*Source
}

// Source is one database of a Set: opened and checked on first use (or by
// Start), and again after a failure, never sharing a connection, a cache
// or a limit with another.
type Source struct {
	Config *config.Source

	mu      sync.Mutex
	db      *source.DB
	cat     *schema.Catalog
	report  *Report
	err     error         // why the last try failed; nil once open
	tried   time.Time     // when the last try ended
	trying  chan struct{} // closed when the try running now ends; nil when none runs
	opened  func(*Report) // called after each try, for the log
	engines func(*config.Source) []source.Engine
}

// Options configure New. The zero value, and nil, mean the defaults.
type Options struct {
	// Opened, if not nil, is called with the report of every try to open
	// a source, from the goroutine that tried: for a try of Start's, with
	// the report Start returns, then with the last when the check that
	// reads the whole database found more.
	Opened func(*Report)
	// Engines are the engines a source may be opened with. Default
	// Engines.
	Engines func(*config.Source) []source.Engine
}

// New makes the set of f's sources, opening none yet.
func New(f *config.File, opts *Options) *Set {
	if opts == nil {
		opts = &Options{}
	}
	s := &Set{byName: map[string]*Source{}}
	for _, c := range f.Sources {
		src := &Source{Config: c, opened: opts.Opened, engines: opts.Engines}
		s.list = append(s.list, src)
		s.byName[c.Name] = src
	}
	return s
}

// Sources are the set's sources, in the configuration's order.
func (s *Set) Sources() []*Source { return s.list }

// Start tries to open every source at once and waits for each try to
// report, which it does before its slow reads (SQLite's quick_check of
// the whole file, PostgreSQL's function catalog): the try goes on, and
// calls wait for it. It returns the reports in the configuration's
// order. A source that could not be opened, or that the rest of its try
// refuses, is tried again by later calls.
func (s *Set) Start(ctx context.Context) []*Report {
	reports := make([]*Report, len(s.list))
	var wg sync.WaitGroup
	for i, src := range s.list {
		wg.Go(func() {
			reported := make(chan struct{})
			go src.open(ctx, func(r *Report) {
				reports[i] = r
				close(reported)
			})
			<-reported
		})
	}
	wg.Wait()
	return reports
}

// Settled returns once no source's try is under way, or when ctx ends:
// after Start, once the slow reads it did not wait for are done.
func (s *Set) Settled(ctx context.Context) {
	for _, src := range s.list {
		src.mu.Lock()
		wait := src.trying
		src.mu.Unlock()
		if wait == nil {
			continue
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return
		}
	}
}

// Get returns the named source, open: opened now if it was not, waiting
// for a try another call started. An unknown name is an *UnknownError; a
// source that cannot be opened, an *UnavailableError.
func (s *Set) Get(ctx context.Context, name string) (*source.DB, *schema.Catalog, error) {
	src, ok := s.byName[name]
	if !ok {
		return nil, nil, &UnknownError{Name: name, Set: s}
	}
	return src.Open(ctx)
}

// Lookup returns the named source, or nil.
func (s *Set) Lookup(name string) *Source { return s.byName[name] }

// Close closes every open source.
func (s *Set) Close() {
	for _, src := range s.list {
		src.mu.Lock()
		if src.db != nil {
			src.db.Close()
			src.db, src.cat = nil, nil
		}
		src.mu.Unlock()
	}
}

// Open returns the source's database and catalog, opening it if it is
// not open and retryAfter has passed since the last try failed. A try
// outlives ctx (other calls may wait for it); Open returns when ctx ends.
func (src *Source) Open(ctx context.Context) (*source.DB, *schema.Catalog, error) {
	for {
		src.mu.Lock()
		switch {
		case src.db != nil:
			db, cat := src.db, src.cat
			src.mu.Unlock()
			return db, cat, nil
		case src.trying == nil && src.err != nil && time.Since(src.tried) < retryAfter:
			err := src.err
			src.mu.Unlock()
			return nil, nil, src.unavailable(err)
		case src.trying == nil:
			done := src.begin()
			go src.try(ctx, done, nil)
		}
		wait := src.trying
		src.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, nil, src.unavailable(fmt.Errorf("still connecting: %w", ctx.Err()))
		}
	}
}

// open tries once to open and check the source, unless it is open or
// another try runs, and returns when the try ends. It hands early the
// first report of the try (see openInParts), or the report it found.
func (src *Source) open(ctx context.Context, early func(*Report)) {
	src.mu.Lock()
	if src.db != nil || src.trying != nil {
		wait := src.trying
		src.mu.Unlock()
		if wait != nil {
			<-wait
		}
		early(src.Report())
		return
	}
	done := src.begin()
	src.mu.Unlock()
	src.try(ctx, done, early)
}

// begin marks a try as running; src.mu is held.
func (src *Source) begin() chan struct{} {
	done := make(chan struct{})
	src.trying = done
	return done
}

// try opens and checks the source, then ends the try begin marked. early,
// when not nil, gets the try's first report (see openInParts), which
// Report returns until the try ends; calls wait for the end. Opened gets
// that report too, and the last one when the rest of the try found more.
func (src *Source) try(ctx context.Context, done chan struct{}, early func(*Report)) {
	// The try outlives the call that started it, bounded by the source's
	// timeout: another call may be waiting for it.
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*src.Config.Limits.WithDefaults().Timeout)
	defer cancel()
	r, rest := openInParts(tctx, src.Config, src.engines)
	if rest == nil {
		src.end(nil, nil, r, done)
		src.tell(r, early)
		return
	}
	first := r
	if early != nil {
		src.mu.Lock()
		src.report = first
		src.mu.Unlock()
		src.tell(first, early)
	}
	db, cat, r := rest(tctx)
	src.end(db, cat, r, done)
	if early == nil || len(r.Problems) != len(first.Problems) || r.Role != first.Role {
		src.tell(r, nil)
	}
}

// end publishes a try's outcome and ends it.
func (src *Source) end(db *source.DB, cat *schema.Catalog, r *Report, done chan struct{}) {
	src.mu.Lock()
	src.db, src.cat, src.report, src.tried, src.trying = db, cat, r, time.Now(), nil
	src.err = r.Err()
	src.mu.Unlock()
	close(done)
}

// tell hands r to Opened, then to early when not nil.
func (src *Source) tell(r *Report, early func(*Report)) {
	if src.opened != nil {
		src.opened(r)
	}
	if early != nil {
		early(r)
	}
}

func (src *Source) unavailable(cause error) error {
	return &UnavailableError{Name: src.Config.Name, Cause: cause}
}

// Report is the report of the last try to open the source, or nil before
// the first.
func (src *Source) Report() *Report {
	src.mu.Lock()
	defer src.mu.Unlock()
	return src.report
}

// DB is the source's database when it is open, else nil; it opens
// nothing.
func (src *Source) DB() *source.DB {
	src.mu.Lock()
	defer src.mu.Unlock()
	return src.db
}

// Catalog is the source's catalog when it is open, else nil; it opens
// nothing.
func (src *Source) Catalog() *schema.Catalog {
	src.mu.Lock()
	defer src.mu.Unlock()
	return src.cat
}

// Engine is the source's dialect: the engine's once it has opened, else
// guessed from its URL.
func (src *Source) Engine() sqlmcp.Dialect {
	if r := src.Report(); r != nil && r.Engine != "" {
		return r.Engine
	}
	u := strings.ToLower(src.Config.URL)
	switch {
	case src.Config.IsPostgres():
		return sqlmcp.Postgres
	case strings.HasPrefix(u, "duckdb:"), strings.HasSuffix(u, ".duckdb"), strings.HasSuffix(u, ".parquet"),
		strings.HasSuffix(u, ".csv"), strings.HasSuffix(u, ".json"):
		return sqlmcp.DuckDB
	}
	return sqlmcp.SQLite
}

// UnknownError is a database name the set does not hold.
type UnknownError struct {
	Name string
	Set  *Set
	// Visible, when set, says which databases the caller may know of:
	// the listing names only those.
	Visible func(name string) bool
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("no database named %q; %s", e.Name, e.Set.ListingOf(e.Visible))
}

// UnavailableError is a source that could not be opened and checked.
type UnavailableError struct {
	Name  string
	Cause error
}

func (e *UnavailableError) Error() string {
	msg := strings.TrimPrefix(e.Cause.Error(), "database "+e.Name+" is unavailable: ")
	msg = strings.TrimPrefix(msg, "database "+e.Name+": ")
	return fmt.Sprintf("database %s is unavailable: %s; it is tried again on the next call", e.Name, msg)
}

func (e *UnavailableError) Unwrap() error { return e.Cause }

// Listing names the set's databases and their descriptions, for a model
// choosing one: "the databases are shop (postgres: Orders and ...), ...".
func (s *Set) Listing() string { return s.ListingOf(nil) }

// ListingOf is Listing of the databases visible reports true for (nil:
// every one), so a caller never learns of one it may not use.
func (s *Set) ListingOf(visible func(name string) bool) string {
	var b strings.Builder
	b.WriteString("the databases are ")
	n := 0
	for _, src := range s.list {
		if visible != nil && !visible(src.Config.Name) {
			continue
		}
		if n++; n > 1 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s", src.Config.Name, src.Engine())
		if d := src.Config.Description; d != "" {
			fmt.Fprintf(&b, ": %s", strings.TrimRight(d, "."))
		}
		b.WriteString(")")
	}
	if n == 0 {
		return "this caller may use no database"
	}
	return b.String()
}

// Names are the databases' names, sorted.
func (s *Set) Names() []string {
	names := make([]string, 0, len(s.list))
	for _, src := range s.list {
		names = append(names, src.Config.Name)
	}
	sort.Strings(names)
	return names
}
