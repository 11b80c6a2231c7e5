package agent_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// llamaFixture is an agent against llmtest's llamacpp profile with a
// context of nCtx tokens: the model name co sends is not the server's.
func llamaFixture(t *testing.T, nCtx int) (*llmtest.Server, *agent.Agent) {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	srv.SetLlamaContext(nCtx)
	reg, _ := tools.NewRegistry(echoTool{})
	ag := agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "whatever-name"},
		SystemPrompt: "You are a test.", Tools: reg,
		Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		Retry:     provider.RetryPolicy{Base: 10 * time.Millisecond}, StallTimeout: 5 * time.Second,
		History: agent.HistoryOptions{MaxMessages: 1000},
	})
	return srv, ag
}

func noticesOf(evs []agent.Event) []string {
	var out []string
	for _, e := range evs {
		if n, ok := e.(agent.Notice); ok {
			out = append(out, n.Text)
		}
	}
	return out
}

// The window comes from llama-server's /props (the slot's n_ctx), and
// says where it came from.
func TestWindowLearnedFromLlamaProps(t *testing.T) {
	srv, ag := llamaFixture(t, 8192)
	srv.Script(llmtest.Reply{Text: "hi"})
	ag.LearnWindow(context.Background())
	if w, src := ag.ContextWindow(), ag.ContextWindowSource(); w != 8192 || !strings.Contains(src, "/props") {
		t.Fatalf("window %d from %q, want 8192 from /props", w, src)
	}
	finished(t, run(t, context.Background(), ag, "hello", nil))
}

// vLLM reports max_model_len in /v1/models.
func TestWindowLearnedFromVLLMModels(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileVLLM)
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "Qwen/Qwen3-8B"}})
	ag.LearnWindow(context.Background())
	if w, src := ag.ContextWindow(), ag.ContextWindowSource(); w != 40960 || !strings.Contains(src, "max_model_len") {
		t.Fatalf("window %d from %q, want 40960 from max_model_len", w, src)
	}
}

// A long conversation on a small window is summarised before it would
// overflow, and no request the server sees is over its window.
func TestSmallWindowSummarisesBeforeOverflow(t *testing.T) {
	srv, ag := llamaFixture(t, 1024)
	srv.SetDefault(llmtest.Reply{Text: "- the summary so far"})
	long := strings.Repeat("a long message about the garden and its plants. ", 40) // ~2,000 chars, ~500 tokens
	summarised := false
	for i := range 6 {
		srv.Script(llmtest.Reply{Text: fmt.Sprintf("answer %d", i)})
		evs := run(t, context.Background(), ag, fmt.Sprintf("turn %d: %s", i, long), nil)
		for _, n := range noticesOf(evs) {
			summarised = summarised || strings.Contains(n, "Summarised")
		}
		if f, ok := last(t, evs).(agent.TurnFailed); ok {
			t.Fatalf("turn %d failed: %s", i, f.Message)
		}
	}
	if !summarised {
		t.Error("the conversation was never summarised")
	}
	for i, r := range srv.Requests() {
		if n := llmtest.PromptTokens(r); n >= 1024 {
			t.Errorf("request %d: %d tokens on a 1024-token window", i+1, n)
		}
		if r.Stream {
			assertValidHistory(t, r)
		}
	}
}

// The server's "context exceeded" 400 (co did not know the window): co
// summarises and retries once; when that is still too long, a clear
// message with the numbers.
func TestContextExceededSummarisesAndRetriesOnce(t *testing.T) {
	srv, ag := llamaFixture(t, 1024)
	// The server does not say its window: co learns it from the 400.
	ag2 := agent.New(agent.Config{
		Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "m"}, SystemPrompt: "You are a test.",
		Transport: hideWindow{}, StallTimeout: 5 * time.Second, Retry: provider.RetryPolicy{Base: 10 * time.Millisecond},
	})
	_ = ag
	var h []message.Message
	for i := range 8 {
		h = append(h, message.Message{Role: message.RoleUser, Content: fmt.Sprintf("q%d %s", i, strings.Repeat("x", 600))},
			message.Message{Role: message.RoleAssistant, Content: fmt.Sprintf("a%d", i)})
	}
	ag2.SetHistory(h)
	srv.Script(llmtest.Reply{Text: "- short summary"}, llmtest.Reply{Text: "fits now"})
	evs := run(t, context.Background(), ag2, "next", nil)
	fin := finished(t, evs)
	if fin.Text != "fits now" {
		t.Fatalf("fin = %+v", fin)
	}
	ns := strings.Join(noticesOf(evs), "\n")
	if !strings.Contains(ns, "longer than its context window") || !strings.Contains(ns, "1024 in the window") {
		t.Fatalf("notices: %s", ns)
	}
	if w := ag2.ContextWindow(); w != 1024 {
		t.Fatalf("window learned from the 400: %d", w)
	}

	// A single message that cannot fit even after summarising: one retry at
	// most, then the numbers.
	ag3 := agent.New(agent.Config{
		Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "m"}, SystemPrompt: "You are a test.",
		Transport: hideWindow{}, StallTimeout: 5 * time.Second, Retry: provider.RetryPolicy{Base: 10 * time.Millisecond},
	})
	before := len(srv.Requests())
	f := failed(t, run(t, context.Background(), ag3, strings.Repeat("y", 8000), nil))
	if !strings.Contains(f.Message, "do not fit") || !strings.Contains(f.Message, "1024 tokens") || strings.Contains(f.Message, "summarising") {
		t.Fatalf("message: %q", f.Message)
	}
	if n := len(srv.Requests()) - before; n > 2 {
		t.Fatalf("%d requests for a prompt that cannot fit; want the first and no more than one retry", n)
	}
}

// hideWindow answers /props and /v1/models with 404, as a server that
// does not say its window.
type hideWindow struct{}

func (hideWindow) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		return &http.Response{StatusCode: 404, Body: io.NopCloser(strings.NewReader("{}")), Header: http.Header{}, Request: r}, nil
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Ollama cuts a prompt longer than num_ctx and says nothing but
// prompt_eval_count = num_ctx: co tells the user and summarises before the
// next request.
func TestOllamaTruncationDetected(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(llmtest.OllamaModel{Name: "tiny:latest", Family: "llama", ContextLength: 2048, Capabilities: []string{"completion", "tools"}})
	// The model's tokenizer counts half as much again as co's first
	// estimate (characters / 4): co's request fits by its count, not by
	// Ollama's.
	srv.SetTokenScale(1.5)
	p := provider.Provider{Name: "ollama", BaseURL: srv.URL, APIKey: "ollama", Model: "tiny"}
	ag := agent.New(agent.Config{Provider: p, SystemPrompt: "You are a test.", StallTimeout: 5 * time.Second,
		Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true})})
	var h []message.Message
	for i := range 6 {
		h = append(h, message.Message{Role: message.RoleUser, Content: fmt.Sprintf("q%d %s", i, strings.Repeat("z", 1000))},
			message.Message{Role: message.RoleAssistant, Content: fmt.Sprintf("a%d", i)})
	}
	ag.SetHistory(h)
	srv.Script(llmtest.Reply{Text: "cut"}, llmtest.Reply{Text: "- summary"}, llmtest.Reply{Text: "whole"})
	evs := run(t, context.Background(), ag, "first", nil)
	finished(t, evs)
	if ns := strings.Join(noticesOf(evs), "\n"); !strings.Contains(ns, "Ollama cut the prompt") || !strings.Contains(ns, "2048") {
		t.Fatalf("notices: %s", ns)
	}
	evs = run(t, context.Background(), ag, "second", nil)
	if fin := finished(t, evs); fin.Text != "whole" {
		t.Fatalf("second turn: %+v", fin)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[1].Stream {
		t.Fatalf("want chat, summary, chat; got %d requests", len(reqs))
	}
	if ns := strings.Join(noticesOf(evs), "\n"); strings.Contains(ns, "Ollama cut the prompt") {
		t.Fatalf("the second request was cut too: %s", ns)
	}
}

// On a window too small for co's own prompt and tools, co sends only the
// core tools and a compact prompt, and says so once.
func TestSmallWindowSendsLess(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	srv.SetLlamaContext(1024)
	reg, _ := tools.NewRegistry(echoTool{})
	ag := agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "m"},
		SystemPrompt: strings.Repeat("A long system prompt with many rules. ", 60), // ~2,300 chars
		Tools:        reg, Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		StallTimeout: 5 * time.Second,
	})
	srv.Script(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	evs := run(t, context.Background(), ag, "hi", nil)
	finished(t, evs)
	ns := strings.Join(noticesOf(evs), "\n")
	if !strings.Contains(ns, "context window is small (1024 tokens)") || !strings.Contains(ns, "compact system prompt") {
		t.Fatalf("notices: %s", ns)
	}
	r := srv.Requests()[0]
	if len(r.Body.Tools) != 0 || strings.Contains(r.Body.Messages[0].Content, "many rules") {
		t.Fatalf("sent %d tools and system %q", len(r.Body.Tools), r.Body.Messages[0].Content)
	}
	if ag.ToolSent("echo_text") || !ag.ToolSent("run_shell_command") || ag.SendingLess() == "" {
		t.Fatal("ToolSent / SendingLess do not say what is sent")
	}
	// Said once.
	evs = run(t, context.Background(), ag, "again", nil)
	finished(t, evs)
	if ns := noticesOf(evs); len(ns) != 0 {
		t.Fatalf("told again: %v", ns)
	}
}

// llm_tool_groups chooses the groups sent.
func TestToolGroupsSetting(t *testing.T) {
	f := newFixture(t, func(c *agent.Config) { c.ToolGroups = []string{"shell"} })
	f.srv.Script(llmtest.Reply{Text: "ok"})
	finished(t, run(t, context.Background(), f.ag, "hi", nil))
	if n := len(f.srv.Requests()[0].Body.Tools); n != 0 {
		t.Fatalf("%d tools sent; the fixture's tools are all in group other", n)
	}
	for name, g := range map[string]string{"run_shell_command": "shell", "read_file": "files", "todo_list": "todo",
		"save_memory": "memory", "web_fetch": "web", "read_note": "notes", "write_note": "notes", "read_skill": "skills",
		"list_emails": "google", "create_calendar_event": "google", "send_slack_message": "slack", "mcp__x__y": "mcp", "echo_text": "other"} {
		if got := agent.ToolGroup(name); got != g {
			t.Errorf("ToolGroup(%s) = %s, want %s", name, got, g)
		}
	}
}

// With the window known from /api/show and num_ctx, co summarises before
// Ollama would cut anything.
func TestOllamaBudgetAvoidsTruncation(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(llmtest.OllamaModel{Name: "tiny:latest", Family: "llama", ContextLength: 2048, Capabilities: []string{"completion", "tools"}})
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "ollama", BaseURL: srv.URL, APIKey: "ollama", Model: "tiny"},
		SystemPrompt: "You are a test.", StallTimeout: 5 * time.Second})
	var h []message.Message
	for i := range 6 {
		h = append(h, message.Message{Role: message.RoleUser, Content: fmt.Sprintf("q%d %s", i, strings.Repeat("z", 2000))},
			message.Message{Role: message.RoleAssistant, Content: fmt.Sprintf("a%d", i)})
	}
	ag.SetHistory(h)
	srv.Script(llmtest.Reply{Text: "- summary"}, llmtest.Reply{Text: "whole"})
	evs := run(t, context.Background(), ag, "next", nil)
	ns := strings.Join(noticesOf(evs), "\n")
	if fin := finished(t, evs); fin.Text != "whole" || !strings.Contains(ns, "Summarised") {
		t.Fatalf("fin %+v, notices %s", fin, ns)
	}
	if strings.Contains(ns, "Ollama cut") {
		t.Fatalf("Ollama cut the prompt: %s", ns)
	}
	if w, src := ag.ContextWindow(), ag.ContextWindowSource(); w != 2048 || !strings.Contains(src, "num_ctx") {
		t.Fatalf("window %d from %q", w, src)
	}
}

// A tokenizer that counts more than co's estimate: llama-server refuses
// the request co thought fitted; co calibrates its estimate with the
// numbers of the 400, summarises, and the retry fits.
func TestContextExceededCalibrates(t *testing.T) {
	srv, ag := llamaFixture(t, 2048)
	srv.SetTokenScale(1.6)
	var h []message.Message
	for i := range 6 {
		h = append(h, message.Message{Role: message.RoleUser, Content: fmt.Sprintf("q%d %s", i, strings.Repeat("w", 900))},
			message.Message{Role: message.RoleAssistant, Content: fmt.Sprintf("a%d", i)})
	}
	ag.SetHistory(h)
	srv.Script(llmtest.Reply{Text: "- summary"}, llmtest.Reply{Text: "fits"})
	evs := run(t, context.Background(), ag, "next", nil)
	ns := strings.Join(noticesOf(evs), "\n")
	if fin := finished(t, evs); fin.Text != "fits" {
		t.Fatalf("fin %+v; notices %s", fin, ns)
	}
	if !strings.Contains(ns, "refused the request as longer than its context window") {
		t.Fatalf("notices: %s", ns)
	}
	// Later requests are estimated with the server's count: none refused.
	srv.SetDefault(llmtest.Reply{Text: "- summary or answer"})
	for i := range 4 {
		evs := run(t, context.Background(), ag, fmt.Sprintf("more %d %s", i, strings.Repeat("v", 900)), nil)
		if f, ok := last(t, evs).(agent.TurnFailed); ok {
			t.Fatalf("turn %d: %s", i, f.Message)
		}
		if ns := strings.Join(noticesOf(evs), "\n"); strings.Contains(ns, "refused") {
			t.Fatalf("turn %d refused again: %s", i, ns)
		}
	}
}

// OpenAI's 400 context_length_exceeded (its message names both numbers):
// summarised and retried once.
func TestOpenAIContextLengthExceeded(t *testing.T) {
	f := newFixture(t, nil)
	f.ag.SetHistory(longHistory(3))
	f.srv.Script(
		llmtest.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorCode: "context_length_exceeded",
			ErrorMessage: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages."},
		llmtest.Reply{Text: "- summary"},
		llmtest.Reply{Text: "fits"},
	)
	evs := run(t, context.Background(), f.ag, "next", nil)
	if fin := finished(t, evs); fin.Text != "fits" {
		t.Fatalf("fin = %+v", fin)
	}
	if ns := strings.Join(noticesOf(evs), "\n"); !strings.Contains(ns, "130512 tokens sent, 128000 in the window") {
		t.Fatalf("notices: %s", ns)
	}
	if w, src := f.ag.ContextWindow(), f.ag.ContextWindowSource(); w != 128000 || !strings.Contains(src, "context-exceeded") {
		t.Fatalf("window %d from %q", w, src)
	}
	assertValidHistory(t, f.srv.Requests()[2])

	// Twice in a turn: the numbers, no third request.
	f.srv.Script(
		llmtest.Reply{Status: 400, ErrorCode: "context_length_exceeded", ErrorMessage: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens."},
		llmtest.Reply{Text: "- summary"},
		llmtest.Reply{Status: 400, ErrorCode: "context_length_exceeded", ErrorMessage: "This model's maximum context length is 128000 tokens. However, your messages resulted in 129000 tokens."},
	)
	before := len(f.srv.Requests())
	fail := failed(t, run(t, context.Background(), f.ag, "again", nil))
	if !strings.Contains(fail.Message, "129000 tokens") || !strings.Contains(fail.Message, "128000 tokens") {
		t.Fatalf("message: %q", fail.Message)
	}
	if n := len(f.srv.Requests()) - before; n != 3 {
		t.Fatalf("%d requests, want the request, a summary and one retry", n)
	}
}
