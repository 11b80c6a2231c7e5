package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// /setup in the full-screen chat, as a user meets it: the OpenAI-compatible
// server's URL typed without its /v1. The URL is checked before any key is
// asked: the box names the URL typed and the one that answers
// (URL/v1/models), offers it, Enter takes it, and only then is the key
// asked; the model chosen, the chat answers with the saved /v1 URL.
func TestTUISetupOffersTheBaseURLWithV1(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileOpenAI)
	srv.Script(llmtest.Reply{Text: "Answered through the v1 URL."})
	host := strings.TrimSuffix(srv.URL, "/v1")
	environ := tuiEnv(t, nil, "OLLAMA_HOST=http://127.0.0.1:9")
	home := strings.TrimPrefix(environ[0], "HOME=")
	s := startTUI(t, t.TempDir(), environ, 120, 30)

	s.waitFor(tuiWait, "1  Gemini")
	s.send("3")
	s.waitFor(tuiWait, "base URL")
	s.send(host)
	scr := s.waitFor(tuiWait, "is not the API root", "Press Enter (or y) to use")
	flat := strings.Join(strings.Fields(strings.NewReplacer("│", " ").Replace(scr)), "")
	for _, want := range []string{host + "isnottheAPIroot", srv.URL + "/modelsanswers", "PressEnter(ory)touse" + srv.URL} {
		if !strings.Contains(flat, want) {
			t.Errorf("%q is not on the screen:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "API key") {
		t.Fatalf("the key is asked before the URL is settled:\n%s", scr)
	}
	s.keys("Enter")
	s.waitFor(tuiWait, "Its API key")
	s.send("sk-e2e-setup-url")
	s.waitFor(tuiWait, "Choose one")
	s.send("gpt-4.1")
	s.waitFor(tuiWait, "Saved to")
	s.send("hi")
	s.waitFor(tuiWait, "Answered through the v1 URL.")

	data, err := os.ReadFile(filepath.Join(home, ".config", "co-cli", "settings.json"))
	if err != nil || !strings.Contains(string(data), `"openai_base_url": "`+srv.URL+`"`) {
		t.Errorf("settings file: %s, %v", data, err)
	}
}
