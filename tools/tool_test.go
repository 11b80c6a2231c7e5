package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/co-cli/co/tools"
)

type fake struct {
	name  string
	class tools.Class
}

func (f fake) Name() string        { return f.name }
func (f fake) Description() string { return "d" }
func (f fake) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`)
}
func (f fake) Class() tools.Class { return f.class }
func (f fake) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, nil
}

func TestValidate(t *testing.T) {
	v := tools.NewValidator()
	tool := fake{name: "read_file"}
	cases := []struct{ name, args, want string }{
		{"ok", `{"path":"a"}`, ""},
		{"ok with limit", `{"path":"a","limit":3}`, ""},
		{"empty means {}", ``, `at /: required: missing properties: ["path"]`},
		{"not json", `{"path":`, "not valid JSON"},
		{"array", `["a"]`, "must be a JSON object, not an array"},
		{"wrong type", `{"path":3}`, "at /path"},
		{"below minimum", `{"path":"a","limit":0}`, "at /limit"},
		{"unknown key", `{"path":"a","extra":1}`, `unexpected additional properties ["extra"]`},
		{"integer as float", `{"path":"a","limit":2.5}`, `at /limit: type: 2.5 has type "number", want "integer"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Validate(tool, json.RawMessage(tc.args))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !tools.IsRetry(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a Retry containing %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "read_file") {
				t.Errorf("error should name the tool: %v", err)
			}
		})
	}
}

// counting is a tool whose schema counts how often it is asked for.
type counting struct {
	fake
	schema string
	asked  *int
}

func (c counting) Schema() json.RawMessage { *c.asked++; return json.RawMessage(c.schema) }

// A tool's schema is resolved on its first call, once, never when the
// validator is made (start-up).
func TestValidateResolvesSchemasOnFirstUse(t *testing.T) {
	asked := 0
	tool := counting{fake: fake{name: "lazy"}, schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`, asked: &asked}
	v := tools.NewValidator()
	if asked != 0 {
		t.Fatalf("schema read %d times before any call", asked)
	}
	for range 3 {
		if err := v.Validate(tool, json.RawMessage(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	if asked != 3 {
		t.Errorf("schema read %d times for 3 calls, want 3 (compared, resolved once)", asked)
	}
}

// A tool that keeps its name but changes its schema (an MCP server's
// tools/list_changed) is checked against the new schema.
func TestValidateFollowsAChangedSchema(t *testing.T) {
	asked := 0
	v := tools.NewValidator()
	old := counting{fake: fake{name: "mcp__s__t"}, schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`, asked: &asked}
	if err := v.Validate(old, json.RawMessage(`{"n":"x"}`)); err == nil {
		t.Fatal("the old schema wants an integer")
	}
	changed := counting{fake: fake{name: "mcp__s__t"}, schema: `{"type":"object","properties":{"n":{"type":"string"}}}`, asked: &asked}
	if err := v.Validate(changed, json.RawMessage(`{"n":"x"}`)); err != nil {
		t.Fatalf("checked against the old schema: %v", err)
	}
}

// A keyword the library would ignore (a misspelt constraint) makes the
// schema bad, not silently unchecked.
func TestValidateRefusesUnknownKeywords(t *testing.T) {
	asked := 0
	for _, schema := range []string{
		`{"type":"object","requird":["n"]}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimun":1}}}`,
		`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","maxLenght":3}}}}`,
	} {
		err := tools.NewValidator().Validate(counting{fake: fake{name: "typo"}, schema: schema, asked: &asked}, json.RawMessage(`{}`))
		if err == nil || tools.IsRetry(err) || !strings.Contains(err.Error(), "unknown keyword") {
			t.Errorf("schema %s: %v, want a bad-schema error", schema, err)
		}
	}
}

// The message says where in the arguments the mistake is, also under
// a property whose name is a keyword.
func TestValidateSaysWhere(t *testing.T) {
	asked := 0
	tool := counting{fake: fake{name: "todo"}, asked: &asked, schema: `{"type":"object","properties":{
		"items":{"type":"array","minItems":1,"items":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}}}`}
	v := tools.NewValidator()
	for args, want := range map[string]string{
		`{"items":[]}`:            "at /items: minItems",
		`{"items":[{"x":1}]}`:     `at /items/*: required: missing properties: ["title"]`,
		`{"items":[{"title":1}]}`: `at /items/*/title: type: 1 has type "integer", want "string"`,
	} {
		if err := v.Validate(tool, json.RawMessage(args)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}

func TestResultForModel(t *testing.T) {
	if got := tools.Text("plain").ForModel(); got != "plain" {
		t.Errorf("got %q", got)
	}
	got := tools.Result{Display: "x", Meta: map[string]any{"count": 2, "has_more": true}}.ForModel()
	var m map[string]any
	if err := json.Unmarshal([]byte(got), &m); err != nil || m["display"] != "x" || m["count"] != float64(2) || m["has_more"] != true {
		t.Errorf("ForModel = %s", got)
	}
}

func TestRegistryAndDecide(t *testing.T) {
	r, err := tools.NewRegistry(fake{name: "b_tool", class: tools.SideEffect}, fake{name: "a_tool"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tools.NewRegistry(fake{name: "x"}, fake{name: "x"}); err == nil {
		t.Error("duplicate names must fail")
	}
	if got := r.Names(); strings.Join(got, ",") != "a_tool,b_tool" || r.Len() != 2 {
		t.Errorf("names = %v", got)
	}
	a, _ := r.Get("a_tool")
	if c := tools.Decide(context.Background(), a, nil); c.Decision != tools.Allow {
		t.Errorf("read-only decided %v", c.Decision)
	}
	b, _ := r.Get("b_tool")
	if c := tools.Decide(context.Background(), b, nil); c.Decision != tools.Ask || c.Scope != "b_tool" {
		t.Errorf("side effect decided %+v", c)
	}
}

func TestClampAndSize(t *testing.T) {
	if tools.Clamp(0, 10, 50) != 10 || tools.Clamp(-3, 10, 50) != 10 || tools.Clamp(70, 10, 50) != 50 || tools.Clamp(5, 10, 50) != 5 {
		t.Error("Clamp")
	}
	for n, want := range map[int64]string{3: "3 B", 4096: "4 KB", 1536: "1.5 KB", 3 << 20: "3 MB", 5 << 30: "5 GB"} {
		if got := tools.Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// Long output keeps its head and its tail, where errors usually are
// (issue 27: a 100,000-line output kept only its head).
func TestHeadTail(t *testing.T) {
	if s, cut := tools.HeadTail("short", 10); cut || s != "short" {
		t.Errorf("fits: %q, %v", s, cut)
	}
	long := "first line\n" + strings.Repeat("é", 100) + "\nerror: the end"
	s, cut := tools.HeadTail(long, 40)
	want := "first line\n[… output truncated: kept the first 10 and the last 30 of 126 characters; the 86 between are left out …]\n" +
		strings.Repeat("é", 15) + "\nerror: the end"
	if !cut || s != want {
		t.Errorf("HeadTail = %q, %v;\nwant %q", s, cut, want)
	}
}
