package headless_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/ui/headless"
)

// touchTool records the names it "writes". "envrc" must always ask, "url"
// is a call yolo may never approve, anything else is the ask class.
type touchTool struct {
	mu  sync.Mutex
	ran []string
}

func (*touchTool) Name() string        { return "touch" }
func (*touchTool) Description() string { return "Touch a file." }
func (*touchTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
}
func (*touchTool) Class() tools.Class { return tools.SideEffect }
func (*touchTool) Check(_ context.Context, args json.RawMessage) tools.Check {
	var a struct{ Name string }
	_ = json.Unmarshal(args, &a)
	switch a.Name {
	case "envrc":
		return tools.Check{Decision: tools.Ask, Reason: "writes .envrc", AlwaysAsk: true}
	case "url":
		return tools.Check{Decision: tools.Ask, Reason: "a URL the model made up", NoYolo: true}
	case "rm":
		return tools.Check{Decision: tools.Deny, Reason: "denied: never"}
	case "esc":
		// A tool's own way may quote what a settings file named.
		return tools.Check{Decision: tools.Ask, Reason: "asks", AlwaysAsk: true, Unattended: "set \x1b[31mred\x1b[0m on"}
	}
	return tools.Check{Decision: tools.Ask, Reason: "writes a file", Scope: "touch"}
}
func (t *touchTool) Run(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var a struct{ Name string }
	_ = json.Unmarshal(args, &a)
	t.mu.Lock()
	t.ran = append(t.ran, a.Name)
	t.mu.Unlock()
	if a.Name == "plant" { // as tools/shell says what the sandbox undid
		return tools.Result{Display: "touched plant", Meta: map[string]any{
			"protected_reverted": []string{".envrc", "AGENTS.md"}, "protected_not_reverted": []string{".git/hooks/\x1b[2Jx"}}}, nil
	}
	return tools.Text("touched " + a.Name), nil
}

func call(id, name string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "touch", Args: `{"name":"` + name + `"}`}
}

func setup(t *testing.T, isolated bool) (*llmtest.Server, *agent.Agent, *touchTool) {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	tt := &touchTool{}
	reg, err := tools.NewRegistry(tt)
	if err != nil {
		t.Fatal(err)
	}
	ag := agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "m", KeyEnv: "OPENAI_API_KEY"},
		SystemPrompt: "test",
		Tools:        reg,
		Approvals:    agent.NewApprovals(agent.ApprovalOptions{Isolated: isolated}),
		ToolRetries:  3,
		Retry:        provider.RetryPolicy{Base: 10 * time.Millisecond},
		StallTimeout: 5 * time.Second,
	})
	return srv, ag, tt
}

type result struct {
	Type, ID, Name, Status, Decision, Error, Answer, Hint string
}

func runJSON(t *testing.T, ag *agent.Agent, yes bool) (int, []result) {
	t.Helper()
	var out bytes.Buffer
	code := headless.Run(context.Background(), headless.Options{Agent: ag, Prompt: "go", Out: &out, JSON: true, Yes: yes})
	var rs []result
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		rs = append(rs, r)
	}
	return code, rs
}

func results(rs []result) map[string]result {
	m := map[string]result{}
	for _, r := range rs {
		if r.Type == "tool_result" {
			m[r.ID] = r
		}
	}
	return m
}

// --yes approves what /yolo would approve and nothing more: unsandboxed
// (yolo refused) nothing of the ask class runs.
func TestYesUnsandboxedApprovesNothing(t *testing.T) {
	srv, ag, tt := setup(t, false)
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{call("c1", "a1"), call("c2", "envrc"), call("c3", "url")}}, llmtest.Reply{Text: "ok"})
	code, rs := runJSON(t, ag, true)
	if len(tt.ran) != 0 {
		t.Fatalf("--yes without isolation ran %v", tt.ran)
	}
	if code != headless.ExitDenied {
		t.Errorf("exit code = %d", code)
	}
	// Each line names what would let that call run: the ask class
	// yolo_unsandboxed or the Docker sandbox (with --yes); a call that
	// always asks or that yolo never approves, only a person. None names
	// shell_policy, which lets nothing through unsandboxed (issue 27).
	want := map[string][]string{
		"c1": {"yolo_unsandboxed", "Docker sandbox"},
		"c2": {"only a person can approve"},
		"c3": {"only a person can approve"},
	}
	n := 0
	for _, r := range rs {
		if r.Type == "approval" {
			n++
			// --yes was given: the hint does not ask for it again.
			if r.Answer != "needs approval" || strings.Contains(r.Hint, "shell_policy") || strings.Contains(r.Hint, "pass --yes") {
				t.Errorf("approval line = %+v", r)
			}
			for _, w := range want[r.ID] {
				if !strings.Contains(r.Hint, w) {
					t.Errorf("%s: the hint %q does not say %q", r.ID, r.Hint, w)
				}
			}
		}
	}
	if n != 3 {
		t.Errorf("%d approval lines, want 3", n)
	}
}

func TestYesIsolatedApprovesLikeYolo(t *testing.T) {
	srv, ag, tt := setup(t, true)
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{call("c1", "a1"), call("c2", "envrc"), call("c3", "url"), call("c4", "rm")}}, llmtest.Reply{Text: "ok"})
	_, rs := runJSON(t, ag, true)
	if len(tt.ran) != 1 || tt.ran[0] != "a1" {
		t.Fatalf("ran %v, want only a1", tt.ran)
	}
	m := results(rs)
	if m["c1"].Decision != string(message.ByYes) {
		t.Errorf("c1 decided by %q", m["c1"].Decision)
	}
	for _, id := range []string{"c2", "c3", "c4"} {
		if m[id].Status != "denied" {
			t.Errorf("%s = %+v", id, m[id])
		}
	}
	if m["c4"].Decision != string(message.ByPolicyDeny) {
		t.Errorf("deny must beat --yes: %+v", m["c4"])
	}
	if ag.Approvals().Yolo() {
		t.Error("--yes must not turn yolo on")
	}
}

func TestYesUnsandboxedWithYoloUnsandboxed(t *testing.T) {
	srv, ag, tt := setup(t, false)
	ag.Approvals().SetIsolated(false, true)
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{call("c1", "a1"), call("c2", "envrc")}}, llmtest.Reply{Text: "ok"})
	runJSON(t, ag, true)
	if len(tt.ran) != 1 || tt.ran[0] != "a1" {
		t.Fatalf("ran %v, want only a1", tt.ran)
	}
}

// Without --yes nobody is asked: the lines say the call needs approval and
// how to give it, never "denied by the user".
func TestWithoutYesSaysNeedsApproval(t *testing.T) {
	srv, ag, tt := setup(t, true)
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{call("c1", "a1")}}, llmtest.Reply{Text: "ok"})
	var out, errOut bytes.Buffer
	code := headless.Run(context.Background(), headless.Options{Agent: ag, Prompt: "go", Out: &out, Err: &errOut})
	if code != headless.ExitDenied || len(tt.ran) != 0 {
		t.Fatalf("exit %d, ran %v", code, tt.ran)
	}
	e := errOut.String()
	if strings.Contains(e, "denied by the user") || !strings.Contains(e, "needs approval: touch") || !strings.Contains(e, "result: touch needs approval: to let it run: pass --yes") {
		t.Errorf("stderr:\n%s", e)
	}
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{call("c1", "a1")}}, llmtest.Reply{Text: "ok"})
	_, rs := runJSON(t, ag, false)
	if r := results(rs)["c1"]; r.Decision != string(message.ByHeadless) || r.Status != "denied" {
		t.Errorf("tool_result = %+v", r)
	}
}

type idRecorder struct{}

func (idRecorder) ID() string                                     { return "sess-42" }
func (idRecorder) Append(message.Message) error                   { return nil }
func (idRecorder) Draft(string) error                             { return nil }
func (idRecorder) Aside(message.Aside) error                      { return nil }
func (idRecorder) Decision(string, string, message.Verdict) error { return nil }
func (idRecorder) Usage(message.Usage) error                      { return nil }

// The first JSON event names the saved session, the id --resume takes.
func TestJSONStartsWithTheSessionID(t *testing.T) {
	srv, ag, _ := setup(t, true)
	ag.SetRecorder(idRecorder{})
	srv.Script(llmtest.Reply{Text: "hi"})
	_, rs := runJSON(t, ag, false)
	if len(rs) == 0 || rs[0].Type != "session" || rs[0].ID != "sess-42" {
		t.Fatalf("first event = %+v", rs)
	}
}

// Every JSON event carries the schema version, and the session event the
// provider and model the turn goes to (issue 27).
func TestJSONEventsCarryTheSchemaAndTheModel(t *testing.T) {
	srv, ag, _ := setup(t, true)
	ag.SetRecorder(idRecorder{})
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{call("c1", "a1")}}, llmtest.Reply{Text: "hi"})
	var out bytes.Buffer
	headless.Run(context.Background(), headless.Options{Agent: ag, Prompt: "go", Out: &out, JSON: true})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	types := map[string]bool{}
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		types[m["type"].(string)] = true
		if m["schema"] != float64(headless.JSONSchema) {
			t.Errorf("event %d has no schema %d: %s", i, headless.JSONSchema, line)
		}
		if i == 0 && (m["type"] != "session" || m["id"] != "sess-42" || m["provider"] != "openai" || m["model"] != "m") {
			t.Errorf("first event = %s", line)
		}
	}
	for _, want := range []string{"session", "tool_call", "approval", "tool_result", "text", "turn_finished"} {
		if !types[want] {
			t.Errorf("no %s event among %v", want, lines)
		}
	}
}

// The hint names what settings named (an MCP server): it reaches the
// terminal sanitised, as every string from outside does.
func TestHintIsSanitised(t *testing.T) {
	srv, ag, _ := setup(t, true)
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{call("c1", "esc")}}, llmtest.Reply{Text: "ok"})
	var out, errOut bytes.Buffer
	headless.Run(context.Background(), headless.Options{Agent: ag, Prompt: "go", Out: &out, Err: &errOut})
	if e := errOut.String(); strings.ContainsRune(e, 0x1b) || strings.Count(e, "to let it run: set") != 2 {
		t.Fatalf("stderr:\n%q", e)
	}
}

// co run's log shows a call's outcome, not its output: the protected files the sandbox undid
// (or could not) after a command are said on stderr, control characters made visible; --json
// has them in the result's meta.
func TestRevertedProtectedFilesAreSaid(t *testing.T) {
	srv, ag, _ := setup(t, true)
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{call("c1", "plant"), call("c2", "a1")}}, llmtest.Reply{Text: "ok"})
	var out, errOut bytes.Buffer
	code := headless.Run(context.Background(), headless.Options{Agent: ag, Prompt: "go", Out: &out, Err: &errOut, Yes: true})
	got := errOut.String()
	want := "co: warning: the command wrote protected files; co refused and reverted its changes to protected files: .envrc, AGENTS.md; co could not revert its changes to: .git/hooks/"
	if code != headless.ExitOK || strings.Count(got, "co: warning: the command wrote") != 1 || !strings.Contains(got, want) || strings.Contains(got, "\x1b") {
		t.Errorf("exit %d, stderr:\n%q", code, got)
	}
}
