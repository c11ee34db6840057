// Package schema reads a database's tables, columns, keys and indexes, joins
// them with what the columns mean (from sidecar files), and searches them.
// Catalog queries are plain SELECTs through source's guarded door, so the
// schema layer cannot reach the database any other way than a tool can.
//
// schema sits above source and below tools.
package schema

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/internal/text"
	"github.com/sqlmcp/sqlmcp/policy"
	"github.com/sqlmcp/sqlmcp/source"
)

// Table is a table or view.
type Table struct {
	// Name is how to name the table: bare, or schema.table when the bare
	// name is ambiguous or its schema is not on the search path.
	Name         string       `json:"name"`
	Schema       string       `json:"schema,omitempty"` // PostgreSQL's schema; "" for SQLite
	Kind         string       `json:"kind"`             // "table", "view", "virtual", "materialized view", "partitioned table", "foreign table"
	Description  string       `json:"description,omitempty"`
	Columns      []Column     `json:"columns"`
	ForeignKeys  []ForeignKey `json:"foreign_keys"`  // this table's references to others
	ReferencedBy []ForeignKey `json:"referenced_by"` // other tables' references to this one
	Indexes      []Index      `json:"indexes"`
	// Broken is the engine's reason when the view (or virtual table)
	// cannot be read, such as a view over a dropped table; "" otherwise.
	Broken string `json:"broken,omitempty"`
	// Unreadable says why the role may not read the table, on PostgreSQL
	// (no USAGE on its schema, or no SELECT on it); "" when it may.
	Unreadable string `json:"unreadable,omitempty"`
	// Commented is true when Description is the database's own comment
	// (COMMENT ON), written by whoever may alter the schema, and not the
	// annotations'.
	Commented bool `json:"-"`

	rel      string       // the relation's own name, unqualified
	estimate atomic.Int64 // the engine's row estimate; 0 when it has none (see Catalog.Tables)
	// quote quotes a name as the engine's SQL writes it (backticks on
	// MySQL); nil means Quote.
	quote func(string) string
}

// Column is one column of a table, in declaration order.
type Column struct {
	Name        string  `json:"name"`
	Type        string  `json:"type,omitempty"` // as declared; "" (left out) when untyped, as a view's computed column
	Nullable    bool    `json:"nullable"`
	Default     *string `json:"default,omitempty"`     // the default expression's text
	PrimaryKey  int     `json:"primary_key,omitempty"` // 1-based position in the primary key; 0 when not in it
	Description string  `json:"description,omitempty"`
	Values      string  `json:"values,omitempty"` // what the values mean: codes, units, formats
	// Masked is how the source's policy shows the column's values
	// ("hash", "redact"): they can be returned, never computed on; "" for
	// a column that is not masked. Tools say it in Values.
	Masked string `json:"-"`
	// Commented is true when Description is the database's own comment,
	// as Table.Commented.
	Commented bool `json:"-"`
}

// ForeignKey is a reference from Table's Columns to RefTable's RefColumns.
type ForeignKey struct {
	Table      string   `json:"table"`
	Columns    []string `json:"columns"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
	// Guessed is true for a join no key declares, guessed from names and
	// types: check it before trusting it.
	Guessed bool `json:"guessed,omitempty"`
}

// Index is an index on a table.
type Index struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
	Unique  bool     `json:"unique"`
}

// Options configure a Catalog. The zero value, and nil, mean the defaults.
type Options struct {
	// Annotations is a YAML or JSON file of table and column descriptions.
	Annotations string
	// Descriptions is a folder of BIRD-style <table>.csv column
	// descriptions. Empty means "database_description" beside a SQLite
	// file, when it exists.
	Descriptions string
	// Schemas limits PostgreSQL to these schemas. Empty means every schema
	// but the system ones.
	Schemas []string
	// HideUnreadable leaves out, on PostgreSQL, the tables and views the
	// role may not read; otherwise they are listed with Table.Unreadable
	// set.
	HideUnreadable bool
	// Policy is the source's table and column policy, if it has one: it
	// is resolved against every reading of the catalog (an unknown name
	// is an error), handed to the engine's guard, and what it denies is
	// left out of everything the catalog tells.
	Policy *policy.Spec
}

// Catalog reads a database's schema, caching it until the schema changes.
// It is safe for concurrent use.
type Catalog struct {
	db      *source.DB
	notes   notes
	schemas []string
	hide    bool // Options.HideUnreadable
	spec    *policy.Spec

	mu      sync.Mutex
	hidden  []*Table       // the unreadable tables left out of tables, with HideUnreadable
	version int64          // the engine's schema version when tables was read, if it has one
	read    time.Time      // when tables was read
	tables  []*Table       // sorted by name
	policy  *policy.Policy // spec resolved against the reading of tables; nil without one
	// whole is the reading of tables before the policy filtered it, for
	// Check: the operator's annotations may describe what the model may
	// not see. Nil without a policy.
	whole []source.TableDef
	// defs is the reading tables was made from, before any policy
	// filtered it, for the next reading to compare with.
	defs []source.TableDef
	// reading is true while readLater reads the schema; tried is when it
	// last began to.
	reading bool
	tried   time.Time

	valuesMu sync.Mutex  // held while the value index is built
	values   *valueIndex // for search; nil until built

	joinMu sync.Mutex
	joins  *joinIndex // the key names of the last reading joins were guessed on

	searchMu sync.Mutex
	search   *searchIndex // the word statistics of the last reading searched
	names    *searchIndex // the same without the values, for SearchNames

	kindsMu sync.Mutex
	kinds   map[*Table]map[string]TextKind // per table read: its text columns that hold numbers or dates

	rowCounts rowCounts
}

// unversionedTTL is how long a schema is trusted before it is read again
// when the engine has no cheap schema version to compare (PostgreSQL,
// MySQL). Between it and unversionedStale a call is answered from the
// reading in hand while the next is made in the background, so that no
// call waits for it (130 ms on PostgreSQL at 2,000 tables, 200 ms on
// MariaDB); a reading older than unversionedStale, after a quiet spell, is
// made again before the call is answered.
var (
	unversionedTTL   = 5 * time.Second
	unversionedStale = time.Minute
)

// New returns a Catalog of db, reading the description sidecars now so that
// a malformed file is an error at start, not on the first call.
func New(db *source.DB, opts *Options) (*Catalog, error) {
	if opts == nil {
		opts = &Options{}
	}
	n, err := loadNotes(db, opts)
	if err != nil {
		return nil, err
	}
	if opts.Policy.Restricts() {
		db.RequirePolicy()
	}
	return &Catalog{db: db, notes: n, schemas: opts.Schemas, hide: opts.HideUnreadable, spec: opts.Policy, version: -1}, nil
}

// Tables returns every table and view, sorted by name. The result is
// shared: callers must not change it.
func (c *Catalog) Tables(ctx context.Context) ([]*Table, error) {
	version, versioned, err := c.db.SchemaVersion(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch age := time.Since(c.read); {
	case c.tables == nil:
	case versioned && version == c.version:
		return c.tables, nil
	case !versioned && age < unversionedTTL:
		return c.tables, nil
	case !versioned && age < unversionedStale:
		c.readLater()
		return c.tables, nil
	}
	defs, err := c.db.ReadTables(ctx, c.schemas)
	if err != nil {
		return nil, err
	}
	return c.take(defs, version, versioned)
}

// readLater reads the schema again in the background, unless a reading is
// under way or the last one tried failed less than unversionedTTL ago; the
// caller holds c.mu. The reading is taken unless another was taken
// meanwhile.
func (c *Catalog) readLater() {
	if c.reading || time.Since(c.tried) < unversionedTTL {
		return
	}
	c.reading, c.tried = true, time.Now()
	last := c.read
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), c.db.Limits().Timeout)
		defs, err := c.db.ReadTables(ctx, c.schemas)
		cancel()
		c.mu.Lock()
		defer c.mu.Unlock()
		c.reading = false
		if err == nil && c.read.Equal(last) {
			c.take(defs, 0, false)
		}
	}()
}

// take makes defs, a reading of the schema at version, the catalog's
// tables, and returns them; the caller holds c.mu.
func (c *Catalog) take(defs []source.TableDef, version int64, versioned bool) ([]*Table, error) {
	if c.tables != nil && sameSchema(c.defs, defs) {
		// Read again because the last reading aged (an engine without a
		// schema version) or the version moved with nothing a reading
		// shows (SQLite's ANALYZE): only the engine's row estimates can
		// differ. The tables stay the same ones, so what was built on them
		// (the search and value indexes, the join guesses, the text kinds)
		// stays too; rebuilding those every unversionedTTL read every text
		// column of a big schema again. The estimates are brought up to
		// date in place.
		c.freshEstimates(defs)
		if !versioned {
			// Nor can such an engine say whether the data changed: the
			// row counts last as long as a reading of the schema.
			c.rowCounts.forget()
		}
		c.version, c.read = version, time.Now()
		return c.tables, nil
	}
	read := defs
	var pol *policy.Policy
	if c.spec != nil {
		var err error
		if pol, err = c.spec.Resolve(defs, c.db.Dialect() != sqlmcp.Postgres); err != nil {
			return nil, err
		}
		switch {
		case pol.Equal(c.policy):
			pol = c.policy // nothing changed: the engines keep what they judged under it
		case c.spec.Restricts():
			// (A policy that holds nothing back is not the guard's to judge:
			// the system catalogs stay open, as without one.)
			if err := c.db.SetPolicy(pol); err != nil {
				return nil, &policy.Error{Msg: err.Error()}
			}
		}
		c.whole = defs
		defs = pol.Filter(defs)
	}
	tables := fromDefs(defs)
	for _, t := range tables {
		t.quote = c.db.Quote
		if pol != nil {
			for i := range t.Columns {
				t.Columns[i].Masked = string(pol.Mode(t.Schema, t.rel, t.Columns[i].Name))
			}
		}
	}
	c.notes.apply(tables)
	c.hidden = nil
	if c.hide {
		kept := tables[:0:0]
		for _, t := range tables {
			if t.Unreadable != "" {
				c.hidden = append(c.hidden, t)
			} else {
				kept = append(kept, t)
			}
		}
		tables = kept
	}
	c.tables, c.version, c.read, c.policy, c.defs = tables, version, time.Now(), pol, read
	return tables, nil
}

// sameSchema reports whether two readings of the schema are the same but
// for the engine's row estimates.
func sameSchema(a, b []source.TableDef) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Estimate, y.Estimate = 0, 0
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// freshEstimates sets the row estimates of the catalog's tables (and of
// the hidden ones) to those of defs, a reading of the same schema.
func (c *Catalog) freshEstimates(defs []source.TableDef) {
	est := make(map[[2]string]int64, len(defs))
	for _, d := range defs {
		est[[2]string{d.Schema, d.Name}] = d.Estimate
	}
	for _, list := range [][]*Table{c.tables, c.hidden} {
		for _, t := range list {
			if e, ok := est[[2]string{t.Schema, t.rel}]; ok {
				t.estimate.Store(e)
			}
		}
	}
}

// fromDefs names the catalog's tables (bare, or schema.table when the bare
// name is ambiguous or its schema is not on the search path), sorts them
// and links each foreign key to the table it references.
func fromDefs(defs []source.TableDef) []*Table {
	seen := map[string]int{}
	for _, d := range defs {
		seen[d.Name]++
	}
	tables := make([]*Table, len(defs))
	byKey := make(map[[2]string]*Table, len(defs))
	for i, d := range defs {
		t := &Table{Name: d.Name, Schema: d.Schema, rel: d.Name, Kind: d.Kind, Description: d.Description, Commented: d.Description != "",
			Broken: d.Broken, Unreadable: d.Unreadable, Columns: make([]Column, len(d.Columns)),
			ForeignKeys: []ForeignKey{}, ReferencedBy: []ForeignKey{}, Indexes: make([]Index, len(d.Indexes))}
		t.estimate.Store(d.Estimate)
		if d.Schema != "" && (!d.OnPath || seen[d.Name] > 1) {
			t.Name = d.Schema + "." + d.Name
		}
		for j, col := range d.Columns {
			t.Columns[j] = Column{Name: col.Name, Type: col.Type, Nullable: col.Nullable, Default: col.Default,
				PrimaryKey: col.PrimaryKey, Description: col.Description, Commented: col.Description != ""}
		}
		for j, ix := range d.Indexes {
			t.Indexes[j] = Index{Name: ix.Name, Columns: ix.Columns, Unique: ix.Unique}
		}
		boundText(t)
		tables[i] = t
		byKey[[2]string{d.Schema, d.Name}] = t
	}
	for i, d := range defs {
		for _, k := range d.ForeignKeys {
			ref := k.RefName
			if k.RefSchema != "" {
				ref = k.RefSchema + "." + k.RefName
			}
			if r := byKey[[2]string{k.RefSchema, k.RefName}]; r != nil {
				ref = r.Name
			}
			tables[i].ForeignKeys = append(tables[i].ForeignKeys,
				ForeignKey{Table: tables[i].Name, Columns: k.Columns, RefTable: ref, RefColumns: k.RefColumns})
		}
	}
	sortTables(tables)
	for _, t := range tables {
		for _, k := range t.ForeignKeys {
			for _, ref := range tables {
				if ref.Name == k.RefTable {
					ref.ReferencedBy = append(ref.ReferencedBy, k)
				}
			}
		}
	}
	return tables
}

// Policy is the source's policy as resolved against the last reading of
// the catalog; nil without one, or before the first reading.
func (c *Catalog) Policy() *policy.Policy {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.policy
}

// Overview is what the whole database holds, as the annotations file's
// top-level description says; "" when it says nothing.
func (c *Catalog) Overview() string { return c.notes.overview }

// SQL is the table's name as a query writes it, quoted as the engine
// quotes names.
func (t *Table) SQL() string {
	if t.Name != t.rel && t.Schema != "" {
		return t.QuoteName(t.Schema) + "." + t.QuoteName(t.rel)
	}
	return t.QuoteName(t.rel)
}

// QuoteName quotes name, one of the table's columns say, as the table's
// engine quotes names.
func (t *Table) QuoteName(name string) string {
	if t.quote == nil {
		return Quote(name)
	}
	return t.quote(name)
}

// Display is the table's name as a query may write it, quoted only where
// it must be, as the engine quotes names.
func (t *Table) Display() string {
	if t.Name != t.rel && t.Schema != "" {
		return t.Ident(t.Schema) + "." + t.Ident(t.rel)
	}
	return t.Ident(t.rel)
}

// Ident is name, one of the table's columns say, as a query may write it:
// bare where IdentifierQuote leaves it bare, else quoted as the table's
// engine quotes names.
func (t *Table) Ident(name string) string { return bareOr(name, t.QuoteName) }

// Ident is name as a query of the catalog's engine may write it: bare
// where IdentifierQuote leaves it bare, else quoted as the engine quotes
// names (backticks on MySQL, where double quotes make a string).
func (c *Catalog) Ident(name string) string { return bareOr(name, c.db.Quote) }

// bareOr is name bare where IdentifierQuote leaves it bare, else quoted
// by quote.
func bareOr(name string, quote func(string) string) string {
	if IdentifierQuote(name) == name {
		return name
	}
	return quote(name)
}

// Display is the named table's name as a query may write it (see
// Table.Display), for a name the last reading of the schema holds; any
// other name is quoted as one identifier. A SQLite table named "a.b" is
// written "a.b", and a PostgreSQL table b of schema a, a.b.
func (c *Catalog) Display(name string) string {
	c.mu.Lock()
	tables := c.tables
	c.mu.Unlock()
	i := sort.Search(len(tables), func(i int) bool { return !tableLess(tables[i].Name, name) })
	for ; i < len(tables) && strings.EqualFold(tables[i].Name, name); i++ {
		if tables[i].Name == name {
			return tables[i].Display()
		}
	}
	return c.Ident(name)
}

// NotFoundError reports a table or column that does not exist, with the
// closest names that do.
type NotFoundError struct {
	What    string // "table" or "column"
	Name    string
	Table   string // the table searched for a column
	Closest []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("no %s named %q", e.What, e.Name)
	switch {
	case strings.TrimSpace(e.Name) == "":
		msg = fmt.Sprintf("no %s name was given.", e.What)
	case e.Table != "":
		msg = fmt.Sprintf("table %q has no column named %q", e.Table, e.Name)
	}
	switch {
	case len(e.Closest) > 0:
		msg += "; did you mean " + quoteList(e.Closest) + "?"
	case !strings.HasSuffix(msg, "."):
		msg += "."
	}
	if e.What == "table" {
		return msg + " Call list_tables to see every table."
	}
	return msg + " Call describe_table to see the table's columns."
}

// Table returns the named table. Names match as the engine matches them:
// exactly, else ignoring case; surrounding quotes, backticks or brackets are
// ignored. An unknown name is a *NotFoundError naming the closest tables.
func (c *Catalog) Table(ctx context.Context, name string) (*Table, error) {
	tables, err := c.Tables(ctx)
	if err != nil {
		return nil, err
	}
	name = unquote(strings.TrimSpace(name))
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Name
	}
	if i := lookup(names, name); i >= 0 {
		return tables[i], nil
	}
	if strings.Contains(name, ".") { // schema.table for a table named bare
		full := make([]string, len(tables))
		for i, t := range tables {
			full[i] = t.Schema + "." + t.rel
		}
		if i := lookup(full, name); i >= 0 {
			return tables[i], nil
		}
	}
	return nil, &NotFoundError{What: "table", Name: name, Closest: Closest(name, names, 3)}
}

// Column returns t's named column, matched like Table matches tables.
func (t *Table) Column(name string) (*Column, error) {
	name = unquote(strings.TrimSpace(name))
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	if i := lookup(names, name); i >= 0 {
		return &t.Columns[i], nil
	}
	return nil, &NotFoundError{What: "column", Name: name, Table: t.Name, Closest: Closest(name, names, 3)}
}

// IdentifierQuote returns name as SQL would need it written: bare when it
// is a lower-case word that is not a keyword, else double-quoted (capitals
// too, since PostgreSQL folds bare names to lower case). Double quotes make
// a string on MySQL: text for a catalog's engine comes from Catalog.Ident
// and Table.Ident.
func IdentifierQuote(name string) string {
	if keywords[strings.ToUpper(name)] {
		return Quote(name)
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return Quote(name)
		}
	}
	return name
}

// IdentifierFor is IdentifierQuote for engine d: a name that needs
// quoting is in backticks on MySQL, where double quotes make a string.
func IdentifierFor(d sqlmcp.Dialect, name string) string {
	if d != sqlmcp.MySQL {
		return IdentifierQuote(name)
	}
	return bareOr(name, func(n string) string { return "`" + strings.ReplaceAll(n, "`", "``") + "`" })
}

// keywords are SQL keywords that need quoting as identifiers (SQLite's
// list, which covers the common SQL ones).
var keywords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH
		AUTOINCREMENT BEFORE BEGIN BETWEEN BY CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT
		CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT
		DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE
		EXCLUSIVE EXISTS EXPLAIN FAIL FILTER FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP
		GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO
		IS ISNULL JOIN KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL
		NULLS OF OFFSET ON OR ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE
		RANGE RECURSIVE REFERENCES REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT
		ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION TRIGGER
		UNBOUNDED UNION UNIQUE UPDATE USER USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT`) {
		m[k] = true
	}
	return m
}()

// lookup finds name among names: exactly, else by a unique match ignoring
// case. It returns -1 when there is none.
func lookup(names []string, name string) int {
	found := -1
	for i, n := range names {
		if n == name {
			return i
		}
		if strings.EqualFold(n, name) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// unquote strips one pair of SQL identifier quotes.
func unquote(s string) string {
	if len(s) >= 2 {
		switch first, last := s[0], s[len(s)-1]; {
		case first == '"' && last == '"', first == '`' && last == '`', first == '[' && last == ']':
			return s[1 : len(s)-1]
		}
	}
	return s
}

// Quote quotes an identifier for SQL.
func Quote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// maxNameBytes bounds the names the catalog shows: PostgreSQL and MySQL
// keep names to 63 and 64 bytes, and a longer one is more than a query
// can be expected to spell; a served file (SQLite, DuckDB, a CSV header)
// may hold names of any length, and 150 columns named with 100 KB each
// made describe_table's answer 30 MB. maxDescriptionBytes bounds a table's
// or a column's description, which a comment or a file's metadata may
// make as long.
const (
	maxNameBytes        = 1024
	maxDescriptionBytes = 4096
)

// boundText bounds what t shows of the database's own text: a table with
// a name (its own, a column's, an index's) past maxNameBytes is broken,
// the name shown cut, and descriptions past maxDescriptionBytes are cut
// with a marker giving their size.
func boundText(t *Table) {
	long := 0
	cutName := func(s *string) {
		if len(*s) > maxNameBytes {
			long = max(long, len(*s))
			*s = text.Clip(*s, 64) + text.Marker(len(*s))
		}
	}
	cutName(&t.Name)
	cutName(&t.rel)
	for i := range t.Columns {
		c := &t.Columns[i]
		cutName(&c.Name)
		c.Description = text.Cut(c.Description, maxDescriptionBytes)
	}
	for i := range t.Indexes {
		cutName(&t.Indexes[i].Name)
		cols := slices.Clone(t.Indexes[i].Columns)
		for j := range cols {
			cutName(&cols[j])
		}
		t.Indexes[i].Columns = cols
	}
	t.Description = text.Cut(t.Description, maxDescriptionBytes)
	if long > 0 && t.Broken == "" {
		t.Broken = fmt.Sprintf("it or one of its columns or indexes has a name of %d bytes, longer than the %d this server serves", long, maxNameBytes)
	}
}

// Relation is the table's own name, without its schema.
func (t *Table) Relation() string { return t.rel }

// Big reports whether the engine estimates t at more rows than are worth
// counting or scanning whole (source.BigTable), and that estimate; an
// engine that keeps no estimates (SQLite) has no big tables.
func (t *Table) Big() (estimate int64, big bool) {
	e := t.estimate.Load()
	return e, e >= source.BigTable
}

// Ref names t for the value statements (source.DB.Sample, Distinct).
func (t *Table) Ref() source.TableRef {
	return source.TableRef{Schema: t.Schema, Name: t.rel, Kind: t.Kind, Estimate: t.estimate.Load()}
}

// sortTables orders tables by name, case-insensitively.
func sortTables(tables []*Table) {
	sort.Slice(tables, func(i, j int) bool { return tableLess(tables[i].Name, tables[j].Name) })
}

// tableLess orders table names case-insensitively, then exactly.
func tableLess(a, b string) bool {
	if la, lb := strings.ToLower(a), strings.ToLower(b); la != lb {
		return la < lb
	}
	return a < b
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// KeyColumns counts the columns of cols in the primary key.
func KeyColumns(cols []Column) int {
	n := 0
	for _, c := range cols {
		if c.PrimaryKey > 0 {
			n++
		}
	}
	return n
}
