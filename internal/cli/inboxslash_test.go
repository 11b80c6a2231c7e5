package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/files"
	"github.com/co-cli/co/ui/headless"
	"github.com/co-cli/co/ui/slash"
)

// inboxFixture is a chat (a real agent on the scripted LLM server, the
// real file tools in a temporary workspace) over a real store of saved
// sessions holding one scheduled run that kept a write_file waiting
// after reading a web page.
type inboxFixture struct {
	srv     *llmtest.Server
	app     *app.App
	env     slash.Env
	st      *sessions.Store
	ws      string
	run     string // the scheduled run's session id
	pending int64
}

const inboxWebLabel = "web example.org/offers"

func newInboxFixture(t *testing.T) *inboxFixture {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	ws := t.TempDir()
	st, err := sessions.Open(filepath.Join(t.TempDir(), sessions.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })

	// The scheduled run, as an unattended run saves it: the prompt, the
	// page it read (untrusted), the call it could not make, its
	// "needs approval" result, its answer.
	rec := st.NewScheduled(ws, "brief")
	args := `{"path":"brief.md","content":"today: 3 offers"}`
	for _, m := range []message.Message{
		{Role: message.RoleUser, Content: "brief me on the offers and save it to brief.md"},
		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "call_1", Name: "web_fetch", Args: `{"url":"https://example.org/offers"}`}}},
		{Role: message.RoleTool, ToolCallID: "call_1", ToolName: "web_fetch", Content: "3 offers", Sources: []tools.Origin{{Kind: "web", Label: inboxWebLabel, Untrusted: true, Public: true}}},
		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "call_2", Name: "write_file", Args: args}}},
		{Role: message.RoleTool, ToolCallID: "call_2", ToolName: "write_file", Content: `{"status":"denied","denied_by":"nobody"}`},
		{Role: message.RoleAssistant, Content: "There are 3 offers today.\nSaving brief.md waits for your approval."},
	} {
		if err := rec.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.SetOutcome("1 call waiting"); err != nil {
		t.Fatal(err)
	}
	id, err := st.AddPending(sessions.Pending{SessionID: rec.ID(), CallID: "call_2", Tool: "write_file", Args: args,
		Reason: "it follows untrusted content from " + inboxWebLabel, Untrusted: []string{inboxWebLabel}})
	if err != nil {
		t.Fatal(err)
	}

	w, err := files.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(append(w.Tools(), denyTool{})...)
	if err != nil {
		t.Fatal(err)
	}
	ag := agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "m"},
		SystemPrompt: "test",
		Tools:        reg,
		Approvals:    agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		StallTimeout: 30 * time.Second,
	})
	a := &app.App{Sessions: st, Agent: ag, Tools: reg, Workspace: ws}
	// The chat's own session, not the run's.
	ag.SetRecorder(st.NewKind(ws, sessions.Chat))
	env := slash.Env{Agent: ag,
		Inbox:    func(arg string) slash.Result { return inboxSlash(a, arg, transcriptText) },
		InboxIDs: func() []string { return inboxIDs(a) }}
	return &inboxFixture{srv: srv, app: a, env: env, st: st, ws: ws, run: rec.ID(), pending: id}
}

// drive runs a turn's events to the end, answering its approval with v
// (and keeping the request for the test).
func drive(t *testing.T, ch <-chan agent.Event, v message.Verdict) (evs []agent.Event, asked []agent.ApprovalRequested) {
	t.Helper()
	deadline := time.After(2 * time.Minute) // only a hang
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return evs, asked
			}
			evs = append(evs, ev)
			if r, isReq := ev.(agent.ApprovalRequested); isReq {
				asked = append(asked, r)
				r.Reply([]message.Verdict{v})
			}
		case <-deadline:
			t.Fatalf("the turn did not end; events: %#v", evs)
		}
	}
}

func (f *inboxFixture) state(t *testing.T) sessions.PendingState {
	t.Helper()
	p, err := f.st.PendingCall(f.pending)
	if err != nil {
		t.Fatal(err)
	}
	return p.State
}

func (f *inboxFixture) written() bool {
	_, err := os.Stat(filepath.Join(f.ws, "brief.md"))
	return err == nil
}

func TestInboxSlashListsRunsAndWaitingCalls(t *testing.T) {
	f := newInboxFixture(t)
	r := slash.Dispatch(f.env, "/inbox")
	if r.Err {
		t.Fatal(r.Output)
	}
	for _, want := range []string{f.run, "brief", "1 call waiting", "There are 3 offers today.", "write_file", "path='brief.md'", inboxWebLabel, "/inbox approve ID"} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("/inbox lacks %q:\n%s", want, r.Output)
		}
	}
	if strings.Contains(r.Output, "Saving brief.md waits") {
		t.Errorf("/inbox shows more than the answer's first line:\n%s", r.Output)
	}
	// Records, one field a line, so the chat's wrapping at 80 columns
	// never breaks a row mid-column: the run's id and the call's
	// arguments on lines of their own, no line of a record past 80.
	if !strings.Contains(r.Output, "\n    run "+f.run+"\n") || !strings.Contains(r.Output, "\n    path='brief.md'") {
		t.Errorf("/inbox is not one field a line:\n%s", r.Output)
	}
	for _, l := range strings.Split(r.Output, "\n") {
		if strings.HasPrefix(l, "•") || strings.HasPrefix(l, "    ") {
			if n := len([]rune(l)); n > 80 {
				t.Errorf("a record's line is %d columns wide: %q", n, l)
			}
		}
	}
	o := slash.Dispatch(f.env, "/inbox open "+f.run[:10])
	if o.Err || !strings.Contains(o.Output, "Saving brief.md waits for your approval.") || !strings.Contains(o.Output, "/inbox approve ID") {
		t.Fatalf("/inbox open: %+v", o)
	}
	if lead, c, ok := slash.CompleteArg(f.env, "/inbox ap"); !ok || lead != "/inbox " || !slices.Equal(c, []string{"approve"}) {
		t.Errorf("Tab after /inbox ap: %q %q %v", lead, c, ok)
	}
	if lead, c, ok := slash.CompleteArg(f.env, "/inbox deny "); !ok || lead != "/inbox deny " || !slices.Equal(c, []string{"1"}) {
		t.Errorf("Tab after /inbox deny: %q %q %v", lead, c, ok)
	}
}

// Escape sequences saved by a run never reach the terminal raw.
func TestInboxSlashSanitisesWhatTheStoreHolds(t *testing.T) {
	f := newInboxFixture(t)
	rec := f.st.NewScheduled(f.ws, "evil\x1b]0;title\x07")
	if err := rec.Append(message.Message{Role: message.RoleUser, Content: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Append(message.Message{Role: message.RoleAssistant, Content: "hi \x1b[2J\x1b]52;c;AAAA\x07there"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.AddPending(sessions.Pending{SessionID: rec.ID(), CallID: "c", Tool: "write_file", Args: `{"path":"a\u001b[31m"}`, Untrusted: []string{"web \x1b[1mx"}}); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"/inbox", "/inbox open " + rec.ID()} {
		r := slash.Dispatch(f.env, line)
		if strings.ContainsRune(r.Output, 0x1b) || strings.ContainsRune(r.Output, 0x07) {
			t.Errorf("%s lets an escape through: %q", line, r.Output)
		}
	}
}

func TestInboxApproveRunsTheCallAndTheModelContinues(t *testing.T) {
	f := newInboxFixture(t)
	f.srv.Script(llmtest.Reply{Text: "Saved the brief to brief.md."})
	r := slash.Dispatch(f.env, "/inbox approve 1")
	if r.Err || r.Action != slash.SwitchedRun || r.Run == nil {
		t.Fatalf("/inbox approve: %+v", r)
	}
	// The chat is in the run's session now, its history loaded.
	if f.app.Agent.SessionID() != f.run || len(f.app.Agent.History()) != 6 {
		t.Fatalf("not switched: session %s, %d messages", f.app.Agent.SessionID(), len(f.app.Agent.History()))
	}
	if !strings.Contains(r.Output, "There are 3 offers today.") || !strings.Contains(r.Output, "Resumed the session of the scheduled run \"brief\"") {
		t.Errorf("the transcript and the switch are not shown:\n%s", r.Output)
	}
	if f.written() {
		t.Fatal("written before it was approved")
	}
	evs, asked := drive(t, r.Run(context.Background()), message.ApproveOnce)
	if len(asked) != 1 || len(asked[0].Calls) != 1 {
		t.Fatalf("asked %d times: %#v", len(asked), asked)
	}
	c := asked[0].Calls[0]
	if c.Tool != "write_file" || !slices.Equal(c.Check.Untrusted, []string{inboxWebLabel}) || !c.Check.AlwaysAsk {
		t.Errorf("the question lacks the call's provenance: %+v", c.Check)
	}
	if fin, ok := evs[len(evs)-1].(agent.TurnFinished); !ok || fin.Text != "Saved the brief to brief.md." {
		t.Fatalf("the model did not continue: last event %#v", evs[len(evs)-1])
	}
	b, err := os.ReadFile(filepath.Join(f.ws, "brief.md"))
	if err != nil || string(b) != "today: 3 offers" {
		t.Fatalf("the call did not run: %q %v", b, err)
	}
	if st := f.state(t); st != sessions.Approved {
		t.Errorf("pending call is %s", st)
	}
	// The model got the approval and the result.
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if u := reqs[0].LastUserMessage(); !strings.Contains(u, agent.ApprovedFromInbox) || !strings.Contains(u, "call_2") {
		t.Errorf("the model was not told: %q", u)
	}
	if res := reqs[0].ToolResults(); len(res) == 0 || !strings.Contains(res[len(res)-1], "brief.md") {
		t.Errorf("the result did not reach the model: %q", res)
	}
	if e := reqs[0].HistoryError(); e != "" {
		t.Errorf("history sent is not valid: %s", e)
	}
	// Saved: the run's session holds the approval, the call, its result
	// and the continuation.
	_, h, err := f.st.Load(f.run)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 10 || h[6].Shown != "/inbox approve 1" || h[7].ToolCalls[0].ID != agent.WaitingCallID(1) || h[9].Content != "Saved the brief to brief.md." {
		t.Errorf("saved history: %+v", h[6:])
	}
	// Decided once: a second approve says so.
	again := slash.Dispatch(f.env, "/inbox approve 1")
	if !again.Err || !strings.Contains(again.Output, "already approved") {
		t.Errorf("approving again: %+v", again)
	}
}

func TestInboxApproveDeniedInTheModalRunsNothing(t *testing.T) {
	f := newInboxFixture(t)
	r := slash.Dispatch(f.env, "/inbox approve 1")
	if r.Err {
		t.Fatal(r.Output)
	}
	evs, asked := drive(t, r.Run(context.Background()), message.Deny)
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	if _, ok := evs[len(evs)-1].(agent.TurnFinished); !ok {
		t.Fatalf("last event %#v", evs[len(evs)-1])
	}
	if f.written() {
		t.Error("a denied call ran")
	}
	if st := f.state(t); st != sessions.Denied {
		t.Errorf("pending call is %s", st)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("the model was called %d times after a denial", n)
	}
	_, entries, err := f.st.Transcript(f.run)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(entries, func(e sessions.Entry) bool {
		return e.Aside != nil && strings.Contains(e.Aside.Notice, "denied from the inbox")
	}) {
		t.Error("the session has no note of the denial")
	}
}

func TestInboxDenyDecidesWithoutRunning(t *testing.T) {
	f := newInboxFixture(t)
	r := slash.Dispatch(f.env, "/inbox deny 1")
	if r.Err || !strings.Contains(r.Output, "Denied call 1") {
		t.Fatalf("/inbox deny: %+v", r)
	}
	if f.app.Agent.SessionID() == f.run {
		t.Error("deny switched the chat")
	}
	if st := f.state(t); st != sessions.Denied {
		t.Errorf("pending call is %s", st)
	}
	if f.written() || len(f.srv.Requests()) != 0 {
		t.Error("something ran")
	}
	_, entries, err := f.st.Transcript(f.run)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(entries, func(e sessions.Entry) bool {
		return e.Aside != nil && strings.Contains(e.Aside.Notice, "Waiting call 1 (write_file in the scheduled run \"brief\") was denied")
	}) {
		t.Errorf("the session has no note of the denial: %+v", entries)
	}
	again := slash.Dispatch(f.env, "/inbox approve 1")
	if !again.Err || !strings.Contains(again.Output, "already denied") || again.Run != nil {
		t.Errorf("approving a denied call: %+v", again)
	}
	for _, bad := range []string{"/inbox approve", "/inbox approve x", "/inbox deny 99", "/inbox frob"} {
		if b := slash.Dispatch(f.env, bad); !b.Err {
			t.Errorf("%s: no error: %+v", bad, b)
		}
	}
}

// A policy deny wins over the user's approval: the call is not asked about.
func TestInboxApprovePolicyDenyWins(t *testing.T) {
	f := newInboxFixture(t)
	id, err := f.st.AddPending(sessions.Pending{SessionID: f.run, CallID: "call_9", Tool: "post_everywhere", Args: `{}`})
	if err != nil {
		t.Fatal(err)
	}
	r := slash.Dispatch(f.env, "/inbox approve "+strconv.FormatInt(id, 10))
	if r.Err {
		t.Fatal(r.Output)
	}
	evs, asked := drive(t, r.Run(context.Background()), message.ApproveOnce)
	if len(asked) != 0 {
		t.Errorf("a call the policy denies was asked about: %+v", asked[0].Calls)
	}
	if denyToolRan {
		t.Error("a denied call ran")
	}
	if len(f.srv.Requests()) != 0 {
		t.Error("the model was called")
	}
	if fin := finishedOf(evs, agent.WaitingCallID(id)); fin == nil || fin.Decision != message.ByPolicyDeny {
		t.Errorf("the call did not end denied by the policy: %+v", fin)
	}
	if st, _ := f.st.PendingCall(id); st.State != sessions.Denied {
		t.Errorf("pending call is %s", st.State)
	}
}

func finishedOf(evs []agent.Event, id string) *agent.ToolCallFinished {
	for _, ev := range evs {
		if f, ok := ev.(agent.ToolCallFinished); ok && f.CallID == id {
			return &f
		}
	}
	return nil
}

var denyToolRan bool

// denyTool is a tool whose own check denies every call.
type denyTool struct{}

func (denyTool) Name() string            { return "post_everywhere" }
func (denyTool) Description() string     { return "Post." }
func (denyTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (denyTool) Class() tools.Class      { return tools.SideEffect }
func (denyTool) Check(context.Context, json.RawMessage) tools.Check {
	return tools.Check{Decision: tools.Deny, Reason: "denied: never posts"}
}
func (denyTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	denyToolRan = true
	return tools.Text("posted"), nil
}

// The whole way, with the real producer: a scheduled run (ui/headless,
// unattended) keeps a write_file waiting in the store; the chat's
// /inbox approve runs it in that run's session and the model continues.
func TestInboxApprovesWhatARealScheduledRunKeptWaiting(t *testing.T) {
	f := newInboxFixture(t)
	// The scheduled run: its own agent on the same server and store.
	ws, err := files.New(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(ws.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	runAg := agent.New(agent.Config{
		Provider:  provider.Provider{Name: "openai", BaseURL: f.srv.URL, APIKey: "k", Model: "m"},
		Tools:     reg,
		Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
	})
	rec := f.st.NewScheduled(f.ws, "notes")
	runAg.SetRecorder(rec)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write_file", Args: `{"path":"notes.md","content":"from the run"}`}}},
		llmtest.Reply{Text: "Writing notes.md waits for your approval."},
	)
	var out, errOut strings.Builder
	code := headless.Run(context.Background(), headless.Options{Agent: runAg, Prompt: "write my notes", Out: &out, Err: &errOut,
		Unattended: &headless.Unattended{Schedule: "notes", Store: f.st}})
	if code != headless.ExitWaiting {
		t.Fatalf("the scheduled run exited %d: %s %s", code, out.String(), errOut.String())
	}
	waiting, err := f.st.PendingCalls(sessions.Waiting)
	if err != nil || len(waiting) != 2 || waiting[0].SessionID != rec.ID() {
		t.Fatalf("waiting: %+v %v", waiting, err)
	}
	id := waiting[0].ID

	f.srv.Script(llmtest.Reply{Text: "Your notes are written."})
	r := slash.Dispatch(f.env, "/inbox approve "+strconv.FormatInt(id, 10))
	if r.Err || r.Run == nil {
		t.Fatalf("/inbox approve: %+v", r)
	}
	if !strings.Contains(r.Output, "co> write my notes") {
		t.Errorf("the run's transcript is not shown:\n%s", r.Output)
	}
	evs, asked := drive(t, r.Run(context.Background()), message.ApproveOnce)
	if len(asked) != 1 || asked[0].Calls[0].Tool != "write_file" {
		t.Fatalf("asked: %+v", asked)
	}
	if fin, ok := evs[len(evs)-1].(agent.TurnFinished); !ok || fin.Text != "Your notes are written." {
		t.Fatalf("last event %#v", evs[len(evs)-1])
	}
	if b, err := os.ReadFile(filepath.Join(f.ws, "notes.md")); err != nil || string(b) != "from the run" {
		t.Fatalf("notes.md: %q %v", b, err)
	}
	if p, _ := f.st.PendingCall(id); p.State != sessions.Approved {
		t.Errorf("state %s", p.State)
	}
	reqs := f.srv.Requests()
	if e := reqs[len(reqs)-1].HistoryError(); e != "" {
		t.Errorf("the continuation's history is not valid: %s", e)
	}
	// The other run's call still waits: approving one widened nothing.
	if p, _ := f.st.PendingCall(f.pending); p.State != sessions.Waiting {
		t.Errorf("the other waiting call is %s", p.State)
	}
}

// driveWith runs a turn's events to the end, calling answer on its
// approval request (it replies itself, or not).
func driveWith(t *testing.T, ch <-chan agent.Event, answer func(agent.ApprovalRequested)) []agent.Event {
	t.Helper()
	var evs []agent.Event
	deadline := time.After(2 * time.Minute) // only a hang
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return evs
			}
			evs = append(evs, ev)
			if r, isReq := ev.(agent.ApprovalRequested); isReq {
				answer(r)
			}
		case <-deadline:
			t.Fatalf("the turn did not end; events: %#v", evs)
		}
	}
}

// Decided elsewhere while the question was open (another co, co inbox's
// user): the second answer is told, and nothing runs.
func TestInboxApproveDecidedMeanwhileRunsNothing(t *testing.T) {
	f := newInboxFixture(t)
	r := slash.Dispatch(f.env, "/inbox approve 1")
	if r.Err {
		t.Fatal(r.Output)
	}
	evs := driveWith(t, r.Run(context.Background()), func(req agent.ApprovalRequested) {
		if err := f.st.DecidePending(f.pending, sessions.Denied); err != nil {
			t.Error(err)
		}
		req.Reply([]message.Verdict{message.ApproveOnce})
	})
	fail, ok := evs[len(evs)-1].(agent.TurnFailed)
	if !ok || !strings.Contains(fail.Message, "already denied") {
		t.Fatalf("last event %#v", evs[len(evs)-1])
	}
	if f.written() || len(f.srv.Requests()) != 0 {
		t.Error("the call ran or the model was called")
	}
	if st := f.state(t); st != sessions.Denied {
		t.Errorf("state %s", st)
	}
}

// Ctrl+C at the question: nothing is decided, the call still waits.
func TestInboxApproveCancelledStaysWaiting(t *testing.T) {
	f := newInboxFixture(t)
	r := slash.Dispatch(f.env, "/inbox approve 1")
	if r.Err {
		t.Fatal(r.Output)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	evs := driveWith(t, r.Run(ctx), func(agent.ApprovalRequested) { cancel() })
	if fail, ok := evs[len(evs)-1].(agent.TurnFailed); !ok || !fail.Interrupted {
		t.Fatalf("last event %#v", evs[len(evs)-1])
	}
	if st := f.state(t); st != sessions.Waiting || f.written() {
		t.Errorf("state %s, written %v", st, f.written())
	}
	// And it can be approved after all.
	f.srv.Script(llmtest.Reply{Text: "Done."})
	r = slash.Dispatch(f.env, "/inbox approve 1")
	if r.Err {
		t.Fatal(r.Output)
	}
	drive(t, r.Run(context.Background()), message.ApproveOnce)
	if !f.written() || f.state(t) != sessions.Approved {
		t.Error("not approved the second time")
	}
}

// A call to a tool this co does not have now says so and stays waiting.
func TestInboxApproveOfAToolGoneStaysWaiting(t *testing.T) {
	f := newInboxFixture(t)
	id, err := f.st.AddPending(sessions.Pending{SessionID: f.run, CallID: "call_7", Tool: "mcp__gone__post", Args: `{}`})
	if err != nil {
		t.Fatal(err)
	}
	r := slash.Dispatch(f.env, "/inbox approve "+strconv.FormatInt(id, 10))
	if r.Err {
		t.Fatal(r.Output)
	}
	evs, asked := drive(t, r.Run(context.Background()), message.ApproveOnce)
	fail, ok := evs[len(evs)-1].(agent.TurnFailed)
	if !ok || !strings.Contains(fail.Message, "a tool this co does not have now") || !strings.Contains(fail.Message, "/inbox deny") || len(asked) != 0 {
		t.Fatalf("last event %#v, asked %d", evs[len(evs)-1], len(asked))
	}
	if p, _ := f.st.PendingCall(id); p.State != sessions.Waiting {
		t.Errorf("state %s", p.State)
	}
	if len(f.srv.Requests()) != 0 {
		t.Error("the model was called")
	}
}

// A call made in another workspace runs only from a chat there: its
// paths and commands mean what they meant where the run worked.
func TestInboxApproveFromAnotherWorkspaceSaysWhere(t *testing.T) {
	f := newInboxFixture(t)
	other := t.TempDir()
	f.app.Workspace = other
	r := slash.Dispatch(f.env, "/inbox approve 1")
	if !r.Err || r.Run != nil || !strings.Contains(r.Output, "cd "+f.ws+" && co") || !strings.Contains(r.Output, other) {
		t.Fatalf("/inbox approve from elsewhere: %+v", r)
	}
	if f.app.Agent.SessionID() == f.run || f.state(t) != sessions.Waiting {
		t.Error("switched or decided anyway")
	}
	if got := shellQuote("/tmp/it's here"); got != `'/tmp/it'\''s here'` {
		t.Errorf("shellQuote = %s", got)
	}
}
