package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"

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
	portable(s)
	open(s)
	shared(s)
	return s
}

// cell is the schema of a value from the database: any JSON value, spelt
// with one type per branch so that clients which map tool schemas onto a
// single-type dialect (Gemini's OpenAPI subset) can read it.
func cell() *jsonschema.Schema {
	s := &jsonschema.Schema{}
	for _, t := range []string{"string", "number", "boolean", "array", "object", "null"} {
		s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
	}
	return s
}

// portable rewrites s and its subschemas in the spelling every client
// reads (the MCP Inspector's --strict check): no bare true schema (a Go
// any, a cell, becomes cell()), no type arrays. Slices are never null in
// the output (tests check the output against these schemas), so
// ["null", "array"] is "array"; so is an omitted (omitempty, not required)
// pointer, so ["null", "string"] is "string" there; any other nullable
// scalar is anyOf its type and null.
func portable(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	fix := func(p **jsonschema.Schema, required bool) {
		if *p == nil {
			return
		}
		if reflect.ValueOf(**p).IsZero() {
			*p = cell()
		}
		t := *p
		switch {
		case len(t.Types) == 2 && t.Types[0] == "null" && (t.Types[1] == "array" || !required):
			t.Type, t.Types = t.Types[1], nil
		case len(t.Types) == 2 && t.Types[0] == "null":
			t.AnyOf = []*jsonschema.Schema{{Type: t.Types[1]}, {Type: "null"}}
			t.Types = nil
		}
		portable(t)
	}
	fix(&s.Items, true)
	for n := range s.Properties {
		p := s.Properties[n]
		fix(&p, slices.Contains(s.Required, n))
		s.Properties[n] = p
	}
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

// inputSchema is the JSON Schema of In as clients list it, and the spec
// that decodes its arguments. It leaves out additionalProperties: false,
// which costs every listing bytes; the spec refuses an unknown argument
// instead, with words the model can act on.
func inputSchema[In any]() (*jsonschema.Schema, *argSpec) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %T: %v", *new(In), err)) // a programming error, caught by any test
	}
	s.AdditionalProperties = nil
	return s, specOf[In]()
}
