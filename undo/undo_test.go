package undo_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/checkpoint"
	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/lib/testneeds"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sandbox"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/files"
	"github.com/co-cli/co/tools/shell"
	"github.com/co-cli/co/undo"
)

// world is one chat of co made of its real parts: a workspace, the file
// tools and run_shell_command (in the backend given), a real sessions
// store, checkpoint store and journal, and a scripted model.
type world struct {
	ws, data string
	llm      *llmtest.Server
	ag       *agent.Agent
	store    *sessions.Store
	rec      *sessions.Session
	ckpt     *checkpoint.Store
	spans    *tracetest.SpanRecorder
	tp       *sdktrace.TracerProvider

	mu       sync.Mutex
	journals map[string]*journal.Journal
}

type worldOptions struct {
	backend    string // sandbox backend; "" subprocess
	noRecorder bool
	ckpt       checkpoint.Options
	extra      []tools.Tool
}

func newWorld(t *testing.T, o worldOptions) *world {
	t.Helper()
	w := &world{ws: t.TempDir(), data: t.TempDir(), llm: llmtest.NewServer(), journals: map[string]*journal.Journal{}}
	t.Cleanup(w.llm.Close)
	seed(t, w.ws)
	if o.backend == "" {
		o.backend = sandbox.BackendSubprocess
	}
	var run [6]byte
	_, _ = rand.Read(run[:])
	sb, _, err := sandbox.New(context.Background(), sandbox.Config{Backend: o.backend, Workspace: w.ws, RunID: hex.EncodeToString(run[:]) + "-undo"})
	must(t, err)
	t.Cleanup(func() { sb.Close() })
	fw, err := files.New(w.ws)
	must(t, err)
	t.Cleanup(func() { _ = fw.Close() })
	policy, err := shell.NewPolicy(nil, nil)
	must(t, err)
	all := append(fw.Tools(), shell.NewTool(sb, policy, time.Minute))
	all = append(all, o.extra...)
	reg, err := tools.NewRegistry(all...)
	must(t, err)
	w.ckpt, err = checkpoint.Open(filepath.Join(w.data, "checkpoints"), w.ws, o.ckpt)
	must(t, err)
	w.spans = tracetest.NewSpanRecorder()
	w.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(w.spans))
	w.ag = agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: w.llm.URL, APIKey: "k", Model: "m", KeyEnv: "OPENAI_API_KEY"},
		SystemPrompt: "test",
		Tools:        reg,
		Approvals:    agent.NewApprovals(agent.ApprovalOptions{}),
		ToolRetries:  3,
		MaxRequests:  10,
		Retry:        provider.RetryPolicy{Base: 10 * time.Millisecond},
		StallTimeout: 30 * time.Second,
		Tracer:       w.tp.Tracer("test"),
		Checkpoints:  w.ckpt,
		Journal:      w.journal,
	})
	w.store, err = sessions.Open(filepath.Join(w.data, sessions.FileName))
	must(t, err)
	t.Cleanup(func() { w.store.Close() })
	if !o.noRecorder {
		w.rec = w.store.New(w.ws)
		w.ag.SetRecorder(w.rec)
	}
	t.Cleanup(func() {
		w.ag.WaitCheckpoint()
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, j := range w.journals {
			_ = j.Close()
		}
	})
	return w
}

// journal is the agent's Config.Journal: one journal per session.
func (w *world) journal(session string) (*journal.Journal, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if j, ok := w.journals[session]; ok {
		return j, nil
	}
	j, err := journal.Open(filepath.Join(w.data, "journal"), session)
	if err == nil {
		w.journals[session] = j
	}
	return j, err
}

func (w *world) service(t *testing.T) *undo.Service {
	t.Helper()
	j, err := w.journal(w.rec.ID())
	must(t, err)
	return undo.New(undo.Config{
		Sessions: w.store, Session: w.rec.ID(), Checkpoints: w.ckpt, Journal: j,
		Registry: journal.NewRegistry(), Tracer: w.tp.Tracer("test"), Hold: w.ag.Hold,
	})
}

// turn runs one turn of prompt, approving every call, and returns its
// notices; it fails the test when the turn fails. The turn's checkpoint
// is recorded when it returns.
func (w *world) turn(t *testing.T, prompt string) []string {
	t.Helper()
	var notices []string
	for ev := range w.ag.Submit(context.Background(), prompt) {
		switch ev := ev.(type) {
		case agent.ApprovalRequested:
			v := make([]message.Verdict, len(ev.Calls))
			for i := range v {
				v[i] = message.ApproveOnce
			}
			ev.Reply(v)
		case agent.Notice:
			notices = append(notices, ev.Text)
		case agent.ToolCallFinished:
			if ev.Status != message.CallDone {
				t.Errorf("%s: %s %s", ev.Name, ev.Status, ev.Err)
			}
		case agent.TurnFailed:
			t.Fatalf("turn %q failed: %s", prompt, ev.Message)
		}
	}
	w.ag.WaitCheckpoint()
	return notices
}

func call(name string, args map[string]any) llmtest.ToolCall {
	b, _ := json.Marshal(args)
	return llmtest.ToolCall{Name: name, Args: string(b)}
}

// seed is the workspace before the turns.
func seed(t *testing.T, ws string) {
	write(t, filepath.Join(ws, "a.txt"), "alpha\nbeta\n", 0o644)
	write(t, filepath.Join(ws, "run.sh"), "#!/bin/sh\necho hi\n", 0o755)
	write(t, filepath.Join(ws, "src/main.go"), "package main\n", 0o644)
	write(t, filepath.Join(ws, "src/deep/x.txt"), "x\n", 0o600)
	write(t, filepath.Join(ws, "gone/inner/y.txt"), "y\n", 0o640)
	must(t, os.Chmod(filepath.Join(ws, "gone/inner"), 0o750))
	write(t, filepath.Join(ws, "notes.md"), "# notes\n", 0o644)
}

// state is every path of ws with its type, mode, owner and bytes.
func state(t *testing.T, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	must(t, filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == ws {
			return err
		}
		rel, _ := filepath.Rel(ws, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			desc += " " + strconv.Itoa(int(st.Uid)) + ":" + strconv.Itoa(int(st.Gid))
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			desc += " -> " + l
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			desc += " " + string(b)
		}
		out[rel] = desc
		return nil
	}))
	return out
}

func diffStates(t *testing.T, want, got map[string]string) {
	t.Helper()
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("%s missing after the rewind, want %q", p, w)
		} else if g != w {
			t.Errorf("%s = %q after the rewind, want %q", p, g, w)
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s left after the rewind: %q", p, g)
		}
	}
}

func write(t *testing.T, p, s string, mode fs.FileMode) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(s), mode))
	must(t, os.Chmod(p, mode))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// scriptChanges scripts a turn that writes, edits, deletes and creates
// folders with the file tools and the shell.
func (w *world) scriptChanges() {
	w.llm.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{
			call("write_file", map[string]any{"path": "new/dir/created.txt", "content": "made by write_file\n", "create_dirs": true}),
			call("write_file", map[string]any{"path": "notes.md", "content": "# notes\nrewritten\n"}),
			call("edit_file", map[string]any{"path": "a.txt", "old": "beta", "new": "gamma"}),
		}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{
			call("run_shell_command", map[string]any{"cmd": "set -e; rm -r gone src/main.go; mkdir -p build/out; printf bin > build/out/app; chmod 700 build/out/app; chmod 600 run.sh; echo more >> src/deep/x.txt"}),
		}},
		llmtest.Reply{Text: "Done."},
	)
}

// A turn whose tools write, edit, delete and create folders, through the
// file tools and through the shell, is taken back exactly (bytes, modes,
// owners), unsandboxed and in the real Docker sandbox; the turn leaves the
// conversation, and the undo is a span.
func TestATurnOfToolsIsTakenBackExactly(t *testing.T) {
	for _, backend := range []string{sandbox.BackendSubprocess, sandbox.BackendDocker} {
		t.Run(backend, func(t *testing.T) {
			if backend == sandbox.BackendDocker {
				needDocker(t)
			}
			w := newWorld(t, worldOptions{backend: backend})
			w.llm.Script(llmtest.Reply{Text: "Hello."})
			w.turn(t, "hi")
			before := state(t, w.ws)
			w.scriptChanges()
			w.turn(t, "change the files")
			after := state(t, w.ws)
			for _, p := range []string{"new/dir/created.txt", "build/out/app"} {
				if _, ok := after[p]; !ok {
					t.Fatalf("the turn did not make %s: %v", p, after)
				}
			}
			if _, ok := after["gone"]; ok {
				t.Fatalf("the turn did not remove gone: %v", after)
			}

			svc := w.service(t)
			turns, err := svc.Turns()
			must(t, err)
			if len(turns) != 2 || turns[1].Prompt != "change the files" || turns[1].N != 2 {
				t.Fatalf("Turns = %+v", turns)
			}
			if turns[0].Checkpoint != nil {
				t.Errorf("a turn that changed nothing has a checkpoint: %+v", turns[0].Checkpoint)
			}
			if turns[1].Checkpoint == nil || len(turns[1].Checkpoint.Changes) == 0 {
				t.Fatalf("the turn has no checkpoint: %+v", turns[1])
			}
			res, err := svc.Rewind(context.Background(), turns[1].Seq, undo.Both, false)
			must(t, err)
			if len(res.Files.Conflicts) != 0 || len(res.Files.NotRestorable) != 0 {
				t.Fatalf("rewind: %+v", res.Files)
			}
			diffStates(t, before, state(t, w.ws))
			if res.Prompt != "change the files" || len(res.Taken) != 1 || res.Taken[0].N != 2 {
				t.Errorf("Prompt %q, Taken %+v", res.Prompt, res.Taken)
			}
			r, err := w.store.LoadResume(w.rec.ID())
			must(t, err)
			for _, m := range r.History {
				if strings.Contains(m.Content, "change the files") || len(m.ToolCalls) > 0 {
					t.Errorf("the resumed history still holds the turn: %+v", m)
				}
			}
			if len(r.History) != 2 {
				t.Errorf("resumed history = %d messages, want the first turn's 2", len(r.History))
			}
			left, err := svc.Turns()
			must(t, err)
			if len(left) != 1 {
				t.Errorf("Turns after the rewind = %+v", left)
			}
			span := undoSpan(t, w.spans)
			attrs := map[string]string{}
			for _, kv := range span.Attributes() {
				attrs[string(kv.Key)] = kv.Value.String()
			}
			if attrs["co.undo.mode"] != "both" || attrs["co.undo.turns"] != "1" || attrs["co.undo.restored"] == "0" || attrs["co.undo.removed"] == "0" ||
				!strings.Contains(attrs["co.undo.paths"], "new/dir/created.txt") {
				t.Errorf("undo span attributes: %v", attrs)
			}
			for k, v := range attrs {
				if strings.Contains(v, "made by write_file") || strings.Contains(v, "rewritten") {
					t.Errorf("the span carries a file's content in %s: %s", k, v)
				}
			}
		})
	}
}

func undoSpan(t *testing.T, rec *tracetest.SpanRecorder) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, s := range rec.Ended() {
		if s.Name() == "execute_tool undo" {
			return s
		}
	}
	t.Fatal("no undo span was recorded")
	return nil
}

// A file changed after the turn by someone else is kept and named; the same
// rewind again with force puts back the turn's earlier version.
func TestAFileChangedAfterTheTurnIsKeptUnlessForce(t *testing.T) {
	w := newWorld(t, worldOptions{})
	before := state(t, w.ws)
	w.scriptChanges()
	w.turn(t, "change the files")
	write(t, filepath.Join(w.ws, "a.txt"), "the user's own edit\n", 0o644)

	svc := w.service(t)
	turns, err := svc.Turns()
	must(t, err)
	res, err := svc.Rewind(context.Background(), turns[0].Seq, undo.Both, false)
	must(t, err)
	if len(res.Files.Conflicts) != 1 || res.Files.Conflicts[0].Path != "a.txt" {
		t.Fatalf("conflicts = %+v, want a.txt", res.Files.Conflicts)
	}
	if b, _ := os.ReadFile(filepath.Join(w.ws, "a.txt")); string(b) != "the user's own edit\n" {
		t.Fatalf("a.txt was overwritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(w.ws, "new/dir/created.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the rest of the turn was not taken back: %v", err)
	}
	if len(res.Notes) == 0 {
		t.Error("no note says the conflicting file was kept")
	}

	res, err = svc.Rewind(context.Background(), turns[0].Seq, undo.Both, true)
	must(t, err)
	if len(res.Files.Conflicts) != 0 || !slices.Contains(res.Files.Restored, "a.txt") {
		t.Fatalf("forced rewind: %+v", res.Files)
	}
	diffStates(t, before, state(t, w.ws))
}

// ConversationOnly takes the turns out of the saved conversation (no trace
// of them on resume) and leaves the files; FilesOnly restores the files and
// leaves the conversation.
func TestConversationOnlyAndFilesOnly(t *testing.T) {
	w := newWorld(t, worldOptions{})
	before := state(t, w.ws)
	w.llm.Script(llmtest.Reply{Text: "Hello."})
	w.turn(t, "first")
	w.scriptChanges()
	w.turn(t, "change the files")

	svc := w.service(t)
	turns, err := svc.Turns()
	must(t, err)
	res, err := svc.Rewind(context.Background(), turns[1].Seq, undo.FilesOnly, false)
	must(t, err)
	diffStates(t, before, state(t, w.ws))
	if len(res.Sent) != 0 {
		t.Errorf("FilesOnly listed what was sent: %+v", res.Sent)
	}
	r, err := w.store.LoadResume(w.rec.ID())
	must(t, err)
	if !slices.ContainsFunc(r.History, func(m message.Message) bool { return m.Content == "change the files" }) {
		t.Fatal("FilesOnly took the turn out of the conversation")
	}
	if left, _ := svc.Turns(); len(left) != 2 {
		t.Fatalf("Turns after FilesOnly = %+v", left)
	}

	// The files again as the turn left them, then the conversation only.
	w2 := newWorld(t, worldOptions{})
	w2.llm.Script(llmtest.Reply{Text: "Hello."})
	w2.turn(t, "first")
	w2.scriptChanges()
	w2.turn(t, "change the files")
	changed := state(t, w2.ws)
	svc2 := w2.service(t)
	turns, err = svc2.Turns()
	must(t, err)
	_, err = svc2.Rewind(context.Background(), turns[1].Seq, undo.ConversationOnly, false)
	must(t, err)
	diffStates(t, changed, state(t, w2.ws))
	r, err = w2.store.LoadResume(w2.rec.ID())
	must(t, err)
	for _, m := range r.History {
		if m.Content == "change the files" || len(m.ToolCalls) > 0 || m.Role == message.RoleTool {
			t.Errorf("the resumed history holds the turn: %+v", m)
		}
	}
	if len(r.History) != 2 {
		t.Errorf("resumed history = %+v", r.History)
	}
}

// A turn without a recorder (a conversation not saved) gets no checkpoint
// and no journal: it has no key.
func TestATurnWithoutARecorderIsNotCheckpointed(t *testing.T) {
	w := newWorld(t, worldOptions{noRecorder: true})
	w.scriptChanges()
	w.turn(t, "change the files")
	recs, err := w.ckpt.Turns()
	must(t, err)
	if len(recs) != 0 {
		t.Fatalf("checkpoints without a recorder: %+v", recs)
	}
	if len(w.journals) != 0 {
		t.Fatalf("journals opened without a recorder: %v", w.journals)
	}
	if _, err := os.Stat(filepath.Join(w.ws, "new/dir/created.txt")); err != nil {
		t.Fatalf("the turn did not run: %v", err)
	}
}

// recorder is a tool that records what it "sent" in the journal its call
// carries, as the Slack and Google tools do.
type recorder struct{}

func (recorder) Name() string        { return "announce" }
func (recorder) Description() string { return "Announce something." }
func (recorder) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`)
}
func (recorder) Class() tools.Class { return tools.ReadOnly }
func (recorder) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	turn, start, ok := journal.TurnOf(ctx)
	if !ok {
		return tools.Result{}, errors.New("no journal in the call's context")
	}
	if start.IsZero() {
		return tools.Result{}, errors.New("no turn start in the call's context")
	}
	e, err := journal.RecordIn(ctx, journal.NotUndoable(turn, "announce", journal.WebRequest, "announced "+string(raw), "a web request cannot be taken back"))
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Display: fmt.Sprintf("recorded %d", e.Seq)}, nil
}

// What a turn's tools record goes to the session's journal under the
// turn's key, and a rewind lists it.
func TestATurnsJournalIsListedByTheRewind(t *testing.T) {
	w := newWorld(t, worldOptions{extra: []tools.Tool{recorder{}}})
	w.llm.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{call("announce", map[string]any{"text": "lunch"})}},
		llmtest.Reply{Text: "Announced."},
	)
	w.turn(t, "announce lunch")
	svc := w.service(t)
	turns, err := svc.Turns()
	must(t, err)
	if len(turns) != 1 || len(turns[0].Sent) != 1 || turns[0].Sent[0].Turn != int(turns[0].Seq) {
		t.Fatalf("Turns = %+v", turns)
	}
	res, err := svc.Rewind(context.Background(), turns[0].Seq, undo.Both, false)
	must(t, err)
	if len(res.Sent) != 1 || res.Sent[0].Kind != journal.WebRequest {
		t.Fatalf("Sent = %+v", res.Sent)
	}
	if _, err := svc.UndoSent(context.Background(), res.Sent[0].Seq); !errors.Is(err, journal.ErrNotUndoable) {
		t.Fatalf("UndoSent of a web request: %v", err)
	}
	found := false
	for _, s := range w.spans.Ended() {
		if s.Name() == "execute_tool undo_sent" {
			found = true
		}
	}
	if !found {
		t.Error("no undo_sent span")
	}
}

// A rewind while a turn runs is refused: the turn waits for an approval.
func TestARewindWhileATurnRunsIsRefused(t *testing.T) {
	w := newWorld(t, worldOptions{})
	w.llm.Script(llmtest.Reply{Text: "Hello."})
	w.turn(t, "first")
	svc := w.service(t)
	turns, err := svc.Turns()
	must(t, err)
	w.llm.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{call("write_file", map[string]any{"path": "x.txt", "content": "x"})}},
		llmtest.Reply{Text: "Done."},
	)
	for ev := range w.ag.Submit(context.Background(), "write x") {
		if ev, ok := ev.(agent.ApprovalRequested); ok {
			if _, err := svc.Rewind(context.Background(), turns[0].Seq, undo.Both, false); !errors.Is(err, agent.ErrBusy) {
				t.Errorf("a rewind during a turn: %v, want ErrBusy", err)
			}
			ev.Reply([]message.Verdict{message.ApproveOnce})
		}
	}
	if _, err := svc.Rewind(context.Background(), turns[0].Seq, undo.Both, false); err != nil {
		t.Fatalf("a rewind after the turn: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.ws, "x.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("x.txt after the rewind: %v", err)
	}
}

// A workspace too large to checkpoint: the turns go on, and one notice per
// session says its files cannot be undone and why.
func TestAWorkspaceTooLargeIsSaidOnce(t *testing.T) {
	w := newWorld(t, worldOptions{ckpt: checkpoint.Options{MaxEntries: 3}})
	for i := range 2 {
		w.llm.Script(
			llmtest.Reply{ToolCalls: []llmtest.ToolCall{call("write_file", map[string]any{"path": fmt.Sprintf("f%d.txt", i), "content": "x"})}},
			llmtest.Reply{Text: "Done."},
		)
		notices := w.turn(t, fmt.Sprintf("write %d", i))
		n := 0
		for _, s := range notices {
			if strings.Contains(s, "cannot be undone") && strings.Contains(s, "more than 3 files") {
				n++
			}
		}
		if want := 1 - i; n != want {
			t.Errorf("turn %d: %d notices about the workspace (want %d): %q", i, n, want, notices)
		}
	}
	if recs, _ := w.ckpt.Turns(); len(recs) != 0 {
		t.Errorf("checkpoints of a workspace too large: %+v", recs)
	}
}

func needDocker(t *testing.T) {
	t.Helper()
	if err := exec.Command("docker", "image", "inspect", sandbox.DefaultImage).Run(); err != nil {
		testneeds.Docker.Missing(t, fmt.Errorf("docker image inspect %s: %w", sandbox.DefaultImage, err))
	}
}

// A call approved from the inbox is a turn: its "/inbox approve" message
// is the turn's user message, and a rewind takes the call's file back.
func TestAnInboxApprovalIsATurn(t *testing.T) {
	w := newWorld(t, worldOptions{})
	w.llm.Script(llmtest.Reply{Text: "Hello."})
	w.turn(t, "first")
	w.llm.Script(llmtest.Reply{Text: "Done."})
	for ev := range w.ag.RunWaiting(context.Background(), agent.WaitingCall{ID: 7, CallID: "c1", Tool: "write_file",
		Args: `{"path":"inbox.txt","content":"from the inbox\n"}`}) {
		switch ev := ev.(type) {
		case agent.ApprovalRequested:
			ev.Reply([]message.Verdict{message.ApproveOnce})
		case agent.TurnFailed:
			t.Fatalf("the approved call's turn failed: %s", ev.Message)
		}
	}
	w.ag.WaitCheckpoint()
	svc := w.service(t)
	turns, err := svc.Turns()
	must(t, err)
	if len(turns) != 2 || turns[1].Prompt != "/inbox approve 7" || turns[1].Checkpoint == nil {
		t.Fatalf("Turns = %+v", turns)
	}
	_, err = svc.Rewind(context.Background(), turns[1].Seq, undo.Both, false)
	must(t, err)
	if _, err := os.Stat(filepath.Join(w.ws, "inbox.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("inbox.txt after the rewind: %v", err)
	}
}

// Summarise replaces the turns from the one chosen by the model's summary
// in what a resume sends, and leaves the files.
func TestSummariseFromATurn(t *testing.T) {
	w := newWorld(t, worldOptions{})
	w.llm.Script(llmtest.Reply{Text: "Hello."})
	w.turn(t, "first")
	w.scriptChanges()
	w.turn(t, "change the files")
	changed := state(t, w.ws)
	// The summary request's only user message is the transcript, which
	// starts "USER: " (agent/history.go).
	w.llm.Rules(llmtest.Reply{Match: "USER: ", Text: "- the files were changed"})
	j, err := w.journal(w.rec.ID())
	must(t, err)
	svc := undo.New(undo.Config{Sessions: w.store, Session: w.rec.ID(), Checkpoints: w.ckpt, Journal: j, Summarise: w.ag.Summarise, Hold: w.ag.Hold})
	turns, err := svc.Turns()
	must(t, err)
	res, err := svc.Rewind(context.Background(), turns[1].Seq, undo.Summarise, false)
	must(t, err)
	if res.Summary != "- the files were changed" {
		t.Fatalf("Summary = %q", res.Summary)
	}
	diffStates(t, changed, state(t, w.ws))
	r, err := w.store.LoadResume(w.rec.ID())
	must(t, err)
	var all []string
	for _, m := range r.History {
		all = append(all, m.Content)
		if m.Content == "change the files" || len(m.ToolCalls) > 0 {
			t.Errorf("the resumed history holds a summarised message: %+v", m)
		}
	}
	if !strings.Contains(strings.Join(all, "\n"), "- the files were changed") || !slices.Contains(all, "first") {
		t.Errorf("resumed history = %q", all)
	}
}
