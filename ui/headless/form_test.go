package headless_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/ui/headless"
)

// formTool asks the user a form while it runs, as an MCP server's call
// does, and returns the answer's action.
type formTool struct{}

func (formTool) Name() string            { return "ask" }
func (formTool) Description() string     { return "Ask the user." }
func (formTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (formTool) Class() tools.Class      { return tools.ReadOnly }
func (formTool) Run(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
	ask := tools.FormAsker(ctx)
	if ask == nil {
		return tools.Text("no form function"), nil
	}
	ans, err := ask(ctx, tools.Form{Server: "tracker\x1b[31m", Fields: []tools.Field{{Name: "ticket"}, {Name: "password", Secret: true}}})
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Text("answer: " + string(ans.Action)), nil
}

// co run declines a form: the tool gets decline, --json says so with the
// server and the field names, text mode with a line naming the server
// (its escape sequence made visible) and what to do.
func TestFormDeclined(t *testing.T) {
	for _, asJSON := range []bool{true, false} {
		srv := llmtest.NewServer()
		t.Cleanup(srv.Close)
		reg, err := tools.NewRegistry(formTool{})
		if err != nil {
			t.Fatal(err)
		}
		ag := agent.New(agent.Config{
			Provider:  provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "m"},
			Tools:     reg,
			Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
			Retry:     provider.RetryPolicy{Base: 10 * time.Millisecond},
		})
		srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "f1", Name: "ask", Args: `{}`}}}, llmtest.Reply{Text: "ok"})
		var out, errb bytes.Buffer
		if code := headless.Run(context.Background(), headless.Options{Agent: ag, Prompt: "go", Out: &out, Err: &errb, JSON: asJSON}); code != 0 {
			t.Fatalf("exit %d: %s %s", code, out.String(), errb.String())
		}
		results := srv.Requests()[1].ToolResults()
		if got := results[len(results)-1]; !strings.Contains(got, "answer: decline") {
			t.Errorf("the tool got %q", got)
		}
		if asJSON {
			var found bool
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var ev struct {
					Type, Server, Answer string
					Fields               []string
				}
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				if ev.Type == "elicitation" {
					found = true
					if ev.Answer != "declined" || ev.Server != "tracker\x1b[31m" || strings.Join(ev.Fields, ",") != "ticket,password" {
						t.Errorf("event: %+v", ev)
					}
				}
			}
			if !found {
				t.Errorf("no elicitation event:\n%s", out.String())
			}
			continue
		}
		want := "declined: MCP server tracker␛[31m asked for a form, and nobody is here to answer it in co run; run the same request in the chat (co) to answer it"
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}
