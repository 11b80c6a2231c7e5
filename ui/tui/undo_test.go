package tui

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/co-cli/co/checkpoint"
	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools/todo"
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

// undoWorld is a saved conversation of one turn on real stores: the turn
// wrote a.txt (a checkpoint), someone else changed a.txt since (a
// conflict), and the turn changed the todo list (in the journal).
func undoWorld(t *testing.T) (ws string, todos *todo.List, svc *undo.Service) {
	t.Helper()
	ws, data := t.TempDir(), t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a0\n")
	st, err := sessions.Open(filepath.Join(data, "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sess := st.New(ws)
	if err := sess.Append(message.Message{Role: message.RoleUser, Content: "change a please"}); err != nil {
		t.Fatal(err)
	}
	seq := sess.Seq()
	cp, err := checkpoint.Open(filepath.Join(data, "checkpoints"), ws, checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.ID() + "-" + strconv.FormatInt(seq, 10)
	if err := cp.Begin(id); err != nil {
		t.Fatal(err)
	}
	write("a1\n")
	if _, err := cp.End(id); err != nil {
		t.Fatal(err)
	}
	if err := sess.Append(message.Message{Role: message.RoleAssistant, Content: "Changed a zebra."}); err != nil {
		t.Fatal(err)
	}
	write("someone else's edit\n")
	todos = todo.NewList()
	if _, err := todos.Create([]string{"new task"}, true); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(filepath.Join(data, "journal"), sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	if _, err := j.Record(journal.TodosBefore[any](int(seq), "todo_write", nil, "added 1 todo")); err != nil {
		t.Fatal(err)
	}
	reg := journal.NewRegistry()
	reg.TodoList(todos)
	return ws, todos, undo.New(undo.Config{Sessions: st, Session: sess.ID(), Checkpoints: cp, Journal: j, Registry: reg})
}

// /undo in the full screen: the conflict is named and asked about (y
// overwrites it), the todo change asked about (y takes it back), and last
// the prompt comes back to the input, what was typed meanwhile kept in the
// history.
func TestUndoAsksThenPutsThePromptBack(t *testing.T) {
	ws, todos, svc := undoWorld(t)
	f := newFixture(t)
	d := newDriver(t, Options{Agent: f.ag, Slash: slash.Env{Undo: func() *undo.Service { return svc }}}, 120, 40)
	d.typeText("/undo")
	d.key("enter")
	d.drain()
	scr := d.screen()
	for _, want := range []string{"Took back turn 1", "conflict: a.txt", "Overwrite"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("lacks %q:\n%s", want, scr)
		}
	}
	if d.app.input.Value() != "" {
		t.Fatalf("the prompt came back before the questions were answered: %q", d.app.input.Value())
	}
	d.typeText("y")
	d.key("enter")
	d.drain()
	if scr := d.screen(); !strings.Contains(scr, "Overwritten with their state") || !strings.Contains(scr, "added 1 todo. Take it back?") {
		t.Fatalf("after y:\n%s", scr)
	}
	b, _ := os.ReadFile(filepath.Join(ws, "a.txt"))
	if string(b) != "a0\n" {
		t.Fatalf("a.txt = %q, want a0 (overwritten on yes)", b)
	}
	d.typeText("y")
	d.key("enter")
	d.drain()
	if n := len(todos.Snapshot()); n != 0 {
		t.Fatalf("the todo change was not taken back: %d items\n%s", n, d.screen())
	}
	if got := d.app.input.Value(); got != "change a please" {
		t.Fatalf("input = %q, want the undone prompt\n%s", got, d.screen())
	}
	if d.app.undo != nil || d.app.confirm != nil {
		t.Fatal("the undo is still asking")
	}
}

// n to the conflict keeps the file; Esc to the next question keeps the
// todo change; the prompt comes back all the same.
func TestUndoNoKeepsTheirChanges(t *testing.T) {
	ws, todos, svc := undoWorld(t)
	f := newFixture(t)
	d := newDriver(t, Options{Agent: f.ag, Slash: slash.Env{Undo: func() *undo.Service { return svc }}}, 120, 40)
	d.typeText("/undo")
	d.key("enter")
	d.drain()
	d.typeText("n")
	d.key("enter")
	d.drain()
	if scr := d.screen(); !strings.Contains(scr, "Kept them as they are.") || !strings.Contains(scr, "Take it back?") {
		t.Fatalf("after no:\n%s", scr)
	}
	d.key("esc")
	d.drain()
	if scr := d.screen(); !strings.Contains(scr, "Kept: added 1 todo") {
		t.Fatalf("after esc:\n%s", scr)
	}
	b, _ := os.ReadFile(filepath.Join(ws, "a.txt"))
	if string(b) != "someone else's edit\n" {
		t.Errorf("a.txt = %q: overwritten on no", b)
	}
	if n := len(todos.Snapshot()); n != 1 {
		t.Errorf("the todo change was taken back on esc")
	}
	if got := d.app.input.Value(); got != "change a please" {
		t.Errorf("input = %q, want the undone prompt", got)
	}
}
