package schema

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/sqlmcp/sqlmcp/source"
)

// notes are what tables and columns mean, keyed by lower-cased names.
type notes struct {
	tables  map[string]string
	columns map[string]map[string]columnNote
	// named are the tables and columns the --annotations file names, as
	// written there, with their lines, for Check.
	named []named
	file  string
	// overview is what the whole database holds, from the annotations.
	overview string
}

// named is a table, or a table's column, an annotations file names.
type named struct {
	table, column string // column is "" for the table itself
	line          int
}

type columnNote struct {
	description, values string
}

// annotationsFile is the --annotations format:
//
//	description: What the whole database holds (shown to the model first).
//	tables:
//	  customers:
//	    description: People who bought something.
//	    columns:
//	      email: Contact address; NULL when unknown.
//	      status: {description: Account state, values: "a = active, c = closed"}
type annotationsFile struct {
	Description string `yaml:"description"`
	Tables      map[string]struct {
		Description string               `yaml:"description"`
		Columns     map[string]annotated `yaml:"columns"`
	} `yaml:"tables"`
}

// annotated is a column's note: a string, or a description and values.
type annotated struct {
	Description string `yaml:"description"`
	Values      string `yaml:"values"`
}

func (a *annotated) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		a.Description = n.Value
		return nil
	}
	// Node.Decode forgets the decoder's KnownFields, so check keys here.
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Value != "description" && k.Value != "values" {
				return fmt.Errorf("line %d: unknown key %q (a column takes description and values)", k.Line, k.Value)
			}
		}
	}
	type plain annotated
	return n.Decode((*plain)(a))
}

// unknownField rewrites yaml's "field x not found in type struct {...}".
var unknownField = regexp.MustCompile(`field (\S+) not found in type (struct \{[^}]*\}|\S+)`)

// loadNotes reads the BIRD descriptions, then the annotations file, whose
// notes win where both speak.
func loadNotes(db *source.DB, opts *Options) (notes, error) {
	n := notes{tables: map[string]string{}, columns: map[string]map[string]columnNote{}}
	dir := opts.Descriptions
	if dir == "" && db.Path() != "" {
		dir = filepath.Join(filepath.Dir(db.Path()), "database_description")
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			dir = ""
		}
	}
	if dir != "" {
		if err := n.readBIRD(dir); err != nil {
			return n, err
		}
	}
	if opts.Annotations != "" {
		if err := n.readAnnotations(opts.Annotations); err != nil {
			return n, err
		}
	}
	return n, nil
}

// readBIRD reads every <table>.csv in dir: original_column_name,
// column_name, column_description, data_format, value_description. It
// tolerates a byte-order mark, Windows-1252 text and ragged rows, as BIRD's
// own files need.
func (n *notes) readBIRD(dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("reading column descriptions: no .csv files in %s", dir)
	}
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("reading column descriptions: %w", err)
		}
		r := csv.NewReader(bytes.NewReader(toUTF8(raw)))
		r.FieldsPerRecord = -1
		r.LazyQuotes = true
		records, err := r.ReadAll()
		if err != nil {
			return fmt.Errorf("reading column descriptions %s: %w", path, err)
		}
		table := strings.ToLower(strings.TrimSuffix(filepath.Base(path), ".csv"))
		for i, rec := range records {
			if i == 0 || len(rec) == 0 || strings.TrimSpace(rec[0]) == "" {
				continue // the header, or a blank line
			}
			field := func(k int) string {
				if k < len(rec) {
					return strings.Join(strings.Fields(rec[k]), " ")
				}
				return ""
			}
			col, expanded, desc, format, values := field(0), field(1), field(2), field(3), field(4)
			if expanded != "" && !strings.EqualFold(expanded, col) && !strings.Contains(strings.ToLower(desc), strings.ToLower(expanded)) {
				desc = joinNote(expanded, desc)
			}
			// A format that only names a type repeats what the column's
			// type says (BIRD writes "integer", "text", "real" for most).
			if format != "" && !plainFormats[strings.ToLower(format)] {
				values = joinNote(values, "format: "+format)
			}
			n.setColumn(table, col, columnNote{description: desc, values: values})
		}
	}
	return nil
}

// plainFormats are data_format values that name a type and nothing more.
var plainFormats = map[string]bool{
	"integer": true, "int": true, "text": true, "real": true, "float": true, "double": true, "numeric": true,
	"decimal": true, "date": true, "datetime": true, "time": true, "timestamp": true, "bool": true,
	"boolean": true, "varchar": true, "char": true, "string": true, "blob": true,
}

// readAnnotations reads the --annotations file, YAML or JSON, refusing
// unknown keys so that a misspelt key is not silently ignored.
func (n *notes) readAnnotations(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading annotations: %w", err)
	}
	var f annotationsFile
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) { // an empty file is fine
		// yaml's errors span lines; a start-up error is one line.
		msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", ";")), " ")
		msg = unknownField.ReplaceAllString(msg, `unknown key "$1" (keys are description, tables, columns, values)`)
		msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:; ")
		return fmt.Errorf("reading annotations %s: %s", path, msg)
	}
	n.file = path
	n.overview = strings.Join(strings.Fields(f.Description), " ")
	for table, t := range f.Tables {
		if t.Description != "" {
			n.tables[strings.ToLower(table)] = t.Description
		}
		for col, a := range t.Columns {
			n.setColumn(strings.ToLower(table), col, columnNote{description: a.Description, values: a.Values})
		}
	}
	// The file again, as nodes, for the line of each name.
	var doc yaml.Node
	if yaml.Unmarshal(raw, &doc) == nil && len(doc.Content) > 0 {
		forKey(doc.Content[0], "tables", func(tables *yaml.Node) {
			eachKey(tables, func(table, v *yaml.Node) {
				n.named = append(n.named, named{table: table.Value, line: table.Line})
				forKey(v, "columns", func(cols *yaml.Node) {
					eachKey(cols, func(col, _ *yaml.Node) {
						n.named = append(n.named, named{table: table.Value, column: col.Value, line: col.Line})
					})
				})
			})
		})
	}
	return nil
}

// eachKey calls fn on each key and value of a mapping node.
func eachKey(m *yaml.Node, fn func(k, v *yaml.Node)) {
	if m.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		fn(m.Content[i], m.Content[i+1])
	}
}

// forKey calls fn on the value of key in a mapping node, if there.
func forKey(m *yaml.Node, key string, fn func(v *yaml.Node)) {
	eachKey(m, func(k, v *yaml.Node) {
		if k.Value == key {
			fn(v)
		}
	})
}

// noteKeys are the names a note may use for t: its name as sqlmcp shows
// it, and on PostgreSQL schema.table and, when no other schema's table has
// it, the bare name.
func noteKeys(t *Table, bare map[string]int) []string {
	keys := []string{strings.ToLower(t.Name)}
	if t.Schema != "" {
		keys = append(keys, strings.ToLower(t.Schema+"."+t.rel))
		if bare[strings.ToLower(t.rel)] == 1 {
			keys = append(keys, strings.ToLower(t.rel))
		}
	}
	return keys
}

// bareNames counts the tables of each bare name.
func bareNames(tables []*Table) map[string]int {
	bare := map[string]int{}
	for _, t := range tables {
		bare[strings.ToLower(t.rel)]++
	}
	return bare
}

// check reports every table or column the annotations file names that
// tables do not hold, matching names as Catalog.Table does (any case,
// schema.table, a bare name no other schema has): a misspelt name is a
// start-up error, not a note silently dropped.
func (n *notes) check(tables []*Table) []Problem {
	bare := bareNames(tables)
	cols := map[string]*Table{}
	var names []string
	for _, t := range tables {
		for _, k := range noteKeys(t, bare) {
			cols[k] = t
		}
		names = append(names, t.Name)
		if t.Schema != "" && t.Name != t.Schema+"."+t.rel {
			names = append(names, t.Schema+"."+t.rel)
		}
	}
	var problems []Problem
	add := func(line int, fix, format string, args ...any) {
		problems = append(problems, Problem{Kind: "annotations", File: n.file, Line: line, Msg: fmt.Sprintf(format, args...), Fix: fix})
	}
	for _, nm := range n.named {
		t, ok := cols[strings.ToLower(nm.table)]
		switch {
		case !ok && nm.column == "":
			if k := bare[strings.ToLower(nm.table)]; k > 1 {
				var in []string
				for _, t := range tables {
					if strings.EqualFold(t.rel, nm.table) {
						in = append(in, t.Schema+"."+t.rel)
					}
				}
				add(nm.line, "write it with its schema: "+strings.Join(in, " or "), "table %q is in %d schemas", nm.table, k)
				continue
			}
			add(nm.line, didYouMean(nm.table, names, "call list_tables to see the tables; on PostgreSQL write schema.table"), "no table %q in the database", nm.table)
		case ok && nm.column != "":
			var have []string
			found := false
			for _, c := range t.Columns {
				have = append(have, c.Name)
				found = found || strings.EqualFold(c.Name, nm.column)
			}
			if !found {
				add(nm.line, didYouMean(nm.column, have, "the columns are "+strings.Join(have, ", ")), "table %q has no column %q", nm.table, nm.column)
			}
		}
	}
	return problems
}

// didYouMean suggests the names closest to name, else says otherwise.
func didYouMean(name string, names []string, otherwise string) string {
	if c := Closest(name, names, 3); len(c) > 0 {
		return "did you mean " + strings.Join(c, ", ") + "?"
	}
	return otherwise
}

func (n *notes) setColumn(table, col string, note columnNote) {
	cols := n.columns[table]
	if cols == nil {
		cols = map[string]columnNote{}
		n.columns[table] = cols
	}
	key := strings.ToLower(col)
	old := cols[key]
	if note.description == "" {
		note.description = old.description
	}
	if note.values == "" {
		note.values = old.values
	}
	cols[key] = note
}

// apply copies the notes onto the tables they name; where a note is
// silent, what the database itself says (PostgreSQL's COMMENT ON) stays.
func (n *notes) apply(tables []*Table) {
	bare := bareNames(tables)
	for _, t := range tables {
		for _, key := range noteKeys(t, bare) {
			if d := n.tables[key]; d != "" {
				t.Description, t.Commented = d, false
			}
			cols := n.columns[key]
			for i := range t.Columns {
				c := &t.Columns[i]
				note := cols[strings.ToLower(c.Name)]
				if note.description != "" {
					c.Description, c.Commented = note.description, false
				}
				if note.values != "" {
					c.Values = note.values
				}
			}
		}
	}
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return strings.TrimRight(a, ". ") + ". " + b
}

// toUTF8 drops a byte-order mark and decodes Windows-1252 text, which is
// what a CSV file that is not UTF-8 almost always is.
func toUTF8(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if utf8.Valid(b) {
		return b
	}
	var out strings.Builder
	for _, c := range b {
		if c >= 0x80 && c < 0xa0 {
			out.WriteRune(cp1252[c-0x80])
		} else {
			out.WriteRune(rune(c))
		}
	}
	return []byte(out.String())
}

// cp1252 maps Windows-1252's bytes 0x80 to 0x9f; the rest are Latin-1.
var cp1252 = [32]rune{
	'€', '\u0081', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u008d', 'Ž', '\u008f',
	'\u0090', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u009d', 'ž', 'Ÿ',
}
