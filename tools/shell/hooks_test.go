package shell_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/checkpoint"
	"github.com/co-cli/co/hooks"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sandbox"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/shell"
)

// The user's hooks around the shell tool, in a real turn (issue 42): the
// subprocess sandbox, a saved session with its undo checkpoint, the test
// LLM server. The agent's own hook tests use the file tools: the agent
// knows no sandbox.
type shellHookWorld struct {
	ws  string
	srv *llmtest.Server
	ag  *agent.Agent
}

func newShellHookWorld(t *testing.T, settings string) *shellHookWorld {
	t.Helper()
	w := &shellHookWorld{ws: t.TempDir(), srv: llmtest.NewServer()}
	t.Cleanup(w.srv.Close)
	data := t.TempDir()
	var id [6]byte
	_, _ = rand.Read(id[:])
	sb, _, err := sandbox.New(context.Background(), sandbox.Config{Backend: sandbox.BackendSubprocess, Workspace: w.ws, RunID: hex.EncodeToString(id[:]) + "-hooks"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	policy, err := shell.NewPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(shell.NewTool(sb, policy, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ckpt, err := checkpoint.Open(filepath.Join(data, "checkpoints"), w.ws, checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, warnings, err := hooks.Decode(json.RawMessage(settings))
	if err != nil || len(warnings) > 0 {
		t.Fatalf("the test's hooks: %v %v", err, warnings)
	}
	w.ag = agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: w.srv.URL, APIKey: "k", Model: "m", KeyEnv: "OPENAI_API_KEY"},
		SystemPrompt: "test",
		Tools:        reg,
		Approvals:    agent.NewApprovals(agent.ApprovalOptions{}),
		MaxRequests:  10,
		Retry:        provider.RetryPolicy{Base: 10 * time.Millisecond},
		StallTimeout: 30 * time.Second,
		Checkpoints:  ckpt,
		Hooks:        hooks.NewSet(hooks.Options{User: cfg, UserFile: "settings.json", Dir: w.ws}),
	})
	store, err := sessions.Open(filepath.Join(data, sessions.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	w.ag.SetRecorder(store.New(w.ws))
	t.Cleanup(w.ag.WaitCheckpoint)
	return w
}

// turn runs prompt, approving every question when approve is set (else a
// question fails the test), and returns the turn's finished calls.
func (w *shellHookWorld) turn(t *testing.T, prompt string, approve bool) []agent.ToolCallFinished {
	t.Helper()
	var fins []agent.ToolCallFinished
	ch := w.ag.Submit(context.Background(), prompt)
	deadline := time.After(60 * time.Second) // only to catch a hang
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return fins
			}
			switch e := ev.(type) {
			case agent.ApprovalRequested:
				if !approve {
					t.Fatalf("unexpected question: %+v", e.Calls)
				}
				v := make([]message.Verdict, len(e.Calls))
				for i := range v {
					v[i] = message.ApproveOnce
				}
				e.Reply(v)
			case agent.ToolCallFinished:
				fins = append(fins, e)
			case agent.TurnFailed:
				t.Fatalf("turn failed: %s", e.Message)
			}
		case <-deadline:
			t.Fatal("the turn did not end")
		}
	}
}

func hookFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func oneHook(ev, matcher, command string) string {
	b, _ := json.Marshal(map[string]any{ev: []any{map[string]any{"matcher": matcher,
		"hooks": []any{map[string]any{"type": "command", "command": command}}}}})
	return string(b)
}

func cmdCall(id, cmd string) llmtest.ToolCall {
	b, _ := json.Marshal(map[string]any{"cmd": cmd})
	return llmtest.ToolCall{ID: id, Name: shell.Name, Args: string(b)}
}

func TestAPreToolUseGuardBlocksAShellCommandWithItsReasonToTheModel(t *testing.T) {
	guard := hookFile(t, `case "$(cat)" in *"push --force"*) echo "no force pushes: ask the user" >&2; exit 2;; esac`)
	w := newShellHookWorld(t, oneHook("PreToolUse", "run_shell_command", guard))
	w.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{cmdCall("c1", "echo gone > pushed.txt # git push --force")}},
		llmtest.Reply{Text: "I will ask."},
	)
	fins := w.turn(t, "push", false) // blocked before anyone is asked
	if _, err := os.Stat(filepath.Join(w.ws, "pushed.txt")); err == nil {
		t.Fatal("the guarded command ran")
	}
	if len(fins) != 1 || fins[0].Decision != message.ByHookDeny || !strings.Contains(fins[0].Err, "no force pushes") {
		t.Fatalf("calls %+v", fins)
	}
	if res := w.srv.Requests()[1].ToolResults(); len(res) != 1 || !strings.Contains(res[0], "no force pushes: ask the user") {
		t.Fatalf("the model got %q", res)
	}
}

func TestAPostToolUseHookIsToldWhatAShellCommandChanged(t *testing.T) {
	log := filepath.Join(t.TempDir(), "post.log")
	post := hookFile(t, `cat >> `+log+`; echo >> `+log+`; echo "new.txt lacks a licence header" >&2; exit 2`)
	w := newShellHookWorld(t, oneHook("PostToolUse", "run_shell_command", post))
	if err := os.WriteFile(filepath.Join(w.ws, "old.txt"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{cmdCall("c1", "echo new > new.txt && rm old.txt")}},
		llmtest.Reply{Text: "done"},
	)
	fins := w.turn(t, "tidy", true)
	if len(fins) != 1 || fins[0].Status != message.CallDone {
		t.Fatalf("calls %+v", fins)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	var ev struct {
		Tool     string         `json:"tool_name"`
		Input    map[string]any `json:"tool_input"`
		Response map[string]any `json:"tool_response"`
		Changed  []string       `json:"changed_files"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(b))), &ev); err != nil {
		t.Fatalf("the hook read %q: %v", b, err)
	}
	if ev.Tool != shell.Name || ev.Input["cmd"] != "echo new > new.txt && rm old.txt" {
		t.Fatalf("the hook was told %+v", ev)
	}
	if !slices.Equal(ev.Changed, []string{"new.txt", "old.txt"}) {
		t.Fatalf("changed_files %v, want the file made and the file removed", ev.Changed)
	}
	if ev.Response["status"] != "done" || ev.Response["exit_code"] != float64(0) {
		t.Fatalf("tool_response %v", ev.Response)
	}
	if res := w.srv.Requests()[1].ToolResults(); len(res) != 1 || !strings.Contains(res[0], "new.txt lacks a licence header") {
		t.Fatalf("the model got %q, want the hook's objection with the result", res)
	}
}
