package app

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
)

// pagingParams are the ways co's tools page, and how a text says to use
// each: a page number, Slack's cursor, or a larger limit.
var pagingParams = map[string]*regexp.Regexp{
	"page":   regexp.MustCompile(`\bpage\s*(\+\s*1|incremented)`),
	"cursor": regexp.MustCompile(`\bas cursor\b|\bcursor\s*=`),
	"limit":  regexp.MustCompile(`\blarger limit\b|\blimit\s*(\+|incremented)`),
}

// Invariant 6: the prompt matches the runtime. What the system prompt says
// about paging is checked against the registered tools' schemas: it may name
// a paging parameter only if every tool that pages has it, and every tool
// that reports has_more says in its own description how to get more, by a
// parameter its schema has.
func TestPromptClaimsMatchTheToolSchemas(t *testing.T) {
	a := allTools(t)
	prompt := agent.SystemPrompt(agent.PromptInfo{Shell: "in a sandbox", Workspace: "/w", Today: "2026-01-01"})
	paging := 0
	for _, tool := range a.Tools.All() {
		desc := tool.Description()
		if !strings.Contains(desc, "has_more") {
			continue
		}
		paging++
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.Schema(), &schema); err != nil {
			t.Fatalf("%s: %v", tool.Name(), err)
		}
		named := false
		for p, says := range pagingParams {
			if says.MatchString(desc) {
				named = true
				if _, ok := schema.Properties[p]; !ok {
					t.Errorf("%s: its description pages by %q, which its schema lacks", tool.Name(), p)
				}
			}
		}
		if !named {
			t.Errorf("%s reports has_more but its description does not say how to get more", tool.Name())
		}
		for p, says := range pagingParams {
			if _, ok := schema.Properties[p]; !ok && says.MatchString(prompt) {
				t.Errorf("the system prompt pages by %q, but %s has no %q parameter", p, tool.Name(), p)
			}
		}
	}
	if paging < 3 {
		t.Fatalf("only %d tools report has_more: the check checks nothing", paging)
	}
}
