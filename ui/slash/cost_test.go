package slash_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/ui/slash"
)

func drain(t *testing.T, ch <-chan agent.Event) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("turn hung")
		}
	}
}

// /cost: the session's cost, by model, the summaries' model apart, and a
// model with no price saying so.
func TestCostBreaksDownByModel(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOpenAI)
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "gpt-4.1"},
		History: agent.HistoryOptions{SummaryModel: "gpt-4.1-mini"}, StallTimeout: 5 * time.Second})
	srv.Script(
		llmtest.Reply{Text: "one", Usage: &llmtest.Usage{PromptTokens: 10000, CachedTokens: 4000, CompletionTokens: 500}},
		llmtest.Reply{Text: "two", Usage: &llmtest.Usage{PromptTokens: 1000, CompletionTokens: 100}},
	)
	drain(t, ag.Submit(context.Background(), "first"))
	drain(t, ag.Submit(context.Background(), "second"))
	// The summary (gpt-4.1-mini at $0.40 in, $1.60 out): 2,000 in, 200 out.
	srv.Script(llmtest.Reply{Text: "- the summary", Usage: &llmtest.Usage{PromptTokens: 2000, CompletionTokens: 200}})
	if _, err := ag.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := slash.Dispatch(slash.Env{Agent: ag}, "/cost").Output
	// gpt-4.1: (6000×2 + 4000×0.5 + 500×8) + (1000×2 + 100×8) = 18000 + 2800
	// per million = $0.0208; gpt-4.1-mini: 2000×0.4 + 200×1.6 = $0.00112.
	for _, want := range []string{"This session: $0.0219", "gpt-4.1 (openai)", "2 calls", "$0.0208", "gpt-4.1-mini (openai), summaries", "1 call", "$0.0011"} {
		if !strings.Contains(out, want) {
			t.Errorf("/cost does not say %q:\n%s", want, out)
		}
	}

	ag = agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "my-model"}, StallTimeout: 5 * time.Second})
	srv.Script(llmtest.Reply{Text: "x", Usage: &llmtest.Usage{PromptTokens: 10, CompletionTokens: 1}})
	drain(t, ag.Submit(context.Background(), "hi"))
	out = slash.Dispatch(slash.Env{Agent: ag}, "/cost").Output
	if !strings.Contains(out, "no price known for my-model: add it with model_prices") || !strings.Contains(out, "This session: unknown") {
		t.Errorf("/cost for a model with no price:\n%s", out)
	}
}
