package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/slash"
)

// The chat's side of memory: the side panel lists what the running turn
// recalled (agent.MemoryRecalled), and a slash command's yes/no question
// (/memory rm ID) is answered by the next line typed: y or yes does it,
// anything else does not, and a line other than n or no comes back to the
// input.

// recalled shows the memories a turn recalled in the side panel.
func (a *App) recalled(e agent.MemoryRecalled) {
	lines := make([]string, len(e.Memories))
	for i, m := range e.Memories {
		lines[i] = "[" + m.ID + "] " + m.Text
	}
	a.side.SetRecalled(lines)
}

// askConfirm shows r's question and keeps r until the next line.
func (a *App) askConfirm(r slash.Result, line string) {
	a.confirm = &r
	a.confirmOf, _, _ = strings.Cut(line, " ")
	a.chat.Add(newNotice(noticeOutput, r.Confirm+" Type y to confirm (anything else, or esc, cancels)."))
}

// answerConfirm takes the line typed after a question; yes runs what it
// asked about off the loop (it writes a store, the scheduler's entries).
func (a *App) answerConfirm(line string) tea.Cmd {
	r := a.confirm
	a.confirm = nil
	a.chat.Add(newUserEntry(line))
	a.chat.Bottom()
	if a.undo != nil && a.undo.waiting {
		return a.undoAnswered(line)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return a.offLoop(a.confirmOf, line, r.OnConfirm)
	case "", "n", "no":
		a.chat.Add(newNotice(noticeInfo, "Not done."))
	default:
		// Not an answer: a message typed while the question came (a late
		// one, after ctrl+c stopped waiting for its command) is not lost.
		a.putBack(queued{text: line})
		a.chat.Add(newNotice(noticeInfo, "Not done. Your line is back in the input: enter sends it."))
	}
	a.chat.Bottom()
	return nil
}

// SetRecalled sets the memories section (none when empty).
func (p *SidePanel) SetRecalled(lines []string) {
	p.recalled = lines
	p.refresh()
}

// recalledRows is the memories section: a title, one line each, a gap.
func (p *SidePanel) recalledRows(w int) []string {
	if len(p.recalled) == 0 {
		return nil
	}
	rows := []string{p.th.Title.Render("Recalled memories")}
	for _, l := range p.recalled {
		rows = append(rows, truncate(present.Line(safe.Text(l)), w))
	}
	return append(rows, "")
}

// openMem opens the /memory view (Options.Memory is set).
func (a *App) openMem() tea.Cmd {
	v, cmd := openMemView(a.th, DefaultMemoryKeyMap(), a.memOpen, a.width, max(a.height-1, 1))
	a.mem = v
	a.mem.SetSize(a.width, max(a.height-1, 1))
	return cmd
}

// closeMem closes the view; what it did stays done.
func (a *App) closeMem() {
	a.mem = nil
	a.refreshStatus()
}

func (a *App) memKey(k tea.KeyPressMsg) tea.Cmd {
	cmd, closed := a.mem.HandleKey(k)
	if closed {
		a.closeMem()
	}
	return cmd
}

// overlayBox is the box drawn over the chat: the approval modal, which
// comes before anything else, or the /memory view; "" when neither is open.
func (a *App) overlayBox() string {
	switch {
	case a.modal != nil:
		return a.modal.View()
	case a.form != nil:
		return a.form.View()
	case a.mem != nil:
		return a.mem.View()
	case a.setup != nil:
		return a.setup.View()
	case a.pick != nil:
		return a.pick.View()
	}
	return ""
}
