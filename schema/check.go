package schema

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Problem is one thing Check found wrong with how a database is set up
// for sqlmcp.
type Problem struct {
	// Kind is "annotations" (the annotations file names what the database
	// lacks), "schemas" (Options.Schemas names a schema with no table),
	// "grants" (the role may not read tables or schemas it is shown), or
	// "corrupt" (SQLite's quick_check found damage).
	Kind string
	// File and Line place an annotations problem; "" and 0 otherwise.
	File string
	Line int
	Msg  string // what is wrong
	Fix  string // what to do about it
	// Warning is set when sqlmcp can serve the database as it is, the
	// problem marked where the model reads it (a table the role may not
	// read, with other tables readable; a quick_check that ran out of
	// time).
	Warning bool
}

func (p Problem) Error() string {
	msg := p.Msg
	if p.File != "" {
		msg = fmt.Sprintf("annotations %s:%d: %s", p.File, p.Line, p.Msg)
	}
	if p.Fix != "" {
		msg += "; " + p.Fix
	}
	return msg
}

// CheckError is every problem Check found, warnings included.
type CheckError struct{ Problems []Problem }

func (e *CheckError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "\n")
}

// quickCheckTime bounds SQLite's quick_check at start: a big file is
// checked as far as this allows, and says so.
const quickCheckTime = 5 * time.Second

// Check reports configuration that names what the database does not
// hold, and a database sqlmcp cannot serve as it is, so that it fails at
// start instead of passing silently: every table or column the annotations
// file names that the database lacks; on PostgreSQL each schema in
// Options.Schemas that does not exist or holds no table, and the tables
// and schemas the role may not read; on SQLite, damage PRAGMA quick_check
// finds (within a few seconds, for big files). It returns nil, a
// *CheckError listing every problem, or the error that stopped it reading
// the catalog.
func (c *Catalog) Check(ctx context.Context) error {
	problems := c.CheckStorage(ctx)
	if len(problems) > 0 && !problems[0].Warning {
		return &CheckError{Problems: problems} // a damaged file's catalog may not read
	}
	err := c.CheckCatalog(ctx)
	if ce, ok := IsCheckError(err); ok {
		problems = append(problems, ce.Problems...)
	} else if err != nil {
		return err
	}
	if len(problems) > 0 {
		return &CheckError{Problems: problems}
	}
	return nil
}

// CheckStorage is the part of Check that reads the whole database: the
// engine's check of its storage (SQLite's quick_check), bounded in time.
// It returns the problems found; none on an engine without such a check.
func (c *Catalog) CheckStorage(ctx context.Context) []Problem { return c.integrity(ctx) }

// CheckCatalog is Check but for CheckStorage: it reads the catalog only.
func (c *Catalog) CheckCatalog(ctx context.Context) error {
	var problems []Problem
	tables, err := c.Tables(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if c.whole != nil {
		tables = fromDefs(c.whole) // a policy's hidden tables and columns are the operator's to annotate
	}
	all := append(slices.Clone(tables), c.hidden...)
	c.mu.Unlock()
	sortTables(all)
	p, err := c.checkSchemas(ctx, all)
	if err != nil {
		return err
	}
	problems = append(problems, p...)
	problems = append(problems, c.notes.check(all)...)
	if len(problems) > 0 {
		return &CheckError{Problems: problems}
	}
	return nil
}

// integrity runs the engine's check of its storage (SQLite's
// quick_check), bounded in time.
func (c *Catalog) integrity(ctx context.Context) []Problem {
	bound := min(quickCheckTime, c.db.Limits().Timeout)
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	found, checked, err := c.db.Integrity(ctx)
	switch {
	case !checked:
		return nil
	case err != nil && ctx.Err() != nil:
		return []Problem{{Kind: "corrupt", Warning: true, Msg: fmt.Sprintf("PRAGMA quick_check did not finish within %s, so the file was checked only in part", bound),
			Fix: "run sqlite3 FILE 'PRAGMA quick_check' once to check it whole"}}
	case err != nil && (strings.Contains(err.Error(), "malformed") || strings.Contains(err.Error(), "not a database")):
		return []Problem{{Kind: "corrupt", Msg: "the file is damaged: PRAGMA quick_check failed: " + err.Error(), Fix: corruptFix}}
	case err != nil:
		return []Problem{{Kind: "corrupt", Msg: "PRAGMA quick_check failed: " + err.Error(), Fix: "check that the file is a SQLite database sqlmcp may read"}}
	case len(found) == 0:
		return nil
	}
	if len(found) > 3 {
		found = append(found[:3:3], fmt.Sprintf("and %d more", len(found)-3))
	}
	return []Problem{{Kind: "corrupt", Msg: "the file is damaged: PRAGMA quick_check says " + strings.Join(found, "; "), Fix: corruptFix}}
}

const corruptFix = "restore it from a backup, or recover what is left with sqlite3 FILE .recover | sqlite3 NEW.db"

// checkSchemas checks Options.Schemas against the database's schemas, and
// what the role may read of the tables shown, on an engine with schemas.
func (c *Catalog) checkSchemas(ctx context.Context, tables []*Table) ([]Problem, error) {
	defs, roleName, err := c.db.Schemas(ctx)
	if err != nil || defs == nil {
		return nil, err
	}
	var problems []Problem
	var schemas []string
	usable := map[string]bool{}
	for _, d := range defs {
		schemas = append(schemas, d.Name)
		usable[d.Name] = d.Usable
	}
	role := IdentifierQuote(roleName)
	count := map[string]int{}
	for _, t := range tables {
		count[t.Schema]++
	}
	for _, s := range c.schemas {
		switch {
		case !slices.Contains(schemas, s):
			problems = append(problems, Problem{Kind: "schemas", Msg: fmt.Sprintf("schema %q: no such schema", s),
				Fix: didYouMean(s, schemas, "the schemas are "+strings.Join(schemas, ", "))})
		case count[s] == 0:
			problems = append(problems, Problem{Kind: "schemas", Msg: fmt.Sprintf("schema %q holds no table or view", s),
				Fix: "leave it out of the schemas"})
		}
	}
	// Grants: schema by schema, what the role may not read.
	bySchema := map[string][]string{}
	var order []string
	readable := 0
	for _, t := range tables {
		if t.Unreadable == "" {
			readable++
			continue
		}
		if bySchema[t.Schema] == nil {
			order = append(order, t.Schema)
		}
		bySchema[t.Schema] = append(bySchema[t.Schema], t.Name)
	}
	for _, s := range order {
		names := bySchema[s]
		shown := names
		if len(shown) > 5 {
			shown = append(shown[:5:5], "...")
		}
		q := IdentifierQuote(s)
		p := Problem{Kind: "grants", Warning: len(c.schemas) == 0 && readable > 0,
			Msg: fmt.Sprintf("the role may not read %d of the tables and views in schema %s (%s)", len(names), s, strings.Join(shown, ", ")),
			Fix: fmt.Sprintf("as their owner run: GRANT SELECT ON ALL TABLES IN SCHEMA %s TO %s; ALTER DEFAULT PRIVILEGES IN SCHEMA %s GRANT SELECT ON TABLES TO %s", q, role, q, role)}
		if !usable[s] {
			p.Msg = fmt.Sprintf("the role may not use schema %s, so none of its tables and views can be read (%s)", s, strings.Join(shown, ", "))
			p.Fix = fmt.Sprintf("as its owner run: GRANT USAGE ON SCHEMA %s TO %s; ", q, role) + strings.TrimPrefix(p.Fix, "as their owner run: ")
		}
		if c.hide {
			p.Warning = true
			p.Msg += "; they are hidden"
		}
		problems = append(problems, p)
	}
	return problems, nil
}

// Schemas are the PostgreSQL schemas of the tables and views the catalog
// holds, hidden ones included, sorted; nil on SQLite.
func (c *Catalog) Schemas(ctx context.Context) ([]string, error) {
	tables, err := c.Tables(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	tables = append(slices.Clone(tables), c.hidden...)
	c.mu.Unlock()
	var out []string
	for _, t := range tables {
		if t.Schema != "" && !slices.Contains(out, t.Schema) {
			out = append(out, t.Schema)
		}
	}
	slices.Sort(out)
	return out, nil
}

// IsCheckError reports whether err is a *CheckError, and returns it.
func IsCheckError(err error) (*CheckError, bool) {
	var ce *CheckError
	ok := errors.As(err, &ce)
	return ce, ok
}
