package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/ui/headless"
)

// A scheduled run as co schedule run NAME makes it (runScheduled): it
// reads, its write waits, the exit code says so; co sessions marks it,
// co inbox lists it and the waiting call, co status counts it.
func TestScheduledRunEndToEnd(t *testing.T) {
	isolatedHome(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	t.Setenv("LLM_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_MODEL", "test-model")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	wd, _ := os.Getwd()
	if err := os.WriteFile(filepath.Join(wd, "todo.txt"), []byte("send the report\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "read_file", Args: `{"path":"todo.txt"}`}}},
		// Unsandboxed (the subprocess backend), even ls would run on the
		// machine itself: it waits too.
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c2", Name: "write_file", Args: `{"path":"done.txt","content":"sent"}`},
			{ID: "c3", Name: "run_shell_command", Args: `{"cmd":"touch ran.txt"}`}}},
		llmtest.Reply{Text: "One todo: send the report. Marking it done waits for you."},
	)
	var log bytes.Buffer
	_, code := runScheduled(context.Background(), env{Streams{In: strings.NewReader(""), Out: &log, Err: &log}, "v"},
		config.Schedule{Name: "todos", Prompt: "list my todos"}, &log)
	if code != headless.ExitWaiting {
		t.Fatalf("runScheduled = %d, want exit %d\nlog: %s", code, headless.ExitWaiting, log.String())
	}
	if !strings.Contains(log.String(), "One todo: send the report.") || !strings.Contains(log.String(), "waiting for approval: write_file") ||
		!strings.Contains(log.String(), "co: 2 calls wait for your approval: co inbox lists them") {
		t.Errorf("log: %s", log.String())
	}
	for _, f := range []string{"done.txt", "ran.txt"} {
		if _, err := os.Stat(filepath.Join(wd, f)); !os.IsNotExist(err) {
			t.Fatalf("%s: a call ran unattended: %v", f, err)
		}
	}

	_, o, _ := run(t, "v", "sessions")
	if !strings.Contains(o, "scheduled: todos") {
		t.Errorf("co sessions:\n%s", o)
	}
	_, o, _ = run(t, "v", "inbox")
	for _, want := range []string{"todos", "done, 2 calls waiting", "One todo: send the report.", "write_file", "path='done.txt'", "run_shell_command", "touch ran.txt"} {
		if !strings.Contains(o, want) {
			t.Errorf("co inbox lacks %q:\n%s", want, o)
		}
	}
	_, o, _ = run(t, "v", "status")
	if !strings.Contains(o, "2 calls waiting for your approval") {
		t.Errorf("co status:\n%s", o)
	}
	// The chat's --continue never continues it.
	l, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	st, err := sessions.Open(filepath.Join(l.Paths.DataDir, sessions.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Latest(wd, sessions.Chat); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("the chat's --continue would continue: %v", err)
	}
}

// A scheduled run that fails before its first message (no provider) is in
// co inbox all the same, failed, not lost.
func TestScheduledRunThatFailsIsInTheInbox(t *testing.T) {
	isolatedHome(t)
	for _, k := range []string{"LLM_PROVIDER", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST"} {
		t.Setenv(k, "")
	}
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	t.Setenv("LLM_PROVIDER", "openai") // no key: no provider is usable
	var log bytes.Buffer
	_, code := runScheduled(context.Background(), env{Streams{In: strings.NewReader(""), Out: &log, Err: &log}, "v"},
		config.Schedule{Name: "brief", Prompt: "brief me"}, &log)
	if code != headless.ExitError {
		t.Fatalf("runScheduled = %d\nlog: %s", code, log.String())
	}
	// The provider's message names shell variables, which the scheduler
	// never passes: the log says where a scheduled run finds its provider.
	if !strings.Contains(log.String(), "a scheduled run does not see your shell's variables") || !strings.Contains(log.String(), "co config set") {
		t.Errorf("the log does not say where a scheduled run finds its provider:\n%s", log.String())
	}
	_, o, _ := run(t, "v", "inbox")
	if !strings.Contains(o, "brief") || !strings.Contains(o, "failed: ") {
		t.Errorf("co inbox does not show the failed run:\n%s", o)
	}
}

// A schedule whose workspace is gone fails where the user looks: run by
// the scheduler, co's stderr goes nowhere, so the reason is in the log,
// co schedule list shows the run failed, and co inbox lists it.
func TestScheduledRunWithoutItsWorkspaceIsLoggedAndListed(t *testing.T) {
	isolatedHome(t)
	l, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone")
	if err := os.MkdirAll(filepath.Dir(l.Paths.UserFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := config.EditFile(l.Paths.UserFile, config.SchedulesChange([]config.Schedule{{Name: "brief", At: "hourly", Prompt: "brief me", Workspace: gone}})); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "v", "schedule", "run", "brief")
	if code != exitError || !strings.Contains(errOut, gone) || !strings.Contains(errOut, "--workspace DIR") {
		t.Fatalf("co schedule run = %d, %q", code, errOut)
	}
	_, o, _ := run(t, "v", "schedule", "logs", "brief")
	if !strings.Contains(o, "the workspace of the schedule brief cannot be used") || !strings.Contains(o, "exit 1, session ") {
		t.Errorf("co schedule logs:\n%s", o)
	}
	_, o, _ = run(t, "v", "schedule", "list")
	if !strings.Contains(o, "failed (exit 1)") {
		t.Errorf("co schedule list:\n%s", o)
	}
	_, o, _ = run(t, "v", "inbox")
	if !strings.Contains(o, "brief") || !strings.Contains(o, "failed: its workspace ") {
		t.Errorf("co inbox:\n%s", o)
	}
	for _, line := range strings.Split(o, "\n") {
		if n := len([]rune(line)); n > 150 {
			t.Errorf("co inbox has a line of %d characters (a long outcome is clipped in the list):\n%s", n, line)
		}
	}
	// The list clips a long outcome; co inbox show has it whole.
	last := readScheduleState(l.Paths.DataDir, "brief").Last
	if last == nil || last.SessionID == "" {
		t.Fatalf("no run recorded: %+v", last)
	}
	_, o, _ = run(t, "v", "inbox", "show", last.SessionID)
	if !strings.Contains(o, "failed: its workspace "+gone+" cannot be used (co schedule logs brief says how to fix it)") {
		t.Errorf("co inbox show:\n%s", o)
	}
}

// A malformed settings file stops every scheduled run before it starts;
// run by the scheduler, its stderr goes nowhere, so an installed
// schedule's log and record say so (a name never added gets no files).
func TestScheduledRunWithBrokenSettingsIsLogged(t *testing.T) {
	isolatedHome(t)
	l, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(l.Paths.UserFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeScheduleState(l.Paths.DataDir, "brief", scheduleState{Backend: "cron"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.Paths.UserFile, []byte(`{"schedules": {"brief": {"at": "daily 27:00"`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := run(t, "v", "schedule", "run", "brief"); code != exitError {
		t.Fatalf("co schedule run = %d", code)
	}
	b, _ := os.ReadFile(scheduleLogPath(l.Paths.DataDir, "brief"))
	if !strings.Contains(string(b), l.Paths.UserFile) || !strings.Contains(string(b), "the settings could not be read") {
		t.Errorf("log:\n%s", b)
	}
	if last := readScheduleState(l.Paths.DataDir, "brief").Last; last == nil || last.Code != exitError {
		t.Errorf("record: %+v", last)
	}
	run(t, "v", "schedule", "run", "never-added")
	if _, err := os.Stat(scheduleLogPath(l.Paths.DataDir, "never-added")); !os.IsNotExist(err) {
		t.Errorf("a log for a schedule never added: %v", err)
	}
}
