package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// english prints schema errors; the library's own printer is not exported.
var english = message.NewPrinter(language.English)

// Validator checks tool arguments against each tool's JSON Schema. Schemas
// are compiled once, on first use, and cached; a Validator is safe for
// concurrent use.
type Validator struct {
	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

// NewValidator returns an empty Validator.
func NewValidator() *Validator { return &Validator{compiled: map[string]*jsonschema.Schema{}} }

// Validate checks that args is a JSON object matching t's schema. The
// returned error is a *Retry whose message tells the model what to fix.
func (v *Validator) Validate(t Tool, args json.RawMessage) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return Retryf("the arguments for %s are not valid JSON (%v); send one JSON object matching the tool's schema", t.Name(), err)
	}
	if _, ok := inst.(map[string]any); !ok {
		return Retryf("the arguments for %s must be a JSON object, not %s", t.Name(), jsonKind(inst))
	}
	s, err := v.schema(t)
	if err != nil {
		return fmt.Errorf("tool %s has a bad schema: %w", t.Name(), err)
	}
	if err := s.Validate(inst); err != nil {
		return Retryf("the arguments for %s do not match its schema: %s", t.Name(), flattenValidation(err))
	}
	return nil
}

func (v *Validator) schema(t Tool) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.compiled[t.Name()]; ok {
		return s, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.Schema()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	url := "mem://tools/" + t.Name() + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	v.compiled[t.Name()] = s
	return s, nil
}

func flattenValidation(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			msgs = append(msgs, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(english)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(msgs, "; ")
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
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
