package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/tools"
)

// namedTool is a read-only tool with a given name and description.
type namedTool struct{ name, desc string }

func (t namedTool) Name() string          { return t.name }
func (t namedTool) Description() string   { return t.desc }
func (namedTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (namedTool) Class() tools.Class      { return tools.ReadOnly }
func (namedTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{Display: "ok"}, nil
}

// Sending says, before any request, which tools the first request on the
// window carries and what co leaves out, without deciding it (SendingLess
// says nothing until the request); the request then carries exactly those.
func TestSendingIsWhatTheNextRequestCarries(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nCtx  int
		tools []string
		less  string
	}{
		{"large window: everything", 32768, []string{"read_file", "run_shell_command", "echo_text", "describe_everything"}, ""},
		{"2k: the core tools", 2048, []string{"read_file", "run_shell_command"}, "only the shell and files tools"},
		{"512: the core tools and a compact prompt", 512, []string{"read_file", "run_shell_command"}, "only the shell and files tools; a compact system prompt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			t.Cleanup(srv.Close)
			srv.SetProfile(llmtest.ProfileLlamaCpp)
			srv.SetLlamaContext(tc.nCtx)
			reg, err := tools.NewRegistry(namedTool{"read_file", "Read a file."}, namedTool{"run_shell_command", "Run a command."}, echoTool{},
				namedTool{"describe_everything", strings.Repeat("A tool with a long description. ", 130)}) // ~1,000 tokens
			if err != nil {
				t.Fatal(err)
			}
			ag := agent.New(agent.Config{
				Provider:     provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "m"},
				SystemPrompt: strings.Repeat("A long system prompt with many rules. ", 60), // ~575 tokens
				Tools:        reg, Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
				StallTimeout: 5 * time.Second,
			})
			ag.LearnWindow(context.Background())
			names, less := ag.Sending(context.Background())
			if !slices.Equal(names, tc.tools) || !strings.HasPrefix(less, tc.less) || (tc.less == "") != (less == "") {
				t.Errorf("Sending = %v, %q; want %v, %q…", names, less, tc.tools, tc.less)
			}
			if ag.SendingLess() != "" {
				t.Errorf("Sending decided: SendingLess = %q before any request", ag.SendingLess())
			}
			srv.Script(llmtest.Reply{Text: "ok"})
			finished(t, run(t, context.Background(), ag, "hi", nil))
			var sent []string
			for _, tool := range srv.Requests()[0].Body.Tools {
				sent = append(sent, tool.Function.Name)
			}
			if !slices.Equal(sent, names) || ag.SendingLess() != less {
				t.Errorf("the request carried %v (SendingLess %q); Sending said %v (%q)", sent, ag.SendingLess(), names, less)
			}
			// After the request, Sending says the same.
			if again, l := ag.Sending(context.Background()); !slices.Equal(again, names) || l != less {
				t.Errorf("after the request Sending = %v, %q", again, l)
			}
		})
	}
}
