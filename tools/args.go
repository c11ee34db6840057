package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlmcp/sqlmcp/internal/jsonscan"
)

// argSpec decodes a tool's JSON arguments into its input struct, strictly
// and once: an argument the tool does not take, a missing required one,
// or a value of the wrong type is refused with words the model can act on.
// The listed input schema says the same; the SDK's check of every call
// against it, and its second decoding, are what this replaces.
type argSpec struct {
	fields []argField
	names  []string // sorted, for messages
}

// argField is one argument: a field of the input struct (or of a struct
// it embeds) with a JSON name.
type argField struct {
	name     string
	index    []int
	kind     reflect.Kind
	required bool // no omitempty
}

// specOf reads In's fields. It panics on a field kind it cannot decode: a
// programming error, caught by any test.
func specOf[In any]() *argSpec {
	a := &argSpec{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[In]()) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		switch f.Type.Kind() {
		case reflect.String, reflect.Int, reflect.Bool:
		default:
			panic(fmt.Sprintf("argument %s: cannot decode a %s", tag, f.Type))
		}
		a.fields = append(a.fields, argField{name: tag, index: f.Index, kind: f.Type.Kind(), required: !strings.Contains(opts, "omitempty")})
		a.names = append(a.names, tag)
	}
	sort.Strings(a.names)
	return a
}

// without returns a's arguments but name.
func (a *argSpec) without(name string) *argSpec {
	b := &argSpec{}
	for _, f := range a.fields {
		if f.name != name {
			b.fields = append(b.fields, f)
			b.names = append(b.names, f.name)
		}
	}
	sort.Strings(b.names)
	return b
}

// takes words the arguments a tool takes.
func (a *argSpec) takes() string {
	if len(a.names) == 0 {
		return "no arguments"
	}
	return strings.Join(a.names, ", ")
}

// decode sets *in from raw, a JSON object or nothing. A null argument is
// an absent one.
func (a *argSpec) decode(raw json.RawMessage, in any) error {
	var args map[string]json.RawMessage
	if raw = bytes.TrimSpace(raw); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if raw[0] != '{' {
			return fmt.Errorf("the arguments must be a JSON object, not %s; this tool takes %s", cutJSON(raw), a.takes())
		}
		if args = members(raw); args == nil {
			if err := json.Unmarshal(raw, &args); err != nil {
				return fmt.Errorf("the arguments are not valid JSON (%v); this tool takes %s", err, a.takes())
			}
		}
	}
	var unknown []string
	for n := range args {
		if !a.known(n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("unknown argument %q; this tool takes %s", unknown[0], a.takes())
	}
	v := reflect.ValueOf(in).Elem()
	for _, f := range a.fields {
		val, ok := args[f.name]
		if !ok || bytes.Equal(val, []byte("null")) {
			if f.required {
				return fmt.Errorf("missing argument %q; this tool takes %s", f.name, a.takes())
			}
			continue
		}
		if err := f.set(v.FieldByIndex(f.index), val); err != nil {
			return err
		}
	}
	return nil
}

// members is the arguments object raw read in one pass (jsonscan), or nil
// when it is not in the usual form: each key once and without escapes.
func members(raw json.RawMessage) map[string]json.RawMessage {
	args := map[string]json.RawMessage{}
	if !jsonscan.EachMember(raw, func(key, value []byte) bool {
		if _, twice := args[string(key)]; twice {
			return false
		}
		args[string(key)] = value
		return true
	}) {
		return nil
	}
	return args
}

func (a *argSpec) known(name string) bool {
	for _, f := range a.fields {
		if f.name == name {
			return true
		}
	}
	return false
}

// set decodes one argument's value into field.
func (f argField) set(field reflect.Value, val json.RawMessage) error {
	switch f.kind {
	case reflect.String:
		s, plain := jsonscan.PlainString(val)
		if !plain && (val[0] != '"' || json.Unmarshal(val, &s) != nil) {
			return fmt.Errorf("argument %q must be a string, not %s", f.name, cutJSON(val))
		}
		field.SetString(s)
	case reflect.Int:
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil {
			// 5.0 and 5e2 are integers too.
			x, ferr := strconv.ParseFloat(string(val), 64)
			if ferr != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
				return fmt.Errorf("argument %q must be an integer, not %s", f.name, cutJSON(val))
			}
			n = int64(x)
		}
		field.SetInt(n)
	case reflect.Bool:
		switch string(val) {
		case "true":
			field.SetBool(true)
		case "false":
			field.SetBool(false)
		default:
			return fmt.Errorf("argument %q must be true or false, not %s", f.name, cutJSON(val))
		}
	}
	return nil
}

// cutJSON quotes a JSON value in an error, shortened.
func cutJSON(v []byte) string {
	const most = 40
	if len(v) > most {
		return string(v[:most]) + "..."
	}
	return string(v)
}
