package tools

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
)

var describeTableTool = &mcp.Tool{
	Name: "describe_table",
	Description: "A table's columns (types, keys, meanings, value notes), foreign " +
		"keys both ways, indexes, rows.",
	Annotations: readOnly,
}

type describeTableIn struct {
	dbArg
	Table string `json:"table" jsonschema:"as list_tables names it"`
}

func (in describeTableIn) audit(e *zerolog.Event) { e.Str("table", logged(in.Table)) }

type describeTableOut struct {
	Name          string              `json:"name"`
	Kind          string              `json:"kind"`
	Description   string              `json:"description,omitempty"`
	Schema        string              `json:"schema,omitempty"`
	Rows          *int64              `json:"rows"` // null if not counted
	RowsEstimated bool                `json:"rows_estimated,omitempty"`
	Columns       []schema.Column     `json:"columns"`
	ForeignKeys   []schema.ForeignKey `json:"foreign_keys"`
	ReferencedBy  []schema.ForeignKey `json:"referenced_by"`
	Indexes       []schema.Index      `json:"indexes"`
	// Broken says why it cannot be read: a view whose table is gone, or a
	// table the role may not read (denied: its columns are still shown).
	Broken string `json:"broken,omitempty"`
	denied bool
	// commented: Description is the database's comment. kinds are the
	// text columns' kinds, whose exceptions are values from the rows,
	// marked in the text's note; notes are those columns' own notes.
	commented bool
	kinds     map[string]schema.TextKind
	notes     map[string]string

	display func(string) string // a table's name as SQL writes it
	ident   func(string) string // a column's name as SQL writes it
}

// masks reports whether a policy masks any of cols.
func masks(cols []schema.Column) bool {
	return slices.ContainsFunc(cols, func(c schema.Column) bool { return c.Masked != "" })
}

// maskNote tells the model what it may do with a masked column.
func maskNote(mode string) string {
	shown := "a stable hash of each value"
	if mode != "hash" {
		shown = "a fixed marker"
	}
	return "masked by policy: shown as " + shown + "; select it only as it is, never in WHERE, JOIN, GROUP BY, ORDER BY or a function"
}

func (s *server) describeTable(ctx context.Context, in describeTableIn) (describeTableOut, error) {
	t, err := s.cat.Table(ctx, in.Table)
	if err != nil {
		return describeTableOut{}, err
	}
	out := describeTableOut{Name: t.Name, Schema: t.Schema, Kind: t.Kind, Description: t.Description, Columns: t.Columns,
		ForeignKeys: t.ForeignKeys, ReferencedBy: t.ReferencedBy, Indexes: t.Indexes, Broken: cmp.Or(t.Broken, t.Unreadable), denied: t.Unreadable != "",
		commented: t.Commented, display: s.cat.Display, ident: s.cat.Ident}
	cctx, cancel := context.WithTimeout(ctx, countBudget)
	defer cancel()
	var kinds map[string]schema.TextKind
	if !ownRole(ctx) {
		kinds = s.cat.TextKinds(cctx, t)
	}
	if len(kinds) > 0 || masks(t.Columns) {
		out.Columns, out.kinds, out.notes = slices.Clone(t.Columns), kinds, map[string]string{}
		for i := range out.Columns {
			c := &out.Columns[i]
			if k, ok := kinds[c.Name]; ok {
				out.notes[c.Name] = c.Values
				c.Values = addNote(c.Values, kindNote(k, nil))
			}
			if c.Masked != "" {
				c.Values = addNote(c.Values, maskNote(c.Masked))
			}
		}
	}
	if tables, err := s.cat.Tables(ctx); err == nil {
		if guesses := s.cat.GuessJoins(t, tables, maxGuesses); len(guesses) > 0 {
			out.ForeignKeys = append(slices.Clone(t.ForeignKeys), guesses...)
		}
	}
	if n, exact, ok := s.rowCount(cctx, t); ok {
		out.Rows, out.RowsEstimated = &n, !exact
	}
	return out, nil
}

// maxGuesses bounds the joins describe_table guesses for one table.
const maxGuesses = 5

// kindNote warns that a text column holds numbers or dates, with the cast
// that sorts and compares them as such. The values that are not, from the
// rows, are marked by d when it is not nil.
func kindNote(k schema.TextKind, d *data) string {
	what := map[string]string{"integer": "integers", "number": "numbers", "date": "dates"}[k.Kind]
	note := what + " stored as text"
	if len(k.Except) > 0 {
		except := strings.Join(k.Except, ", ")
		if d != nil {
			except = d.mark(except)
		}
		note += " (and " + except + ")"
	}
	return note + ": sort and compare with " + k.Cast
}

// addNote adds note b to note a.
func addNote(a, b string) string {
	if a == "" {
		return b
	}
	return strings.TrimRight(a, ". ") + "; " + b
}

func (o describeTableOut) audit(e *zerolog.Event) { e.Int("rows", o.rows()) }
func (o describeTableOut) rows() int              { return len(o.Columns) }

func (o describeTableOut) text(d *data) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s)", o.Kind, o.display(o.Name), rowsText(o.Rows, o.RowsEstimated))
	if o.Description != "" {
		fmt.Fprintf(&b, ": %s", d.comment(o.Description, o.commented))
	}
	switch {
	case o.denied:
		fmt.Fprintf(&b, "\ncannot be read: %s; a query on it fails", o.Broken)
	case o.Broken != "":
		fmt.Fprintf(&b, "\nbroken: it cannot be read: %s\n", o.Broken)
		return b.String()
	}
	b.WriteString("\ncolumns:\n")
	for _, c := range o.Columns {
		if k, ok := o.kinds[c.Name]; ok && len(k.Except) > 0 {
			c.Values = addNote(o.notes[c.Name], kindNote(k, d))
		}
		fmt.Fprintf(&b, "- %s %s", o.ident(c.Name), orDash(c.Type))
		switch {
		case c.PrimaryKey > 0 && schema.KeyColumns(o.Columns) == 1:
			b.WriteString(" PRIMARY KEY")
		case c.PrimaryKey > 0:
			fmt.Fprintf(&b, " PRIMARY KEY(%d)", c.PrimaryKey) // its place in a composite key
		}
		if !c.Nullable {
			b.WriteString(" NOT NULL")
		}
		if c.Default != nil {
			fmt.Fprintf(&b, " DEFAULT %s", *c.Default)
		}
		if c.Description != "" {
			fmt.Fprintf(&b, ": %s", d.comment(c.Description, c.Commented))
		}
		if c.Values != "" {
			fmt.Fprintf(&b, " [values: %s]", c.Values)
		}
		b.WriteByte('\n')
	}
	keys := func(title string, guessed bool, ks []schema.ForeignKey) {
		title += ":\n"
		for _, k := range ks {
			if k.Guessed != guessed {
				continue
			}
			b.WriteString(title)
			title = ""
			fmt.Fprintf(&b, "- %s(%s) -> %s(%s)\n", o.display(k.Table), o.identAll(k.Columns),
				o.display(k.RefTable), o.identAll(k.RefColumns))
		}
	}
	keys("foreign keys", false, o.ForeignKeys)
	keys("joins guessed from key names and types (no foreign key declared; check them)", true, o.ForeignKeys)
	keys("referenced by", false, o.ReferencedBy)
	if len(o.Indexes) > 0 {
		b.WriteString("indexes:\n")
		for _, ix := range o.Indexes {
			unique := ""
			if ix.Unique {
				unique = " UNIQUE"
			}
			fmt.Fprintf(&b, "- %s%s (%s)\n", ix.Name, unique, o.identAll(ix.Columns))
		}
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// identAll writes column names as SQL does, a comma between each two.
func (o describeTableOut) identAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = o.ident(n)
	}
	return strings.Join(q, ", ")
}

// ownRole reports whether the call's statements run as a role of their
// own (an identity rule's role), not as sqlmcp's connecting role.
func ownRole(ctx context.Context) bool { return source.RoleFrom(ctx) != "" }

// rowCount is t's row count as the catalog has it (see
// schema.Catalog.RowCount), but for a call with a role of its own only
// the engine's estimate of a big table: an exact count is made as the
// connecting role and kept for every caller, and would count rows the
// role may not read.
func (s *server) rowCount(ctx context.Context, t *schema.Table) (n int64, exact, ok bool) {
	if ownRole(ctx) {
		if est, big := t.Big(); big {
			return est, false, true
		}
		return 0, false, false
	}
	return s.cat.RowCount(ctx, t)
}
