package config

import (
	"errors"
	"strings"
	"testing"
)

// A Partial load goes on past a malformed file: the file is left out
// whole, with its line and column, and the other layers still apply. A
// strict load (the chat's) still refuses.
func TestPartialLoadLeavesOutAMalformedFile(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), "{\n  \"theme\": \"dark\",\n  \"tool_retries\": 5,,\n}\n")
	writeFile(t, f.projectFile(), `{"show_reasoning": false}`)
	f.env["CO_CLI_LLM_TEMPERATURE"] = "0.5"

	if l, err := Load(f.opts()); err == nil || l != nil {
		t.Fatalf("strict Load = %v, %v; want nil and the error", l, err)
	}
	opts := f.opts()
	opts.Partial = true
	l, err := Load(opts)
	if l == nil || err == nil {
		t.Fatalf("partial Load = %v, %v; want the settings and the error", l, err)
	}
	if !strings.HasPrefix(err.Error(), f.userFile()+":3:21: invalid character ','") {
		t.Errorf("error %q does not locate the problem (file:3:21)", err)
	}
	p := l.Problem(f.userFile())
	if len(l.Problems) != 1 || p == nil || p.Line != 3 || p.Column != 21 {
		t.Fatalf("Problems = %+v, want the user file's at 3:21", l.Problems)
	}
	if l.Problem(f.projectFile()) != nil {
		t.Errorf("the project file has no problem: %v", l.Problem(f.projectFile()))
	}
	s := l.Settings
	if s.Theme != "auto" || s.ToolRetries != 3 {
		t.Errorf("theme %q, tool_retries %d: the malformed file's values are in effect", s.Theme, s.ToolRetries)
	}
	if s.ShowReasoning || s.LLMTemperature != 0.5 {
		t.Errorf("show_reasoning %v, llm_temperature %v: the project file and environment were not applied", s.ShowReasoning, s.LLMTemperature)
	}
	if l.Sources["theme"].Layer != LayerDefault || l.Sources["show_reasoning"].Layer != LayerProject {
		t.Errorf("sources: theme %v, show_reasoning %v", l.Sources["theme"], l.Sources["show_reasoning"])
	}
}

// A wrong value leaves out that value alone, in a file or the environment;
// the file's other values stay in effect.
func TestPartialLoadLeavesOutWrongValues(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), `{"theme": "dark", "tool_retries": "three"}`)
	f.env["CO_CLI_SHOW_REASONING"] = "maybe"
	f.env["CO_CLI_LLM_TEMPERATURE"] = "0.5"
	opts := f.opts()
	opts.Partial = true
	l, err := Load(opts)
	if l == nil || err == nil {
		t.Fatalf("partial Load = %v, %v", l, err)
	}
	if len(l.Problems) != 2 || l.Problems[0].Key != "tool_retries" || l.Problems[1].Key != "show_reasoning" || l.Problem(f.userFile()) != nil {
		t.Fatalf("Problems = %+v, want tool_retries (file) and show_reasoning ($CO_CLI_SHOW_REASONING)", l.Problems)
	}
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), `"tool_retries" must be`) || !strings.Contains(err.Error(), "$CO_CLI_SHOW_REASONING") {
		t.Errorf("error %q", err)
	}
	if s := l.Settings; s.Theme != "dark" || s.ToolRetries != 3 || !s.ShowReasoning || s.LLMTemperature != 0.5 {
		t.Errorf("settings: theme %q, tool_retries %d, show_reasoning %v, temperature %v", s.Theme, s.ToolRetries, s.ShowReasoning, s.LLMTemperature)
	}
}
