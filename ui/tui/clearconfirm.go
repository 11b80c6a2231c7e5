package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/ui/slash"
)

// /clear and /new take the conversation off the screen and out of what the
// model is sent. In the middle of one they ask first, as co's other
// questions do (askConfirm): y clears, anything else, Esc too, keeps
// everything. The default is no, so a stray Enter is harmless
// (docs/SOURCES.md#destructive-slash-commands-asking-first). An empty
// conversation clears at once.

// clearQuestion is what /clear and /new ask.
const clearQuestion = "Clear this conversation from the screen and start a new one? It stays saved (/sessions)."

// askClear asks before line, /clear or /new, clears a conversation, and
// reports whether it asked. A running turn is not asked about: the command
// itself refuses then.
func (a *App) askClear(line string) bool {
	name, _, _ := strings.Cut(line, " ")
	if (name != "/clear" && name != "/new") || a.running || a.agent == nil {
		return false
	}
	if msgs, asides := a.agent.Shown(); len(msgs) == 0 && len(asides) == 0 {
		return false
	}
	env := a.slash
	a.chat.Add(newUserEntry(line))
	a.askConfirm(slash.Result{Confirm: clearQuestion, OnConfirm: func() slash.Result {
		return slash.Dispatch(env, line)
	}}, line)
	a.chat.Bottom()
	a.refreshStatus()
	return true
}

// dismissConfirm is Esc while a question waits, with nothing typed: no.
func (a *App) dismissConfirm() tea.Cmd {
	a.confirm = nil
	if a.undo != nil && a.undo.waiting {
		return a.undoAnswered("n")
	}
	a.chat.Add(newNotice(noticeInfo, "Not done."))
	a.chat.Bottom()
	return nil
}
