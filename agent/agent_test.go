package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// echoTool is read-only: it returns its text.
type echoTool struct{}

func (echoTool) Name() string        { return "echo_text" }
func (echoTool) Description() string { return "Echo text back." }
func (echoTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`)
}
func (echoTool) Class() tools.Class { return tools.ReadOnly }
func (echoTool) Run(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var a struct{ Text string }
	if err := tools.Decode("echo_text", args, &a); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Display: "echo: " + a.Text, Meta: map[string]any{"count": 1}}, nil
}

// writeTool has a real side effect: it writes a file in dir. Its policy
// denies the name "forbidden", always asks for ".git/…", and scopes grants
// by the file name's first path element.
type writeTool struct {
	dir string
	mu  sync.Mutex
	n   int
}

func (*writeTool) Name() string        { return "write_note" }
func (*writeTool) Description() string { return "Write a file." }
func (*writeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"text":{"type":"string"}},"required":["name","text"]}`)
}
func (*writeTool) Class() tools.Class { return tools.SideEffect }
func (w *writeTool) Check(_ context.Context, args json.RawMessage) tools.Check {
	var a struct{ Name string }
	_ = json.Unmarshal(args, &a)
	switch {
	case a.Name == "forbidden":
		return tools.Check{Decision: tools.Deny, Reason: "forbidden name"}
	case strings.HasPrefix(a.Name, ".git/"):
		return tools.Check{Decision: tools.Ask, Reason: "writes into .git", AlwaysAsk: true}
	}
	scope := strings.SplitN(a.Name, "/", 2)[0]
	return tools.Check{Decision: tools.Ask, Reason: "writes a file", Scope: "write_note:" + scope, ScopeLabel: scope}
}
func (w *writeTool) Run(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var a struct{ Name, Text string }
	if err := tools.Decode("write_note", args, &a); err != nil {
		return tools.Result{}, err
	}
	p := filepath.Join(w.dir, a.Name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return tools.Result{}, err
	}
	w.mu.Lock()
	w.n++
	w.mu.Unlock()
	return tools.Text("wrote " + a.Name), os.WriteFile(p, []byte(a.Text), 0o644)
}

func (w *writeTool) exists(name string) bool {
	_, err := os.Stat(filepath.Join(w.dir, name))
	return err == nil
}

// blockTool blocks until its context ends (to interrupt a running tool).
type blockTool struct{ started chan struct{} }

func (blockTool) Name() string        { return "wait_forever" }
func (blockTool) Description() string { return "Wait." }
func (blockTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (blockTool) Class() tools.Class { return tools.ReadOnly }
func (b blockTool) Run(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
	close(b.started)
	<-ctx.Done()
	return tools.Result{}, ctx.Err()
}

// panicTool panics.
type panicTool struct{}

func (panicTool) Name() string            { return "explode" }
func (panicTool) Description() string     { return "Panic." }
func (panicTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (panicTool) Class() tools.Class      { return tools.ReadOnly }
func (panicTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	panic("boom")
}

type fixture struct {
	srv   *llmtest.Server
	ag    *agent.Agent
	write *writeTool
	block blockTool
}

func newFixture(t *testing.T, mod func(*agent.Config)) *fixture {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	w := &writeTool{dir: t.TempDir()}
	b := blockTool{started: make(chan struct{})}
	reg, err := tools.NewRegistry(echoTool{}, w, b, panicTool{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "test-key", Model: "test-model", KeyEnv: "OPENAI_API_KEY"},
		SystemPrompt: "You are a test.",
		Tools:        reg,
		Approvals:    agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		ToolRetries:  3,
		Retry:        provider.RetryPolicy{Base: 10 * time.Millisecond},
		StallTimeout: 5 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	return &fixture{srv: srv, ag: agent.New(cfg), write: w, block: b}
}

// run submits prompt and collects its events, answering approvals with
// answer (nil: fail the test on any approval request).
func run(t *testing.T, ctx context.Context, ag *agent.Agent, prompt string, answer func(agent.ApprovalRequested) []message.Verdict) []agent.Event {
	t.Helper()
	return collect(t, ag.Submit(ctx, prompt), answer)
}

// collect gathers a turn's events as run does.
func collect(t *testing.T, ch <-chan agent.Event, answer func(agent.ApprovalRequested) []message.Verdict) []agent.Event {
	t.Helper()
	var evs []agent.Event
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return evs
			}
			evs = append(evs, ev)
			if req, isReq := ev.(agent.ApprovalRequested); isReq {
				if answer == nil {
					t.Fatalf("unexpected approval request: %+v", req.Calls)
				}
				if v := answer(req); v != nil {
					req.Reply(v)
				}
			}
		case <-timeout:
			t.Fatalf("turn did not end; events so far: %#v", evs)
		}
	}
}

func text(evs []agent.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if d, ok := ev.(agent.TextDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func last(t *testing.T, evs []agent.Event) agent.Event {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	return evs[len(evs)-1]
}

func finished(t *testing.T, evs []agent.Event) agent.TurnFinished {
	t.Helper()
	f, ok := last(t, evs).(agent.TurnFinished)
	if !ok {
		t.Fatalf("turn did not finish: last event %#v", last(t, evs))
	}
	return f
}

func failed(t *testing.T, evs []agent.Event) agent.TurnFailed {
	t.Helper()
	f, ok := last(t, evs).(agent.TurnFailed)
	if !ok {
		t.Fatalf("turn did not fail: last event %#v", last(t, evs))
	}
	return f
}

func calls(evs []agent.Event) []agent.ToolCallFinished {
	var out []agent.ToolCallFinished
	for _, ev := range evs {
		if f, ok := ev.(agent.ToolCallFinished); ok {
			out = append(out, f)
		}
	}
	return out
}

func approvals(evs []agent.Event) int {
	n := 0
	for _, ev := range evs {
		if _, ok := ev.(agent.ApprovalRequested); ok {
			n++
		}
	}
	return n
}

// toolMessages returns the tool-role messages of a recorded request.
func toolMessages(r llmtest.Request) map[string]string {
	out := map[string]string{}
	for _, m := range r.Body.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

// assertValidHistory fails when a request's conversation is not valid for
// a provider (a tool call without its result, bad arguments).
func assertValidHistory(t *testing.T, r llmtest.Request) {
	t.Helper()
	if msg := r.HistoryError(); msg != "" {
		t.Fatal(msg)
	}
}

func TestStreamedTextArrivesInOrder(t *testing.T) {
	f := newFixture(t, nil)
	reply := "Hello! Here is a longer reply, streamed four runes at a time, with ünïcödé and `code`."
	f.srv.Script(llmtest.Reply{Text: reply, ChunkSize: 4, Usage: &llmtest.Usage{PromptTokens: 12, CompletionTokens: 34}})
	evs := run(t, context.Background(), f.ag, "hi", nil)
	if got := text(evs); got != reply {
		t.Fatalf("text = %q, want %q", got, reply)
	}
	deltas := 0
	for _, ev := range evs {
		if _, ok := ev.(agent.TextDelta); ok {
			deltas++
		}
	}
	if deltas < 2 {
		t.Errorf("got %d deltas; the reply should arrive in pieces", deltas)
	}
	fin := finished(t, evs)
	if fin.Text != reply || fin.Usage != (message.Usage{InputTokens: 12, OutputTokens: 34, Unpriced: "test-model"}) || fin.Requests != 1 {
		t.Errorf("TurnFinished = %+v", fin)
	}
	req := f.srv.Requests()[0]
	if req.Body.Model != "test-model" || !req.Stream || req.Header.Get("Authorization") != "Bearer test-key" {
		t.Errorf("request: model %q stream %v auth %q", req.Body.Model, req.Stream, req.Header.Get("Authorization"))
	}
	if req.Body.Messages[0].Role != "system" || req.Body.Messages[1].Content != "hi" {
		t.Errorf("messages sent: %+v", req.Body.Messages)
	}
	if len(req.Body.Tools) != 4 {
		t.Errorf("sent %d tools, want 4", len(req.Body.Tools))
	}
}

func TestToolCallSplitOverManyChunks(t *testing.T) {
	f := newFixture(t, nil)
	args := `{"text": "a long argument that the server splits into many small pieces"}`
	f.srv.Script(
		llmtest.Reply{Text: "Let me echo.", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "echo_text", Args: args, Split: 9}}},
		llmtest.Reply{Text: "Done."},
	)
	evs := run(t, context.Background(), f.ag, "echo it", nil)
	fin := finished(t, evs)
	if fin.Requests != 2 || fin.Text != "Done." {
		t.Errorf("TurnFinished = %+v", fin)
	}
	cs := calls(evs)
	if len(cs) != 1 || cs[0].Status != message.CallDone || cs[0].Result.Display != "echo: a long argument that the server splits into many small pieces" {
		t.Fatalf("calls = %+v", cs)
	}
	if cs[0].Decision != message.ByPolicy {
		t.Errorf("read-only call decided by %q", cs[0].Decision)
	}
	reqs := f.srv.Requests()
	assertValidHistory(t, reqs[1])
	got := toolMessages(reqs[1])["c1"]
	if !strings.Contains(got, `"display":"echo: a long argument`) || !strings.Contains(got, `"count":1`) {
		t.Errorf("tool result sent to the model = %q", got)
	}
}

func TestTwoToolCallsInOneReply(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{
			{ID: "a", Name: "echo_text", Args: `{"text":"one"}`, Split: 3},
			{ID: "b", Name: "echo_text", Args: `{"text":"two"}`, Split: 2},
		}},
		llmtest.Reply{Text: "ok"},
	)
	evs := run(t, context.Background(), f.ag, "two", nil)
	finished(t, evs)
	cs := calls(evs)
	if len(cs) != 2 || cs[0].Result.Display != "echo: one" || cs[1].Result.Display != "echo: two" {
		t.Fatalf("calls = %+v", cs)
	}
	assertValidHistory(t, f.srv.Requests()[1])
}

func writeCall(id, name string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "write_note", Args: `{"name":"` + name + `","text":"x"}`}
}

func answerAll(v message.Verdict) func(agent.ApprovalRequested) []message.Verdict {
	return func(r agent.ApprovalRequested) []message.Verdict {
		out := make([]message.Verdict, len(r.Calls))
		for i := range out {
			out[i] = v
		}
		return out
	}
}

func TestApproveOnceRunsAndAsksAgainNextTime(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{writeCall("w1", "a.txt")}}, llmtest.Reply{Text: "written"},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{writeCall("w2", "b.txt")}}, llmtest.Reply{Text: "written"},
	)
	var seen []agent.PendingCall
	ans := func(r agent.ApprovalRequested) []message.Verdict {
		seen = append(seen, r.Calls...)
		return []message.Verdict{message.ApproveOnce}
	}
	evs := run(t, context.Background(), f.ag, "write a", ans)
	finished(t, evs)
	if !f.write.exists("a.txt") {
		t.Fatal("approved write did not happen")
	}
	if cs := calls(evs); cs[0].Decision != message.ByUser || cs[0].Status != message.CallDone {
		t.Errorf("call = %+v", cs[0])
	}
	evs = run(t, context.Background(), f.ag, "write b", ans)
	finished(t, evs)
	if len(seen) != 2 {
		t.Fatalf("approve-once should ask again: %d requests", len(seen))
	}
	if seen[0].Check.Reason != "writes a file" || seen[0].Tool != "write_note" || !strings.Contains(seen[0].Args, "a.txt") {
		t.Errorf("pending call = %+v", seen[0])
	}
}

func TestDenyReachesTheModel(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{writeCall("w1", "a.txt")}},
		llmtest.Reply{Text: "OK, I will not write it."},
	)
	evs := run(t, context.Background(), f.ag, "write a", answerAll(message.Deny))
	finished(t, evs)
	if f.write.exists("a.txt") {
		t.Fatal("denied write happened")
	}
	cs := calls(evs)
	if cs[0].Status != message.CallDenied || cs[0].Decision != message.ByUserDenied {
		t.Errorf("call = %+v", cs[0])
	}
	res := toolMessages(f.srv.Requests()[1])["w1"]
	if !strings.Contains(res, `"status":"denied"`) || !strings.Contains(res, `"denied_by":"user"`) {
		t.Errorf("denial sent to model = %q", res)
	}
}

func TestApproveForSessionIsScoped(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{writeCall("w1", "notes/a.txt")}}, llmtest.Reply{Text: "1"},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{writeCall("w2", "notes/b.txt")}}, llmtest.Reply{Text: "2"},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{writeCall("w3", "other/c.txt")}}, llmtest.Reply{Text: "3"},
	)
	asked := 0
	ans := func(r agent.ApprovalRequested) []message.Verdict {
		asked++
		if asked == 1 {
			return []message.Verdict{message.ApproveSession}
		}
		return []message.Verdict{message.Deny}
	}
	finished(t, run(t, context.Background(), f.ag, "1", ans))
	evs := run(t, context.Background(), f.ag, "2", ans)
	finished(t, evs)
	if approvals(evs) != 0 || !f.write.exists("notes/b.txt") || calls(evs)[0].Decision != message.BySessionGrant {
		t.Fatalf("grant for notes should approve notes/b.txt without asking: %+v", calls(evs))
	}
	evs = run(t, context.Background(), f.ag, "3", ans)
	if approvals(evs) != 1 || f.write.exists("other/c.txt") {
		t.Fatal("grant for notes must not approve other/")
	}
	if g := f.ag.Approvals().Grants(); len(g) != 1 || g[0].Label != "notes" || g[0].UsesLeft != 19 {
		t.Errorf("grants = %+v", g)
	}
}

func TestGrantsExpireByCountAndTime(t *testing.T) {
	now := time.Unix(1000, 0)
	ap := agent.NewApprovals(agent.ApprovalOptions{Isolated: true, GrantMaxUses: 2, GrantTTL: time.Minute, Now: func() time.Time { return now }})
	c := tools.Check{Decision: tools.Ask, Scope: "s"}
	ap.Grant(c)
	for i := 0; i < 2; i++ {
		if d, run, by := ap.Decide(c); !d || !run || by != message.BySessionGrant {
			t.Fatalf("use %d: decided=%v run=%v by=%v", i, d, run, by)
		}
	}
	if d, _, _ := ap.Decide(c); d {
		t.Fatal("grant should be used up after 2 uses")
	}
	ap.Grant(c)
	now = now.Add(2 * time.Minute)
	if d, _, _ := ap.Decide(c); d {
		t.Fatal("grant should expire after its TTL")
	}
}

// Invariant 8: /yolo is bounded like a grant, by uses and by time.
func TestYoloExpiresByCountAndTime(t *testing.T) {
	now := time.Unix(1000, 0)
	ap := agent.NewApprovals(agent.ApprovalOptions{Isolated: true, YoloMaxUses: 2, YoloTTL: time.Minute, Now: func() time.Time { return now }})
	c := tools.Check{Decision: tools.Ask, Scope: "s"}
	if err := ap.SetYolo(true); err != nil {
		t.Fatal(err)
	}
	if uses, left := ap.YoloLeft(); uses != 2 || left != time.Minute {
		t.Fatalf("YoloLeft = %d, %v", uses, left)
	}
	for i := 0; i < 2; i++ {
		if d, run, by := ap.Decide(c); !d || !run || by != message.ByYolo {
			t.Fatalf("use %d: decided=%v run=%v by=%v", i, d, run, by)
		}
	}
	if d, _, _ := ap.Decide(c); d || ap.Yolo() {
		t.Fatal("yolo should turn itself off after 2 uses")
	}
	_ = ap.SetYolo(true)
	now = now.Add(2 * time.Minute)
	if d, _, _ := ap.Decide(c); d || ap.Yolo() {
		t.Fatal("yolo should expire after its TTL")
	}
	// auto_confirm starts yolo with the same bounds.
	ap = agent.NewApprovals(agent.ApprovalOptions{Isolated: true, Yolo: true, YoloMaxUses: 1, Now: func() time.Time { return now }})
	ap.Decide(c)
	if ap.Yolo() {
		t.Fatal("auto_confirm's yolo should be bounded too")
	}
}

func TestYoloApprovesAskButNeverDeny(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.ag.Approvals().SetYolo(true); err != nil {
		t.Fatal(err)
	}
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{writeCall("w1", "a.txt"), writeCall("w2", "forbidden")}},
		llmtest.Reply{Text: "done"},
	)
	evs := run(t, context.Background(), f.ag, "write", nil)
	finished(t, evs)
	cs := calls(evs)
	if cs[0].Decision != message.ByYolo || !f.write.exists("a.txt") {
		t.Errorf("yolo should approve the ask call: %+v", cs[0])
	}
	if cs[1].Status != message.CallDenied || cs[1].Decision != message.ByPolicyDeny || f.write.exists("forbidden") {
		t.Errorf("deny must beat yolo: %+v", cs[1])
	}
	res := toolMessages(f.srv.Requests()[1])["w2"]
	if !strings.Contains(res, `"denied_by":"policy"`) {
		t.Errorf("policy denial sent to model = %q", res)
	}
}

func TestAlwaysAskBeatsYoloAndGrants(t *testing.T) {
	f := newFixture(t, nil)
	_ = f.ag.Approvals().SetYolo(true)
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{writeCall("w1", ".git/hooks/x")}}, llmtest.Reply{Text: "ok"})
	evs := run(t, context.Background(), f.ag, "hook", answerAll(message.ApproveSession))
	if approvals(evs) != 1 {
		t.Fatal("a write into .git must ask even under yolo")
	}
	if len(f.ag.Approvals().Grants()) != 0 {
		t.Fatal("an always-ask call must not create a grant")
	}
}

func TestYoloRefusedUnsandboxed(t *testing.T) {
	ap := agent.NewApprovals(agent.ApprovalOptions{Isolated: false})
	if err := ap.SetYolo(true); err == nil || !strings.Contains(err.Error(), "CO_CLI_YOLO_UNSANDBOXED") {
		t.Fatalf("SetYolo unsandboxed = %v", err)
	}
	ap = agent.NewApprovals(agent.ApprovalOptions{Isolated: true})
	_ = ap.SetYolo(true)
	ap.Grant(tools.Check{Decision: tools.Ask, Scope: "s"})
	ap.SetIsolated(false, false)
	if ap.Yolo() || len(ap.Grants()) != 0 {
		t.Fatal("a drop of isolation must clear yolo and grants")
	}
}

func TestRequestLimitEndsTheTurn(t *testing.T) {
	f := newFixture(t, func(c *agent.Config) { c.MaxRequests = 3 })
	for i := 0; i < 3; i++ {
		f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "echo_text", Args: `{"text":"again"}`}}})
	}
	evs := run(t, context.Background(), f.ag, "loop", nil)
	fl := failed(t, evs)
	if !strings.Contains(fl.Message, "3 LLM requests") || !strings.Contains(fl.Message, "max_request_limit") || fl.Requests != 3 {
		t.Errorf("failure = %+v", fl)
	}
	if n := len(f.srv.Requests()); n != 3 {
		t.Errorf("server got %d requests, want 3", n)
	}
	// The history stays valid for the next turn.
	f.srv.Script(llmtest.Reply{Text: "fine"})
	finished(t, run(t, context.Background(), f.ag, "next", nil))
	assertValidHistory(t, f.srv.Requests()[3])
}

func TestInterruptWhileStreaming(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(llmtest.Reply{Text: strings.Repeat("slow words ", 100), ChunkSize: 5, ChunkDelay: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evs []agent.Event
	for ev := range f.ag.Submit(ctx, "talk") {
		evs = append(evs, ev)
		if _, ok := ev.(agent.TextDelta); ok && len(evs) == 3 {
			cancel()
		}
	}
	fl := failed(t, evs)
	if !fl.Interrupted {
		t.Fatalf("failure = %+v", fl)
	}
	h := f.ag.History()
	if len(h) != 2 || h[1].Role != message.RoleAssistant || !h[1].Interrupted || h[1].Content == "" {
		t.Fatalf("history after interrupt = %+v", h)
	}
	f.srv.Script(llmtest.Reply{Text: "resumed"})
	finished(t, run(t, context.Background(), f.ag, "go on", nil))
	req := f.srv.Requests()[1]
	assertValidHistory(t, req)
	msgs := req.Body.Messages
	if a := msgs[2]; a.Role != "assistant" || !strings.HasPrefix(a.Content, "slow words") || !strings.Contains(a.Content, "interrupted") {
		t.Errorf("partial reply sent = %+v", a)
	}
	if msgs[3].Content != "go on" {
		t.Errorf("new prompt = %+v", msgs[3])
	}
}

func TestInterruptWhileToolRuns(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "wait_forever", Args: `{}`}, {ID: "e1", Name: "echo_text", Args: `{"text":"x"}`}}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-f.block.started; cancel() }()
	evs := run(t, ctx, f.ag, "wait", nil)
	if fl := failed(t, evs); !fl.Interrupted {
		t.Fatalf("failure = %+v", fl)
	}
	for _, c := range calls(evs) {
		if c.Status != message.CallInterrupted {
			t.Errorf("call %s status %v, want interrupted", c.CallID, c.Status)
		}
	}
	f.srv.Script(llmtest.Reply{Text: "ok"})
	finished(t, run(t, context.Background(), f.ag, "again", nil))
	req := f.srv.Requests()[1]
	assertValidHistory(t, req)
	tm := toolMessages(req)
	if tm["b1"] != message.InterruptedResult || tm["e1"] != message.InterruptedResult {
		t.Errorf("tool results = %+v", tm)
	}
}

func TestInterruptWhileWaitingForApproval(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(llmtest.Reply{Text: "I'll write.", ToolCalls: []llmtest.ToolCall{writeCall("w1", "a.txt")}})
	ctx, cancel := context.WithCancel(context.Background())
	evs := run(t, ctx, f.ag, "write", func(agent.ApprovalRequested) []message.Verdict { cancel(); return nil })
	if fl := failed(t, evs); !fl.Interrupted {
		t.Fatalf("failure = %+v", fl)
	}
	if f.write.exists("a.txt") {
		t.Fatal("interrupted approval must not run the call")
	}
	f.srv.Script(llmtest.Reply{Text: "ok"})
	finished(t, run(t, context.Background(), f.ag, "never mind", nil))
	req := f.srv.Requests()[1]
	assertValidHistory(t, req)
	if got := toolMessages(req)["w1"]; got != message.InterruptedResult {
		t.Errorf("tool result = %q", got)
	}
}

func TestMalformedArgumentsGoBackToTheModel(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "bad1", Name: "echo_text", Args: `{"text": "unterminated`, Split: 3}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "bad2", Name: "echo_text", Args: `{"txt": "wrong key"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "bad3", Name: "no_such_tool", Args: `{}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "ok", Name: "echo_text", Args: `{"text": "fixed"}`}}},
		llmtest.Reply{Text: "recovered"},
	)
	evs := run(t, context.Background(), f.ag, "go", nil)
	if fin := finished(t, evs); fin.Text != "recovered" {
		t.Fatalf("fin = %+v", fin)
	}
	reqs := f.srv.Requests()
	for i, want := range map[int]string{1: "not valid JSON", 2: "do not match its schema", 3: "no tool named"} {
		assertValidHistory(t, reqs[i])
		var got string
		for _, v := range toolMessages(reqs[i]) {
			if strings.Contains(v, want) {
				got = v
			}
		}
		if got == "" {
			t.Errorf("request %d: no tool result containing %q: %+v", i, want, toolMessages(reqs[i]))
		}
	}
	cs := calls(evs)
	if cs[0].Status != message.CallRetry || cs[3].Status != message.CallDone {
		t.Errorf("statuses: %v %v", cs[0].Status, cs[3].Status)
	}
}

func TestToolRetriesRunOut(t *testing.T) {
	f := newFixture(t, func(c *agent.Config) { c.ToolRetries = 2 })
	for i := 0; i < 3; i++ {
		f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "echo_text", Args: `{}`}}})
	}
	fl := failed(t, run(t, context.Background(), f.ag, "go", nil))
	if !strings.Contains(fl.Message, "echo_text wrongly 3 times") || !strings.Contains(fl.Message, "tool_retries is 2") {
		t.Errorf("failure = %q", fl.Message)
	}
	f.srv.Script(llmtest.Reply{Text: "ok"})
	finished(t, run(t, context.Background(), f.ag, "next", nil))
	assertValidHistory(t, f.srv.Requests()[3])
}

func TestPanickingToolIsAFailedCall(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "p", Name: "explode", Args: `{}`}}}, llmtest.Reply{Text: "it failed"})
	evs := run(t, context.Background(), f.ag, "go", nil)
	finished(t, evs)
	if c := calls(evs)[0]; c.Status != message.CallFailed || !strings.Contains(c.Err, "panicked: boom") {
		t.Errorf("call = %+v", c)
	}
}

func TestConversationMemoryAcrossTurns(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(llmtest.Reply{Text: "Paris."}, llmtest.Reply{Text: "About 2 million."})
	finished(t, run(t, context.Background(), f.ag, "Capital of France?", nil))
	finished(t, run(t, context.Background(), f.ag, "Population?", nil))
	msgs := f.srv.Requests()[1].Body.Messages
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role+":"+m.Content)
	}
	want := []string{"system:You are a test.", "user:Capital of France?", "assistant:Paris.", "user:Population?"}
	if strings.Join(roles, "|") != strings.Join(want, "|") {
		t.Errorf("second request messages = %q", roles)
	}
	if f.ag.Turns() != 2 {
		t.Errorf("turns = %d", f.ag.Turns())
	}
}

func TestUsageIsSummed(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "echo_text", Args: `{"text":"x"}`}}, Usage: &llmtest.Usage{PromptTokens: 10, CompletionTokens: 5}},
		llmtest.Reply{Text: "a", Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 7}},
		llmtest.Reply{Text: "b", Usage: &llmtest.Usage{PromptTokens: 30, CompletionTokens: 1}},
	)
	fin := finished(t, run(t, context.Background(), f.ag, "1", nil))
	if fin.Usage != (message.Usage{InputTokens: 30, OutputTokens: 12, Unpriced: "test-model"}) {
		t.Errorf("turn usage = %+v", fin.Usage)
	}
	fin = finished(t, run(t, context.Background(), f.ag, "2", nil))
	if fin.Session != (message.Usage{InputTokens: 60, OutputTokens: 13, Unpriced: "test-model"}) || f.ag.Usage() != fin.Session {
		t.Errorf("session usage = %+v", fin.Session)
	}
}

func TestSlowReaderGetsCoalescedText(t *testing.T) {
	f := newFixture(t, nil)
	reply := strings.Repeat("0123456789", 300)
	f.srv.Script(llmtest.Reply{Text: reply, ChunkSize: 2})
	var got strings.Builder
	n := 0
	for ev := range f.ag.Submit(context.Background(), "go") {
		if d, ok := ev.(agent.TextDelta); ok {
			got.WriteString(d.Text)
			n++
			time.Sleep(200 * time.Microsecond)
		}
	}
	if got.String() != reply {
		t.Fatalf("coalesced text differs (len %d vs %d)", got.Len(), len(reply))
	}
	t.Logf("%d chunks arrived as %d deltas", len(reply)/2, n)
}

func TestSubmitWhileBusyFails(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(llmtest.Reply{Text: "slow", Delay: 300 * time.Millisecond})
	ch := f.ag.Submit(context.Background(), "one")
	var evs []agent.Event
	for ev := range f.ag.Submit(context.Background(), "two") {
		evs = append(evs, ev)
	}
	if fl := failed(t, evs); !strings.Contains(fl.Message, "already running") {
		t.Errorf("second submit = %+v", fl)
	}
	for range ch {
	}
}

// observer records the prompts it is shown.
type observer struct {
	echoTool
	mu   sync.Mutex
	seen []string
}

func (o *observer) Name() string { return "observe_prompts" }
func (o *observer) ObservePrompt(s string) {
	o.mu.Lock()
	o.seen = append(o.seen, s)
	o.mu.Unlock()
}

func TestToolsObserveUserPrompts(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	obs := &observer{}
	reg, _ := tools.NewRegistry(obs)
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, Model: "m"}, Tools: reg})
	srv.Script(llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok"})
	finished(t, run(t, context.Background(), ag, "fetch https://example.com/a", nil))
	finished(t, run(t, context.Background(), ag, "and https://example.org/b", nil))
	if strings.Join(obs.seen, "|") != "fetch https://example.com/a|and https://example.org/b" {
		t.Errorf("observed %q", obs.seen)
	}
}

func TestYoloDoesNotApproveNoYoloCalls(t *testing.T) {
	ap := agent.NewApprovals(agent.ApprovalOptions{Isolated: true})
	_ = ap.SetYolo(true)
	c := tools.Check{Decision: tools.Ask, Scope: "web_fetch:evil.example", NoYolo: true}
	if d, _, _ := ap.Decide(c); d {
		t.Fatal("yolo approved a NoYolo call")
	}
	ap.Grant(c)
	if d, run, by := ap.Decide(c); !d || !run || by != message.BySessionGrant {
		t.Fatal("a session grant should still approve a NoYolo call")
	}
}

func TestRunBangGoesThroughApprovals(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	sh := &bangShell{}
	reg, _ := tools.NewRegistry(sh)
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, Model: "m"}, Tools: reg})
	var evs []agent.Event
	for ev := range ag.RunBang(context.Background(), "touch x") {
		evs = append(evs, ev)
		if r, ok := ev.(agent.ApprovalRequested); ok {
			r.Reply([]message.Verdict{message.ApproveOnce})
		}
	}
	finished(t, evs)
	if approvals(evs) != 1 || sh.ran != "touch x" {
		t.Fatalf("!cmd must ask and then run: %d approvals, ran %q", approvals(evs), sh.ran)
	}
	if c := calls(evs); len(c) != 1 || c[0].Status != message.CallDone || !c[0].Bang {
		t.Fatalf("calls = %+v", c)
	}
	if len(ag.History()) != 0 || len(srv.Requests()) != 0 {
		t.Fatal("!cmd must not touch the conversation or the model")
	}
}

// bangShell stands in for run_shell_command: it records what it ran.
type bangShell struct{ ran string }

func (*bangShell) Name() string        { return message.BangTool }
func (*bangShell) Description() string { return "shell" }
func (*bangShell) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}`)
}
func (*bangShell) Class() tools.Class { return tools.SideEffect }
func (b *bangShell) Run(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var a struct{ Cmd string }
	_ = json.Unmarshal(args, &a)
	b.ran = a.Cmd
	if a.Cmd == "false" {
		return tools.Text(""), tools.Retryf("the command exited with code 1")
	}
	return tools.Text("ok"), nil
}

// A failed !cmd failed: there is no model to send it back to.
func TestFailedBangIsFailedNotRetry(t *testing.T) {
	sh := &bangShell{}
	reg, _ := tools.NewRegistry(sh)
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", Model: "m"}, Tools: reg})
	var evs []agent.Event
	for ev := range ag.RunBang(context.Background(), "false") {
		evs = append(evs, ev)
		if r, ok := ev.(agent.ApprovalRequested); ok {
			r.Reply([]message.Verdict{message.ApproveOnce})
		}
	}
	if c := calls(evs); len(c) != 1 || c[0].Status != message.CallFailed || !strings.Contains(c[0].Err, "exited with code 1") {
		t.Fatalf("calls = %+v", c)
	}
}

// Who decided is said truthfully: a headless run that could ask no one is
// not "denied by the user", and a policy reason is not prefixed twice.
func TestUnattendedAndPolicyDenialsSayWhoDecided(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{writeCall("w1", "a.txt")}}, llmtest.Reply{Text: "ok"})
	evs := run(t, context.Background(), f.ag, "write", answerAll(message.Unattended))
	c := calls(evs)[0]
	if c.Status != message.CallDenied || c.Decision != message.ByHeadless || c.Err != agent.NeedsApproval || f.write.exists("a.txt") {
		t.Fatalf("unattended call = %+v", c)
	}
	res := toolMessages(f.srv.Requests()[1])["w1"]
	if !strings.Contains(res, `"denied_by":"nobody"`) || strings.Contains(res, "user denied") {
		t.Errorf("sent to the model: %s", res)
	}
	h := f.ag.History()
	var tc message.ToolCall
	for _, m := range h {
		if len(m.ToolCalls) > 0 {
			tc = m.ToolCalls[0]
		}
	}
	if o := agent.Outcome(tc, h[len(h)-2]); o.Decision != message.ByHeadless || o.Err != agent.NeedsApproval {
		t.Errorf("read back = %+v", o)
	}
	if got := agent.PolicyDenied("denied: fork bomb"); got != "denied by policy: fork bomb" {
		t.Errorf("PolicyDenied = %q", got)
	}
	if got := agent.PolicyDenied(`denied by rule "git push": ask first`); got != `denied by policy: rule "git push": ask first` {
		t.Errorf("PolicyDenied = %q", got)
	}
}

// Outcome reads back from the saved history exactly what the live events
// said, for every way a call can end.
func TestOutcomeMatchesTheLiveEvents(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{
			{ID: "done", Name: "echo_text", Args: `{"text":"hi"}`},
			{ID: "retry", Name: "echo_text", Args: `{}`},
			{ID: "failed", Name: "explode", Args: `{}`},
			writeCall("denied", "a.txt"),
			writeCall("policy", "forbidden"),
		}},
		llmtest.Reply{Text: "ok"},
	)
	evs := run(t, context.Background(), f.ag, "go", answerAll(message.Deny))
	finished(t, evs)
	live := map[string]agent.ToolCallFinished{}
	for _, c := range calls(evs) {
		live[c.CallID] = c
	}
	results := map[string]message.Message{}
	var saved []message.ToolCall
	for _, m := range f.ag.History() {
		saved = append(saved, m.ToolCalls...)
		if m.Role == message.RoleTool {
			results[m.ToolCallID] = m
		}
	}
	if len(saved) != 5 {
		t.Fatalf("%d calls saved", len(saved))
	}
	for _, c := range saved {
		got, want := agent.Outcome(c, results[c.ID]), live[c.ID]
		if got.Status != want.Status || got.Result.Display != want.Result.Display || got.Err != want.Err ||
			(want.Status == message.CallDenied && got.Decision != want.Decision) {
			t.Errorf("%s: read back %+v, live %+v", c.ID, got, want)
		}
	}
	// Interrupted calls, too.
	if o := agent.Outcome(message.ToolCall{ID: "x"}, message.Message{Content: message.InterruptedResult}); o.Status != message.CallInterrupted {
		t.Errorf("interrupted: %+v", o)
	}
}
