package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// A 5,000-character paste into a terminal without bracketed paste arrives
// as 5,000 key presses in one burst; the prompt absorbs them all and sends
// every character. How fast is logged, not asserted: a loaded machine makes
// any window flaky.
func TestTUIUnbracketedPasteBurstIsAbsorbedFast(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "got it"})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 100, 35)
	s.ready()
	// The race detector slows the key path many times over (47 s for 5,000
	// keys on a quiet machine, over 90 s on a loaded one), so a race build
	// types 1,000 keys. The deadline only detects a hang.
	n, wait := 5000, 2*time.Minute
	if raceEnabled {
		n = 1000
	}
	end := fmt.Sprintf(" END%d", n)
	var b strings.Builder
	for i := 0; b.Len() < n-len(end); i++ {
		b.WriteString("word")
		b.WriteByte(byte('a' + i%26))
		b.WriteByte(' ')
	}
	text := b.String()[:n-len(end)] + end
	if len(text) != n {
		t.Fatalf("text is %d long", len(text))
	}
	start := time.Now()
	s.typeText(text)
	s.waitFor(wait, end[1:])
	took := time.Since(start)
	t.Logf("%d keys absorbed in %v", n, took)
	s.keys("Enter")
	s.waitFor(tuiWait, "got it")
	if got := srv.Requests()[0].LastUserMessage(); got != text {
		t.Errorf("the model got %d characters, want the %d typed", len(got), n)
	}
}

// Bracketed paste is on: a pasted text with line breaks lands in the
// prompt whole instead of sending its first line.
func TestTUIBracketedPasteKeepsLines(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "got it"})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 100, 35)
	s.ready()
	s.tmux("set-buffer", "first pasted line\nsecond pasted line")
	s.tmux("paste-buffer", "-p", "-t", "co")
	s.waitFor(tuiWait, "first pasted line", "second pasted line")
	// No pause to let a stray request arrive: the first request after
	// Enter must be the whole paste (checked below), which it is not if
	// the paste's line break sent the first line.
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the paste sent %d requests", n)
	}
	s.keys("Enter")
	s.waitFor(tuiWait, "got it")
	if got := srv.Requests()[0].LastUserMessage(); got != "first pasted line\nsecond pasted line" {
		t.Errorf("the model got %q", got)
	}
}

// promptLine is the prompt's line with its colours (capture-pane -e).
func (s *tuiSession) promptLine() string {
	s.t.Helper()
	for _, l := range strings.Split(s.tmux("capture-pane", "-e", "-p", "-t", "co"), "\n") {
		if strings.Contains(l, "Ask co anything") {
			return l
		}
	}
	s.t.Fatalf("no prompt on the screen:\n%s", s.screen())
	return ""
}

// With the default theme (auto) co asks the terminal for its background
// (tmux answers with the pane's window-style) and draws in the dark
// theme on a dark background, the light theme on a light one.
func TestTUIThemeAutoFollowsTheTerminalBackground(t *testing.T) {
	ref := map[string]string{}
	for _, theme := range []string{"light", "dark"} {
		s := startTUI(t, t.TempDir(), tuiEnv(t, nil, "LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m", "CO_CLI_THEME="+theme), 100, 30)
		s.ready()
		ref[theme] = s.promptLine()
	}
	if ref["light"] == ref["dark"] {
		t.Fatalf("the themes draw the prompt alike: %q", ref["light"])
	}
	s := startTUI(t, t.TempDir(), tuiEnv(t, nil, "LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m"), 100, 30)
	s.ready()
	for _, tc := range []struct{ bg, want string }{{"#101010", "dark"}, {"#FAFAFA", "light"}} {
		s.tmux("set", "-g", "window-style", "bg="+tc.bg)
		s.tmux("respawn-pane", "-k", "-t", "co")
		s.ready()
		deadline := time.Now().Add(tuiWait)
		for s.promptLine() != ref[tc.want] {
			if time.Now().After(deadline) {
				t.Fatalf("on a %s background the prompt is %q, want the %s theme's %q", tc.bg, s.promptLine(), tc.want, ref[tc.want])
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// Ctrl+C on a draft clears it; exit takes two more on the empty prompt.
func TestTUICtrlCClearsTheDraftFirst(t *testing.T) {
	s := startTUI(t, t.TempDir(), tuiEnv(t, nil, "LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m"), 100, 30)
	s.ready()
	s.typeText("a draft to keep")
	s.waitFor(tuiWait, "a draft to keep")
	s.keys("C-c")
	s.waitFor(tuiWait, "Ask co anything")
	if scr := s.screen(); strings.Contains(scr, "Press Ctrl+C again") {
		t.Fatalf("ctrl+c on a draft armed exit:\n%s", scr)
	}
	s.keys("Up")
	s.waitFor(tuiWait, "a draft to keep")
	s.keys("C-c")
	s.keys("C-c")
	s.waitFor(tuiWait, "Press Ctrl+C again to exit")
	s.keys("C-c")
	if code := s.exitCode(tuiWait); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// A second Tab fills in the candidates one after another.
func TestTUITabCyclesCompletions(t *testing.T) {
	s := startTUI(t, t.TempDir(), tuiEnv(t, nil, "LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m"), 100, 30)
	s.ready()
	s.typeText("/h")
	s.keys("Tab")
	s.waitFor(tuiWait, "/help  /history")
	s.keys("Tab")
	s.waitFor(tuiWait, "❯ /help ")
	s.keys("Tab")
	s.waitFor(tuiWait, "❯ /history")
}
