package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
)

func cutNotices(evs []agent.Event) []string {
	var out []string
	for _, s := range notices(evs) {
		if strings.Contains(s, "was cut at the length limit") {
			out = append(out, s)
		}
	}
	return out
}

// A model that never stops, on Ollama: co asks num_predict itself (Ollama's
// own is -1, capped only at 10 × num_ctx), within the window, and says the
// reply was cut.
func TestOllamaEndlessReplyIsBounded(t *testing.T) {
	srv, ag := ollamaAgent(t, llmtest.OllamaModel{Name: "tiny-endless:latest", Family: "llama", ContextLength: 4096, Capabilities: []string{"completion", "tools"}})
	srv.Script(llmtest.Reply{Endless: true})
	evs := run(t, context.Background(), ag, "hi", nil)
	fin := finished(t, evs)
	var raw map[string]map[string]int
	_ = json.Unmarshal(srv.Requests()[0].Raw, &raw)
	// num_ctx 4096; before the server has counted a prompt the reply gets
	// at most half of it (docs/providers.md, "A bound on every reply").
	bound := raw["options"]["num_predict"]
	if raw["options"]["num_ctx"] != 4096 || bound != 2048 {
		t.Fatalf("options %v", raw["options"])
	}
	if n := strings.Count(fin.Text, " tick"); n != bound/2 || fin.Usage.OutputTokens != bound {
		t.Fatalf("%d ticks, %d output tokens, bound %d", n, fin.Usage.OutputTokens, bound)
	}
	if c := cutNotices(evs); len(c) != 1 || !strings.Contains(c[0], fmt.Sprintf("%d tokens, co's default bound", bound)) {
		t.Fatalf("notices %q", notices(evs))
	}
}

// On an OpenAI-compatible server: max_tokens DefaultMaxTokens without
// llm_max_tokens, the setting with it; finish_reason "length" is said.
func TestEndlessReplyIsBoundedOpenAI(t *testing.T) {
	for _, c := range []struct {
		setting, want int
		says          string
	}{
		{0, agent.DefaultMaxTokens, "co's default bound"},
		{100, 100, "llm_max_tokens 100"},
	} {
		f := newFixture(t, func(cfg *agent.Config) { cfg.Request.MaxTokens = c.setting })
		f.srv.Script(llmtest.Reply{Endless: true})
		evs := run(t, context.Background(), f.ag, "hi", nil)
		fin := finished(t, evs)
		if fin.Usage.OutputTokens != c.want || strings.Count(fin.Text, " t") != c.want {
			t.Fatalf("setting %d: %d output tokens", c.setting, fin.Usage.OutputTokens)
		}
		if got := f.srv.Requests()[0].Fields()["max_tokens"]; string(got) != itoa(c.want) {
			t.Fatalf("max_tokens %s", got)
		}
		if n := cutNotices(evs); len(n) != 1 || !strings.Contains(n[0], c.says) {
			t.Fatalf("notices %q", notices(evs))
		}
	}
}

// A reply cut before it said anything fails with a message, not silence.
func TestReplyCutBeforeAnyTextSaysSo(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(llmtest.Reply{FinishReason: "length"})
	fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
	if !strings.Contains(fl.Message, "reached the length limit before it said anything") {
		t.Fatalf("message %q", fl.Message)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// llama-server stops at its window before co's bound (recorded: prompt
// 3597 + reply 499 = 4096, max_tokens 8192): the notice says whose limit.
func TestReplyCutByTheServersWindowSaysSo(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(llmtest.Reply{Text: " tick tock", FinishReason: "length", Usage: &llmtest.Usage{PromptTokens: 3597, CompletionTokens: 499}})
	evs := run(t, context.Background(), f.ag, "hi", nil)
	finished(t, evs)
	if c := cutNotices(evs); len(c) != 0 {
		t.Fatalf("notices %q", c)
	}
	found := false
	for _, n := range notices(evs) {
		found = found || strings.Contains(n, "cut after 499 tokens by the server's own limit") && strings.Contains(n, "the prompt took 3597")
	}
	if !found {
		t.Fatalf("notices %q", notices(evs))
	}
}
