package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// outputSchema is the JSON Schema of Out as every client lists it, cut to
// what a reader of the output needs: each property, its type and, where
// the name does not say it, its meaning. It leaves out what only a
// validator uses: which properties must appear and that no others may (the
// server writes these objects from Go structs, so neither can vary), and
// writes a shape used twice or more once, under $defs. The SDK still
// checks every result against it.
func outputSchema[Out any]() *jsonschema.Schema {
	s, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("output schema of %T: %v", *new(Out), err)) // a programming error, caught by any test
	}
	open(s)
	shared(s)
	return s
}

// open drops additionalProperties and required from s and its subschemas.
func open(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties, s.Required = nil, nil
	open(s.Items)
	for _, p := range s.Properties {
		open(p)
	}
}

// shared moves the item schemas of object arrays that appear under more
// than one property of root into root's $defs, named after the first such
// property, and refers to them there.
func shared(root *jsonschema.Schema) {
	names := make([]string, 0, len(root.Properties))
	for n := range root.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	first := map[string]string{} // an item schema's JSON: the property it was first seen under
	seen := map[string]int{}
	for _, n := range names {
		if it := root.Properties[n].Items; it != nil && it.Properties != nil {
			key := jsonOf(it)
			if _, ok := first[key]; !ok {
				first[key] = n
			}
			seen[key]++
		}
	}
	for _, n := range names {
		p := root.Properties[n]
		if p.Items == nil || p.Items.Properties == nil {
			continue
		}
		key := jsonOf(p.Items)
		if seen[key] < 2 {
			continue
		}
		def := first[key]
		if root.Defs == nil {
			root.Defs = map[string]*jsonschema.Schema{}
		}
		root.Defs[def] = p.Items
		p.Items = &jsonschema.Schema{Ref: "#/$defs/" + def}
	}
}

func jsonOf(s *jsonschema.Schema) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// inputSchema is the JSON Schema of In as clients list it, and the names of
// its arguments. It leaves out additionalProperties: false, which costs
// every listing bytes; checkArguments refuses an unknown argument instead,
// with words the model can act on.
func inputSchema[In any]() (*jsonschema.Schema, []string) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %T: %v", *new(In), err)) // a programming error, caught by any test
	}
	s.AdditionalProperties = nil
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return s, names
}

// checkArguments returns an error naming the first argument in raw (a JSON
// object, or empty) that is not among names.
func checkArguments(raw json.RawMessage, names []string) error {
	if len(raw) == 0 {
		return nil
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil {
		return fmt.Errorf("the arguments must be a JSON object: %w", err)
	}
	var unknown []string
	for n := range args {
		if !slices.Contains(names, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	takes := "no arguments"
	if len(names) > 0 {
		takes = strings.Join(names, ", ")
	}
	return fmt.Errorf("unknown argument %q; this tool takes %s", unknown[0], takes)
}
