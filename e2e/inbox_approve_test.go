package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools"
)

const inboxLabel = "web example.org/offers"

// seedInbox saves, in the store co will open (environ's data dir), a
// scheduled run of "brief" that read a web page and kept a write_file of
// brief.md (in dir) waiting, as an unattended run leaves them.
func seedInbox(t *testing.T, environ []string, dir string) {
	t.Helper()
	var data string
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "XDG_DATA_HOME="); ok {
			data = filepath.Join(v, "co-cli")
		}
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := sessions.Open(filepath.Join(data, sessions.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := st.NewScheduled(dir, "brief")
	args := `{"path":"brief.md","content":"today: 3 offers"}`
	for _, m := range []message.Message{
		{Role: message.RoleUser, Content: "brief me on the offers and save it to brief.md"},
		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "call_1", Name: "web_fetch", Args: `{"url":"https://example.org/offers"}`}}},
		{Role: message.RoleTool, ToolCallID: "call_1", ToolName: "web_fetch", Content: "3 offers", Sources: []tools.Origin{{Kind: "web", Label: inboxLabel, Untrusted: true, Public: true}}},
		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "call_2", Name: "write_file", Args: args}}},
		{Role: message.RoleTool, ToolCallID: "call_2", ToolName: "write_file", Content: `{"status":"denied","denied_by":"nobody"}`},
		{Role: message.RoleAssistant, Content: "There are 3 offers today. Saving brief.md waits for you."},
	} {
		if err := rec.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.SetOutcome("1 call waiting"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddPending(sessions.Pending{SessionID: rec.ID(), CallID: "call_2", Tool: "write_file", Args: args,
		Reason: "it follows untrusted content from " + inboxLabel, Untrusted: []string{inboxLabel}}); err != nil {
		t.Fatal(err)
	}
}

// TestTUIInboxApproveResumesTheRunAndAsks: /inbox lists the run and the
// waiting call; /inbox approve 1 shows the run's conversation, then the
// approval modal with the page the run read; y writes the file and the
// model continues.
func TestTUIInboxApproveResumesTheRunAndAsks(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Saved the brief for you."})
	dir := t.TempDir()
	e := tuiEnv(t, srv)
	seedInbox(t, e, dir)
	s := startTUI(t, dir, e, 120, 40)
	s.ready()
	s.send("/inbox")
	s.waitFor(tuiWait, "Scheduled runs, newest first", "1 call waiting", "waiting for your approval", "path='brief.md'", "example.org/offers")
	s.send("/inbox approve 1")
	// The modal stands alone on the screen (nothing beside a modal).
	scr := s.waitFor(tuiWait, "This call follows untrusted content from "+inboxLabel)
	// In the modal, with the call's own check: the file it creates.
	box := strings.Join(modalBox(t, scr), "\n")
	for _, want := range []string{"This call follows untrusted content from " + inboxLabel, "brief.md", "today: 3 offers"} {
		if !strings.Contains(box, want) {
			t.Errorf("the modal lacks %q:\n%s", want, box)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "brief.md")); err == nil {
		t.Fatalf("written before the answer:\n%s", scr)
	}
	s.waitArmed()
	s.keys("y")
	// The run's conversation, then the call and the model's continuation.
	s.waitFor(tuiWait, "There are 3 offers today.", "/inbox approve 1", "Saved the brief for you.")
	b, err := os.ReadFile(filepath.Join(dir, "brief.md"))
	if err != nil || string(b) != "today: 3 offers" {
		t.Fatalf("the approved call did not run: %q %v", b, err)
	}
	s.send("/inbox approve 1")
	s.waitFor(tuiWait, "Call 1 (write_file) was already approved")
}

// TestPlainInboxApproveAndDeny: the same in --plain through pipes, the
// question on a line; then a denied call runs nothing.
func TestPlainInboxApproveAndDeny(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Saved the brief for you."})
	dir := t.TempDir()
	e := env(t, srv)
	seedInbox(t, e, dir)
	out, errOut, code := runCo(t, dir, e, "/inbox\n/inbox approve 1\ny\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"waiting for your approval", "co> brief me on the offers", "There are 3 offers today.",
		"Resumed the session of the scheduled run \"brief\"", "This call follows untrusted content from " + inboxLabel,
		"Approve write_file(", "Saved the brief for you."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "brief.md")); err != nil || string(b) != "today: 3 offers" {
		t.Fatalf("the approved call did not run: %q %v", b, err)
	}

	// Another run's call, denied with /inbox deny: nothing runs.
	dir2 := t.TempDir()
	e2 := env(t, srv)
	seedInbox(t, e2, dir2)
	out, _, code = runCo(t, dir2, e2, "/inbox deny 1\n/inbox approve 1\n", "--plain")
	if code != 0 || !strings.Contains(out, "Denied call 1") || !strings.Contains(out, "was already denied") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir2, "brief.md")); err == nil {
		t.Fatal("a denied call ran")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests to the model; want the one continuation of the approved call", n)
	}
}

// TestTUIInboxDeniedInTheModal: n in the modal runs nothing, and the
// conversation says the call was denied.
func TestTUIInboxDeniedInTheModal(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	e := tuiEnv(t, srv)
	seedInbox(t, e, dir)
	s := startTUI(t, dir, e, 120, 40)
	s.ready()
	s.send("/inbox approve 1")
	s.waitFor(tuiWait, "This call follows untrusted content from "+inboxLabel)
	s.waitArmed()
	s.keys("n")
	s.waitFor(tuiWait, "was denied from the inbox")
	if _, err := os.Stat(filepath.Join(dir, "brief.md")); err == nil {
		t.Fatal("a denied call ran")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model was called %d times after a denial", n)
	}
	s.send("/inbox")
	s.waitFor(tuiWait, "No call is waiting for your approval.")
}
