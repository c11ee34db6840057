// Package policy is a source's table and column policy: which relations
// and columns the model may read, and which it may see only masked. The
// operator writes a Spec (a policy: block of the configuration file, or a
// --policy file for a single database); Resolve matches its names against
// the catalog, failing on any it does not find, and returns a Policy that
// the engines' guards enforce on every statement (guard.PolicyCatalog),
// that the schema tools filter their answers through, and that redacts
// masked values.
//
// policy sits above guard and source, and below schema.
package policy

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Spec is a policy as the operator writes it. Names are as the schema
// tools write them: a table bare or schema-qualified ("hr.salaries"), a
// column after its table ("customers.email", "hr.salaries.amount").
type Spec struct {
	// DenyByDefault makes every relation not in Tables unreadable
	// (default: deny); otherwise every relation may be read but those in
	// DenyTables (default: allow).
	DenyByDefault bool
	// Tables are, with DenyByDefault, the relations that may be read.
	Tables []string
	// DenyTables are relations that may not be read, nor seen.
	DenyTables []string
	// DenyColumns are columns that may not be read, nor seen.
	DenyColumns []string
	// Mask maps a column to how its values are shown: Hash or Redact.
	Mask map[string]MaskMode
	// Key is the key masked values are hashed with (see Hash); empty
	// means one made at random for the process's lifetime.
	Key []byte
	// File and Line say where the policy was written, for messages.
	File string
	Line int
}

// MaskMode is how a masked column's values are shown.
type MaskMode string

const (
	// Hash shows a stable keyed hash of each value: equal values stay
	// equal, so a model can still tell them apart and count them.
	Hash MaskMode = "hash"
	// Redact shows a fixed marker for every value.
	Redact MaskMode = "redact"
)

// Restricts reports whether s holds anything back: with none, a policy
// changes nothing.
func (s *Spec) Restricts() bool {
	return s != nil && (s.DenyByDefault || len(s.DenyTables) > 0 || len(s.DenyColumns) > 0 || len(s.Mask) > 0)
}

// Load reads a policy file: a YAML mapping with the keys of a policy:
// block, or one holding a policy: key.
func Load(path string) (*Spec, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the policy: %w", err)
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(raw)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: not valid YAML: %v", path, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: the policy file is empty", path)
	}
	n := doc.Content[0]
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "policy" {
		n = n.Content[1]
	}
	return FromNode(n, path)
}

// Keys are the keys of a policy block.
var Keys = []string{"default", "tables", "deny_tables", "deny_columns", "mask_columns"}

// FromNode reads a policy block from n, a YAML mapping of file; errors
// name the file and line.
func FromNode(n *yaml.Node, file string) (*Spec, error) {
	at := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d: policy: %s", file, n.Line, fmt.Sprintf(format, args...))
	}
	if n.Kind != yaml.MappingNode {
		return nil, at(n, "expected a mapping of %s", strings.Join(Keys, ", "))
	}
	s := &Spec{File: file, Line: n.Line}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var err error
		switch k.Value {
		case "default":
			switch {
			case v.Kind == yaml.ScalarNode && v.Value == "deny":
				s.DenyByDefault = true
			case v.Kind == yaml.ScalarNode && v.Value == "allow":
			default:
				err = at(v, "default is allow or deny, not %q", v.Value)
			}
		case "tables":
			s.Tables, err = names(v, at, k.Value)
		case "deny_tables":
			s.DenyTables, err = names(v, at, k.Value)
		case "deny_columns":
			s.DenyColumns, err = names(v, at, k.Value)
		case "mask_columns":
			s.Mask, err = masks(v, at)
		default:
			err = at(k, "unknown key %q; a policy holds %s", k.Value, strings.Join(Keys, ", "))
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case s.DenyByDefault && len(s.Tables) == 0:
		return nil, at(n, "default: deny needs tables: the relations that may be read")
	case !s.DenyByDefault && len(s.Tables) > 0:
		return nil, at(n, "tables lists what may be read under default: deny; under default: allow every relation may be read, so list only deny_tables (or set default: deny)")
	}
	return s, nil
}

func names(v *yaml.Node, at func(*yaml.Node, string, ...any) error, key string) ([]string, error) {
	var out []string
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag != "!!null" {
			out = append(out, v.Value)
		}
	case yaml.SequenceNode:
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode || strings.TrimSpace(it.Value) == "" {
				return nil, at(it, "%s holds names, one an item", key)
			}
			out = append(out, strings.TrimSpace(it.Value))
		}
	default:
		return nil, at(v, "%s is a list of names", key)
	}
	return out, nil
}

func masks(v *yaml.Node, at func(*yaml.Node, string, ...any) error) (map[string]MaskMode, error) {
	out := map[string]MaskMode{}
	add := func(n *yaml.Node, col string, mode MaskMode) error {
		if !slices.Contains([]MaskMode{Hash, Redact}, mode) {
			return at(n, "mask_columns: %s is masked by hash or redact, not %q", col, mode)
		}
		out[strings.TrimSpace(col)] = mode
		return nil
	}
	switch v.Kind {
	case yaml.MappingNode: // column: mode
		for i := 0; i+1 < len(v.Content); i += 2 {
			if err := add(v.Content[i+1], v.Content[i].Value, MaskMode(v.Content[i+1].Value)); err != nil {
				return nil, err
			}
		}
	case yaml.SequenceNode, yaml.ScalarNode: // columns, hashed
		cols, err := names(v, at, "mask_columns")
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			out[c] = Hash
		}
	default:
		return nil, at(v, "mask_columns maps columns to hash or redact")
	}
	return out, nil
}
