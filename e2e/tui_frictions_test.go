package e2e

import (
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
