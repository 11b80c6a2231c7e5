package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

func TestRunPrintsTheAnswer(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "4"}, llmtest.Reply{Text: "from stdin"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "run", "what", "is", "2+2")
	if code != 0 || out != "4\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := srv.Requests()[0].LastUserMessage(); got != "what is 2+2" {
		t.Errorf("prompt sent = %q", got)
	}
	out, _, code = runCo(t, t.TempDir(), env(t, srv), "prompt on stdin\n", "run")
	if code != 0 || out != "from stdin\n" || srv.Requests()[1].LastUserMessage() != "prompt on stdin\n" {
		t.Fatalf("stdin prompt: exit %d, stdout %q", code, out)
	}
}

func TestRunJSONEvents(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{Text: "Let me check.", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "no_such_tool", Args: `{"x":1}`}}, Usage: &llmtest.Usage{PromptTokens: 5, CompletionTokens: 2}},
		llmtest.Reply{Text: "Done.", Usage: &llmtest.Usage{PromptTokens: 7, CompletionTokens: 1}},
	)
	out, _, code := runCo(t, t.TempDir(), env(t, srv), "", "run", "--json", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var types []string
	var fin map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		types = append(types, m["type"].(string))
		if m["type"] == "turn_finished" {
			fin = m
		}
		if m["type"] == "tool_result" && (m["status"] != "retry" || !strings.Contains(m["error"].(string), "no tool named")) {
			t.Errorf("tool_result = %v", m)
		}
	}
	got := strings.Join(dedupe(types), ",")
	if got != "session,text,tool_call,tool_result,text,turn_finished" {
		t.Errorf("event types = %s", got)
	}
	if fin["text"] != "Done." || fin["usage"].(map[string]any)["input_tokens"] != float64(12) {
		t.Errorf("turn_finished = %v", fin)
	}
}

func dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if len(out) == 0 || out[len(out)-1] != x {
			out = append(out, x)
		}
	}
	return out
}

func TestRunExitCodes(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Status: 401, ErrorMessage: "bad key"})
	_, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "run", "hi")
	if code != 1 || !strings.Contains(errOut, "OPENAI_API_KEY") {
		t.Errorf("provider error: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCo(t, t.TempDir(), env(t, srv), "   \n", "run")
	if code != 2 || !strings.Contains(errOut, "no prompt") {
		t.Errorf("no prompt: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCo(t, t.TempDir(), env(t, srv), "", "run", "--bogus", "hi")
	if code != 2 || !strings.Contains(errOut, "unknown flag: --bogus") {
		t.Errorf("bad flag: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCo(t, t.TempDir(), env(t, srv), "", "version", "extra")
	if code != 2 {
		t.Errorf("extra arg: exit %d, stderr %q", code, errOut)
	}
}
