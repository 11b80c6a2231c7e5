package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// A 5,000-character paste into a terminal without bracketed paste arrives
// as 5,000 key presses in one burst; the prompt absorbs them in under a
// second and sends every character.
func TestTUIUnbracketedPasteBurstIsAbsorbedFast(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "got it"})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 100, 35)
	s.ready()
	var b strings.Builder
	for i := 0; b.Len() < 5000-len(" END5000"); i++ {
		b.WriteString("word")
		b.WriteByte(byte('a' + i%26))
		b.WriteByte(' ')
	}
	text := b.String()[:5000-len(" END5000")] + " END5000"
	if len(text) != 5000 {
		t.Fatalf("text is %d long", len(text))
	}
	limit := time.Second
	if raceEnabled {
		limit = 4 * time.Second
	}
	start := time.Now()
	s.typeText(text)
	s.waitFor(limit+5*time.Second, "END5000")
	took := time.Since(start)
	t.Logf("5,000 keys absorbed in %v", took)
	if took > limit {
		t.Errorf("5,000 unbracketed keys took %v to reach the prompt, want < %v", took, limit)
	}
	s.keys("Enter")
	s.waitFor(tuiWait, "got it")
	if got := srv.Requests()[0].LastUserMessage(); got != text {
		t.Errorf("the model got %d characters, want the 5,000 typed", len(got))
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
	time.Sleep(200 * time.Millisecond)
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the paste sent %d requests", n)
	}
	s.keys("Enter")
	s.waitFor(tuiWait, "got it")
	if got := srv.Requests()[0].LastUserMessage(); got != "first pasted line\nsecond pasted line" {
		t.Errorf("the model got %q", got)
	}
}
