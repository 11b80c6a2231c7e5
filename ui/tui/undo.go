package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/slash"
	"github.com/co-cli/co/undo"
)

// /undo and /rewind in the full screen. The rewind runs off the loop (keys
// typed meanwhile are held, as for a slow slash command); then the
// transcript is redrawn from the agent's history (the turns it took back
// are gone), the report shows, and the questions come one by one, each
// answered by a line as co's other questions (askConfirm; default no):
// overwrite the conflicting files?, then each undoable thing the turns
// sent. Last, when the conversation was taken back, the first taken-back
// turn's prompt comes back to the input to be edited and sent again.
// What was typed in the input then is kept in the input history (↑).
//
// /rewind alone opens a picker of the turns' prompts (newest at the
// bottom, as in the transcript, and selected), then of what to take back.

// rewoundMsg is a rewind's answer.
type rewoundMsg struct {
	id     int
	rw     slash.Rewind
	res    undo.Result
	err    error
	forced bool
}

// sentUndoneMsg is UndoSent's answer.
type sentUndoneMsg struct {
	e   journal.Entry
	r   journal.Result
	err error
}

// undoFlow is an undo whose questions are still being asked.
type undoFlow struct {
	rw      slash.Rewind
	first   undo.Result     // the first rewind's result: its prompt, what was sent
	ask     []journal.Entry // undoable entries not asked about yet
	cur     *journal.Entry  // the entry asked about now; nil: the conflicts
	waiting bool            // a question is out
}

// startRewind runs rw off the loop.
func (a *App) startRewind(rw slash.Rewind, force bool) tea.Cmd {
	a.slashSeq++
	id := a.slashSeq
	name := "/rewind"
	if rw.Last {
		name = "/undo"
	}
	a.slashWait = &slashRun{id: id, name: name}
	return safeCmd(func() tea.Msg {
		res, err := rw.Service.Rewind(context.Background(), rw.From, rw.Mode, force)
		return rewoundMsg{id: id, rw: rw, res: res, err: err, forced: force}
	})
}

// handleRewound shows a rewind's outcome and asks what is left to ask.
func (a *App) handleRewound(msg rewoundMsg) tea.Cmd {
	var release tea.Cmd
	if a.slashWait != nil && a.slashWait.id == msg.id {
		a.slashWait = nil
		a.layout()
		release = a.release()
	}
	if msg.err != nil {
		a.chat.Add(newNotice(noticeError, "could not take back the turn: "+msg.err.Error()))
		a.undo = nil
		a.chat.Bottom()
		return release
	}
	report := slash.Report(msg.rw, msg.res)
	if msg.forced {
		report = slash.ForcedReport(msg.res)
	}
	if msg.rw.Mode != undo.FilesOnly && !msg.forced {
		// The conversation changed: drawn again from the agent's history.
		a.chat.Clear()
		a.chat.Add(a.welcome)
		a.showHistory(report)
		a.turnTokens = 0
	} else {
		a.chat.Add(newNotice(noticeOutput, report))
	}
	if msg.forced {
		if a.undo != nil {
			a.undo.waiting = false
		}
		return tea.Batch(release, a.undoNext())
	}
	ask, cannot := slash.SplitSent(msg.res.Sent)
	for _, l := range cannot {
		a.chat.Add(newNotice(noticeInfo, l))
	}
	a.undo = &undoFlow{rw: msg.rw, first: msg.res, ask: ask}
	if len(msg.res.Files.Conflicts) > 0 {
		a.undo.waiting = true
		a.askConfirm(slash.Result{Confirm: slash.ConflictQuestion(msg.res)}, "/undo")
		a.chat.Bottom()
		a.refreshStatus()
		return release
	}
	return tea.Batch(release, a.undoNext())
}

// undoNext asks about the next thing the turns sent, or ends the undo.
func (a *App) undoNext() tea.Cmd {
	u := a.undo
	if u == nil {
		return nil
	}
	if len(u.ask) > 0 {
		e := u.ask[0]
		u.ask, u.cur, u.waiting = u.ask[1:], &e, true
		a.askConfirm(slash.Result{Confirm: slash.SentQuestion(e)}, "/undo")
		a.chat.Bottom()
		a.refreshStatus()
		return nil
	}
	a.undo = nil
	m := u.rw.Mode
	if (m == undo.Both || m == undo.ConversationOnly) && strings.TrimSpace(u.first.Prompt) != "" {
		a.promptBack(u.first.Prompt)
	}
	a.chat.Bottom()
	a.refreshStatus()
	return nil
}

// promptBack puts a taken-back prompt in the input. What was typed there
// goes into the input history first (↑ brings it back).
func (a *App) promptBack(prompt string) {
	var save func() error
	if !a.input.Empty() {
		save = a.input.Clear()
		a.chat.Add(newNotice(noticeInfo, "What you had typed is in the input history (↑ brings it back)."))
	}
	a.input.SetValue(prompt)
	a.chat.Add(newNotice(noticeInfo, "Your prompt is back in the input: edit it and press enter to send it again."))
	if save != nil {
		if err := save(); err != nil {
			a.chat.Add(newNotice(noticeError, "could not save the input history: "+err.Error()))
		}
	}
	a.layout()
}

// undoAnswered takes the answer to the undo's question: yes overwrites
// the conflicts or takes back the entry asked about. A line that is no
// answer is no, and comes back to the input.
func (a *App) undoAnswered(line string) tea.Cmd {
	u := a.undo
	u.waiting = false
	trimmed := strings.ToLower(strings.TrimSpace(line))
	yes := trimmed == "y" || trimmed == "yes"
	if !yes && trimmed != "" && trimmed != "n" && trimmed != "no" {
		a.putBack(queued{text: line})
		a.chat.Add(newNotice(noticeInfo, "Taken as no. Your line is back in the input."))
	}
	if u.cur == nil { // the conflicts
		if yes {
			u.waiting = true
			return a.startRewind(u.rw, true)
		}
		a.chat.Add(newNotice(noticeInfo, "Kept them as they are."))
		return a.undoNext()
	}
	e := *u.cur
	if !yes {
		a.chat.Add(newNotice(noticeInfo, "Kept: "+present.Line(safe.Text(e.What))))
		return a.undoNext()
	}
	u.waiting = true
	svc := u.rw.Service
	return safeCmd(func() tea.Msg {
		r, err := svc.UndoSent(context.Background(), e.Seq)
		return sentUndoneMsg{e: e, r: r, err: err}
	})
}

func (a *App) handleSentUndone(msg sentUndoneMsg) tea.Cmd {
	kind := noticeInfo
	if msg.err != nil {
		kind = noticeError
	}
	a.chat.Add(newNotice(kind, slash.SentOutcome(msg.e, msg.r, msg.err)))
	if a.undo != nil {
		a.undo.waiting = false
	}
	return a.undoNext()
}

// PickKeyMap are the /rewind picker's keys.
type PickKeyMap struct {
	Up, Down, Choose, Close key.Binding
}

// DefaultPickKeyMap returns the picker's default keys.
func DefaultPickKeyMap() PickKeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return PickKeyMap{
		Up:     b("↑", "previous", "up", "k"),
		Down:   b("↓", "next", "down", "j"),
		Choose: b("enter", "choose", "enter"),
		Close:  b("esc", "cancel", "esc"),
	}
}

// rewindPick is the /rewind picker: a turn, then a mode.
type rewindPick struct {
	th    *Theme
	keys  PickKeyMap
	svc   *undo.Service
	turns []undo.Turn
	turn  *undo.Turn // chosen: the modes are offered
	sel   int
	w, h  int
	box   string
}

func newRewindPick(th *Theme, svc *undo.Service, turns []undo.Turn, w, h int) *rewindPick {
	p := &rewindPick{th: th, keys: DefaultPickKeyMap(), svc: svc, turns: turns, sel: len(turns) - 1}
	p.SetSize(w, h)
	return p
}

// SetSize fits the box to the screen.
func (p *rewindPick) SetSize(w, h int) {
	p.w, p.h = w, h
	p.render()
}

func (p *rewindPick) rows() []string {
	if p.turn != nil {
		rows := make([]string, len(slash.Modes))
		for i, m := range slash.Modes {
			rows[i] = m.Label
		}
		return rows
	}
	rows := make([]string, len(p.turns))
	for i, t := range p.turns {
		rows[i] = slash.TurnLine(t)
	}
	return rows
}

// HandleKey moves, chooses or closes; done: the picker is closed, rw is
// set when a turn and a mode were chosen.
func (p *rewindPick) HandleKey(k tea.KeyPressMsg) (rw *slash.Rewind, done bool) {
	n := len(p.rows())
	switch {
	case key.Matches(k, p.keys.Up):
		p.sel = max(p.sel-1, 0)
	case key.Matches(k, p.keys.Down):
		p.sel = min(p.sel+1, n-1)
	case key.Matches(k, p.keys.Close):
		return nil, true
	case key.Matches(k, p.keys.Choose):
		if p.turn == nil {
			t := p.turns[p.sel]
			p.turn, p.sel = &t, 0
			break
		}
		m := slash.Modes[p.sel].Mode
		last := p.turn.Seq == p.turns[len(p.turns)-1].Seq
		return &slash.Rewind{Service: p.svc, From: p.turn.Seq, N: p.turn.N, Mode: m, Last: last && m == undo.Both}, true
	}
	p.render()
	return nil, false
}

// View is the drawn box.
func (p *rewindPick) View() string { return p.box }

func (p *rewindPick) render() {
	th := p.th
	w := max(min(p.w-6, 90), 20)
	title := "Rewind: take back which turn and every later one?"
	if p.turn != nil {
		title = fmt.Sprintf("Turn %d and later: take back what?", p.turn.N)
	}
	lines := []string{th.Title.Render(truncate(title, w)), ""}
	rows := p.rows()
	lh := max(min(len(rows), p.h-8), 1)
	top := min(max(p.sel-lh+1, 0), max(len(rows)-lh, 0))
	if p.sel < top {
		top = p.sel
	}
	for i := top; i < len(rows) && i < top+lh; i++ {
		mark := "  "
		r := truncate(rows[i], w-2)
		if i == p.sel {
			mark = th.Selected.Render("› ")
			r = th.Selected.Render(r)
		}
		lines = append(lines, mark+r)
	}
	lines = append(lines, "", th.Dim.Render(truncate("↑/↓ move · enter choose · esc cancel", w)))
	for i, l := range lines {
		if pad := w - xansi.StringWidth(l); pad > 0 {
			lines[i] = l + strings.Repeat(" ", pad)
		}
	}
	p.box = th.Modal.Render(strings.Join(lines, "\n"))
}

// openRewindPick opens the picker for r (Action RewindPick).
func (a *App) openRewindPick(r slash.Result) {
	a.pick = newRewindPick(a.th, r.Rewind.Service, r.Turns, a.width, max(a.height-1, 1))
}

func (a *App) pickKey(k tea.KeyPressMsg) tea.Cmd {
	rw, done := a.pick.HandleKey(k)
	if !done {
		return nil
	}
	a.pick = nil
	if rw == nil {
		a.chat.Add(newNotice(noticeInfo, "Not done."))
		a.chat.Bottom()
		return nil
	}
	if a.running {
		a.chat.Add(newNotice(noticeError, "a turn is running; cancel it first (esc), then undo"))
		a.chat.Bottom()
		return nil
	}
	a.chat.Add(newNotice(noticeInfo, fmt.Sprintf("Rewinding to before turn %d (%s)…", rw.N, slash.ModeLabel(rw.Mode))))
	a.chat.Bottom()
	return a.startRewind(*rw, false)
}
