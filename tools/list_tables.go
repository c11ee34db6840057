package tools

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/schema"
)

var listTablesTool = &mcp.Tool{
	Name: "list_tables",
	Description: "Tables and views, with row and column counts. Start here. 200 by default: " +
		"narrow with filter; names_only for huge schemas.",
	Annotations: readOnly,
}

type listTablesIn struct {
	dbArg
	Filter    string `json:"filter,omitempty" jsonschema:"name contains it, any case"`
	Limit     int    `json:"limit,omitempty" jsonschema:"1-2000, default 200"`
	NamesOnly bool   `json:"names_only,omitempty" jsonschema:"names alone"`
}

func (in listTablesIn) audit(e *zerolog.Event) {
	e.Str("filter", logged(in.Filter)).Int("limit", in.Limit).Bool("names_only", in.NamesOnly)
}

type listTablesOut struct {
	overview  string            // what the whole database holds, from the annotations
	Databases []databaseSummary `json:"databases,omitempty"`
	Tables    []tableSummary    `json:"tables,omitempty"`
	Names     []string          `json:"names,omitempty"`
	Total     int               `json:"total"`
	Truncated bool              `json:"truncated"`

	display func(string) string // a table's name as SQL writes it
}

type tableSummary struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Rows *int64 `json:"rows"` // null if not counted
	// RowsEstimated is true when Rows is the engine's estimate.
	RowsEstimated bool `json:"rows_estimated,omitempty"`
	Columns       int  `json:"columns"`
	// Description is what the table holds, from the annotations.
	Description string `json:"description,omitempty"`
	// Broken says why the table cannot be read: a view whose table is
	// gone, or a table the role may not read (denied).
	Broken    string `json:"broken,omitempty"`
	denied    bool
	commented bool // Description is the database's comment
}

// countBudget bounds the time list_tables spends counting rows, so a
// database of huge tables still lists quickly; uncounted tables say null.
const countBudget = 2 * time.Second

// The list's bounds: a schema of thousands of tables would otherwise cost
// a count per table and a long answer per call.
const (
	listDefault = 200
	listMax     = 2000
)

func (s *server) listTables(ctx context.Context, in listTablesIn) (listTablesOut, error) {
	limit, err := bounded("limit", in.Limit, listDefault, listMax)
	if err != nil {
		return listTablesOut{}, err
	}
	tables, err := s.cat.Tables(ctx)
	if err != nil {
		return listTablesOut{}, s.modelError(ctx, "", err)
	}
	if f := strings.ToLower(strings.TrimSpace(in.Filter)); f != "" {
		var kept []*schema.Table
		for _, t := range tables {
			if strings.Contains(strings.ToLower(t.Name), f) {
				kept = append(kept, t)
			}
		}
		tables = kept
	}
	out := listTablesOut{overview: s.cat.Overview(), Total: len(tables), Truncated: len(tables) > limit, display: s.cat.Display}
	tables = tables[:min(len(tables), limit)]
	if in.NamesOnly {
		out.Names = make([]string, len(tables))
		for i, t := range tables {
			out.Names[i] = t.Name
		}
		return out, nil
	}
	out.Tables = make([]tableSummary, len(tables))
	cctx, cancel := context.WithTimeout(ctx, countBudget)
	defer cancel()
	for i, t := range tables {
		out.Tables[i] = tableSummary{Name: t.Name, Kind: t.Kind, Columns: len(t.Columns), Description: t.Description, Broken: cmp.Or(t.Broken, t.Unreadable), denied: t.Unreadable != "", commented: t.Commented}
		if n, exact, ok := s.rowCount(cctx, t); ok {
			out.Tables[i].Rows, out.Tables[i].RowsEstimated = &n, !exact
		}
	}
	return out, nil
}

func (o listTablesOut) audit(e *zerolog.Event) {
	e.Int("rows", o.rows()).Bool("truncated", o.Truncated)
}

func (o listTablesOut) rows() int { return len(o.Tables) + len(o.Names) + len(o.Databases) }

func (o listTablesOut) text(d *data) string {
	var b strings.Builder
	if len(o.Databases) > 0 {
		fmt.Fprintf(&b, "%d databases; call list_tables with database to list one's tables:\n", len(o.Databases))
		for _, d := range o.Databases {
			fmt.Fprintf(&b, "- %s (%s, ", d.Name, d.Engine)
			if d.Tables != nil {
				fmt.Fprintf(&b, "%s)", pluralWord(*d.Tables, "table", "tables"))
			} else {
				fmt.Fprintf(&b, "unavailable: %s)", d.Unavailable)
			}
			if d.Description != "" {
				fmt.Fprintf(&b, ": %s", d.Description)
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	if o.overview != "" {
		fmt.Fprintf(&b, "About this database: %s\n", o.overview)
	}
	shown := len(o.Tables) + len(o.Names)
	if o.Truncated {
		fmt.Fprintf(&b, "%d of %d tables and views (cut: narrow with filter, or raise limit, with names_only for names alone):\n", shown, o.Total)
	} else {
		fmt.Fprintf(&b, "%d tables and views:\n", shown)
	}
	for _, n := range o.Names {
		fmt.Fprintf(&b, "- %s\n", o.display(n))
	}
	for _, t := range o.Tables {
		fmt.Fprintf(&b, "- %s (%s, %s, %s)", o.display(t.Name), t.Kind, rowsText(t.Rows, t.RowsEstimated), plural(int64(t.Columns), "column"))
		if t.Description != "" {
			fmt.Fprintf(&b, ": %s", d.comment(t.Description, t.commented))
		}
		switch {
		case t.denied:
			fmt.Fprintf(&b, " [cannot be read: %s]", t.Broken)
		case t.Broken != "":
			fmt.Fprintf(&b, " [broken, cannot be read: %s]", t.Broken)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// rowsText words a row count that may be unknown or estimated.
func rowsText(n *int64, estimated bool) string {
	switch {
	case n == nil:
		return "rows unknown"
	case estimated:
		return fmt.Sprintf("about %d rows (estimate)", *n)
	}
	return plural(*n, "row")
}

func plural(n int64, word string) string { return pluralWord(int(n), word, word+"s") }

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
