package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/config"
)

// noProviderEnv is a home whose settings name no provider (so co would
// use Ollama if it answered at ollamaHost), or with LLM_PROVIDER=openai
// and no base URL, with the schedule brief (once, in 2099).
func noProviderEnv(t *testing.T, ollamaHost, llmProvider string) *config.Loaded {
	t.Helper()
	isolatedHome(t)
	for _, k := range []string{"LLM_PROVIDER", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"} {
		t.Setenv(k, "")
	}
	t.Setenv("OLLAMA_HOST", ollamaHost)
	t.Setenv("OLLAMA_MODEL", "qwen3:8b") // one llmtest's Ollama serves
	if llmProvider != "" {
		t.Setenv("LLM_PROVIDER", llmProvider)
	}
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	t.Setenv("TZ", "")
	l, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(l.Paths.UserFile), 0o700); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if err := config.EditFile(l.Paths.UserFile, config.SchedulesChange([]config.Schedule{{Name: "brief", At: "2099-12-01 08:00", Prompt: "brief me", Workspace: wd}})); err != nil {
		t.Fatal(err)
	}
	if l, err = loadSettings(); err != nil {
		t.Fatal(err)
	}
	return l
}

// A run at boot, before Ollama (the provider co uses when nothing else is
// set) answers, tries again as for a model it cannot reach, and looks for
// Ollama again before each attempt: once it answers, the run goes on.
func TestScheduledRunWaitsForOllamaToStart(t *testing.T) {
	addr := closedAddr(t)
	l := noProviderEnv(t, "http://"+addr, "")
	var srv *llmtest.Server
	c := &fakeClock{at: time.Date(2026, 12, 7, 8, 0, 0, 0, time.Local), onSleep: func(n int) {
		if n != 1 {
			return
		}
		var err error
		if srv, err = llmtest.NewServerAt(addr); err != nil {
			t.Fatalf("Ollama cannot listen at %s: %v", addr, err)
		}
		srv.SetProfile(llmtest.ProfileOllama)
		srv.Script(llmtest.Reply{Text: "Nothing urgent today."})
	}}
	t.Cleanup(func() {
		if srv != nil {
			srv.Close()
		}
	})
	var out, errb bytes.Buffer
	err := scheduleRun(env{Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, "v"}, "brief", c.clock())
	b, _ := os.ReadFile(scheduleLogPath(l.Paths.DataDir, "brief"))
	log := string(b)
	if err != nil {
		t.Fatalf("co schedule run: %v\n%s\nlog:\n%s", err, errb.String(), log)
	}
	if want := []time.Duration{30 * time.Second}; !slices.Equal(c.waits, want) {
		t.Errorf("waited %v, want %v", c.waits, want)
	}
	for _, want := range []string{
		"co: attempt 1 of at most 5 found no provider (Ollama did not answer at http://" + addr + "); trying again in 30s",
		"Ollama answers at http://" + addr + ", using it",
		"co: attempt 2 reached the model",
		"Nothing urgent today.",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if infos := briefSessions(t, l); len(infos) != 1 || infos[0].Outcome != "done" {
		t.Errorf("sessions: %+v, want one, done", infos)
	}
}

// A provider the settings name but cannot use (LLM_PROVIDER=openai, no
// base URL) does not come by waiting: the run does not try again, and its
// outcome, which co inbox shows, says to configure it in co's settings,
// not the shell's variables the provider's message names.
func TestScheduledRunWithoutAProviderSaysWhatToConfigure(t *testing.T) {
	l := noProviderEnv(t, "http://"+closedAddr(t), "openai")
	c := &fakeClock{at: time.Date(2026, 12, 7, 8, 0, 0, 0, time.Local)}
	var out, errb bytes.Buffer
	err := scheduleRun(env{Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, "v"}, "brief", c.clock())
	if code, ok := err.(exitCode); !ok || code != exitError {
		t.Fatalf("co schedule run = %v, want exit 1\n%s", err, errb.String())
	}
	if len(c.waits) != 0 {
		t.Errorf("waited %v: settings do not change by waiting", c.waits)
	}
	_, inbox, _ := run(t, "v", "inbox")
	infos := briefSessions(t, l)
	if !strings.Contains(inbox, "failed: no model provider is configured in co's") || len(infos) != 1 ||
		!strings.Contains(infos[0].Outcome, "save one with co config set") || strings.Contains(infos[0].Outcome, "OPENAI_BASE_URL") {
		t.Errorf("co inbox does not say what to configure:\n%s\noutcome: %+v", inbox, infos)
	}
	if !strings.Contains(errb.String(), "co config set") {
		t.Errorf("stderr does not say what to configure: %q", errb.String())
	}
}
