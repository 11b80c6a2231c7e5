package tui

import (
	"strings"
	"testing"

	"github.com/co-cli/co/tools/todo"
)

type todoView struct{ l *todo.List }

func (t todoView) Subscribe() (<-chan struct{}, func()) { return t.l.Subscribe() }
func (t todoView) Lines() []string {
	if items := t.l.Snapshot(); len(items) > 0 {
		return strings.Split(todo.Render(items), "\n")
	}
	return nil
}

func TestTodoListShowsLiveInTheSidePanel(t *testing.T) {
	f := newFixture(t)
	l := todo.NewList()
	d := newDriver(t, Options{Agent: f.ag, Todos: todoView{l}}, 130, 40)
	if strings.Contains(d.screen(), "Todos") {
		t.Fatal("an empty list should not take room")
	}
	if _, err := l.Create([]string{"write the parser", "test \x1b[31mit"}, false); err != nil {
		t.Fatal(err)
	}
	d.until("the todos", func() bool { return strings.Contains(d.screen(), "write the parser") })
	if _, err := l.Update("1", "done", ""); err != nil {
		t.Fatal(err)
	}
	d.until("the update", func() bool { return strings.Contains(d.screen(), todo.Mark(todo.Done)+" 1. write the parser") })
	if s := d.screen(); !strings.Contains(s, "Todos") || strings.ContainsRune(s, 0x1b) && strings.Contains(s, "\x1b[31mit") {
		t.Errorf("side panel:\n%s", s)
	}
}
