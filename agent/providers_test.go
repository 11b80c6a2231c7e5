package agent_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
)

// The agent against the imitations of today's providers (llmtest
// profiles): signatures and reasoning must survive everything that
// rewrites or reloads the history.

func profileFixture(t *testing.T, p llmtest.Profile, model string, mod func(*agent.Config)) *fixture {
	t.Helper()
	f := newFixture(t, mod)
	f.srv.SetProfile(p)
	f.srv.SetAPIKey("test-key")
	name := "openai"
	if p == llmtest.ProfileGemini {
		name = "gemini"
	}
	cfg := agent.Config{
		Provider:     provider.Provider{Name: name, BaseURL: f.srv.URL, APIKey: "test-key", Model: model},
		SystemPrompt: "You are a test.",
		Tools:        f.ag.Tools(),
		Approvals:    f.ag.Approvals(),
		ToolRetries:  3,
		Retry:        provider.RetryPolicy{Base: 10 * time.Millisecond},
		StallTimeout: 5 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	f.ag = agent.New(cfg)
	return f
}

func echoCall(text string) llmtest.ToolCall {
	return llmtest.ToolCall{Name: "echo_text", Args: `{"text":"` + text + `"}`}
}

func signedCalls(t *testing.T, h []message.Message) int {
	t.Helper()
	n := 0
	for _, m := range h {
		if len(m.ToolCalls) > 0 && strings.Contains(string(m.ToolCalls[0].Extra), "thought_signature") {
			n++
		}
	}
	return n
}

func TestGeminiSignaturesSurviveSummarising(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileGemini, "gemini-3.5-flash", func(c *agent.Config) {
		c.History = agent.HistoryOptions{MaxMessages: 8}
	})
	f.srv.Script(
		llmtest.Reply{Text: "hello"},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{echoCall("1"), echoCall("2")}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{echoCall("3")}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{echoCall("4")}},
	)
	finished(t, run(t, context.Background(), f.ag, "hi", nil))
	// The summary request is the next one to find the queue: a
	// non-streamed completion.
	f.srv.Script(llmtest.Reply{Text: "- summary of the steps"}, llmtest.Reply{Text: "all done"})
	evs := run(t, context.Background(), f.ag, "echo five things", nil)
	if fin := finished(t, evs); fin.Text != "all done" {
		t.Fatalf("final text %q", fin.Text)
	}
	var summarised bool
	for _, ev := range evs {
		if n, ok := ev.(agent.Notice); ok && strings.Contains(n.Text, "Summarised") {
			summarised = true
		}
	}
	if !summarised {
		t.Fatal("no automatic summary happened; the test does not test it")
	}
	// Every request was accepted by the imitation, which rejects a
	// current-turn call without its signature; what is kept still has them.
	h := f.ag.History()
	if signedCalls(t, h) == 0 {
		t.Errorf("no signed call left after summarising: %+v", h)
	}
	for _, r := range f.srv.Requests() {
		if r.HistoryError() != "" {
			t.Errorf("invalid history sent: %s", r.HistoryError())
		}
	}

	// /compact, then another signed tool turn.
	f.srv.Script(llmtest.Reply{Text: "- compacted"})
	if _, err := f.ag.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{echoCall("6"), echoCall("7")}}, llmtest.Reply{ToolCalls: []llmtest.ToolCall{echoCall("8")}}, llmtest.Reply{Text: "after compact"})
	if fin := finished(t, run(t, context.Background(), f.ag, "more", nil)); fin.Text != "after compact" {
		t.Fatalf("after /compact: %q", fin.Text)
	}
}

func TestInterruptedTurnKeepsSignatureAndReasoning(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileGemini, "gemini-3.5-flash", nil)
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "wait_forever", Args: `{}`}, echoCall("x")}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-f.block.started
		cancel()
	}()
	failed(t, run(t, ctx, f.ag, "wait", nil))
	h := f.ag.History()
	if signedCalls(t, h) != 1 {
		t.Fatalf("the interrupted step lost its signature: %+v", h)
	}
	// The next turn (the interrupted call now answered "Interrupted by the
	// user.") is accepted.
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{echoCall("y")}}, llmtest.Reply{Text: "ok"})
	finished(t, run(t, context.Background(), f.ag, "go on", nil))
}

// Reasoning and signatures are saved with their messages and come back on
// resume, and a resumed DeepSeek tool turn is accepted.
func TestSessionsKeepReasoningAndSignatures(t *testing.T) {
	st, err := sessions.Open(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := st.New("/ws")
	f := profileFixture(t, llmtest.ProfileDeepSeek, "deepseek-v4-flash", func(c *agent.Config) { c.Recorder = rec })
	f.srv.Script(
		llmtest.Reply{Reasoning: "step one", ToolCalls: []llmtest.ToolCall{echoCall("a")}},
		llmtest.Reply{Reasoning: "step two", Text: "done"},
	)
	evs := run(t, context.Background(), f.ag, "go", nil)
	finished(t, evs)
	var thought strings.Builder
	for _, ev := range evs {
		if r, ok := ev.(agent.ReasoningDelta); ok {
			thought.WriteString(r.Text)
		}
	}
	if thought.String() != "step onestep two" {
		t.Errorf("reasoning events: %q", thought.String())
	}
	_, loaded, err := st.Load(rec.ID())
	if err != nil {
		t.Fatal(err)
	}
	live := f.ag.History()
	if len(loaded) != len(live) {
		t.Fatalf("loaded %d messages, live %d", len(loaded), len(live))
	}
	for i := range live {
		a, b := live[i], loaded[i]
		if a.Reasoning != b.Reasoning || a.ReasoningField != b.ReasoningField || a.Origin != b.Origin || a.Model != b.Model {
			t.Errorf("message %d: saved %+v, live %+v", i, b, a)
		}
	}
	// Resume in a new agent (as --continue does) and make another tool
	// turn: DeepSeek checks the earlier tool turn's reasoning.
	g2 := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: f.srv.URL, APIKey: "test-key", Model: "deepseek-v4-flash"}, Tools: f.ag.Tools(), Approvals: f.ag.Approvals()})
	g2.Restore(loaded, message.Usage{}, 1)
	f.srv.Script(
		llmtest.Reply{Reasoning: "again", ToolCalls: []llmtest.ToolCall{echoCall("b")}},
		llmtest.Reply{Text: "done again"},
	)
	if fin := finished(t, run(t, context.Background(), g2, "once more", nil)); fin.Text != "done again" {
		t.Fatalf("resumed: %q", fin.Text)
	}
}

// /model switches for the next request, and provider too with a prefix.
func TestSetModelSwitchesTheNextRequest(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	finished(t, run(t, context.Background(), f.ag, "a", nil))
	if _, err := f.ag.SetModel("other-model"); err != nil {
		t.Fatal(err)
	}
	if p, _, _ := f.ag.Provider(); p.Model != "other-model" {
		t.Errorf("Provider() after SetModel = %q", p.Model)
	}
	finished(t, run(t, context.Background(), f.ag, "b", nil))
	reqs := f.srv.Requests()
	if reqs[0].Body.Model != "test-model" || reqs[1].Body.Model != "other-model" {
		t.Errorf("models sent: %q then %q", reqs[0].Body.Model, reqs[1].Body.Model)
	}
	if _, err := f.ag.SetModel("gemini:"); err == nil {
		t.Error("an empty model name was accepted")
	}
	models, err := f.ag.Models(context.Background())
	if err != nil || len(models) == 0 {
		t.Errorf("Models: %v, %v", models, err)
	}

	// A switch to another provider lists that provider's models at once,
	// before any request went to it.
	other := llmtest.NewServer()
	defer other.Close()
	other.SetModels("elsewhere-1", "elsewhere-2")
	g := agent.New(agent.Config{
		Provider: provider.Provider{Name: "openai", BaseURL: f.srv.URL, Model: "test-model"},
		Settings: provider.ProviderSettings{OllamaHost: strings.TrimSuffix(other.URL, "/v1")},
	})
	if _, err := g.SetModel("ollama:elsewhere-1"); err != nil {
		t.Fatal(err)
	}
	other.SetProfile(llmtest.ProfileOllama)
	other.SetOllamaModels(llmtest.OllamaModel{Name: "elsewhere-1"}, llmtest.OllamaModel{Name: "elsewhere-2"})
	models, err = g.Models(context.Background())
	if err != nil || strings.Join(models, ",") != "elsewhere-1,elsewhere-2" {
		t.Errorf("models after switching provider: %v, %v", models, err)
	}
}

// Gemini's parallel calls, one per chunk without index, or all with index
// 0 (NousResearch/hermes-agent#62937), run as separate calls and the
// follow-up request (which the gemini imitation checks for the signature)
// is accepted.
func TestGeminiParallelCallsRunApart(t *testing.T) {
	for _, same := range []bool{false, true} {
		f := profileFixture(t, llmtest.ProfileGemini, "gemini-3.5-flash", nil)
		f.srv.Script(llmtest.Reply{SameIndex: same, ToolCalls: []llmtest.ToolCall{echoCall("one"), echoCall("two")}}, llmtest.Reply{Text: "done"})
		evs := run(t, context.Background(), f.ag, "twice", nil)
		if fin := finished(t, evs); fin.Text != "done" {
			t.Fatalf("same index %v: %+v", same, fin)
		}
		c := calls(evs)
		if len(c) != 2 || c[0].Status != message.CallDone || c[1].Status != message.CallDone || c[0].CallID == c[1].CallID {
			t.Fatalf("same index %v: calls = %+v", same, c)
		}
	}
}

// A DeepSeek model behind a gateway (here 127.0.0.1, not api.deepseek.com)
// whose tool step streams no reasoning: the step goes back with
// "reasoning_content": "" all the same, or DeepSeek answers 400 "The
// `reasoning_content` in the thinking mode must be passed back to the API"
// (issue 26). Decided by the model's name, with or without a gateway's
// "deepseek/" prefix.
func TestDeepSeekBehindAGatewayToolStepWithoutReasoning(t *testing.T) {
	for _, model := range []string{"deepseek-v4-flash", "deepseek/deepseek-v4-flash"} {
		t.Run(model, func(t *testing.T) {
			f := profileFixture(t, llmtest.ProfileDeepSeek, model, nil)
			f.srv.SetModels(model)
			f.srv.Script(
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{echoCall("a")}},
				llmtest.Reply{Text: "done"},
			)
			if fin := finished(t, run(t, context.Background(), f.ag, "go", nil)); fin.Text != "done" {
				t.Fatalf("text %q", fin.Text)
			}
			var raw struct {
				Messages []map[string]any `json:"messages"`
			}
			reqs := f.srv.Requests()
			if err := json.Unmarshal(reqs[1].Raw, &raw); err != nil {
				t.Fatal(err)
			}
			for _, m := range raw.Messages {
				if m["role"] == "assistant" {
					if rc, ok := m["reasoning_content"]; !ok || rc != "" {
						t.Errorf("assistant message sent back as %v", m)
					}
				}
			}
		})
	}
}
