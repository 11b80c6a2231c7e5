package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
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
	var out, errb bytes.Buffer
	err := runScheduled(env{Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, "v"}, scheduledRun{Name: "todos", Prompt: "list my todos"})
	var code exitCode
	if !errors.As(err, &code) || int(code) != headless.ExitWaiting {
		t.Fatalf("runScheduled = %v, want exit %d\nstdout: %s\nstderr: %s", err, headless.ExitWaiting, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "One todo: send the report.") || !strings.Contains(errb.String(), "waiting for approval: write_file") ||
		!strings.Contains(errb.String(), "co: 2 calls wait for your approval: co inbox lists them") {
		t.Errorf("stdout: %s\nstderr: %s", out.String(), errb.String())
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
	var out, errb bytes.Buffer
	err := runScheduled(env{Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, "v"}, scheduledRun{Name: "brief", Prompt: "brief me"})
	var code exitCode
	if !errors.As(err, &code) || int(code) != headless.ExitError {
		t.Fatalf("runScheduled = %v\nstderr: %s", err, errb.String())
	}
	_, o, _ := run(t, "v", "inbox")
	if !strings.Contains(o, "brief") || !strings.Contains(o, "failed: ") {
		t.Errorf("co inbox does not show the failed run:\n%s", o)
	}
}
