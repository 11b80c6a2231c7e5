package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// /model in a real terminal: the list with the current model marked, Tab
// completing a name, the switch in the status bar and in the next request.
func TestTUIModelListsSwitchesAndCompletes(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetModels("gpt-large", "gpt-mini", "test-model")
	srv.Script(llmtest.Reply{Text: "first answer"}, llmtest.Reply{Text: "answered by mini"})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 110, 35)
	s.ready()
	s.send("hello")
	s.waitFor(tuiWait, "first answer")

	s.send("/model")
	scr := s.waitFor(tuiWait, "Models of openai (* current):", "gpt-large", "gpt-mini", "* test-model")
	if strings.Contains(scr, "fetching models…") {
		t.Errorf("the fetching line stayed:\n%s", scr)
	}

	// Tab: the common prefix and the candidates, then the one name.
	s.typeText("/model gp")
	s.keys("Tab")
	s.waitFor(tuiWait, "❯ /model gpt-", "gpt-large  gpt-mini")
	s.typeText("m")
	s.keys("Tab")
	s.waitFor(tuiWait, "❯ /model gpt-mini")
	s.keys("Enter")
	scr = s.waitFor(tuiWait, "Switched to openai · gpt-mini")
	status := lastLine(scr)
	if !strings.Contains(status, "openai · gpt-mini") {
		t.Errorf("status bar: %q", status)
	}

	s.send("and now?")
	s.waitFor(tuiWait, "answered by mini")
	reqs := srv.WaitRequests(2, 5*time.Second)
	if reqs[0].Body.Model != "test-model" || reqs[1].Body.Model != "gpt-mini" {
		t.Errorf("requests asked for %q then %q", reqs[0].Body.Model, reqs[1].Body.Model)
	}
}

// Reasoning in a real terminal: collapsed once the answer came, ctrl+r
// expands it.
func TestTUIReasoningCollapsesAndExpands(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(thinkingReply())
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 100, 30)
	s.ready()
	s.send("add")
	scr := s.waitFor(tuiWait, "The answer is 4.", "▸ Thought", "(ctrl+r to expand)")
	if strings.Contains(scr, "Two plus two") {
		t.Fatalf("collapsed reasoning shows its text:\n%s", scr)
	}
	s.keys("C-r")
	s.waitFor(tuiWait, "▾ Thought", "Two plus two is four.␛[2J", "The answer is 4.")
	s.send("/help")
	s.waitFor(tuiWait, "ctrl+r", "expand/collapse the model's reasoning")
}

func lastLine(scr string) string {
	lines := strings.Split(strings.TrimRight(scr, "\n "), "\n")
	return lines[len(lines)-1]
}
