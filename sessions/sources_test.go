package sessions_test

import (
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// A resumed session keeps its risk state: the sources of its messages are
// saved with them.
func TestSourcesAreSavedWithTheirMessages(t *testing.T) {
	s := open(t)
	r := s.New("/work/a")
	page := tools.UntrustedPublic("web", "web evil.example/page")
	msgs := []message.Message{
		{Role: message.RoleUser, Content: "read evil.example/page"},
		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "web_fetch", Args: `{"url":"https://evil.example/page"}`}}},
		{Role: message.RoleTool, ToolCallID: "c1", ToolName: "web_fetch", Content: "visit /c/a", Sources: []tools.Origin{page}},
		{Role: message.RoleAssistant, Content: "done"},
	}
	for _, m := range msgs {
		must(t, r.Append(m))
	}
	_, got, err := s.Load(r.ID())
	must(t, err)
	if len(got) != 4 || len(got[2].Sources) != 1 || got[2].Sources[0] != page || len(got[0].Sources) != 0 {
		t.Fatalf("loaded %+v", got)
	}
	ag := agent.New(agent.Config{})
	ag.Restore(got, message.Usage{}, 1)
	if risk := ag.Risk(); len(risk.Untrusted) != 1 || risk.Untrusted[0].Label != "web evil.example/page" {
		t.Fatalf("a resumed session's risk is %+v", risk)
	}
}
