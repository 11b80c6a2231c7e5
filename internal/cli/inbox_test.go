package cli

import (
	"strconv"
	"strings"
	"testing"

	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
)

// seedInbox saves, in the isolated home's store, a scheduled run of
// "brief" with an answer (an escape sequence in it) and a call it left
// waiting after untrusted content, and a chat session.
func seedInbox(t *testing.T) (st *sessions.Store, runID string, pendingID int64) {
	t.Helper()
	l, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	st, err = app.OpenSessions(l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	chat := st.New("/w")
	must(t, chat.Append(message.Message{Role: message.RoleUser, Content: "hello"}))
	run := st.NewScheduled("/w", "brief")
	must(t, run.Append(message.Message{Role: message.RoleUser, Content: "brief me"}))
	must(t, run.Append(message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "send_slack_message", Args: `{"channel":"#general","text":"hi"}`}}}))
	must(t, run.Append(message.Message{Role: message.RoleTool, ToolCallID: "c1", ToolName: "send_slack_message", Content: `{"status":"waiting"}`}))
	must(t, run.Append(message.Message{Role: message.RoleAssistant, Content: "Two mails today.\x1b]0;pwned\x07\nThe post to #general waits."}))
	must(t, run.SetOutcome("done, 1 call waiting"))
	pendingID, err = st.AddPending(sessions.Pending{SessionID: run.ID(), CallID: "c1", Tool: "send_slack_message", Args: `{"channel":"#general","text":"hi"}`,
		Reason: "posts a message that others will see", Untrusted: []string{"web example.com/news"}, To: "#general on Slack", Sends: "hi"})
	must(t, err)
	return st, run.ID(), pendingID
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Issue 29: co inbox lists the runs since the user last looked and every
// waiting call; looking marks the runs seen; --all lists them again; it
// never approves and says where to.
func TestInboxListsRunsAndWaitingCalls(t *testing.T) {
	isolatedHome(t)
	_, runID, pid := seedInbox(t)

	code, out, errOut := run(t, "v", "inbox")
	if code != 0 {
		t.Fatalf("co inbox = %d: %s", code, errOut)
	}
	for _, want := range []string{"Scheduled runs since you last looked", "brief", "done, 1 call waiting", "Two mails today.", runID,
		"1 call waiting for your approval", "send_slack_message", "channel='#general'", "web example.com/news", "/inbox approve ID"} {
		if !strings.Contains(out, want) {
			t.Errorf("co inbox does not say %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "\n"+strconv.FormatInt(pid, 10)+" ") {
		t.Errorf("co inbox does not give the waiting call's id %d:\n%s", pid, out)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("raw escape in co inbox: %q", out)
	}
	if strings.Contains(out, "hello") {
		t.Errorf("co inbox lists a chat session:\n%s", out)
	}

	// Looked at: the run is not new any more; the call still waits.
	_, out, _ = run(t, "v", "inbox")
	if strings.Contains(out, runID) || !strings.Contains(out, "No scheduled runs since you last looked") || !strings.Contains(out, "send_slack_message") {
		t.Errorf("second co inbox:\n%s", out)
	}
	_, out, _ = run(t, "v", "inbox", "--all")
	if !strings.Contains(out, runID) {
		t.Errorf("co inbox --all does not list the older run:\n%s", out)
	}
}

// co inbox show RUN prints the run's answer, sanitised, and what it left
// waiting.
func TestInboxShowPrintsTheAnswer(t *testing.T) {
	isolatedHome(t)
	_, runID, _ := seedInbox(t)
	code, out, errOut := run(t, "v", "inbox", "show", runID[:10])
	if code != 0 {
		t.Fatalf("co inbox show = %d: %s", code, errOut)
	}
	for _, want := range []string{"scheduled run of brief", "Two mails today.", "The post to #general waits.", "send_slack_message", "/inbox approve", "co --resume " + runID} {
		if !strings.Contains(out, want) {
			t.Errorf("co inbox show does not say %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("raw escape in co inbox show: %q", out)
	}
	if code, _, errOut := run(t, "v", "inbox", "show", "nosuchrun"); code == 0 || !strings.Contains(errOut, "co sessions lists them") {
		t.Errorf("co inbox show of an unknown run = %d, %q", code, errOut)
	}
}

// An empty inbox says so; co status counts what waits.
func TestInboxEmptyAndStatus(t *testing.T) {
	isolatedHome(t)
	code, out, _ := run(t, "v", "inbox")
	if code != 0 || !strings.Contains(out, "No scheduled runs yet.") || !strings.Contains(out, "No call is waiting for your approval.") {
		t.Errorf("empty co inbox = %d:\n%s", code, out)
	}
	seedInbox(t)
	_, out, _ = run(t, "v", "status")
	if !strings.Contains(out, "1 call waiting for your approval") {
		t.Errorf("co status does not count the waiting call:\n%s", out)
	}
}

// co sessions marks a scheduled run with its schedule (FROM).
func TestSessionsMarkScheduledRuns(t *testing.T) {
	isolatedHome(t)
	seedInbox(t)
	_, out, _ := run(t, "v", "sessions", "--all")
	if !strings.Contains(out, "scheduled: brief") || !strings.Contains(out, "chat") {
		t.Errorf("co sessions:\n%s", out)
	}
}

// The chat's start notice: one line, nothing when there is nothing; a run
// is told once, a waiting call until it is decided.
func TestInboxNotice(t *testing.T) {
	for n, want := range map[app.InboxNews]string{
		{}:                    "",
		{Runs: 2, Waiting: 1}: "2 scheduled runs since you were here, 1 approval waiting — /inbox",
		{Runs: 1}:             "1 scheduled run since you were here — /inbox",
		{Waiting: 3}:          "3 approvals waiting — /inbox",
		{Runs: 2, Failed: 1}:  "2 scheduled runs since you were here (1 failed) — /inbox",
	} {
		if got := inboxNotice(n); got != want {
			t.Errorf("inboxNotice(%+v) = %q, want %q", n, got, want)
		}
	}
}

// A waiting call's arguments padded with blanks show what follows the
// blanks in the list: the padding is shown by its length, not spent on
// the clip.
func TestWaitingTableShowsWhatBlanksHide(t *testing.T) {
	args := `{"cmd":"echo hello` + strings.Repeat(" ", 300) + `; touch pwned"}`
	out := waitingTable([]sessions.Pending{{ID: 4, Tool: "run_shell_command", Args: args, Schedule: "evil"}})
	if !strings.Contains(out, "echo hello ␣×300 ; touch pwned") {
		t.Errorf("the list hides what follows the blanks:\n%s", out)
	}
	if out := waitingTable([]sessions.Pending{{ID: 1, Tool: "write_file", Args: `{"path":"a b   c"}`}}); !strings.Contains(out, "path='a b   c'") {
		t.Errorf("a few blanks are changed:\n%s", out)
	}
}

// Once its waiting call is decided, a run is no longer listed as having a
// call waiting, and its answer stays the run's own: approving from the
// inbox goes on in the run's session, whose later messages (the chat's)
// are not the run's answer.
func TestInboxRunAfterItsCallIsDecided(t *testing.T) {
	isolatedHome(t)
	st, runID, pid := seedInbox(t)
	must(t, st.DecidePending(pid, sessions.Approved))
	rec, err := st.Resume(runID)
	must(t, err)
	must(t, rec.Append(message.Message{Role: message.RoleUser, Content: "[From co's inbox] The user approved the call"}))
	must(t, rec.Append(message.Message{Role: message.RoleAssistant, Content: "Posted to #general."}))

	_, out, _ := run(t, "v", "inbox", "--all")
	if strings.Contains(out, "1 call waiting") || !strings.Contains(out, "done, 1 call approved") {
		t.Errorf("the run's outcome after approval:\n%s", out)
	}
	if strings.Contains(out, "Posted to #general.") || !strings.Contains(out, "Two mails today.") {
		t.Errorf("the run's answer is the chat's:\n%s", out)
	}
	_, out, _ = run(t, "v", "inbox", "show", runID)
	if !strings.Contains(out, "done, 1 call approved") || !strings.Contains(out, "Two mails today.") || strings.Contains(out, "Posted to #general.") {
		t.Errorf("co inbox show:\n%s", out)
	}
}
