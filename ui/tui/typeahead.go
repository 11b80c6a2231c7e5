package tui

import tea "charm.land/bubbletea/v2"

// Typed ahead: lines typed while co was starting, before the chat put the
// terminal in raw mode, wait in the terminal's input queue with each Enter
// already turned into a line feed (the line discipline's ICRNL), which
// reaches the chat as Ctrl+J, the new-line key. co --plain reads lines and
// is not affected; here, the chat counts the bytes of whole lines that
// were waiting when it started (typedAhead) and takes a line feed among
// them as the Enter it was typed as.

// aheadKey returns msg as it was typed: Enter for a line feed among the
// bytes typed ahead. A key those bytes cannot hold (an escape sequence)
// ends the count.
func (a *App) aheadKey(msg tea.KeyPressMsg) tea.KeyPressMsg {
	if a.ahead <= 0 {
		return msg
	}
	switch {
	case msg.Code == 'j' && msg.Mod == tea.ModCtrl:
		a.ahead--
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case msg.Text != "":
		a.ahead -= len(msg.Text)
	case msg.Code == tea.KeyTab && msg.Mod == 0:
		a.ahead--
	default:
		a.ahead = 0
	}
	return msg
}
