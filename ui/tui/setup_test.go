package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/ui/setup"
)

// co started without a provider: the chat offers the setup by itself, as a
// person uses it — choose Gemini, paste the key (shown as dots only),
// Enter for the default model —, saves, and the next prompt is answered by
// the provider just set up, with no restart. The key is never on screen
// and never in the input history.
func TestFirstRunSetupInTheChat(t *testing.T) {
	const key = "AIzaSyTEST-pasted-key-0123456789abcd"
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileGemini)
	srv.SetAPIKey(key)
	srv.Script(llmtest.Reply{Text: "Hello from Gemini."})

	s := provider.ProviderSettings{GeminiBaseURL: srv.URL, GeminiModel: "gemini-flash-latest", OllamaHost: "http://127.0.0.1:1"}
	p, _, err := provider.ResolveProvider(context.Background(), s, nil)
	if !errors.Is(err, provider.ErrNoProvider) {
		t.Fatalf("the fixture has a provider: %v", err)
	}
	ag := agent.New(agent.Config{Provider: p, ProviderErr: err, Settings: s})
	var saved [][2]string
	hist := filepath.Join(t.TempDir(), "history.txt")
	d := newDriver(t, Options{Agent: ag, HistoryPath: hist, Setup: &setup.Env{
		Settings:  s,
		UserFile:  "/home/u/.config/co-cli/settings.json",
		Save:      func(pairs [][2]string) (string, error) { saved = append(saved, pairs...); return "", nil },
		Configure: ag.Configure,
	}}, 120, 40)
	noKey := func() {
		t.Helper()
		if sc := d.screen(); strings.Contains(sc, key) || strings.Contains(sc, "pasted-key") {
			t.Fatalf("the key is on screen:\n%s", sc)
		}
	}

	d.until("the setup box", func() bool { return strings.Contains(d.screen(), "1  Gemini") })
	d.typeText("1")
	d.key("enter")
	d.until("the key question", func() bool { return strings.Contains(d.screen(), "Paste your Gemini API key") })
	d.send(tea.PasteMsg{Content: "AIzaSy-wrong-key-00000000000000000"})
	d.key("enter")
	d.until("the refusal", func() bool { return strings.Contains(d.screen(), "API key not valid") })
	d.send(tea.PasteMsg{Content: key + "\n"})
	noKey()
	if !strings.Contains(d.screen(), "••••••••") {
		t.Fatalf("the pasted key is not shown as dots:\n%s", d.screen())
	}
	d.key("enter")
	d.until("the model question", func() bool { return strings.Contains(d.screen(), "Press Enter for gemini-flash-latest") })
	noKey()
	d.key("enter")
	d.until("the setup done", func() bool { return d.app.setup == nil && strings.Contains(d.screen(), "Saved to") })
	noKey()
	if len(saved) != 3 || saved[1] != [2]string{"gemini_api_key", key} {
		t.Errorf("saved %v", saved)
	}

	d.typeText("hi")
	d.key("enter")
	d.until("the reply", func() bool { return strings.Contains(d.screen(), "Hello from Gemini.") })
	noKey()
	d.until("the turn's end", d.idle)
	d.drain()
	if b, _ := os.ReadFile(hist); strings.Contains(string(b), "pasted-key") || strings.Contains(string(b), "wrong-key") {
		t.Errorf("a key is in the input history: %q", b)
	}
	if reqs := srv.Requests(); len(reqs) == 0 || reqs[len(reqs)-1].Body.Model != "gemini-flash-latest" {
		t.Errorf("the turn did not go to Gemini: %+v", reqs)
	}
}

// Esc skips; /setup opens the box again.
func TestSetupSkipAndReopen(t *testing.T) {
	s := provider.ProviderSettings{GeminiModel: "gemini-flash-latest", OllamaHost: "http://127.0.0.1:1"}
	p, _, err := provider.ResolveProvider(context.Background(), s, nil)
	ag := agent.New(agent.Config{Provider: p, ProviderErr: err, Settings: s})
	d := newDriver(t, Options{Agent: ag, Setup: &setup.Env{Settings: s, Configure: ag.Configure}}, 100, 30)
	d.until("the setup box", func() bool { return strings.Contains(d.screen(), "1  Gemini") })
	d.key("esc")
	d.until("closed", func() bool { return d.app.setup == nil && strings.Contains(d.screen(), "Setup skipped") })
	d.typeText("hello")
	d.key("enter")
	d.until("the hint", func() bool { return strings.Contains(d.screen(), "Type /setup to choose a provider here.") })
	d.until("the turn's end", d.idle)
	d.typeText("/setup")
	d.key("enter")
	d.until("the box again", func() bool { return strings.Contains(d.screen(), "1  Gemini") })
}

// co "a question" with no provider: the question waits for the setup and
// goes to the provider it set up (it is not sent first, to fail).
func TestFirstPromptWaitsForTheSetup(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.Script(llmtest.Reply{Text: "Answer to the first question."})
	s := provider.ProviderSettings{GeminiModel: "gemini-flash-latest", OllamaHost: "http://127.0.0.1:1"}
	p, _, err := provider.ResolveProvider(context.Background(), s, nil)
	ag := agent.New(agent.Config{Provider: p, ProviderErr: err, Settings: s})
	d := newDriver(t, Options{Agent: ag, First: "what is 2+2", Setup: &setup.Env{Settings: s, Configure: ag.Configure}}, 100, 30)
	d.until("the setup box", func() bool { return strings.Contains(d.screen(), "1  Gemini") })
	d.typeText("3")
	d.key("enter")
	d.until("the URL question", func() bool { return strings.Contains(d.screen(), "base URL") })
	d.send(tea.PasteMsg{Content: srv.URL})
	d.key("enter")
	d.until("the key question", func() bool { return strings.Contains(d.screen(), "Its API key") })
	d.key("enter")
	d.until("the model question", func() bool { return strings.Contains(d.screen(), "Press Enter for test.") })
	if strings.Contains(d.screen(), "no LLM provider is configured") {
		t.Fatalf("the first question was sent before the setup:\n%s", d.screen())
	}
	d.key("enter")
	d.until("the answer", func() bool { return strings.Contains(d.screen(), "Answer to the first question.") })
	if got := srv.Requests()[0].LastUserMessage(); got != "what is 2+2" {
		t.Errorf("the model got %q", got)
	}
}
