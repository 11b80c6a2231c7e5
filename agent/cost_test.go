package agent_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/lib/cost"
	"github.com/co-cli/co/message"
)

func nearUSD(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// handCost is a call's cost from the built-in table's row for model,
// computed here by hand: uncached input, cached input and output each at
// their price per million tokens.
func handCost(t *testing.T, model string, prompt, cached, completion int) float64 {
	t.Helper()
	r, ok := cost.Builtin().Lookup(model)
	if !ok {
		t.Fatalf("no row for %s in prices.json", model)
	}
	return (float64(prompt-cached)*r.Input + float64(cached)*r.CachedInput + float64(completion)*r.Output) / 1e6
}

// A scripted session against each hosted provider's test server costs
// what the table says, the cached tokens (reported in each provider's own
// field) at their cached price.
func TestSessionCostMatchesTheTable(t *testing.T) {
	for _, tc := range []struct {
		profile llmtest.Profile
		model   string
	}{
		{llmtest.ProfileOpenAI, "gpt-4.1"},           // prompt_tokens_details.cached_tokens
		{llmtest.ProfileGemini, "gemini-3.8-flash"},  // the same field, on Gemini's OpenAI layer
		{llmtest.ProfileDeepSeek, "deepseek-v4-pro"}, // prompt_cache_hit_tokens
	} {
		t.Run(string(tc.profile), func(t *testing.T) {
			f := profileFixture(t, tc.profile, tc.model, nil)
			f.srv.Script(
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{echoCall("1")}, Usage: &llmtest.Usage{PromptTokens: 10000, CachedTokens: 4000, CompletionTokens: 500}},
				llmtest.Reply{Text: "done", Usage: &llmtest.Usage{PromptTokens: 12000, CachedTokens: 9000, CompletionTokens: 300}},
			)
			fin := finished(t, run(t, context.Background(), f.ag, "echo one", nil))
			want := handCost(t, tc.model, 10000, 4000, 500) + handCost(t, tc.model, 12000, 9000, 300)
			if !nearUSD(fin.Usage.Cost, want) || !nearUSD(fin.Session.Cost, want) || fin.Usage.Unpriced != "" {
				t.Errorf("turn cost %v (session %v, unpriced %q), want %v", fin.Usage.Cost, fin.Session.Cost, fin.Usage.Unpriced, want)
			}
			if fin.Usage.CachedTokens != 13000 || fin.Usage.InputTokens != 22000 || fin.Usage.OutputTokens != 800 {
				t.Errorf("usage %+v, want 22000 in (13000 cached), 800 out", fin.Usage)
			}
			costs := f.ag.Costs()
			if len(costs) != 1 || costs[0].Model != tc.model || costs[0].Calls != 2 || !nearUSD(costs[0].Usage.Cost, want) {
				t.Errorf("Costs() = %+v", costs)
			}
		})
	}
}

// Ollama runs on this machine: its tokens are counted, its cost is 0
// and known.
func TestOllamaCostsNothing(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.Script(llmtest.Reply{Text: "hi"})
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "ollama", BaseURL: srv.URL, APIKey: "ollama", Model: "qwen3:8b"},
		SystemPrompt: "You are a test.", Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}), StallTimeout: 5 * time.Second,
		Prices: cost.Prices{"qwen3:8b": {Input: 100, Output: 100}}}) // even a row for it: local is free
	fin := finished(t, run(t, context.Background(), ag, "hello", nil))
	if fin.Usage.InputTokens == 0 || fin.Usage.Cost != 0 || fin.Usage.Unpriced != "" {
		t.Errorf("usage %+v: want tokens counted, cost 0, priced", fin.Usage)
	}
}

// A model with no price: tokens only, and which model it was.
func TestUnknownModelIsNotGuessed(t *testing.T) {
	f := newFixture(t, nil) // test-model
	f.srv.Script(llmtest.Reply{Text: "hi", Usage: &llmtest.Usage{PromptTokens: 100, CompletionTokens: 10}})
	fin := finished(t, run(t, context.Background(), f.ag, "hello", nil))
	if fin.Usage.Cost != 0 || fin.Usage.Unpriced != "test-model" || fin.Usage.InputTokens != 100 {
		t.Errorf("usage %+v: want no cost, Unpriced test-model", fin.Usage)
	}
}

// max_cost ends the turn after the call that reached it: no further
// request, the tool results and the messages kept.
func TestMaxCostStopsTheTurn(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileOpenAI, "gpt-4.1", func(c *agent.Config) { c.MaxCost = 0.02 })
	reply := func(n string) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{echoCall(n)}, Usage: &llmtest.Usage{PromptTokens: 10000, CachedTokens: 4000, CompletionTokens: 500}}
	}
	f.srv.Script(reply("1"), reply("2"), reply("3"), llmtest.Reply{Text: "never"})
	evs := run(t, context.Background(), f.ag, "echo three", nil)
	fail := failed(t, evs)
	per := handCost(t, "gpt-4.1", 10000, 4000, 500) // 0.018: the second call crosses 0.02
	if !errors.Is(fail.Err, agent.ErrMaxCost) {
		t.Fatalf("Err = %v, want ErrMaxCost", fail.Err)
	}
	if n := len(f.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (none after the limit)", n)
	}
	for _, want := range []string{cost.Format(2 * per), "$0.0200", "max_cost"} {
		if !strings.Contains(fail.Message, want) {
			t.Errorf("message %q does not say %q", fail.Message, want)
		}
	}
	if !nearUSD(fail.Session.Cost, 2*per) {
		t.Errorf("session cost %v, want %v", fail.Session.Cost, 2*per)
	}
	results := 0
	for _, m := range f.ag.History() {
		if m.Role == message.RoleTool {
			results++
		}
	}
	if results != 2 {
		t.Errorf("%d tool results in the history, want both calls' kept", results)
	}
	// The next turn of the same session stops before sending anything.
	fail = failed(t, run(t, context.Background(), f.ag, "go on", nil))
	if !errors.Is(fail.Err, agent.ErrMaxCost) || len(f.srv.Requests()) != 2 {
		t.Errorf("next turn: %v after %d requests", fail.Err, len(f.srv.Requests()))
	}
}

// Each LLM call's span carries its cost (co.cost.usd) and its cached
// tokens; a call to a model with no price says why instead.
func TestChatSpanCarriesTheCost(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	f := profileFixture(t, llmtest.ProfileOpenAI, "gpt-4.1", func(c *agent.Config) { c.Tracer = tp.Tracer("test") })
	f.srv.Script(llmtest.Reply{Text: "ok", Usage: &llmtest.Usage{PromptTokens: 10000, CachedTokens: 4000, CompletionTokens: 500}})
	finished(t, run(t, context.Background(), f.ag, "hi", nil))
	attrs := map[string]attribute.Value{}
	for _, s := range rec.Ended() {
		if s.Name() == "chat gpt-4.1" {
			for _, kv := range s.Attributes() {
				attrs[string(kv.Key)] = kv.Value
			}
		}
	}
	if v, ok := attrs["co.cost.usd"]; !ok || !nearUSD(v.AsFloat64(), handCost(t, "gpt-4.1", 10000, 4000, 500)) {
		t.Errorf("co.cost.usd = %v (%v)", v.AsFloat64(), ok)
	}
	if v := attrs["gen_ai.usage.cache_read.input_tokens"]; v.AsInt64() != 4000 {
		t.Errorf("cached tokens on the span: %v", v.AsInt64())
	}

	f = newFixture(t, func(c *agent.Config) { c.Tracer = tp.Tracer("test") })
	f.srv.Script(llmtest.Reply{Text: "ok"})
	finished(t, run(t, context.Background(), f.ag, "hi", nil))
	found := false
	for _, s := range rec.Ended() {
		for _, kv := range s.Attributes() {
			if s.Name() == "chat test-model" && kv.Key == "co.cost.unknown" {
				found = kv.Value.AsString() == "no price known for test-model: add it with model_prices"
			}
		}
	}
	if !found {
		t.Error("no co.cost.unknown on an unpriced model's chat span")
	}
}
