package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/lib/safe"
)

// Todos is the session's todo list as the chat shows it: the side panel
// keeps a section of it, updated whenever the list changes. main adapts
// tools/todo's List to it.
type Todos interface {
	// Subscribe returns a channel that receives after each burst of
	// changes, and a function that ends the subscription.
	Subscribe() (<-chan struct{}, func())
	// Lines is the list, one line per item, plain text.
	Lines() []string
}

// todosChangedMsg says the todo list changed.
type todosChangedMsg struct{}

// watchTodos waits for the next change of the list.
func watchTodos(ch <-chan struct{}) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		if _, ok := <-ch; !ok {
			return nil
		}
		return todosChangedMsg{}
	}
}

// showTodos gives the side panel the current list.
func (a *App) showTodos() {
	if a.todos == nil {
		return
	}
	lines := a.todos.Lines()
	for i, l := range lines {
		lines[i] = safe.Text(l)
	}
	a.side.SetTodos(lines)
}
