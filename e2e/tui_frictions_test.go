package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// /status right after /setup, in the same full-screen run: the settings
// file the setup just wrote is among the config files, and the provider
// and model are those chosen. It said "config files none" (the report
// read the settings co started with).
func TestTUIStatusAfterSetupIsFresh(t *testing.T) {
	const key = "AIzaSyE2E-tui-status-key-0123456789abc"
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileGemini)
	srv.SetAPIKey(key)
	environ := tuiEnv(t, nil, "OLLAMA_HOST=http://127.0.0.1:9", "GEMINI_BASE_URL="+srv.URL)
	home := strings.TrimPrefix(environ[0], "HOME=")
	s := startTUI(t, t.TempDir(), environ, 120, 50)

	s.waitFor(tuiWait, "Set up a provider", "1  Gemini")
	s.send("1")
	s.waitFor(tuiWait, "Paste your Gemini API key")
	s.tmux("set-buffer", key)
	s.tmux("paste-buffer", "-p", "-t", "co")
	s.waitFor(tuiWait, "••••••••••••")
	s.keys("Enter")
	s.waitFor(tuiWait, "Press Enter for gemini-flash-latest.")
	s.keys("Enter")
	s.waitFor(tuiWait, "Saved to")
	s.send("/status")
	scr := s.waitFor(tuiWait, "config files", "data dir")
	flat := strings.Join(strings.Fields(scr), " ")
	// The path may wrap: compare without white space or the panel's rule.
	dense := strings.Join(strings.Fields(strings.ReplaceAll(scr, "│", " ")), "")
	if !strings.Contains(dense, "configfiles"+home+"/.config/co-cli/settings.jsondatadir") {
		t.Errorf("/status does not name the settings file /setup wrote:\n%s", scr)
	}
	if strings.Contains(flat, "config files none") {
		t.Errorf("/status says no config files after /setup:\n%s", scr)
	}
	if !strings.Contains(flat, "provider gemini") || !strings.Contains(flat, "model gemini-flash-latest") {
		t.Errorf("/status does not show the provider and model chosen:\n%s", scr)
	}
	if strings.Contains(scr, key) {
		t.Fatalf("the key is on screen:\n%s", scr)
	}
}

// callLine is the transcript line of the call whose title holds title.
func callLine(t *testing.T, scr, title string) string {
	t.Helper()
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, title) && !strings.Contains(l, "$ ") {
			return l
		}
	}
	t.Fatalf("no line of %s on screen:\n%s", title, scr)
	return ""
}

// A batch of three calls answered one by one in the modal: each line says
// its own state as soon as it is answered. A call denied while the modal
// asks about the next says "denied" at once, and still does while an
// approved call before it runs; it said "waiting for approval", then
// "running", until the calls before it ended.
func TestTUIDeniedCallOfABatchShowsDeniedAtOnce(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	const (
		slow   = "until [ -f go.flag ]; do sleep 0.1; done"
		denied = "touch skipped.txt"
		third  = "echo third-call"
	)
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{
		tuiShellCall("c1", slow), tuiShellCall("c2", denied), tuiShellCall("c3", third),
	}}, llmtest.Reply{Text: "Finished the batch."})
	s := startTUI(t, dir, tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess"), 150, 50)
	s.ready()
	s.send("run the three")
	s.waitFor(tuiWait, "Approve run_shell_command?", "$ "+slow)
	s.waitArmed()
	s.keys("y")
	scr := s.waitFor(tuiWait, "$ "+denied)
	if l := callLine(t, scr, "cmd='"+slow); !strings.Contains(l, "approved") || strings.Contains(l, "waiting for approval") {
		t.Errorf("the approved call, while the modal asks about the next: %q\n%s", l, scr)
	}
	if l := callLine(t, scr, "cmd='"+third); !strings.Contains(l, "waiting for approval") {
		t.Errorf("the call not yet asked about: %q\n%s", l, scr)
	}
	s.waitArmed()
	s.keys("n")
	scr = s.waitFor(tuiWait, "$ "+third)
	if l := callLine(t, scr, "cmd='"+denied); !strings.Contains(l, "denied") {
		t.Errorf("the denied call, while the modal asks about the next: %q\n%s", l, scr)
	}
	s.waitArmed()
	s.keys("y")
	// The first call runs until go.flag exists: the denied one says so
	// meanwhile.
	scr = s.waitUntil(tuiWait, "the modal closed", func(scr string) bool {
		return !strings.Contains(scr, "Approve run_shell_command?")
	})
	if l := callLine(t, scr, "cmd='"+slow); !strings.Contains(l, "running") {
		t.Errorf("the approved call: %q\n%s", l, scr)
	}
	if l := callLine(t, scr, "cmd='"+denied); !strings.Contains(l, "denied") {
		t.Errorf("the denied call, while the call before it runs: %q\n%s", l, scr)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.flag"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitFor(tuiWait, "Finished the batch.", "denied by the user")
	if fileExists(dir, "skipped.txt") {
		t.Fatal("the denied command ran")
	}
}

// /clear in the middle of a conversation asks first: n keeps everything
// (the transcript on screen and what the model remembers), Esc does too,
// and y clears. It cleared at once: a slip of the keyboard lost the screen.
func TestTUIClearAsksFirst(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "The first answer stays."}, llmtest.Reply{Text: "Second answer."})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 110, 40)
	s.ready()
	s.send("first question")
	s.waitFor(tuiWait, "The first answer stays.")

	s.send("/clear")
	scr := s.waitFor(tuiWait, "Clear this conversation", "Type y to confirm")
	if !strings.Contains(scr, "The first answer stays.") {
		t.Fatalf("/clear cleared before the answer:\n%s", scr)
	}
	s.send("n")
	scr = s.waitFor(tuiWait, "Not done.")
	if !strings.Contains(scr, "The first answer stays.") || strings.Contains(scr, "Started a new conversation") {
		t.Fatalf("n cleared the conversation:\n%s", scr)
	}

	s.send("/new")
	s.waitFor(tuiWait, "Clear this conversation")
	s.waitForNew(tuiWait, "Not done.", func() { s.keys("Escape") })
	if scr := s.screen(); !strings.Contains(scr, "The first answer stays.") || strings.Contains(scr, "Started a new conversation") {
		t.Fatalf("Esc cleared the conversation:\n%s", scr)
	}

	// The model still has the first turn: the next request carries it.
	s.send("second question")
	s.waitFor(tuiWait, "Second answer.")
	if got := srv.Requests(); len(got) < 2 || !strings.Contains(string(got[len(got)-1].Raw), "The first answer stays.") {
		t.Errorf("the second request lost the first turn")
	}

	s.send("/clear")
	s.waitFor(tuiWait, "Clear this conversation")
	s.send("y")
	scr = s.waitFor(tuiWait, "Started a new conversation")
	if strings.Contains(scr, "The first answer stays.") {
		t.Fatalf("y did not clear:\n%s", scr)
	}
}
