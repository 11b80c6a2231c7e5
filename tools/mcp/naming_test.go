package mcp_test

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/co-cli/co/tools/mcp"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestToolName(t *testing.T) {
	long := strings.Repeat("very_long_tool_name_", 5)
	for _, tc := range []struct {
		name, server, tool string
		taken              []string
		want               string
	}{
		{"plain", "github", "create_issue", nil, "mcp__github__create_issue"},
		{"sanitised", "my server", "tool.v2/run", nil, "mcp__my_server__tool_v2_run"},
		{"unicode", "wiki", "søk", nil, "mcp__wiki__s_k"},
		{"collision", "a b", "x", []string{"mcp__a_b__x"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mcp.ToolName(tc.server, tc.tool, func(n string) bool {
				for _, x := range tc.taken {
					if x == n {
						return true
					}
				}
				return false
			})
			if !validName.MatchString(got) {
				t.Fatalf("%q is not a valid tool name", got)
			}
			if tc.want != "" && got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			for _, x := range tc.taken {
				if got == x {
					t.Errorf("collision not resolved: %q", got)
				}
			}
		})
	}
	a := mcp.ToolName("srv", long+"a", nil)
	b := mcp.ToolName("srv", long+"b", nil)
	if len(a) != 64 || a == b || !validName.MatchString(a) {
		t.Errorf("long names: %q %q", a, b)
	}
	// Every way of colliding ends in a free name.
	taken := map[string]bool{}
	for range 5 {
		n := mcp.ToolName("s", long, func(n string) bool { return taken[n] })
		if taken[n] || !validName.MatchString(n) {
			t.Fatalf("%q", n)
		}
		taken[n] = true
	}
}

func TestSimplify(t *testing.T) {
	in := `{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object",
		"additionalProperties": false,
		"$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number", "exclusiveMinimum": 0}}, "required": ["x"]}},
		"properties": {
			"mode": {"const": "fast", "description": "The mode."},
			"count": {"type": ["integer", "null"], "format": "uint32", "examples": [1]},
			"when": {"type": "string", "format": "date-time"},
			"point": {"$ref": "#/$defs/Point"},
			"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
			"opt": {"anyOf": [{"type": "string"}, {"type": "null"}]},
			"meta": {"type": "object", "propertyNames": {"pattern": "^a"}, "additionalProperties": {"type": "string"}}
		},
		"required": ["mode", "missing"]
	}`
	want := `{
		"type": "object",
		"properties": {
			"mode": {"enum": ["fast"], "description": "The mode."},
			"count": {"type": "integer"},
			"when": {"type": "string", "format": "date-time"},
			"point": {"type": "object", "properties": {"x": {"type": "number", "minimum": 0}}, "required": ["x"]},
			"tags": {"type": "array", "items": {"type": "string"}},
			"opt": {"type": "string"},
			"meta": {"type": "object"}
		},
		"required": ["mode"]
	}`
	var got, exp any
	if err := json.Unmarshal(mcp.Simplify(json.RawMessage(in)), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, exp) {
		b, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("got %s", b)
	}
	// A recursive reference is cut, not followed forever.
	rec := mcp.Simplify(json.RawMessage(`{"type":"object","properties":{"node":{"$ref":"#"}}}`))
	if len(rec) > 2000 {
		t.Errorf("recursion: %d bytes", len(rec))
	}
	if got := string(mcp.Simplify(json.RawMessage(`null`))); got != `{"type":"object","properties":{}}` {
		t.Errorf("null schema: %s", got)
	}
}
