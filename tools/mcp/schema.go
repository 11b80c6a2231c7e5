package mcp

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Simplify turns an MCP tool's input schema into one every provider co
// talks to accepts, once, when the tool is offered. Gemini is the strictest:
// it refuses a request whose function parameters hold any keyword outside
// its subset of OpenAPI 3.0 (the reports: docs/SOURCES.md#gemini-function-parameter-schemas).
//
// So only the keywords of Google's Schema that are also JSON Schema are
// kept, and the rest is rewritten where it carries meaning: local $ref are
// inlined (recursion cut after a few levels), const becomes a one-value
// enum, oneOf becomes anyOf, allOf's object parts are merged,
// exclusiveMinimum/Maximum become minimum/maximum, ["T","null"] becomes "T".
// What is left is still a JSON Schema, so co's own argument validation
// (tools.Validator) checks it.
func Simplify(raw json.RawMessage) json.RawMessage {
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil || root == nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	s := simplifier{root: root}
	out := s.schema(root, 0)
	if out["type"] == nil {
		out["type"] = "object"
	}
	if out["type"] == "object" && out["properties"] == nil {
		out["properties"] = map[string]any{}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return b
}

// keep are the keywords kept as they are (besides those rewritten).
var keep = map[string]bool{
	"title": true, "description": true, "default": true, "pattern": true,
	"minItems": true, "maxItems": true, "minProperties": true, "maxProperties": true,
	"minLength": true, "maxLength": true, "minimum": true, "maximum": true,
}

// formats are the formats Google's Schema documents: "for NUMBER type:
// float, double; for INTEGER type: int32, int64; for STRING type: enum,
// date-time" (Schema.format in the Gemini API reference).
var formats = map[string]bool{"float": true, "double": true, "int32": true, "int64": true, "enum": true, "date-time": true}

const maxRefDepth = 4

type simplifier struct{ root map[string]any }

func (s simplifier) schema(in map[string]any, depth int) map[string]any {
	out := map[string]any{}
	if ref, ok := in["$ref"].(string); ok {
		target := s.resolve(ref)
		if target == nil || depth >= maxRefDepth {
			out["type"] = "object"
			if d, ok := in["description"].(string); ok {
				out["description"] = d
			}
			return out
		}
		merged := maps.Clone(target)
		for k, v := range in {
			if k != "$ref" {
				merged[k] = v
			}
		}
		return s.schema(merged, depth+1)
	}
	for _, k := range slices.Sorted(maps.Keys(in)) {
		v := in[k]
		switch {
		case keep[k]:
			out[k] = v
		case k == "type":
			if t := oneType(v); t != "" {
				out["type"] = t
			}
		case k == "format":
			if f, ok := v.(string); ok && formats[f] {
				out["format"] = f
			}
		case k == "enum":
			if list, ok := v.([]any); ok && allStrings(list) && len(list) > 0 {
				out["enum"] = list
			}
		case k == "const":
			if c, ok := v.(string); ok {
				out["enum"] = []any{c}
			}
		case k == "exclusiveMinimum":
			if _, isNum := v.(float64); isNum && in["minimum"] == nil {
				out["minimum"] = v
			}
		case k == "exclusiveMaximum":
			if _, isNum := v.(float64); isNum && in["maximum"] == nil {
				out["maximum"] = v
			}
		case k == "items":
			switch it := v.(type) {
			case map[string]any:
				out["items"] = s.schema(it, depth)
			case []any: // a tuple: its first element describes the rest well enough
				if len(it) > 0 {
					if m, ok := it[0].(map[string]any); ok {
						out["items"] = s.schema(m, depth)
					}
				}
			}
		case k == "properties":
			if props, ok := v.(map[string]any); ok {
				p := make(map[string]any, len(props))
				for name, sub := range props {
					if m, ok := sub.(map[string]any); ok {
						p[name] = s.schema(m, depth)
					} else {
						p[name] = map[string]any{} // true: anything
					}
				}
				out["properties"] = p
			}
		case k == "anyOf" || k == "oneOf":
			if list, ok := v.([]any); ok {
				var alts []any
				for _, a := range list {
					if m, ok := a.(map[string]any); ok {
						if isNull(m) {
							continue
						}
						alts = append(alts, s.schema(m, depth))
					}
				}
				switch len(alts) {
				case 0:
				case 1: // X or null: X
					maps.Copy(out, alts[0].(map[string]any))
				default:
					out["anyOf"] = alts
				}
			}
		case k == "allOf":
			if list, ok := v.([]any); ok {
				for _, a := range list {
					if m, ok := a.(map[string]any); ok {
						mergeInto(out, s.schema(m, depth))
					}
				}
			}
		}
		// Everything else ($schema, $id, $defs, additionalProperties,
		// propertyNames, patternProperties, not, if/then/else,
		// examples, uniqueItems, multipleOf, ...) is dropped.
	}
	if req, ok := in["required"].([]any); ok || out["required"] != nil {
		if merged, ok := out["required"].([]any); ok {
			req = append(slices.Clone(req), merged...)
		}
		props, _ := out["properties"].(map[string]any)
		var kept []any
		seen := map[string]bool{}
		for _, r := range req {
			if name, ok := r.(string); ok && seen[name] {
				continue
			} else if ok {
				seen[name] = true
			}
			if name, ok := r.(string); ok && (props == nil || props[name] != nil) {
				kept = append(kept, name)
			}
		}
		delete(out, "required")
		if len(kept) > 0 {
			out["required"] = kept
		}
	}
	if _, ok := out["properties"]; ok && out["type"] == nil {
		out["type"] = "object"
	}
	return out
}

// resolve finds a local reference (#/$defs/X, #/definitions/X, #).
func (s simplifier) resolve(ref string) map[string]any {
	if ref == "#" {
		return s.root
	}
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = s.root
	for _, seg := range strings.Split(path, "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[seg]
	}
	m, _ := cur.(map[string]any)
	return m
}

// oneType reduces a type to one name: ["string","null"] is "string".
func oneType(v any) string {
	switch t := v.(type) {
	case string:
		if t == "null" {
			return ""
		}
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
	}
	return ""
}

func isNull(m map[string]any) bool { return m["type"] == "null" && len(m) == 1 }

func allStrings(list []any) bool {
	for _, v := range list {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

// mergeInto merges an allOf part into out: properties and required add up,
// other keywords are kept where out has none.
func mergeInto(out, part map[string]any) {
	for k, v := range part {
		switch k {
		case "properties":
			p, _ := out["properties"].(map[string]any)
			if p == nil {
				p = map[string]any{}
			}
			maps.Copy(p, v.(map[string]any))
			out["properties"] = p
		case "required":
			r, _ := out["required"].([]any)
			out["required"] = append(r, v.([]any)...)
		default:
			if _, ok := out[k]; !ok {
				out[k] = v
			}
		}
	}
}
