package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
)

func scheduledLoaded(t *testing.T) *config.Loaded {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{
		"CO_CLI_SANDBOX_BACKEND": "subprocess",
		"XDG_CONFIG_HOME":        filepath.Join(home, "cfg"), "XDG_DATA_HOME": filepath.Join(home, "data"),
		"LLM_PROVIDER": "openai", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_MODEL": "m", "OPENAI_API_KEY": "k",
	}
	l, err := config.Load(config.LoadOptions{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, WorkDir: t.TempDir(), HomeDir: home})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Issue 29: app.Options{Kind: sessions.Scheduled, Schedule: NAME} saves the
// run as a scheduled session of NAME (what co schedule run needs); without
// a name it is an error, not an anonymous scheduled session.
func TestAppSavesAScheduledRun(t *testing.T) {
	l := scheduledLoaded(t)
	if _, err := New(context.Background(), l, Options{Kind: sessions.Scheduled}); err == nil || !strings.Contains(err.Error(), "schedule's name") {
		t.Fatalf("a scheduled run without a name: %v", err)
	}
	a, err := New(context.Background(), l, Options{Kind: sessions.Scheduled, Schedule: "brief"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.newRec.Append(message.Message{Role: message.RoleUser, Content: "brief me"}); err != nil {
		t.Fatal(err)
	}
	info, err := a.Sessions.Find(a.Agent.SessionID())
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != sessions.Scheduled || info.Schedule != "brief" {
		t.Errorf("saved as %+v", info)
	}
}

// App.Inbox counts the scheduled runs not told of yet and the calls
// waiting; a run is told once, a call until it is decided.
func TestAppInboxTellsARunOnce(t *testing.T) {
	l := scheduledLoaded(t)
	st, err := OpenSessions(l)
	if err != nil {
		t.Fatal(err)
	}
	run := st.NewScheduled("/w", "brief")
	if err := run.Append(message.Message{Role: message.RoleUser, Content: "brief me"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddPending(sessions.Pending{SessionID: run.ID(), CallID: "c", Tool: "write_file"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	inbox := func() InboxNews {
		a, err := New(context.Background(), l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		return a.Inbox()
	}
	if n := inbox(); n != (InboxNews{Runs: 1, Waiting: 1}) {
		t.Errorf("first start: %+v", n)
	}
	if n := inbox(); n != (InboxNews{Runs: 0, Waiting: 1}) {
		t.Errorf("second start: %+v", n)
	}
}

// App.Inbox counts, of the runs it tells, those that failed: the start
// notice says so.
func TestAppInboxCountsFailedRuns(t *testing.T) {
	l := scheduledLoaded(t)
	st, err := OpenSessions(l)
	if err != nil {
		t.Fatal(err)
	}
	ok := st.NewScheduled("/w", "brief")
	if err := ok.SetOutcome("done"); err != nil {
		t.Fatal(err)
	}
	bad := st.NewScheduled("/w", "brief")
	if err := bad.SetOutcome("failed: no provider"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	a, err := New(context.Background(), l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n := a.Inbox(); n != (InboxNews{Runs: 2, Failed: 1}) {
		t.Errorf("inbox = %+v, want 2 runs, 1 failed", n)
	}
}
