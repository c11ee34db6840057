package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/schema"
)

var searchSchemaTool = &mcp.Tool{
	Name: "search_schema",
	Description: "Columns a question needs, by words in names ('free meal' finds " +
		"'Free Meal Count (K-12)'), descriptions and values, with join keys.",
	Annotations: readOnly,
}

type searchSchemaIn struct {
	dbArg
	Query string `json:"query" jsonschema:"words, e.g. 'free meal'"`
	Limit int    `json:"limit,omitempty" jsonschema:"1-100, default 20"`
}

func (in searchSchemaIn) audit(e *zerolog.Event) { e.Str("query", logged(in.Query)) }

type searchSchemaOut struct {
	Query   string         `json:"query"`
	Matches []schema.Match `json:"matches"`

	display func(string) string // a table's name as SQL writes it
	ident   func(string) string // a column's name as SQL writes it
}

func (s *server) searchSchema(ctx context.Context, in searchSchemaIn) (searchSchemaOut, error) {
	limit, err := bounded("limit", in.Limit, 20, 100)
	if err != nil {
		return searchSchemaOut{}, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return searchSchemaOut{}, fmt.Errorf("query is empty: give one or more words, e.g. 'free meal'")
	}
	search := s.cat.Search
	if ownRole(ctx) {
		// The values were read as the connecting role, not as the
		// caller's: they may be of rows or columns its role cannot read.
		search = s.cat.SearchNames
	}
	matches, err := search(ctx, in.Query, limit)
	if err != nil {
		return searchSchemaOut{}, s.modelError(ctx, "", err)
	}
	return searchSchemaOut{Query: in.Query, Matches: matches, display: s.cat.Display, ident: s.cat.Ident}, nil
}

func (o searchSchemaOut) audit(e *zerolog.Event) { e.Int("rows", o.rows()) }
func (o searchSchemaOut) rows() int              { return len(o.Matches) }

func (o searchSchemaOut) text(d *data) string {
	if len(o.Matches) == 0 {
		return fmt.Sprintf("nothing matches %q; try other words, or list_tables", o.Query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s for %q, best first:\n", pluralWord(len(o.Matches), "match", "matches"), o.Query)
	for _, m := range o.Matches {
		if m.Column == "" {
			fmt.Fprintf(&b, "- table %s", o.display(m.Table))
		} else {
			fmt.Fprintf(&b, "- %s.%s %s", o.display(m.Table), o.ident(m.Column), orDash(m.Type))
		}
		fmt.Fprintf(&b, " [%s]", m.Why)
		if m.Value != "" {
			fmt.Fprintf(&b, " holds %s", d.mark(strconv.Quote(m.Value)))
		}
		if m.Description != "" {
			fmt.Fprintf(&b, ": %s", d.comment(m.Description, m.Commented))
		}

		b.WriteByte('\n')
	}
	return b.String()
}

// bounded checks an optional numeric argument: zero means def.
func bounded(name string, v, def, max int) (int, error) {
	switch {
	case v == 0:
		return def, nil
	case v < 0 || v > max:
		return 0, fmt.Errorf("%s must be between 1 and %d, not %d", name, max, v)
	}
	return v, nil
}
