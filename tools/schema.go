package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaFor returns the JSON Schema of a tool's parameter struct T,
// generated from its fields so the schema and the decoding cannot drift
// apart: `json` tags give the property names (a field without omitempty is
// required), `jsonschema` tags the descriptions, and `schema` tags what
// those cannot say — "minimum=1,maximum=30" and "enum=a|b|c". Unknown
// properties are refused (additionalProperties false), as decoding does. A
// pointer field is described as its element type: tool arguments are never
// null. It panics on a struct it cannot describe, a programming error
// caught when the package's variables are initialised.
func SchemaFor[T any]() json.RawMessage {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: schema of %T: %v", *new(T), err))
	}
	t := reflect.TypeFor[T]()
	for i := range numFields(t) {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		prop := s.Properties[name]
		if prop == nil {
			continue
		}
		if len(prop.Types) > 0 { // *T: ["null", "T"]
			for _, ty := range prop.Types {
				if ty != "null" {
					prop.Type = ty
				}
			}
			prop.Types = nil
		}
		if err := applySchemaTag(prop, f.Tag.Get("schema")); err != nil {
			panic(fmt.Sprintf("tools: schema tag of %s.%s: %v", t.Name(), f.Name, err))
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: marshal schema of %s: %v", t.Name(), err))
	}
	return b
}

func numFields(t reflect.Type) int {
	if t.Kind() != reflect.Struct {
		return 0
	}
	return t.NumField()
}

func applySchemaTag(prop *jsonschema.Schema, tag string) error {
	if tag == "" {
		return nil
	}
	for _, kv := range strings.Split(tag, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q is not key=value", kv)
		}
		switch k {
		case "minimum", "maximum":
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			if k == "minimum" {
				prop.Minimum = &n
			} else {
				prop.Maximum = &n
			}
		case "enum":
			for _, e := range strings.Split(v, "|") {
				prop.Enum = append(prop.Enum, e)
			}
		default:
			return fmt.Errorf("unknown key %q", k)
		}
	}
	return nil
}

// argFields returns the exact JSON names of the fields of the struct that
// in points to (nil when in is not a pointer to a struct).
func argFields(in any) map[string]bool {
	t := reflect.TypeOf(in)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	t = t.Elem()
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]bool)
	}
	m := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		m[name] = true
	}
	fieldCache.Store(t, m)
	return m
}

var fieldCache sync.Map // reflect.Type → map[string]bool
