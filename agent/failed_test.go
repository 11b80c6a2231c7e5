package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// exitTool is a read-only tool whose work fails as a command's does: it
// ran, printed, and exited 2 (tools.Failed).
type exitTool struct{}

func (exitTool) Name() string        { return "exit_two" }
func (exitTool) Description() string { return "fails" }
func (exitTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (exitTool) Class() tools.Class { return tools.ReadOnly }
func (exitTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{Display: "ls: cannot access 'x': No such file or directory\n", Meta: map[string]any{"exit_code": 2}}, tools.Failedf("the command exited with code 2")
}

// Issue 40: a command that ran and exited non-zero was "rejected, sent back
// to the model" and counted as the model calling it wrongly (tool_retries
// stopped a turn of failing greps). It is a failed call: the model gets why
// and the output, without "fix the call", and the turn goes on; read back
// from the saved result it is failed again, its output shown.
func TestFailedCommandIsFailedNotRetry(t *testing.T) {
	f := newFixture(t, func(c *agent.Config) {
		reg, err := tools.NewRegistry(exitTool{})
		if err != nil {
			t.Fatal(err)
		}
		c.Tools, c.ToolRetries = reg, 1
	})
	var replies []llmtest.Reply
	for i := range 3 {
		replies = append(replies, llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: fmt.Sprint("c", i), Name: "exit_two", Args: `{}`}}})
	}
	f.srv.Script(append(replies, llmtest.Reply{Text: "It is not there."})...)
	evs := run(t, context.Background(), f.ag, "list x", nil)
	finished(t, evs)
	cs := calls(evs)
	if len(cs) != 3 {
		t.Fatalf("calls = %+v", cs)
	}
	for _, c := range cs {
		if c.Status != message.CallFailed || c.Err != "the command exited with code 2" || !strings.Contains(c.Result.Display, "No such file") {
			t.Errorf("call = %+v", c)
		}
	}
	reqs := f.srv.Requests()
	got := reqs[1].ToolResults()
	want := "error: the tool failed: the command exited with code 2\nls: cannot access 'x': No such file or directory\n"
	if len(got) != 1 || got[0] != want {
		t.Errorf("the model got %q, want %q", got, want)
	}
	var call message.ToolCall
	var result message.Message
	for _, m := range f.ag.History() {
		if len(m.ToolCalls) > 0 && call.ID == "" {
			call = m.ToolCalls[0]
		}
		if m.Role == message.RoleTool && result.Content == "" {
			result = m
		}
	}
	back := agent.Outcome(call, result)
	if back.Status != message.CallFailed || back.Err != "the command exited with code 2" || !strings.Contains(back.Result.Display, "No such file") {
		t.Errorf("read back: %+v", back)
	}
}

// A session saved by a co that sent a command's non-zero exit back to the
// model as a retry reads back as a failed command with its output, not as
// "rejected"; another tool's retry stays a retry.
func TestOldSavedShellFailureReadsBackFailed(t *testing.T) {
	saved := "error: the command exited with code 2\nls: cannot access '/home/me/x': No such file or directory\nFix the call and try again."
	f := agent.Outcome(message.ToolCall{ID: "1", Name: "run_shell_command"}, message.Message{Content: saved})
	if f.Status != message.CallFailed || f.Err != "the command exited with code 2" || !strings.Contains(f.Result.Display, "cannot access") {
		t.Fatalf("old shell failure: %+v", f)
	}
	f = agent.Outcome(message.ToolCall{ID: "2", Name: "run_shell_command"}, message.Message{Content: "error: the command timed out after 2m0s and was killed\nFix the call and try again."})
	if f.Status != message.CallFailed {
		t.Fatalf("old shell timeout: %+v", f)
	}
	f = agent.Outcome(message.ToolCall{ID: "3", Name: "read_file"}, message.Message{Content: "error: path is required\nFix the call and try again."})
	if f.Status != message.CallRetry {
		t.Fatalf("another tool's retry: %+v", f)
	}
}
