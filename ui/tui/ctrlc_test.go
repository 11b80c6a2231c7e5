package tui

import (
	"strings"
	"testing"
)

// The first Ctrl+C on a non-empty prompt clears it (the text stays in the
// history) and does not arm exit; exit needs an empty prompt.
func TestCtrlCClearsNonEmptyInput(t *testing.T) {
	d := newDriver(t, Options{Agent: newFixture(t).ag}, 100, 30)
	d.typeText("a long draft")
	d.key("shift+enter")
	d.typeText("second line")
	d.key("ctrl+c")
	d.drain()
	if d.quit {
		t.Fatal("ctrl+c on a draft quit")
	}
	if v := d.app.input.Value(); v != "" {
		t.Fatalf("input after ctrl+c: %q", v)
	}
	if strings.Contains(d.screen(), "Press Ctrl+C again to exit") {
		t.Fatalf("ctrl+c on a draft armed exit:\n%s", d.screen())
	}
	d.key("ctrl+c")
	d.drain()
	if d.quit {
		t.Fatal("the second ctrl+c exited: the first only cleared the draft")
	}
	if !strings.Contains(d.screen(), "Press Ctrl+C again to exit") {
		t.Fatalf("ctrl+c on the empty prompt did not warn:\n%s", d.screen())
	}
	d.key("ctrl+c")
	d.drain()
	if !d.quit {
		t.Fatal("did not exit")
	}
	// The cleared draft is in the history.
	if got := d.app.input.hist.At(d.app.input.hist.Len() - 1); got != "a long draft\nsecond line" {
		t.Fatalf("history has %q", got)
	}
}
