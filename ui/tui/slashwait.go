package tui

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/ui/slash"
)

// Slash commands whose answer comes from a store, files or other
// processes run in a command, not in Update: the chat keeps drawing, and
// the keys and pastes that come meanwhile are held and handled after the
// answer, in order (as while a pasted path is checked, attach.go). Ctrl+C
// stops waiting: the held keys go on, and the answer shows when it comes.
// A command that switches the conversation does so before it answers: a
// message sent while it goes on in the background waits in the queue for
// its answer, then goes to the conversation switched to.

// slashOffLoop are those commands: internal/cli's Env functions behind
// them read the sessions or memory store (/export writes a file too), the settings and the system's
// scheduler (crontab, systemctl), the MCP servers' states.
var slashOffLoop = map[string]bool{
	"/status": true, "/tools": true, "/sessions": true, "/memory": true,
	"/mcp": true, "/schedule": true, "/inbox": true, "/export": true,
}

// slashRun is a command running off the loop.
type slashRun struct {
	id       int
	name     string // the command, for the line shown when it is slow
	slow     bool
	switches bool // it loads another saved session into the agent
}

// switchesConversation reports whether line loads another saved session
// into the agent (internal/app's SwitchTo): /sessions ID, /inbox approve.
func switchesConversation(line string) bool {
	name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "/sessions":
		return arg != "" && arg != "all"
	case "/inbox":
		sub, _, _ := strings.Cut(arg, " ")
		return sub == "approve"
	}
	return false
}

// switching is the command switching the conversation, waited for or no
// longer (the first, when more), or "": messages wait for it.
func (a *App) switching() string {
	if a.slashWait != nil && a.slashWait.switches {
		return a.slashWait.name
	}
	first := 0
	for id := range a.switchBg {
		if first == 0 || id < first {
			first = id
		}
	}
	return a.switchBg[first]
}

// slashDoneMsg is a command's answer.
type slashDoneMsg struct {
	id   int
	line string
	r    slash.Result
}

// slashSlowMsg shows a command that has not answered yet.
type slashSlowMsg struct{ id int }

// startSlash shows line and runs it off the loop.
func (a *App) startSlash(env slash.Env, line string) tea.Cmd {
	a.chat.Add(newUserEntry(line))
	a.chat.Bottom()
	name, _, _ := strings.Cut(line, " ")
	return a.offLoop(name, line, func() slash.Result { return slash.Dispatch(env, line) })
}

// offLoop runs f, the command name (typed as line), in a command.
func (a *App) offLoop(name, line string, f func() slash.Result) tea.Cmd {
	a.slashSeq++
	id := a.slashSeq
	a.slashWait = &slashRun{id: id, name: name, switches: switchesConversation(line)}
	run := func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = slashDoneMsg{id: id, line: line, r: slash.Result{Err: true,
					Output: fmt.Sprintf("internal error: %s panicked: %v (the chat goes on; please report this)\n%s", name, r, debug.Stack())}}
			}
		}()
		return slashDoneMsg{id: id, line: line, r: f()}
	}
	slow := tea.Tick(probeShowAfter, func(time.Time) tea.Msg { return slashSlowMsg{id: id} })
	return tea.Batch(run, slow)
}

// handleSlashDone acts on a command's answer, then on the keys held
// meanwhile. An answer no longer waited for (ctrl+c) still shows.
func (a *App) handleSlashDone(msg slashDoneMsg) tea.Cmd {
	if a.slashWait == nil || a.slashWait.id != msg.id {
		if _, ok := a.switchBg[msg.id]; !ok {
			return a.slashDone(msg.line, msg.r, true)
		}
		// The switch is done: the messages that waited for it go.
		delete(a.switchBg, msg.id)
		cmd := a.slashDone(msg.line, msg.r, true)
		return tea.Batch(cmd, a.next())
	}
	switched := a.slashWait.switches
	a.slashWait = nil
	a.layout()
	cmd := a.slashDone(msg.line, msg.r, true)
	if switched {
		cmd = tea.Batch(cmd, a.next()) // a message that waited for it
	}
	return tea.Batch(cmd, a.release())
}

// stopWaiting is ctrl+c while a command runs: the held keys go on.
func (a *App) stopWaiting() tea.Cmd {
	name := a.slashWait.name
	if a.slashWait.switches {
		if a.switchBg == nil {
			a.switchBg = map[int]string{}
		}
		a.switchBg[a.slashWait.id] = name
	}
	a.slashWait = nil
	a.chat.Add(newNotice(noticeInfo, name+" goes on in the background; its answer shows here when it comes."))
	a.chat.Bottom()
	a.layout()
	return a.release()
}

// hold keeps msg (a key or a paste) while a pasted path is checked or a
// command runs; false when neither.
func (a *App) hold(msg tea.Msg) bool {
	if a.probe == nil && a.slashWait == nil {
		return false
	}
	a.held = append(a.held, heldMsg{msg: msg, at: a.now()})
	return true
}

// heldMsg is a key or paste held, and when it came.
type heldMsg struct {
	msg tea.Msg
	at  time.Time
}

// release handles the held keys and pastes in order, until one of them
// starts another check or command.
func (a *App) release() tea.Cmd {
	var cmds []tea.Cmd
	for len(a.held) > 0 && a.probe == nil && a.slashWait == nil {
		h := a.held[0]
		a.held = a.held[1:]
		switch m := h.msg.(type) {
		case tea.KeyPressMsg:
			cmds = append(cmds, a.handleKeyAt(m, h.at))
		case tea.PasteMsg:
			if a.openedSince(h.at) {
				// Meant for the prompt: the modal or form came after it.
				cmds = append(cmds, a.pasteToPrompt(m))
				break
			}
			cmds = append(cmds, a.handlePaste(m))
		}
	}
	return tea.Batch(cmds...)
}

// openedSince reports whether the approval modal or a form on screen
// opened at or after at: what was typed or pasted then was not for it.
func (a *App) openedSince(at time.Time) bool {
	return (a.modal != nil && !a.modal.opened.Before(at)) || (a.form != nil && !a.form.opened.Before(at))
}
