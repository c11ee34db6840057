package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/schema"
)

var describeTableTool = &mcp.Tool{
	Name: "describe_table",
	Description: "A table's columns (types, keys, meanings, value notes), foreign " +
		"keys both ways, indexes, rows. Use its exact column names.",
	Annotations: readOnly,
}

type describeTableIn struct {
	Table string `json:"table" jsonschema:"as list_tables names it"`
}

func (in describeTableIn) audit(e *zerolog.Event) { e.Str("table", in.Table) }

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
	Broken        string              `json:"broken,omitempty"` // why it cannot be read

	display func(string) string // a table's name as SQL writes it
}

func (s *server) describeTable(ctx context.Context, in describeTableIn) (describeTableOut, error) {
	t, err := s.cat.Table(ctx, in.Table)
	if err != nil {
		return describeTableOut{}, err
	}
	out := describeTableOut{Name: t.Name, Schema: t.Schema, Kind: t.Kind, Description: t.Description, Columns: t.Columns,
		ForeignKeys: t.ForeignKeys, ReferencedBy: t.ReferencedBy, Indexes: t.Indexes, Broken: t.Broken, display: s.cat.Display}
	cctx, cancel := context.WithTimeout(ctx, countBudget)
	defer cancel()
	if n, exact, ok := s.cat.RowCount(cctx, t); ok {
		out.Rows, out.RowsEstimated = &n, !exact
	}
	return out, nil
}

func (o describeTableOut) audit(e *zerolog.Event) { e.Int("rows", len(o.Columns)) }

func (o describeTableOut) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s)", o.Kind, o.display(o.Name), rowsText(o.Rows, o.RowsEstimated))
	if o.Description != "" {
		fmt.Fprintf(&b, ": %s", o.Description)
	}
	if o.Broken != "" {
		fmt.Fprintf(&b, "\nbroken: it cannot be read: %s\n", o.Broken)
		return b.String()
	}
	b.WriteString("\ncolumns:\n")
	for _, c := range o.Columns {
		fmt.Fprintf(&b, "- %s %s", schema.IdentifierQuote(c.Name), orDash(c.Type))
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
			fmt.Fprintf(&b, ": %s", c.Description)
		}
		if c.Values != "" {
			fmt.Fprintf(&b, " [values: %s]", c.Values)
		}
		b.WriteByte('\n')
	}
	keys := func(title string, ks []schema.ForeignKey) {
		if len(ks) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s:\n", title)
		for _, k := range ks {
			fmt.Fprintf(&b, "- %s(%s) -> %s(%s)\n", o.display(k.Table), quoteAll(k.Columns),
				o.display(k.RefTable), quoteAll(k.RefColumns))
		}
	}
	keys("foreign keys", o.ForeignKeys)
	keys("referenced by", o.ReferencedBy)
	if len(o.Indexes) > 0 {
		b.WriteString("indexes:\n")
		for _, ix := range o.Indexes {
			unique := ""
			if ix.Unique {
				unique = " UNIQUE"
			}
			fmt.Fprintf(&b, "- %s%s (%s)\n", ix.Name, unique, quoteAll(ix.Columns))
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

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = schema.IdentifierQuote(n)
	}
	return strings.Join(q, ", ")
}
