package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// The full-screen chat at 80×24 with no provider, in a real terminal
// (tmux), used as a person would: the setup box is there at start, "1"
// picks Gemini, the key is pasted (bracketed paste) and shows as dots,
// Enter takes the default model, and the next message is answered by
// Gemini in the same run. The key is on no screen, in no scrollback.
func TestTUIFirstRunSetup(t *testing.T) {
	const key = "AIzaSyE2E-tui-setup-key-0123456789abcd"
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileGemini)
	srv.SetAPIKey(key)
	srv.Script(llmtest.Reply{Text: "Gemini answers after the setup."})
	environ := tuiEnv(t, nil, "OLLAMA_HOST=http://127.0.0.1:9", "GEMINI_BASE_URL="+srv.URL)
	home := strings.TrimPrefix(environ[0], "HOME=")
	s := startTUI(t, t.TempDir(), environ, 80, 24)
	noKey := func(scr string) {
		t.Helper()
		if strings.Contains(scr, key) || strings.Contains(scr, "tui-setup-key") {
			t.Fatalf("the key is on screen:\n%s", scr)
		}
	}

	s.waitFor(tuiWait, "Set up a provider", "1  Gemini", "not found at http://127.0.0.1:9")
	s.send("1")
	s.waitFor(tuiWait, "Paste your Gemini API key")
	s.tmux("set-buffer", key)
	s.tmux("paste-buffer", "-p", "-t", "co")
	noKey(s.waitFor(tuiWait, "••••••••••••"))
	s.keys("Enter")
	noKey(s.waitFor(tuiWait, "Press Enter for gemini-flash-latest."))
	s.keys("Enter")
	noKey(s.waitFor(tuiWait, "Saved to"))
	s.send("hi")
	noKey(s.waitFor(tuiWait, "Gemini answers after the setup."))
	noKey(s.tmux("capture-pane", "-p", "-S", "-", "-t", "co"))

	data, err := os.ReadFile(filepath.Join(home, ".config", "co-cli", "settings.json"))
	if err != nil || !strings.Contains(string(data), `"gemini_api_key": "`+key+`"`) {
		t.Errorf("settings file: %s, %v", data, err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".local", "share", "co-cli", "history.txt")); strings.Contains(string(b), "tui-setup-key") {
		t.Errorf("the key is in the input history: %q", b)
	}
}

// co --plain at a real terminal with no provider: the setup's questions
// come before the first prompt, and the key typed is not echoed.
func TestPlainFirstRunSetupAtATerminal(t *testing.T) {
	const key = "AIzaSyE2E-plain-tty-key-0123456789abcd"
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileGemini)
	srv.SetAPIKey(key)
	srv.Script(llmtest.Reply{Text: "Plain Gemini here."})
	environ := tuiEnv(t, nil, "OLLAMA_HOST=http://127.0.0.1:9", "GEMINI_BASE_URL="+srv.URL)
	s := startTUI(t, t.TempDir(), environ, 100, 30, "--plain")
	s.waitFor(tuiWait, "1  Gemini", "setup>")
	s.send("1")
	s.waitFor(tuiWait, "Paste your Gemini API key")
	s.send(key)
	scr := s.waitFor(tuiWait, "(key not shown)", "Press Enter for gemini-flash-latest.")
	if strings.Contains(scr, key) || strings.Contains(scr, "plain-tty-key") {
		t.Fatalf("the key was echoed:\n%s", scr)
	}
	s.keys("Enter")
	s.waitFor(tuiWait, "Saved to", "co>")
	s.send("hi")
	scr = s.waitFor(tuiWait, "Plain Gemini here.")
	if strings.Contains(scr, "plain-tty-key") {
		t.Fatalf("the key is on screen:\n%s", scr)
	}
}

// The setup box in a 40×12 terminal (a split pane): the field, what it
// says about the last answer, the key hints and the box's bottom border
// stay on screen; the question is cut instead. The box was drawn whole
// and the screen cut it, so what was typed and why it was refused were
// below the last row.
func TestTUISetupBoxFitsASmallTerminal(t *testing.T) {
	environ := tuiEnv(t, nil, "OLLAMA_HOST=http://127.0.0.1:9")
	s := startTUI(t, t.TempDir(), environ, 40, 12)
	s.waitFor(tuiWait, "No LLM provider is set up yet", "(more: type a name)", "esc: skip", "╰")
	s.typeText("3")
	s.waitFor(tuiWait, "› 3")
	s.keys("Enter")
	s.waitFor(tuiWait, "base URL")
	s.typeText("http://127.0.0.1:9/v1")
	s.waitFor(tuiWait, "127.0.0.1:9/v1")
	s.keys("Enter") // the URL is checked before any key is asked
	scr := s.waitFor(tuiWait, "connection refused")
	for _, want := range []string{"›", "Check the URL", "esc: skip", "╰"} {
		if !strings.Contains(scr, want) {
			t.Errorf("%q is not on the screen:\n%s", want, scr)
		}
	}
	if n := strings.Count(scr, "\n"); n > 12 {
		t.Errorf("the screen has %d lines:\n%s", n, scr)
	}
}

// In a 40-column terminal the "No LLM provider is usable yet" box wraps
// what to set rather than cut it: "export LLM_PROVIDER=openai OPEN…" lost
// the variables the box is there to name.
func TestTUINoProviderBoxWrapsInANarrowTerminal(t *testing.T) {
	s := startTUI(t, t.TempDir(), tuiEnv(t, nil, "OLLAMA_HOST=http://127.0.0.1:9"), 40, 50)
	s.waitFor(tuiWait, "1  Gemini")
	s.keys("Escape")
	scr := s.waitFor(tuiWait, "No LLM provider is usable yet", "Setup skipped")
	flat := strings.Join(strings.Fields(strings.NewReplacer("│", " ").Replace(scr)), " ")
	for _, want := range []string{"export GEMINI_API_KEY=… (Gemini)", "ollama serve (local Ollama)", "OPENAI_BASE_URL=…", "OPENAI_MODEL=…", "the spans panel work."} {
		if !strings.Contains(flat, want) {
			t.Errorf("%q is not on the screen:\n%s", want, scr)
		}
	}
}
