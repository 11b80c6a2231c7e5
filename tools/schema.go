package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Validator checks tool arguments against each tool's JSON Schema with
// github.com/google/jsonschema-go (the library of the official MCP Go SDK,
// so co has one schema library). A schema is resolved on the first call of
// its tool, never at start-up, and kept; a Validator is safe for
// concurrent use.
//
// A schema keyword the library does not know makes the schema invalid
// rather than ignored, so a misspelt constraint never goes unchecked.
type Validator struct {
	mu       sync.Mutex
	resolved map[string]resolved
}

// resolved is a tool's schema as it was resolved: a tool that keeps its
// name but changes its schema (an MCP server's tools/list_changed) is
// resolved again.
type resolved struct {
	raw json.RawMessage
	rs  *jsonschema.Resolved
}

// NewValidator returns an empty Validator.
func NewValidator() *Validator { return &Validator{resolved: map[string]resolved{}} }

// Validate checks that args is a JSON object matching t's schema. The
// returned error is a *Retry whose message tells the model what to fix.
func (v *Validator) Validate(t Tool, args json.RawMessage) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
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
	rs, err := v.schema(t)
	if err != nil {
		return fmt.Errorf("tool %s has a bad schema: %w", t.Name(), err)
	}
	if err := rs.Validate(inst); err != nil {
		return Retryf("the arguments for %s do not match its schema: %s", t.Name(), schemaError(err))
	}
	return nil
}

func (v *Validator) schema(t Tool) (*jsonschema.Resolved, error) {
	raw := t.Schema()
	v.mu.Lock()
	defer v.mu.Unlock()
	if r, ok := v.resolved[t.Name()]; ok && bytes.Equal(r.raw, raw) {
		return r.rs, nil
	}
	rs, err := resolveSchema(raw)
	if err != nil {
		return nil, err
	}
	v.resolved[t.Name()] = resolved{raw: raw, rs: rs}
	return rs, nil
}

// resolveSchema parses and resolves a tool schema.
func resolveSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if err := unknownKeywords(&s, "#"); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// unknownKeywords reports a keyword that the library keeps in Extra, and
// so would not check, anywhere in s.
func unknownKeywords(s *jsonschema.Schema, at string) error {
	if s == nil {
		return nil
	}
	if len(s.Extra) > 0 {
		keys := make([]string, 0, len(s.Extra))
		for k := range s.Extra {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return fmt.Errorf("%s: unknown keyword %q", at, keys[0])
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := unknownKeywords(s.Properties[name], at+"/properties/"+name); err != nil {
			return err
		}
	}
	for name, sub := range s.PatternProperties {
		if err := unknownKeywords(sub, at+"/patternProperties/"+name); err != nil {
			return err
		}
	}
	for name, sub := range s.Defs {
		if err := unknownKeywords(sub, at+"/$defs/"+name); err != nil {
			return err
		}
	}
	for _, sub := range []struct {
		name string
		s    *jsonschema.Schema
	}{{"additionalProperties", s.AdditionalProperties}, {"items", s.Items}, {"not", s.Not}, {"if", s.If}, {"then", s.Then}, {"else", s.Else}} {
		if err := unknownKeywords(sub.s, at+"/"+sub.name); err != nil {
			return err
		}
	}
	for _, list := range []struct {
		name string
		ss   []*jsonschema.Schema
	}{{"anyOf", s.AnyOf}, {"oneOf", s.OneOf}, {"allOf", s.AllOf}, {"prefixItems", s.PrefixItems}} {
		for i, sub := range list.ss {
			if err := unknownKeywords(sub, fmt.Sprintf("%s/%s/%d", at, list.name, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

var validatingPrefix = regexp.MustCompile(`^(?:validating ([^:]*): )+`)

// schemaError turns the library's "validating root: validating
// /properties/limit: minimum: 0 is less than 1" into "at /limit: minimum:
// 0 is less than 1": where in the arguments, then what is wrong.
func schemaError(err error) string {
	msg := err.Error()
	m := validatingPrefix.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg
	}
	return "at " + argumentPath(msg[m[2]:m[3]]) + ": " + msg[m[1]:]
}

// argumentPath turns the path of a schema in the tool's schema
// (/properties/edits/items/properties/old) into where that is in the
// arguments (/edits/*/old).
func argumentPath(schemaPath string) string {
	if schemaPath == "root" {
		return "/"
	}
	segs := strings.Split(strings.TrimPrefix(schemaPath, "/"), "/")
	var b strings.Builder
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties", "patternProperties":
			if i+1 < len(segs) {
				i++
				b.WriteString("/" + segs[i])
			}
		case "items", "additionalProperties":
			b.WriteString("/*")
		default: // anyOf/0 and the like: not a place in the arguments
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
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
	case float64:
		if x == float64(int64(x)) {
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
