package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
)

// Validator checks tool arguments against each tool's JSON Schema. It
// implements the subset of JSON Schema that tool schemas use: type (one or
// a list), properties, required, additionalProperties (false or a schema),
// items, enum, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// minLength, maxLength, minItems and maxItems; description, title,
// default, examples and $schema are annotations. Any other keyword makes
// the schema invalid, so a schema can never be silently unchecked.
//
// (A full JSON Schema library cost 5 ms and 1.7 MB at every start of co,
// for features no tool uses.) Schemas are compiled once, on first use, and
// cached; a Validator is safe for concurrent use.
type Validator struct {
	mu       sync.Mutex
	compiled map[string]*schema
}

// NewValidator returns an empty Validator.
func NewValidator() *Validator { return &Validator{compiled: map[string]*schema{}} }

// Validate checks that args is a JSON object matching t's schema. The
// returned error is a *Retry whose message tells the model what to fix.
func (v *Validator) Validate(t Tool, args json.RawMessage) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var inst any
	if err := dec.Decode(&inst); err != nil {
		return Retryf("the arguments for %s are not valid JSON (%v); send one JSON object matching the tool's schema", t.Name(), err)
	}
	if dec.More() {
		return Retryf("the arguments for %s are not valid JSON (text after the object); send one JSON object matching the tool's schema", t.Name())
	}
	if _, ok := inst.(map[string]any); !ok {
		return Retryf("the arguments for %s must be a JSON object, not %s", t.Name(), jsonKind(inst))
	}
	s, err := v.schema(t)
	if err != nil {
		return fmt.Errorf("tool %s has a bad schema: %w", t.Name(), err)
	}
	var errs []string
	s.validate(inst, "", &errs)
	if len(errs) > 0 {
		return Retryf("the arguments for %s do not match its schema: %s", t.Name(), strings.Join(errs, "; "))
	}
	return nil
}

func (v *Validator) schema(t Tool) (*schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.compiled[t.Name()]; ok {
		return s, nil
	}
	s, err := compileSchema(t.Schema())
	if err != nil {
		return nil, err
	}
	v.compiled[t.Name()] = s
	return s, nil
}

// schema is a compiled schema of the supported subset.
type schema struct {
	types       []string
	properties  map[string]*schema
	required    []string
	noAdditonal bool
	additional  *schema
	items       *schema
	enum        []any
	min, max    *float64
	exMin       *float64
	exMax       *float64
	minLen      *int
	maxLen      *int
	minItems    *int
	maxItems    *int
}

var annotations = map[string]bool{"description": true, "title": true, "default": true, "examples": true, "$schema": true, "$comment": true}

// compileSchema parses a tool schema, rejecting keywords the validator
// does not implement.
func compileSchema(raw json.RawMessage) (*schema, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return compile(doc, "#")
}

func compile(doc any, at string) (*schema, error) {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object", at)
	}
	s := &schema{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := m[k]
		var err error
		switch k {
		case "type":
			switch t := val.(type) {
			case string:
				s.types = []string{t}
			case []any:
				for _, x := range t {
					str, ok := x.(string)
					if !ok {
						return nil, fmt.Errorf("%s/type: not a string", at)
					}
					s.types = append(s.types, str)
				}
			default:
				return nil, fmt.Errorf("%s/type: must be a string or a list", at)
			}
			for _, t := range s.types {
				switch t {
				case "object", "array", "string", "integer", "number", "boolean", "null":
				default:
					return nil, fmt.Errorf("%s/type: unknown type %q", at, t)
				}
			}
		case "properties":
			pm, ok := val.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s/properties: must be an object", at)
			}
			s.properties = map[string]*schema{}
			for name, sub := range pm {
				if s.properties[name], err = compile(sub, at+"/properties/"+name); err != nil {
					return nil, err
				}
			}
		case "required":
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/required: must be a list", at)
			}
			for _, x := range list {
				name, ok := x.(string)
				if !ok {
					return nil, fmt.Errorf("%s/required: not a string", at)
				}
				s.required = append(s.required, name)
			}
		case "additionalProperties":
			switch a := val.(type) {
			case bool:
				s.noAdditonal = !a
			default:
				if s.additional, err = compile(a, at+"/additionalProperties"); err != nil {
					return nil, err
				}
			}
		case "items":
			if s.items, err = compile(val, at+"/items"); err != nil {
				return nil, err
			}
		case "enum":
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/enum: must be a list", at)
			}
			s.enum = list
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			f, err := number(val)
			if err != nil {
				return nil, fmt.Errorf("%s/%s: %w", at, k, err)
			}
			switch k {
			case "minimum":
				s.min = &f
			case "maximum":
				s.max = &f
			case "exclusiveMinimum":
				s.exMin = &f
			default:
				s.exMax = &f
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			f, err := number(val)
			if err != nil || f < 0 || f != math.Trunc(f) {
				return nil, fmt.Errorf("%s/%s: must be a whole number >= 0", at, k)
			}
			n := int(f)
			switch k {
			case "minLength":
				s.minLen = &n
			case "maxLength":
				s.maxLen = &n
			case "minItems":
				s.minItems = &n
			default:
				s.maxItems = &n
			}
		default:
			if !annotations[k] {
				return nil, fmt.Errorf("%s: keyword %q is not supported by co's validator", at, k)
			}
		}
	}
	return s, nil
}

func number(v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number")
	}
	return n.Float64()
}

func (s *schema) validate(v any, at string, errs *[]string) {
	loc := at
	if loc == "" {
		loc = "/"
	}
	fail := func(format string, a ...any) { *errs = append(*errs, "at "+loc+": "+fmt.Sprintf(format, a...)) }
	if len(s.types) > 0 && !s.typeMatches(v) {
		fail("got %s, want %s", jsonKind(v), strings.Join(s.types, " or "))
		return
	}
	if len(s.enum) > 0 && !inEnum(v, s.enum) {
		var opts []string
		for _, e := range s.enum {
			b, _ := json.Marshal(e)
			opts = append(opts, string(b))
		}
		fail("value must be one of %s", strings.Join(opts, ", "))
	}
	switch x := v.(type) {
	case map[string]any:
		for _, name := range s.required {
			if _, ok := x[name]; !ok {
				fail("missing property '%s'", name)
			}
		}
		names := make([]string, 0, len(x))
		for name := range x {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if sub, ok := s.properties[name]; ok {
				sub.validate(x[name], at+"/"+name, errs)
				continue
			}
			switch {
			case s.additional != nil:
				s.additional.validate(x[name], at+"/"+name, errs)
			case s.noAdditonal:
				fail("additional property '%s' is not allowed", name)
			}
		}
	case []any:
		if s.minItems != nil && len(x) < *s.minItems {
			fail("needs at least %d items, found %d", *s.minItems, len(x))
		}
		if s.maxItems != nil && len(x) > *s.maxItems {
			fail("allows at most %d items, found %d", *s.maxItems, len(x))
		}
		if s.items != nil {
			for i, item := range x {
				s.items.validate(item, fmt.Sprintf("%s/%d", at, i), errs)
			}
		}
	case string:
		n := len([]rune(x))
		if s.minLen != nil && n < *s.minLen {
			fail("must be at least %d characters long", *s.minLen)
		}
		if s.maxLen != nil && n > *s.maxLen {
			fail("must be at most %d characters long", *s.maxLen)
		}
	case json.Number:
		f, _ := x.Float64()
		switch {
		case s.min != nil && f < *s.min:
			fail("must be >= %v but found %v", *s.min, x)
		case s.max != nil && f > *s.max:
			fail("must be <= %v but found %v", *s.max, x)
		case s.exMin != nil && f <= *s.exMin:
			fail("must be > %v but found %v", *s.exMin, x)
		case s.exMax != nil && f >= *s.exMax:
			fail("must be < %v but found %v", *s.exMax, x)
		}
	}
}

func (s *schema) typeMatches(v any) bool {
	for _, t := range s.types {
		switch x := v.(type) {
		case map[string]any:
			if t == "object" {
				return true
			}
		case []any:
			if t == "array" {
				return true
			}
		case string:
			if t == "string" {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case nil:
			if t == "null" {
				return true
			}
		case json.Number:
			if t == "number" {
				return true
			}
			if f, err := x.Float64(); t == "integer" && err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
				return true
			}
		}
	}
	return false
}

func inEnum(v any, enum []any) bool {
	vb, _ := json.Marshal(v)
	for _, e := range enum {
		eb, _ := json.Marshal(e)
		if bytes.Equal(vb, eb) {
			return true
		}
	}
	return false
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) {
			return "an integer"
		}
		return "a number"
	default:
		return "a number"
	}
}

// Decode unmarshals args into v (a pointer to a struct). A failure is a
// *Retry naming the tool, so the model can correct its call.
func Decode(tool string, args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, v); err != nil {
		return Retryf("the arguments for %s could not be read: %v", tool, err)
	}
	return nil
}
