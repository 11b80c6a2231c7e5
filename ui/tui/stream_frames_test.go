package tui

import (
	"strings"
	"testing"
	"time"
)

// While text streams, the spinner moves on the text's frames and its own
// tick repaints nothing; once the text stops, the tick moves it again.
func TestSpinnerMovesWithStreamedFrames(t *testing.T) {
	th := NewTheme("dark", false)
	s := NewStatusBar(&th)
	s.SetWidth(100)
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	s.Start(t0)
	moves := 0
	for d := frameInterval; d <= time.Second; d += frameInterval {
		if s.Frame(t0.Add(d)) {
			moves++
		}
		// A tick between two frames: the next frame moves the spinner.
		view := s.View()
		if _, moved := s.Update(spinTickMsg{ID: s.tickID}, t0.Add(d+frameInterval/2)); moved || s.View() != view {
			t.Fatalf("a tick %v into the stream repainted the bar", d)
		}
	}
	// 15 frames in a second: the spinner moved on every other one.
	if moves < 6 || moves > 8 {
		t.Fatalf("the spinner moved %d times in a second of streamed frames", moves)
	}
	// The stream stops: the next tick moves it.
	if _, moved := s.Update(spinTickMsg{ID: s.tickID}, t0.Add(1500*time.Millisecond)); !moved {
		t.Fatal("a tick after the stream stopped did not move the spinner")
	}
}

// The block before a line that can only start a new block is cut as that
// line begins, not once it is complete; a line that may continue the
// block (indented, a list's next item, blank so far) is waited for.
func TestBlockIsCutAsTheNextBlockBegins(t *testing.T) {
	for _, c := range []struct {
		text string
		cut  bool
	}{
		{"## Title\n\nThe para", true},
		{"Para one.\n\n`", true},
		{"```go\nx := 1\n```\n\nAfter", true},
		{"Para one.\n\n  indented", false},
		{"Para one.\n\n ", false},
		{"Para one.\n\n", false},
		{"- a\n- b\n\n- c", false},
		{"- a\n- b\n\n1", false},
		{"- a\n- b\n\nAfter", true},
		{"```go\nx := 1\n\nstill code", false},
	} {
		var s mdStream
		s.append(c.text)
		if got := len(s.blocks) == 1; got != c.cut {
			t.Errorf("%q: cut %v, want %v (blocks %v)", c.text, got, c.cut, s.blocks)
		}
		if c.cut && strings.Contains(c.text[s.done:], "\n\n") {
			t.Errorf("%q: the tail %q holds the block before it", c.text, c.text[s.done:])
		}
	}
}
