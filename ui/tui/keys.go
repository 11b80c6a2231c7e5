package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap is the chat's keys outside the approval modal.
type KeyMap struct {
	Send         key.Binding // send the input (or queue it while a turn runs)
	Newline      key.Binding // a new line in the input
	HistoryPrev  key.Binding // previous input, when the cursor is on the first line
	HistoryNext  key.Binding // next input, when the cursor is on the last line
	Complete     key.Binding // complete a slash command; again: the next candidate
	CompletePrev key.Binding // the previous candidate
	Cancel       key.Binding // cancel the running turn; clear the selection
	Interrupt    key.Binding // cancel the turn; clear a draft; twice at an empty idle prompt: exit
	Quit         key.Binding // exit, on an empty input
	Suspend      key.Binding
	PageUp       key.Binding
	PageDown     key.Binding
	Top          key.Binding // the start of the transcript (input empty)
	Bottom       key.Binding // the end of the transcript, following new output (input empty)
	SelectPrev   key.Binding // select the previous message
	SelectNext   key.Binding // select the next message
	Copy         key.Binding // copy the selected message, or the last reply, with OSC 52
	Expand       key.Binding // expand or collapse a tool's output
	Reasoning    key.Binding // expand or collapse the model's reasoning
	ToggleSpans  key.Binding // show or hide the side panel
	Mouse        key.Binding // release the mouse to the terminal, or take it back
	Detach       key.Binding // remove the last image or PDF attached to the next message
}

// DefaultKeyMap returns the chat's default keys.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Send:         b("enter", "send (queued while a turn runs)", "enter"),
		Newline:      b("shift+enter/ctrl+j", "new line", "shift+enter", "ctrl+j", "alt+enter"),
		HistoryPrev:  b("↑", "previous input", "up"),
		HistoryNext:  b("↓", "next input", "down"),
		Complete:     b("tab", "complete a /command or a model after /model; again: the next candidate", "tab"),
		CompletePrev: b("shift+tab", "the previous candidate", "shift+tab"),
		Cancel:       b("esc", "cancel the turn", "esc"),
		Interrupt:    b("ctrl+c", "cancel the turn; clear the input; twice to exit", "ctrl+c"),
		Quit:         b("ctrl+d", "exit (empty input)", "ctrl+d"),
		Suspend:      b("ctrl+z", "suspend co (fg brings it back)", "ctrl+z"),
		PageUp:       b("pgup", "scroll up", "pgup"),
		PageDown:     b("pgdn", "scroll down", "pgdown"),
		Top:          b("home", "top of the transcript (empty input)", "home"),
		Bottom:       b("end", "bottom, follow new output (empty input)", "end"),
		SelectPrev:   b("alt+↑", "select the previous message", "alt+up"),
		SelectNext:   b("alt+↓", "select the next message", "alt+down"),
		Copy:         b("ctrl+y", "copy the selected message or the last reply", "ctrl+y"),
		Expand:       b("ctrl+o", "expand/collapse tool output", "ctrl+o"),
		Reasoning:    b("ctrl+r", "expand/collapse the model's reasoning", "ctrl+r"),
		ToggleSpans:  b("ctrl+t", "show/hide the spans panel", "ctrl+t"),
		Mouse:        b("f2", "release the mouse for selecting text", "f2", "alt+m"),
		Detach:       b("ctrl+x", "remove the last image or PDF attached above the input", "ctrl+x"),
	}
}

// ModalKeyMap is the approval modal's keys.
type ModalKeyMap struct {
	Approve  key.Binding
	Deny     key.Binding
	Always   key.Binding
	Cancel   key.Binding // cancel the whole turn
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
}

// DefaultModalKeyMap returns the approval modal's default keys.
func DefaultModalKeyMap() ModalKeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return ModalKeyMap{
		Approve:  b("y", "approve once", "y", "Y"),
		Deny:     b("n/esc", "deny", "n", "N", "esc"),
		Always:   b("a", "approve for the session", "a", "A"),
		Cancel:   b("ctrl+c", "cancel the turn", "ctrl+c"),
		Up:       b("↑", "scroll", "up", "k"),
		Down:     b("↓", "scroll", "down", "j"),
		PageUp:   b("pgup", "scroll", "pgup"),
		PageDown: b("pgdn", "scroll", "pgdown"),
	}
}

// HelpText lists the keys for /help (slash.Env.HelpExtra).
func HelpText(k KeyMap, m ModalKeyMap) string {
	var b strings.Builder
	b.WriteString("Keys:\n")
	for _, kb := range []key.Binding{k.Send, k.Newline, k.HistoryPrev, k.HistoryNext, k.Complete, k.CompletePrev, k.Cancel, k.Interrupt, k.Quit, k.Suspend,
		k.PageUp, k.PageDown, k.Top, k.Bottom, k.SelectPrev, k.SelectNext, k.Copy, k.Expand, k.Reasoning, k.ToggleSpans, k.Mouse, k.Detach} {
		h := kb.Help()
		fmt.Fprintf(&b, "  %-19s %s\n", h.Key, h.Desc)
	}
	b.WriteString("  mouse wheel         scroll the transcript\n")
	b.WriteString("  shift+drag          select text with the terminal while the mouse is captured\n")
	b.WriteString("  @                   attach a workspace file: ↑/↓ choose, tab/enter put it in, esc closes the list\n")
	b.WriteString("Approval:\n")
	for _, kb := range []key.Binding{m.Approve, m.Deny, m.Always, m.Cancel} {
		h := kb.Help()
		fmt.Fprintf(&b, "  %-19s %s\n", h.Key, h.Desc)
	}
	scroll := []string{m.Up.Help().Key, m.Down.Help().Key, m.PageUp.Help().Key, m.PageDown.Help().Key}
	fmt.Fprintf(&b, "  %-19s %s a question taller than the screen\n", strings.Join(scroll, " "), m.Up.Help().Desc)
	return strings.TrimRight(b.String(), "\n")
}
