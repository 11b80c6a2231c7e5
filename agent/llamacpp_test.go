package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// sizedTool is a read-only tool with a name of co's and a description of
// n characters: what it weighs in a request is what matters here.
type sizedTool struct {
	name string
	n    int
}

func (s sizedTool) Name() string { return s.name }
func (s sizedTool) Description() string {
	return "Does " + s.name + ". " + strings.Repeat("d", max(0, s.n-len(s.name)-7))
}
func (sizedTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (sizedTool) Class() tools.Class      { return tools.ReadOnly }
func (s sizedTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{Display: s.name}, nil
}

// llamaAgent is an agent against llmtest's llamacpp profile with the
// tools given; hide makes the server's window unknown to co (/props and
// /v1/models answer 404, as behind a proxy that forwards chat only).
func llamaAgent(t *testing.T, nCtx int, hide bool, ts ...tools.Tool) (*llmtest.Server, *agent.Agent) {
	return llamaAgentTraced(t, nCtx, hide, nil, ts...)
}

func llamaAgentTraced(t *testing.T, nCtx int, hide bool, tp *sdktrace.TracerProvider, ts ...tools.Tool) (*llmtest.Server, *agent.Agent) {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	srv.SetLlamaContext(nCtx)
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	cfg := agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "whatever-name"},
		SystemPrompt: "You are a test.", Tools: reg,
		Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		Retry:     provider.RetryPolicy{Base: 10 * time.Millisecond}, StallTimeout: 5 * time.Second,
		History: agent.HistoryOptions{MaxMessages: 1000},
	}
	if hide {
		cfg.Transport = hideWindow{}
	}
	if tp != nil {
		cfg.Tracer = tp.Tracer("test")
	}
	return srv, agent.New(cfg)
}

func toolNames(r llmtest.Request) []string {
	var out []string
	for _, t := range r.Body.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// The whole tool set is over llama-server's -c 2048 and co did not know
// the window: its 400 (n_prompt_tokens, n_ctx) makes co learn the window,
// send only the shell and files tools, and try once more; the answer
// comes, and the window stays learned.
func TestLlamaCppFirstRequestOverRetriesWithCoreTools(t *testing.T) {
	srv, ag := llamaAgent(t, 2048, true,
		sizedTool{"run_shell_command", 200}, sizedTool{"read_file", 200},
		sizedTool{"web_search", 3000}, sizedTool{"web_fetch", 3000}, sizedTool{"save_memory", 3000})
	srv.Script(llmtest.Reply{Text: "small"})
	evs := run(t, context.Background(), ag, "hi", nil)
	ns := strings.Join(noticesOf(evs), "\n")
	if fin := finished(t, evs); fin.Text != "small" {
		t.Fatalf("fin %+v; notices %s", fin, ns)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the refused one and one retry", len(reqs))
	}
	first := llmtest.PromptTokens(reqs[0])
	if len(reqs[0].Body.Tools) != 5 || first < 2048 {
		t.Fatalf("first request: %d tools, %d tokens", len(reqs[0].Body.Tools), first)
	}
	if got := toolNames(reqs[1]); !slices.Equal(got, []string{"run_shell_command", "read_file"}) || llmtest.PromptTokens(reqs[1]) >= 2048 {
		t.Fatalf("retry: tools %v, %d tokens", got, llmtest.PromptTokens(reqs[1]))
	}
	want := fmt.Sprintf("llama.cpp refused the request as longer than its context window (%d tokens sent, 2048 in the window)", first)
	if !strings.Contains(ns, want) || !strings.Contains(ns, "sends only the shell and files tools") {
		t.Fatalf("notices: %s", ns)
	}
	if strings.Contains(ns, "ummaris") {
		t.Fatalf("nothing was summarised: %s", ns)
	}
	if ag.ContextWindow() != 2048 || ag.ProviderName() != "llama.cpp" {
		t.Fatalf("window %d, provider %q", ag.ContextWindow(), ag.ProviderName())
	}
	// The next turn goes small at once: no refusal.
	srv.Script(llmtest.Reply{Text: "again"})
	if fin := finished(t, run(t, context.Background(), ag, "more", nil)); fin.Text != "again" || len(srv.Requests()) != 3 {
		t.Fatalf("second turn: %+v, %d requests", fin, len(srv.Requests()))
	}
}

// A request that does not fit even with the core tools and the compact
// prompt: no futile retry; the message has the server's two numbers, what
// to do (a -c figure, llm_context_window, fewer tools) and says "after
// summarising" only when co summarised.
func TestLlamaCppWindowTooSmallSaysBothNumbers(t *testing.T) {
	t.Run("nothing to summarise", func(t *testing.T) {
		// The tokenizer counts 1.7 times co's estimate (issue 39: 2,172
		// tokens counted for co's smallest request on -c 2048).
		srv, ag := llamaAgent(t, 2048, false, sizedTool{"run_shell_command", 2600}, sizedTool{"read_file", 2600})
		srv.SetTokenScale(1.7)
		srv.Script(llmtest.Reply{Text: "never"})
		// Too long even without tools (bare.go): no retry is sent.
		f := failed(t, run(t, context.Background(), ag, "hi "+strings.Repeat("word ", 1000), nil))
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests; a retry could only be refused again", len(reqs))
		}
		counted := int(float64(llmtest.PromptTokens(reqs[0]))*1.7 + 0.5)
		for _, want := range []string{
			fmt.Sprintf("llama.cpp refused the request: its %d tokens (n_prompt_tokens) do not fit the server's context window of 2048 tokens (n_ctx)", counted),
			"-c 4096 or more", "llm_context_window", "llm_tool_groups",
		} {
			if !strings.Contains(f.Message, want) {
				t.Errorf("message lacks %q:\n%s", want, f.Message)
			}
		}
		if strings.Contains(f.Message, "summaris") {
			t.Errorf("nothing was summarised:\n%s", f.Message)
		}
	})
	t.Run("after summarising", func(t *testing.T) {
		srv, ag := llamaAgent(t, 2048, false, sizedTool{"run_shell_command", 2300}, sizedTool{"read_file", 2300})
		srv.SetTokenScale(2)
		var h []message.Message
		for i := range 3 {
			h = append(h, message.Message{Role: message.RoleUser, Content: fmt.Sprintf("q%d %s", i, strings.Repeat("w", 600))},
				message.Message{Role: message.RoleAssistant, Content: fmt.Sprintf("a%d", i)})
		}
		ag.SetHistory(h)
		srv.SetDefault(llmtest.Reply{Text: "- summary"})
		f := failed(t, run(t, context.Background(), ag, "next "+strings.Repeat("w", 4000), nil))
		if !strings.Contains(f.Message, "after summarising older messages") || !strings.Contains(f.Message, "2048 tokens (n_ctx)") {
			t.Fatalf("message:\n%s", f.Message)
		}
		chats := 0
		for _, r := range srv.Requests() {
			if r.Stream {
				chats++
			}
		}
		if chats != 1 {
			t.Fatalf("%d turn requests; the summary left it too long to send again", chats)
		}
	})
}

// llama-server without --jinja answers any request with tools HTTP 500
// "tools param requires --jinja flag": co does not retry it as a failure,
// asks once more without tools, says once how to get them, and sends
// none for the rest of the session.
func TestLlamaCppWithoutJinja(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	srv, ag := llamaAgentTraced(t, 32768, false, tp, echoTool{})
	srv.SetLlamaNoJinja(true)
	srv.Script(llmtest.Reply{Text: "hello"}, llmtest.Reply{Text: "again"})

	evs := run(t, context.Background(), ag, "hi", nil)
	ns := noticesOf(evs)
	if fin := finished(t, evs); fin.Text != "hello" {
		t.Fatalf("fin %+v; notices %q", fin, ns)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[0].Body.Tools) == 0 || len(reqs[1].Body.Tools) != 0 {
		t.Fatalf("%d requests (tools: %v); want one with tools, then one without", len(reqs), func() (n []int) {
			for _, r := range reqs {
				n = append(n, len(r.Body.Tools))
			}
			return
		}())
	}
	jinja := 0
	for _, n := range ns {
		if strings.Contains(n, "retrying") {
			t.Errorf("the 500 was retried: %q", n)
		}
		if strings.Contains(n, "start llama-server with --jinja") {
			jinja++
		}
	}
	if jinja != 1 {
		t.Fatalf("notices %q", ns)
	}
	if got := ag.NoTools(); got != agent.NoToolsJinjaLine {
		t.Fatalf("NoTools = %q", got)
	}

	evs = run(t, context.Background(), ag, "more", nil)
	if fin := finished(t, evs); fin.Text != "again" || len(noticesOf(evs)) != 0 {
		t.Fatalf("second turn: %+v, notices %q", fin, noticesOf(evs))
	}
	if reqs := srv.Requests(); len(reqs) != 3 || len(reqs[2].Body.Tools) != 0 {
		t.Fatalf("second turn: %d requests", len(reqs))
	}
	// /props named the server: the chat spans say llama.cpp.
	names := map[string]bool{}
	for _, s := range rec.Ended() {
		if strings.HasPrefix(s.Name(), "chat ") {
			for _, kv := range s.Attributes() {
				if kv.Key == "gen_ai.provider.name" {
					names[kv.Value.AsString()] = true
				}
			}
		}
	}
	if !names["llama.cpp"] {
		t.Fatalf("gen_ai.provider.name %v", names)
	}
}

// /props names llama-server's build: co calls the provider llama.cpp.
func TestLlamaCppNamedFromProps(t *testing.T) {
	_, ag := llamaAgent(t, 8192, false)
	ag.LearnWindow(context.Background())
	if ag.ProviderName() != "llama.cpp" || ag.ServerBuild() != llmtest.LlamaBuild {
		t.Fatalf("provider %q, build %q", ag.ProviderName(), ag.ServerBuild())
	}
	// vLLM's /v1/models says no such thing.
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileVLLM)
	vllm := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "Qwen/Qwen3-8B"}})
	vllm.LearnWindow(context.Background())
	if vllm.ProviderName() != "openai" || vllm.ServerBuild() != "" {
		t.Fatalf("vLLM named %q (%q)", vllm.ProviderName(), vllm.ServerBuild())
	}
}

// The first reply's bound (docs/providers.md, "A bound on every reply"): at most half
// the window until the server has counted a prompt; after that, what the
// window leaves after the calibrated prompt.
func TestFirstReplyBoundIsHalfTheWindow(t *testing.T) {
	srv, ag := llamaAgent(t, 4096, false, echoTool{})
	srv.Script(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	finished(t, run(t, context.Background(), ag, "hi", nil))
	finished(t, run(t, context.Background(), ag, "hi again", nil))
	reqs := srv.Requests()
	bound := func(r llmtest.Request) int {
		var n int
		_ = json.Unmarshal(r.Fields()["max_tokens"], &n)
		return n
	}
	if b := bound(reqs[0]); b != 2048 {
		t.Fatalf("first reply's bound %d of 4096, want half the window", b)
	}
	// The second prompt was counted like the first: the window less it.
	if b, p := bound(reqs[1]), llmtest.PromptTokens(reqs[1]); b <= 2048 || b > 4096-p+16 || b < 4096-p-16 {
		t.Fatalf("second reply's bound %d with a %d-token prompt", b, p)
	}
}

// A resumed conversation keeps the last request's size (for the 80%
// reason to compact) but not the calibration: its first reply's bound is
// again at most half the window.
func TestFirstReplyBoundAfterResumeIsHalfTheWindow(t *testing.T) {
	srv, ag := llamaAgent(t, 4096, false, echoTool{})
	srv.Script(llmtest.Reply{Text: "one"})
	finished(t, run(t, context.Background(), ag, "hi", nil))
	h := ag.History()
	if h[len(h)-1].InputTokens <= 0 {
		t.Fatalf("the reply does not carry its request's size: %+v", h[len(h)-1])
	}
	srv2, resumed := llamaAgent(t, 4096, false, echoTool{})
	resumed.Restore(h, ag.Usage(), 1)
	srv2.Script(llmtest.Reply{Text: "two"})
	finished(t, run(t, context.Background(), resumed, "hi again", nil))
	var n int
	_ = json.Unmarshal(srv2.Requests()[0].Fields()["max_tokens"], &n)
	if n != 2048 {
		t.Fatalf("the first reply's bound after a resume is %d of 4096, want half the window", n)
	}
}
