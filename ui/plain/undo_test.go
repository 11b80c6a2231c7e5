package plain

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/checkpoint"
	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools/todo"
	"github.com/co-cli/co/ui/slash"
	"github.com/co-cli/co/undo"
)

// undoWorld is a saved conversation of one turn on real stores: the turn
// wrote a.txt (a checkpoint), then someone else changed a.txt again (a
// conflict), and the turn changed the todo list (undoable) and fetched a
// page (not undoable), both in the journal.
type undoWorld struct {
	ws    string
	todos *todo.List
	env   slash.Env
}

func newUndoWorld(t *testing.T) *undoWorld {
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
	if err := sess.Append(message.Message{Role: message.RoleUser, Content: "change a \x1b[31mplease"}); err != nil {
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

	todos := todo.NewList()
	if _, err := todos.Create([]string{"new task"}, true); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(filepath.Join(data, "journal"), sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	for _, e := range []journal.Entry{
		journal.TodosBefore[any](int(seq), "todo_write", nil, "added 1 todo"),
		journal.NotUndoable(int(seq), "web_fetch", journal.WebRequest, "fetched https://example.com", "a web request cannot be called back"),
	} {
		if _, err := j.Record(e); err != nil {
			t.Fatal(err)
		}
	}
	reg := journal.NewRegistry()
	reg.TodoList(todos)
	svc := undo.New(undo.Config{Sessions: st, Session: sess.ID(), Checkpoints: cp, Journal: j, Registry: reg})
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}})
	return &undoWorld{ws: ws, todos: todos, env: slash.Env{Agent: ag, Undo: func() *undo.Service { return svc }}}
}

func (w *undoWorld) file(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.ws, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (w *undoWorld) run(t *testing.T, script bool, input string) string {
	t.Helper()
	var out bytes.Buffer
	if err := Run(context.Background(), Options{Agent: w.env.Agent, In: strings.NewReader(input), Out: &out, Slash: w.env, Script: script}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// At a terminal, /undo names the conflict and asks; y overwrites it. The
// undoable todo change is asked about (y takes it back), the web request
// listed as what cannot be taken back, the prompt printed sanitised.
func TestPlainUndoAsks(t *testing.T) {
	w := newUndoWorld(t)
	out := w.run(t, false, "/undo\ny\ny\n/rewind\n")
	for _, want := range []string{
		"Took back turn 1 (files and conversation).",
		"conflict: a.txt",
		"Overwrite them with their state from before the turn? [y/N] y",
		"Overwritten with their state from before the turn:\n  restored: a.txt",
		"Your prompt was: change a ␛[31mplease",
		"cannot be taken back: fetched https://example.com — a web request cannot be called back",
		"The turn added 1 todo. Take it back? [y/N] y",
		"aken back: added 1 todo",
		"error: nothing to undo: this conversation has no turns yet",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[31m") {
		t.Errorf("a raw escape reached the terminal:\n%q", out)
	}
	if got := w.file(t); got != "a0\n" {
		t.Errorf("a.txt = %q, want a0 (the conflict overwritten on yes)", got)
	}
	if n := len(w.todos.Snapshot()); n != 0 {
		t.Errorf("the todo change was not taken back: %d items", n)
	}
}

// A script is asked nothing: the conflicting file is kept and named, the
// undoable change listed and kept.
func TestPlainUndoScriptAsksNothing(t *testing.T) {
	w := newUndoWorld(t)
	out := w.run(t, true, "/undo\n")
	for _, want := range []string{
		"conflict: a.txt",
		"The conflicting files were kept as they are",
		"not taken back (the input is not a terminal, nothing is asked): added 1 todo",
		"cannot be taken back: fetched https://example.com",
		"Your prompt was: change a ␛[31mplease",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[y/N]") {
		t.Errorf("a script was asked:\n%s", out)
	}
	if got := w.file(t); got != "someone else's edit\n" {
		t.Errorf("a.txt = %q: the conflict was overwritten", got)
	}
	if n := len(w.todos.Snapshot()); n != 1 {
		t.Errorf("the todo change was taken back without asking")
	}
}
