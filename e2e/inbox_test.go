package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
)

// seedScheduled saves, in the data dir of environ, what a scheduled run
// of "brief" leaves: its session and a call kept waiting for approval.
// It returns the waiting call's id.
func seedScheduled(t *testing.T, environ []string, dir string) int64 {
	t.Helper()
	st, err := sessions.Open(filepath.Join(envValue(environ, "XDG_DATA_HOME"), "co-cli", sessions.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run := st.NewScheduled(dir, "brief")
	if err := run.Append(message.Message{Role: message.RoleUser, Content: "brief me"}); err != nil {
		t.Fatal(err)
	}
	if err := run.Append(message.Message{Role: message.RoleAssistant, Content: "Two mails; the post waits."}); err != nil {
		t.Fatal(err)
	}
	id, err := st.AddPending(sessions.Pending{SessionID: run.ID(), CallID: "c1", Tool: "send_slack_message", Args: `{"channel":"#general","text":"hi"}`, Reason: "posts"})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func decide(t *testing.T, environ []string, id int64) {
	t.Helper()
	st, err := sessions.Open(filepath.Join(envValue(environ, "XDG_DATA_HOME"), "co-cli", sessions.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.DecidePending(id, sessions.Denied); err != nil {
		t.Fatal(err)
	}
}

const inboxNotice = "note: 1 scheduled run since you were here, 1 approval waiting — /inbox"

// Issue 29: --plain says, in its banner, what scheduled runs left; a run
// once, a waiting call until it is decided; nothing when there is nothing.
func TestPlainStartNoticeOfScheduledRuns(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	e := env(t, srv)
	dir := t.TempDir()
	id := seedScheduled(t, e, dir)

	banner := func() string {
		t.Helper()
		out, errOut, code := runCo(t, dir, e, "", "--plain")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errOut)
		}
		b, _, _ := strings.Cut(out, "Type a message")
		return b
	}
	if b := banner(); !strings.Contains(b, inboxNotice+"\n") {
		t.Fatalf("the banner lacks %q:\n%s", inboxNotice, b)
	}
	if b := banner(); !strings.Contains(b, "note: 1 approval waiting — /inbox\n") || strings.Contains(b, "scheduled run") {
		t.Errorf("second start: the run is told again, or the waiting call not:\n%s", b)
	}
	decide(t, e, id)
	if b := banner(); strings.Contains(b, "/inbox") {
		t.Errorf("nothing waits, yet the banner says:\n%s", b)
	}
}

// The full-screen chat says the same in its transcript.
func TestTUIStartNoticeOfScheduledRuns(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	e := tuiEnv(t, srv)
	dir := t.TempDir()
	seedScheduled(t, e, dir)
	s := startTUI(t, dir, e, 200, 50)
	s.ready()
	s.waitFor(tuiWait, strings.TrimPrefix(inboxNotice, "note: "))
}

// co inbox with the built binary lists the run and the waiting call,
// co sessions marks the run, and the chat's --continue never picks it up.
func TestInboxAndSessionsWithTheBinary(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	e := env(t, srv)
	dir := t.TempDir()
	id := seedScheduled(t, e, dir)
	out, errOut, code := runCo(t, dir, e, "", "inbox")
	if code != 0 {
		t.Fatalf("co inbox = %d: %s", code, errOut)
	}
	for _, want := range []string{"brief", "Two mails; the post waits.", "send_slack_message", "/inbox approve ID", "\n" + itoa(int(id)) + " "} {
		if !strings.Contains(out, want) {
			t.Errorf("co inbox lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = runCo(t, dir, e, "", "sessions")
	if !strings.Contains(out, "scheduled: brief") {
		t.Errorf("co sessions:\n%s", out)
	}
	_, errOut, code = runCo(t, dir, e, "", "--plain", "--continue")
	if code == 0 || !strings.Contains(errOut, "no saved chat session") {
		t.Errorf("co --continue with only a scheduled run saved = %d: %s", code, errOut)
	}
}
