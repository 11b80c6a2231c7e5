package e2e

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// co run --max-cost against the OpenAI imitation: each call's tokens
// (cached ones reported in prompt_tokens_details) priced from gpt-4.1's
// row; the second call crosses the limit, the turn stops there with exit
// code 5 and a message naming the limit and the spend, no third request
// goes, and the session is saved whole: --continue goes on from it.
func TestRunStopsAtMaxCost(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileOpenAI)
	dir := t.TempDir()
	e := env(t, srv, "OPENAI_MODEL=gpt-4.1")
	call := func() llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "list_directory", Args: `{"path":"."}`}},
			Usage: &llmtest.Usage{PromptTokens: 10000, CachedTokens: 4000, CompletionTokens: 500}}
	}
	srv.Script(call(), call())
	out, errOut, code := runCo(t, dir, e, "", "run", "--json", "--max-cost", "0.02", "list it three times")
	// By hand, gpt-4.1 at $2.00 input, $0.50 cached, $8.00 output per
	// million: 6,000×2 + 4,000×0.5 + 500×8 = $0.018 a call; two: $0.036.
	if code != 5 {
		t.Fatalf("exit %d, want 5 (max cost)\nstdout %s\nstderr %s", code, out, errOut)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2: none after the call that reached the limit", n)
	}
	for _, want := range []string{`"type":"turn_failed"`, "$0.0360", "$0.0200", "max_cost", `"session_cost_usd":0.036`, `"cached_tokens":8000`} {
		if !strings.Contains(out, want) {
			t.Errorf("--json output does not say %s:\n%s", want, out)
		}
	}
	// co sessions shows what the session cost, from its saved usage.
	if out, _, _ := runCo(t, dir, e, "", "sessions"); !strings.Contains(out, "COST") || !strings.Contains(out, "$0.0360") {
		t.Errorf("co sessions has no cost column with $0.0360:\n%s", out)
	}
	// Nothing lost: the next run continues the saved session, both
	// calls' results in what it sends.
	srv.Script(llmtest.Reply{Text: "went on"})
	out, errOut, code = runCo(t, dir, e, "", "run", "--continue", "--max-cost", "1", "go on")
	if code != 0 || out != "went on\n" {
		t.Fatalf("--continue: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	req := srv.Requests()[len(srv.Requests())-1]
	results := 0
	for _, m := range req.Body.Messages {
		if m.Role == "tool" {
			results++
		}
	}
	if results != 2 {
		t.Errorf("the continued session sent %d tool results, want 2", results)
	}
}

// A schedule's own max_cost: the run stops at it, and co inbox shows the
// run's cost and an outcome that names the limit.
func TestScheduledRunStopsAtItsMaxCost(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileOpenAI)
	environ, _ := scheduleEnv(t, srv)
	environ = append(environ, "OPENAI_BASE_URL="+srv.URL, "OPENAI_MODEL=gpt-4.1")
	ws := t.TempDir()
	addScheduleSetting(t, environ, "brief", map[string]any{"at": "weekdays 08:00", "prompt": "list it", "workspace": ws, "max_cost": 0.02})
	call := llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "list_directory", Args: `{"path":"."}`}},
		Usage: &llmtest.Usage{PromptTokens: 10000, CachedTokens: 4000, CompletionTokens: 500}}
	srv.Script(call, call)
	_, errOut, code := runCo(t, t.TempDir(), environ, "", "schedule", "run", "brief")
	if code != 5 {
		t.Fatalf("exit %d, want 5 (max cost)\nstderr: %s", code, errOut)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	out, _, _ := runCo(t, ws, environ, "", "inbox", "--all")
	for _, want := range []string{"COST", "$0.0360", "max_cost"} {
		if !strings.Contains(out, want) {
			t.Errorf("co inbox does not say %q:\n%s", want, out)
		}
	}
}
