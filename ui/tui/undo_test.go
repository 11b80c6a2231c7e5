package tui

import (
	"strings"
	"testing"

	"github.com/co-cli/co/ui/slash"
	"github.com/co-cli/co/undo"
)

// /undo and /rewind in a chat that saves nothing say why, and nothing
// opens.
func TestUndoRefusedWhenNotSaved(t *testing.T) {
	f := newFixture(t)
	d := newDriver(t, Options{Agent: f.ag}, 100, 30)
	for _, line := range []string{"/undo", "/rewind"} {
		d.typeText(line)
		d.key("enter")
		d.drain()
		if scr := d.screen(); !strings.Contains(scr, "not being saved") {
			t.Fatalf("%s:\n%s", line, scr)
		}
		if d.app.pick != nil || d.app.slashWait != nil {
			t.Fatalf("%s opened something", line)
		}
	}
}

// The /rewind picker lists the prompts oldest first, the newest at the
// bottom and chosen; enter offers the modes; enter again gives the
// rewind of the chosen turn and mode. Esc cancels, leaving the input as
// it was.
func TestRewindPicker(t *testing.T) {
	f := newFixture(t)
	d := newDriver(t, Options{Agent: f.ag}, 100, 30)
	turns := []undo.Turn{{Seq: 1, N: 1, Prompt: "first \x1b[31mone"}, {Seq: 5, N: 2, Prompt: "second\nline"}, {Seq: 9, N: 3, Prompt: "third"}}
	open := func() {
		d.app.slashDone("/rewind", slash.Result{Action: slash.RewindPick, Turns: turns, Rewind: &slash.Rewind{}}, false)
	}
	open()
	scr := d.screen()
	i1, i2, i3 := strings.Index(scr, "1. first ␛[31mone"), strings.Index(scr, "2. second⏎line"), strings.Index(scr, "› ")
	if i1 < 0 || i2 < i1 || i3 < i2 || !strings.Contains(scr[i3:], "3. third") {
		t.Fatalf("picker (oldest first, newest chosen):\n%s", scr)
	}
	if strings.Contains(scr, "\x1b[31mone") {
		t.Fatal("a raw escape from a prompt reached the screen")
	}
	d.key("up")
	d.key("enter")
	if scr := d.screen(); !strings.Contains(scr, "Turn 2 and later: take back what?") || !strings.Contains(scr, "files only") || !strings.Contains(scr, "summarise from here") {
		t.Fatalf("modes:\n%s", scr)
	}
	p := d.app.pick
	d.app.pick = nil // the choice itself, without running it
	p.HandleKey(keyMsg("down"))
	p.HandleKey(keyMsg("down"))
	rw, done := p.HandleKey(keyMsg("enter"))
	if !done || rw == nil || rw.From != 5 || rw.N != 2 || rw.Mode != undo.ConversationOnly || rw.Last {
		t.Fatalf("chose %+v, %v; want turn 2 (seq 5), conversation only", rw, done)
	}

	d.typeText("half typed")
	open()
	d.key("esc")
	if d.app.pick != nil || !strings.Contains(d.screen(), "Not done.") || d.app.input.Value() != "half typed" {
		t.Fatalf("esc: pick %v, input %q\n%s", d.app.pick, d.app.input.Value(), d.screen())
	}
}

// The prompt an undo puts back replaces the input; what was typed there
// goes into the input history, not lost.
func TestPromptBackKeepsWhatWasTyped(t *testing.T) {
	f := newFixture(t)
	d := newDriver(t, Options{Agent: f.ag}, 100, 30)
	d.typeText("half typed")
	d.drain()
	d.app.promptBack("the undone prompt")
	if got := d.app.input.Value(); got != "the undone prompt" {
		t.Fatalf("input = %q", got)
	}
	h := d.app.input.hist
	if h.Len() == 0 || h.At(h.Len()-1) != "half typed" {
		t.Fatalf("the half-typed text is not in the history")
	}
	if scr := d.screen(); !strings.Contains(scr, "What you had typed is in the input history") {
		t.Fatalf("not said:\n%s", scr)
	}
}
