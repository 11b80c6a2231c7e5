package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// longUserMessage is about 1,100 tokens (characters / 4) of prose.
func longUserMessage(turn int) string {
	return fmt.Sprintf("turn %d: ", turn) + strings.Repeat(fmt.Sprintf("In turn %d we talk about the garden, the roses and the old pear tree. ", turn), 62)
}

// summaryRequests are the requests co made for itself (not streamed): the
// summaries.
func summaryRequests(reqs []llmtest.Request) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range reqs {
		if !r.Stream {
			out = append(out, r)
		}
	}
	return out
}

// intField is a top-level integer field of r's body, 0 when absent.
func intField(r llmtest.Request, name string) int {
	var n int
	_ = json.Unmarshal(r.Fields()[name], &n)
	return n
}

// numPredict is options.num_predict of an /api/chat request, 0 when absent.
func numPredict(r llmtest.Request) int {
	var b struct {
		Options struct {
			NumPredict int `json:"num_predict"`
		} `json:"options"`
	}
	_ = json.Unmarshal(r.Raw, &b)
	return b.Options.NumPredict
}

// summaryIn is the summary a chat request carries, "" when none.
func summaryIn(r llmtest.Request) string {
	for _, m := range r.Body.Messages {
		if m.Role == "user" && strings.HasPrefix(m.Content, agent.SummaryIntro) {
			return strings.TrimPrefix(m.Content, agent.SummaryIntro)
		}
	}
	return ""
}

// longConversation runs 12 turns of ~1,100-token messages against a model
// that rambles until its bound, summaries and answers alike, and checks
// that every turn is answered, every summary request carries bound in
// the field got reads, no turn runs more than one summary, no request
// overflows window (prompt tokens as the server counts them) and no
// summary is fed back longer than its bound.
func longConversation(t *testing.T, srv *llmtest.Server, ag *agent.Agent, window, bound int, got func(llmtest.Request) int) {
	t.Helper()
	srv.SetDefault(llmtest.Reply{Endless: true})
	summaries := 0
	for i := range 12 {
		before := len(srv.Requests())
		evs := run(t, context.Background(), ag, longUserMessage(i), nil)
		if f, ok := last(t, evs).(agent.TurnFailed); ok {
			t.Fatalf("turn %d of 12 failed: %s", i+1, f.Message)
		}
		finished(t, evs)
		reqs := srv.Requests()[before:]
		sums := summaryRequests(reqs)
		if len(sums) > 1 {
			t.Errorf("turn %d ran %d summaries; at most one a turn", i+1, len(sums))
		}
		summaries += len(sums)
		for _, r := range sums {
			if n := got(r); n != bound {
				t.Errorf("turn %d: the summary request's bound is %d, want %d", i+1, n, bound)
			}
		}
		for _, r := range reqs {
			if n := llmtest.PromptTokens(r); n >= window {
				t.Errorf("turn %d: a request of %d tokens on a %d-token window", i+1, n, window)
			}
			if s := summaryIn(r); r.Stream && len(s) > bound*42/10+100 {
				t.Errorf("turn %d: a summary of %d characters fed back; the bound is %d tokens", i+1, len(s), bound)
			} else if r.Stream && s != "" && !strings.Contains(s, "summary cut at its bound") {
				// Every rambling summary stopped at its bound ("length").
				t.Errorf("turn %d: a summary stopped by its bound is not marked as cut: …%q", i+1, s[max(0, len(s)-80):])
			}
		}
	}
	if summaries == 0 {
		t.Fatal("12 long turns and never a summary")
	}
}

// llama-server with -c 8192 and -c 2048 (window from /props), a model that
// rambles until its bound: every summary asks max_tokens, an eighth of the
// window at most 1024, and the conversation lasts.
func TestLongConversationLlamaCpp(t *testing.T) {
	for _, c := range []struct{ nCtx, bound int }{{8192, 1024}, {2048, 256}} {
		t.Run(fmt.Sprint(c.nCtx), func(t *testing.T) {
			srv, ag := llamaFixture(t, c.nCtx)
			longConversation(t, srv, ag, c.nCtx, c.bound, func(r llmtest.Request) int { return intField(r, "max_tokens") })
		})
	}
}

// Ollama's native route, a tool-less tiny model at 4k: summaries ask
// options.num_predict.
func TestLongConversationOllamaNative(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(llmtest.OllamaModel{Name: "tiny-chat:latest", Family: "llama", ContextLength: 4096, Capabilities: []string{"completion"}})
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "ollama", BaseURL: srv.URL, APIKey: "ollama", Model: "tiny-chat"},
		SystemPrompt: "You are a test.", StallTimeout: 5 * time.Second,
		Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true})})
	longConversation(t, srv, ag, 4096, 512, numPredict)
	for _, r := range srv.Requests() {
		if !strings.HasSuffix(r.Path, "/api/chat") {
			t.Fatalf("a request to %s; all go to /api/chat", r.Path)
		}
	}
}

// The bound of a summary: an eighth of the window between 128 and 1024
// tokens, 1024 when the window is unknown, in max_completion_tokens for
// OpenAI's reasoning models (go-openai refuses max_tokens for them), with
// room for the reasoning of a model that thinks.
func TestSummaryRequestBound(t *testing.T) {
	for _, c := range []struct {
		name   string
		model  string
		window int
		field  string
		bound  int
	}{
		{"unknown window", "test-model", 0, "max_tokens", 1024},
		{"small window", "test-model", 1000, "max_tokens", 128},
		{"32k", "test-model", 32768, "max_tokens", 1024},
		{"4k", "test-model", 4096, "max_tokens", 512},
		{"reasoning model", "gpt-5-mini", 0, "max_completion_tokens", 4096},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, func(cfg *agent.Config) {
				cfg.Provider.Model = c.model
				cfg.History.ContextWindow = c.window
			})
			f.ag.SetHistory(longHistory(3))
			f.srv.Script(llmtest.Reply{Text: "- three questions"})
			if _, err := f.ag.Compact(context.Background()); err != nil {
				t.Fatal(err)
			}
			r := f.srv.Requests()[0]
			other := map[string]string{"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}[c.field]
			if n := intField(r, c.field); n != c.bound || intField(r, other) != 0 {
				t.Fatalf("%s %d, %s %d; want %s %d", c.field, n, other, intField(r, other), c.field, c.bound)
			}
		})
	}
}

// Gemini's OpenAI-compatible endpoint takes max_tokens as
// maxOutputTokens, which its thinking models spend on their thoughts too
// (docs/providers.md, Gemini): the summary asks max_tokens with room for
// the thinking, four times the summary's bound, and no
// max_completion_tokens.
func TestGeminiSummaryRequestBound(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileGemini, "gemini-3.5-flash", nil)
	f.ag.SetHistory(longHistory(3))
	f.srv.Script(llmtest.Reply{Text: "- three questions"})
	if _, err := f.ag.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := f.srv.Requests()[0]
	if r.Stream || !strings.HasSuffix(r.Path, "/chat/completions") {
		t.Fatalf("the summary request: %s, stream %v", r.Path, r.Stream)
	}
	if n, c := intField(r, "max_tokens"), intField(r, "max_completion_tokens"); n != 4*1024 || c != 0 {
		t.Fatalf("max_tokens %d, max_completion_tokens %d; want max_tokens 4096 (a bound of 1024 and room to think)", n, c)
	}
}

// A server that ignores the bound (or a summary stopped at it) is cut to
// the bound, on a UTF-8 boundary, and marked as cut: never fed back whole.
func TestSummaryOverBoundIsCut(t *testing.T) {
	f := newFixture(t, func(c *agent.Config) { c.History = agent.HistoryOptions{MaxMessages: 12, ContextWindow: 4096} })
	f.ag.SetHistory(longHistory(5))
	long := strings.Repeat("- é a fact about the garden that goes on and on\n", 1000) // ~50,000 bytes
	f.srv.Script(llmtest.Reply{Text: long}, llmtest.Reply{Text: "fine"})
	evs := run(t, context.Background(), f.ag, "next", nil)
	finished(t, evs)
	reqs := f.srv.Requests()
	if n := intField(reqs[0], "max_tokens"); n != 512 {
		t.Fatalf("summary max_tokens %d, want 512", n)
	}
	s := summaryIn(reqs[1])
	if len(s) > 512*4+200 || !strings.Contains(s, "cut") || !strings.HasPrefix(s, "- é a fact") {
		t.Fatalf("summary fed back: %d bytes, %q…", len(s), s[:min(len(s), 80)])
	}
	if !utf8Valid(s) {
		t.Fatal("the cut summary is not valid UTF-8")
	}

	// finish_reason "length" within the bound: kept, marked as cut.
	f.ag.SetHistory(longHistory(5))
	f.srv.Script(llmtest.Reply{Text: "- the user asked", FinishReason: "length"}, llmtest.Reply{Text: "fine"})
	finished(t, run(t, context.Background(), f.ag, "again", nil))
	reqs = f.srv.Requests()
	if s := summaryIn(reqs[len(reqs)-1]); !strings.HasPrefix(s, "- the user asked") || !strings.Contains(s, "cut") {
		t.Fatalf("summary stopped at its bound fed back as %q", s)
	}

	// The whole bound spent with no summary (thinking): a marker that says so.
	f.ag.SetHistory(longHistory(5))
	f.srv.Script(llmtest.Reply{Reasoning: "thinking on and on", FinishReason: "length"}, llmtest.Reply{Text: "fine"})
	evs = run(t, context.Background(), f.ag, "once more", nil)
	finished(t, evs)
	if ns := strings.Join(noticesOf(evs), "\n"); !strings.Contains(ns, "length bound without writing a summary") {
		t.Fatalf("notices: %s", ns)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// One compaction a turn: the part summarised is chosen so that the
// request fits once the summary takes its bound, rather than summarising
// the older half, finding it still too long and summarising again.
func TestOneCompactionPerTurn(t *testing.T) {
	exchanges := func(n int) []message.Message {
		var h []message.Message
		for i := range n {
			h = append(h, message.Message{Role: message.RoleUser, Content: fmt.Sprintf("q%d %s", i, strings.Repeat("u", 800))},
				message.Message{Role: message.RoleAssistant, Content: fmt.Sprintf("a%d %s", i, strings.Repeat("v", 800))})
		}
		return h
	}
	for _, c := range []struct {
		name string
		max  int // max_history_messages; 1000: never the reason
		n    int // exchanges before the turn
	}{
		{"window only", 1000, 12},
		{"max_history_messages and window", 12, 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			t.Cleanup(srv.Close)
			srv.SetProfile(llmtest.ProfileLlamaCpp)
			srv.SetLlamaContext(2048)
			ag := agent.New(agent.Config{
				Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "m"}, SystemPrompt: "You are a test.",
				StallTimeout: 5 * time.Second, History: agent.HistoryOptions{MaxMessages: c.max},
			})
			ag.SetHistory(exchanges(c.n))
			srv.SetDefault(llmtest.Reply{Text: "- a short summary, or an answer"})
			evs := run(t, context.Background(), ag, longUserMessage(0), nil)
			finished(t, evs)
			reqs := srv.Requests()
			if n := len(summaryRequests(reqs)); n != 1 {
				t.Fatalf("%d summaries in one turn, want 1; notices %q", n, noticesOf(evs))
			}
			chat := reqs[len(reqs)-1]
			if n := llmtest.PromptTokens(chat); !chat.Stream || n >= 2048 {
				t.Fatalf("the chat request: %d tokens", n)
			}
			assertValidHistory(t, chat)
		})
	}
}

// The soft reasons to compact (here max_history_messages) count once a
// turn: a turn whose tool calls take the history past the window again
// does not summarise before each of its later requests.
func TestSoftReasonCompactsOnceATurn(t *testing.T) {
	f := newFixture(t, func(c *agent.Config) { c.History = agent.HistoryOptions{MaxMessages: 12} })
	f.ag.SetHistory(longHistory(5)) // 20 messages
	f.srv.Rules(
		// A summary request's one user message is its transcript.
		llmtest.Reply{Match: "USER: ", Reusable: true, Text: "- the user asked questions 0-3"},
		llmtest.Reply{Match: "next", ToolCalls: []llmtest.ToolCall{echoCall("1")}},
		llmtest.Reply{Match: "next", ToolCalls: []llmtest.ToolCall{echoCall("2")}},
		llmtest.Reply{Match: "next", ToolCalls: []llmtest.ToolCall{echoCall("3")}},
		llmtest.Reply{Match: "next", Text: "done", Reusable: true},
	)
	evs := run(t, context.Background(), f.ag, "next", nil)
	reqs := f.srv.Requests()
	if n := len(summaryRequests(reqs)); n != 1 {
		t.Fatalf("%d summaries in one turn of %d requests, want 1; notices %q", n, len(reqs), noticesOf(evs))
	}
	if fin := finished(t, evs); fin.Text != "done" {
		t.Fatalf("final text %q", fin.Text)
	}
	if h := f.ag.History(); len(h) <= 12 {
		t.Fatalf("the turn ended with %d messages: its tool calls never took it past max_history_messages, the test proves nothing", len(h))
	}
}

// On Ollama's /api/chat the summary's num_predict leaves a thinking model
// room for its reasoning (it counts against num_predict): four times the
// summary's bound, at most a quarter of the window.
func TestOllamaSummaryBoundForAThinkingModel(t *testing.T) {
	for _, c := range []struct {
		caps []string
		want int
	}{
		{[]string{"completion"}, 512},
		{[]string{"completion", "thinking"}, 1024},
	} {
		srv := llmtest.NewServer()
		t.Cleanup(srv.Close)
		srv.SetProfile(llmtest.ProfileOllama)
		srv.SetOllamaModels(llmtest.OllamaModel{Name: "tiny:latest", Family: "llama", ContextLength: 4096, Capabilities: c.caps})
		ag := agent.New(agent.Config{Provider: provider.Provider{Name: "ollama", BaseURL: srv.URL, APIKey: "ollama", Model: "tiny"},
			SystemPrompt: "You are a test.", StallTimeout: 5 * time.Second})
		ag.SetHistory(longHistory(3))
		srv.Script(llmtest.Reply{Text: "- three questions"})
		if _, err := ag.Compact(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := numPredict(srv.Requests()[0]); n != c.want {
			t.Errorf("capabilities %v: num_predict %d, want %d", c.caps, n, c.want)
		}
	}
}

// bigShellTool stands for the core tools' schemas as co sends them (about
// a thousand tokens): a tool of the shell group with a long description.
type bigShellTool struct{ echoTool }

func (bigShellTool) Name() string { return "run_shell_command" }
func (bigShellTool) Description() string {
	return strings.Repeat("Run a shell command in the sandbox and return its output. ", 70)
}

// On llama-server -c 2048, a ~1,100-token message does not fit with even
// the core tools: that request goes without tools (a notice says so once
// a turn) instead of failing the turn, and a short one carries them again.
func TestLongMessagesOnA2kWindowGoWithoutTools(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	srv.SetLlamaContext(2048)
	reg, _ := tools.NewRegistry(bigShellTool{})
	ag := agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "tiny"},
		SystemPrompt: "You are a test.", Tools: reg,
		Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		Retry:     provider.RetryPolicy{Base: 10 * time.Millisecond}, StallTimeout: 5 * time.Second,
	})
	srv.SetDefault(llmtest.Reply{Endless: true})
	hasTools := func(r llmtest.Request) bool { return len(r.Fields()["tools"]) > 0 }
	for i := range 12 {
		before := len(srv.Requests())
		evs := run(t, context.Background(), ag, longUserMessage(i), nil)
		if f, ok := last(t, evs).(agent.TurnFailed); ok {
			for _, r := range srv.Requests()[before:] {
				t.Logf("stream %v tools %v prompt %d", r.Stream, hasTools(r), llmtest.PromptTokens(r))
			}
			t.Logf("notices %q", noticesOf(evs))
			t.Fatalf("turn %d of 12 failed: %s", i+1, f.Message)
		}
		finished(t, evs)
		told := 0
		for _, n := range noticesOf(evs) {
			if strings.Contains(n, "co sends it without tools") {
				told++
			}
		}
		bare := 0
		for _, r := range srv.Requests()[before:] {
			if n := llmtest.PromptTokens(r); n >= 2048 {
				t.Errorf("turn %d: a request of %d tokens on a 2048-token window", i+1, n)
			}
			if r.Stream && !hasTools(r) {
				bare++
			}
		}
		if bare == 0 || told != 1 {
			t.Fatalf("turn %d: %d requests without tools, %d notices; want the long message sent without tools, said once", i+1, bare, told)
		}
	}
	before := len(srv.Requests())
	finished(t, run(t, context.Background(), ag, "hi", nil))
	reqs := srv.Requests()[before:]
	if r := reqs[len(reqs)-1]; !hasTools(r) {
		t.Fatal("a short message after the long ones went without tools; the tools come back when they fit")
	}
}
