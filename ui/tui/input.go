package tui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/mention"
	"github.com/co-cli/co/ui/slash"
)

// Submission is what the user sent with Enter.
type Submission struct {
	Text string
	// save appends Text to the history file; run it in a tea.Cmd.
	save func() error
}

// Input is the prompt: a multi-line text area with history and slash
// command completion.
type Input struct {
	ta      textarea.Model
	keys    KeyMap
	th      *Theme
	hist    *History
	histPos int    // hist.Len() while editing the draft
	draft   string // what was typed before walking the history
	hints   []string
	// cycle is Tab going through the candidates shown in hints: the text
	// before the completed word, and the candidate filled in (-1: none
	// yet). It ends with any other key.
	cycleLead string
	cycleIdx  int
	// models returns the model names starting with a prefix (Tab after
	// "/model "); nil: no completion of names.
	models func(prefix string) []string
	// index is the workspace's files for @ completion (mention.go); nil:
	// no completion. pop is the open list; dismissed is the @word (line,
	// column) whose list Esc closed.
	index *mention.Index
	// checkChoice: the @ list's choice may be an image or PDF, attached
	// rather than put in the text; it is left in chosen for the App to
	// check (off the loop), which then attaches it or calls InsertMention.
	checkChoice bool
	chosen      string
	pop         *mentionPopup
	dismissed   [2]int
	// commands returns the command names starting with a prefix, custom
	// ones included; nil: the built-in ones (slash.Complete).
	commands func(prefix string) []string
	// args completes a command's argument (slash.CompleteArg: /inbox's
	// subcommands and waiting ids); nil: none.
	args  func(line string) (lead string, cands []string, ok bool)
	width int
	// A burst of typed characters (a paste in a terminal without
	// bracketed paste, thousands of keys at once) is gathered in pending
	// and inserted in one go when flushDelay has passed: the text area
	// re-wraps its whole text on every insertion, and the view with it,
	// so inserting key by key costs O(n²) (15 s for 5,000 keys).
	pending  strings.Builder
	lastKey  time.Time // when the last character key came
	flushing bool      // an inputFlushMsg is on its way
	now      func() time.Time
	cursor   *tea.Cursor // cached Cursor (the text area's costs a wrap of its whole text)
	popLines int         // lines of the @ list in view
	view     string      // cached View
	lines    []string    // View's lines
	widths   []int       // their widths
}

const inputMaxLines = 8

// burstGap: a character key this soon after the previous one is part of a
// burst (a person types 30 ms apart at the fastest); flushDelay is how long
// a burst gathers before it is inserted (under a frame).
const (
	burstGap   = 4 * time.Millisecond
	flushDelay = 8 * time.Millisecond
)

// inputFlushMsg inserts the keys gathered during a burst.
type inputFlushMsg struct{}

// NewInput makes the prompt.
func NewInput(th *Theme, keys KeyMap, hist *History) *Input {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = inputMaxLines
	ta.MaxContentHeight = 5000
	ta.CharLimit = 0
	ta.Placeholder = "Ask co anything · /help for commands · !cmd runs a shell command"
	ta.SetVirtualCursor(false)
	ta.SetPromptFunc(2, func(p textarea.PromptInfo) string {
		if p.LineNumber == 0 {
			return th.UserMark.Render("❯ ")
		}
		return "  "
	})
	km := textarea.DefaultKeyMap()
	km.InsertNewline = keys.Newline
	km.TransposeCharacterBackward.Unbind() // ctrl+t shows the spans panel
	km.PageUp.Unbind()                     // pgup/pgdn scroll the transcript
	km.PageDown.Unbind()
	ta.KeyMap = km
	ta.Focus()
	if hist == nil {
		hist, _ = LoadHistory("")
	}
	in := &Input{ta: ta, keys: keys, th: th, hist: hist, histPos: hist.Len(), now: time.Now, dismissed: [2]int{-1, -1}}
	in.SetTheme()
	return in
}

// SetTheme styles the prompt for the theme (again, after it changed).
func (in *Input) SetTheme() {
	th := in.th
	st := textarea.DefaultLightStyles()
	if th.Name == "dark" {
		st = textarea.DefaultDarkStyles()
	}
	for _, s := range []*textarea.StyleState{&st.Focused, &st.Blurred} {
		s.Base = lipgloss.NewStyle()
		s.CursorLine = lipgloss.NewStyle()
		s.Text = lipgloss.NewStyle()
		s.Placeholder = th.Dim
		s.Prompt = lipgloss.NewStyle()
		s.EndOfBuffer = lipgloss.NewStyle()
	}
	in.ta.SetStyles(st)
	in.refresh()
}

// SetWidth sets the width of the prompt.
func (in *Input) SetWidth(w int) {
	in.width = w
	in.ta.SetWidth(w)
	in.refresh()
}

// Value is the text typed so far.
func (in *Input) Value() string { in.flush(); return in.ta.Value() }

// Empty reports whether nothing is typed.
func (in *Input) Empty() bool { return in.pending.Len() == 0 && in.ta.Value() == "" }

// SetValue replaces the text and puts the cursor at its end.
func (in *Input) SetValue(s string) {
	in.flush()
	in.ta.SetValue(s)
	in.ta.MoveToEnd()
	in.pop = nil
	in.refresh()
}

// Hints are the completion candidates shown above the prompt.
func (in *Input) Hints() []string { return in.hints }

// Update handles a key or a paste. When Enter sends the text it returns
// the submission.
func (in *Input) Update(msg tea.Msg) (*Submission, tea.Cmd) {
	k, isKey := msg.(tea.KeyPressMsg)
	if isKey && isCharKey(k) {
		t := in.now()
		burst := !in.lastKey.IsZero() && t.Sub(in.lastKey) < burstGap
		in.lastKey = t
		if burst || in.pending.Len() > 0 {
			in.pending.WriteString(k.Text)
			in.hints = nil
			if in.flushing {
				return nil, nil
			}
			in.flushing = true
			return nil, tea.Tick(flushDelay, func(time.Time) tea.Msg { return inputFlushMsg{} })
		}
	}
	var flushed tea.Cmd
	if in.flush() { // what came before this message goes in first
		// The @ list follows the text as it is now: a key (Enter) after a
		// burst must not act on the list of the word before it.
		flushed = in.updateMention()
	}
	defer in.refresh()
	if !isKey {
		var cmd tea.Cmd
		in.ta, cmd = in.ta.Update(msg)
		if _, paste := msg.(tea.PasteMsg); paste {
			cmd = tea.Batch(cmd, in.updateMention())
		}
		return nil, tea.Batch(cmd, flushed)
	}
	if in.pop != nil && in.mentionKey(k) {
		return nil, tea.Batch(flushed, in.updateMention())
	}
	switch {
	case key.Matches(k, in.keys.Send):
		return in.submit(), flushed
	case key.Matches(k, in.keys.Complete):
		if !in.cycle(+1) {
			in.complete()
		}
		return nil, nil
	case key.Matches(k, in.keys.CompletePrev) && len(in.hints) > 0:
		in.cycle(-1)
		return nil, nil
	case key.Matches(k, in.keys.HistoryPrev) && in.onFirstLine():
		in.walk(-1)
		return nil, nil
	case key.Matches(k, in.keys.HistoryNext) && in.onLastLine():
		in.walk(+1)
		return nil, nil
	}
	in.hints = nil
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return nil, tea.Batch(cmd, in.updateMention())
}

// isCharKey reports whether k only types its text (no binding of the
// chat, the prompt or the text area takes a plain character).
func isCharKey(k tea.KeyPressMsg) bool {
	return k.Text != "" && k.Mod&^tea.ModShift == 0 && k.Code != tea.KeyEnter && k.Code != tea.KeyTab
}

// flush inserts the keys gathered during a burst; false when there were
// none.
func (in *Input) flush() bool {
	if in.pending.Len() == 0 {
		return false
	}
	text := in.pending.String()
	in.pending.Reset()
	in.ta, _ = in.ta.Update(tea.PasteMsg{Content: text})
	in.refresh()
	return true
}

// Gathering reports whether keys of a burst wait to be inserted.
func (in *Input) Gathering() bool { return in.pending.Len() > 0 }

// Flushed handles inputFlushMsg.
func (in *Input) Flushed() tea.Cmd {
	in.flushing = false
	in.flush()
	cmd := in.updateMention()
	in.refresh()
	return cmd
}

func (in *Input) submit() *Submission {
	text := in.ta.Value()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	save := in.hist.Add(text)
	in.ta.Reset()
	in.hints, in.draft, in.histPos, in.pop = nil, "", in.hist.Len(), nil
	return &Submission{Text: text, save: save}
}

// record puts text into the history as if it had been typed and sent
// (Options.First), returning the history's save function.
func (in *Input) record(text string) func() error {
	save := in.hist.Add(text)
	in.histPos = in.hist.Len()
	return save
}

// Clear empties the prompt, keeping what it held in the history (Ctrl+C
// on a draft). It returns the history's save function, or nil when the
// prompt was blank.
func (in *Input) Clear() func() error {
	in.flush()
	text := in.ta.Value()
	var save func() error
	if strings.TrimSpace(text) != "" {
		save = in.hist.Add(text)
	}
	in.ta.Reset()
	in.hints, in.draft, in.histPos, in.pop = nil, "", in.hist.Len(), nil
	in.refresh()
	return save
}

func (in *Input) onFirstLine() bool {
	return in.ta.Line() == 0 && in.ta.LineInfo().RowOffset == 0
}

func (in *Input) onLastLine() bool {
	li := in.ta.LineInfo()
	return in.ta.Line() == in.ta.LineCount()-1 && li.RowOffset == li.Height-1
}

// walk moves through the history: -1 older, +1 newer (back to the draft).
func (in *Input) walk(d int) {
	p := in.histPos + d
	if p < 0 || p > in.hist.Len() {
		return
	}
	if in.histPos == in.hist.Len() {
		in.draft = in.ta.Value()
	}
	in.histPos = p
	in.hints = nil
	if p == in.hist.Len() {
		in.SetValue(in.draft)
		return
	}
	in.SetValue(in.hist.At(p))
	if d > 0 {
		// Walking forward lands on the entry's first line, so down moves
		// through it before going on (as up does from its last line).
		in.ta.MoveToBegin()
		in.ta.CursorEnd()
		in.refresh()
	}
}

// SetHints shows hints above the prompt (until the next key).
func (in *Input) SetHints(h []string) {
	in.flush()
	in.hints, in.cycleIdx = h, -1
	in.refresh()
}

// Complete completes as Tab does.
func (in *Input) Complete() {
	in.flush()
	if !in.cycle(+1) {
		in.complete()
	}
	in.refresh()
}

// cycle fills in the next (d=+1) or previous (d=-1) of the candidates a
// Tab showed; false when none are shown.
func (in *Input) cycle(d int) bool {
	if len(in.hints) < 2 {
		return false
	}
	n := len(in.hints)
	in.cycleIdx = ((in.cycleIdx+d)%n + n) % n
	if in.cycleIdx < 0 {
		in.cycleIdx = 0
	}
	in.ta.SetValue(in.cycleLead + in.hints[in.cycleIdx])
	in.ta.MoveToEnd()
	return true
}

// complete completes a slash command, or a model name after "/model ": a
// single match is filled in, several are shown and their common prefix
// filled in.
func (in *Input) complete() {
	v := in.ta.Value()
	if arg, ok := modelArg(v); ok && in.models != nil {
		in.fill("/model ", arg, in.models(arg), "")
		return
	}
	if in.args != nil {
		if lead, cands, ok := in.args(v); ok {
			after := ""
			if lead == "/inbox " {
				after = " " // a subcommand: its id follows
			}
			in.fill(lead, strings.TrimPrefix(v, lead), cands, after)
			return
		}
	}
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n\t") {
		in.hints = nil
		return
	}
	complete := slash.Complete
	if in.commands != nil {
		complete = in.commands
	}
	in.fill("", v, complete(v), " ")
}

// fill completes word (after lead) from cands; a single one is followed
// by after.
func (in *Input) fill(lead, word string, cands []string, after string) {
	switch len(cands) {
	case 0:
		in.hints = nil
	case 1:
		in.SetValue(lead + cands[0] + after)
		in.hints = nil
	default:
		if p := commonPrefix(cands); len(p) > len(word) {
			in.SetValue(lead + p)
		}
		in.cycleLead, in.cycleIdx = lead, -1
		in.hints = make([]string, len(cands))
		for i, c := range cands {
			in.hints[i] = safe.Text(c)
		}
	}
}

func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// Height is the number of lines View takes.
func (in *Input) Height() int {
	h := 1 + in.ta.Height() + in.popLines
	if len(in.hints) > 0 {
		h++
	}
	return h
}

func (in *Input) refresh() {
	var b strings.Builder
	in.popLines = 0
	if in.pop != nil {
		for _, l := range in.mentionLines() {
			b.WriteString(l)
			b.WriteByte('\n')
			in.popLines++
		}
	}
	if len(in.hints) > 0 {
		b.WriteString(in.hintLine())
		b.WriteByte('\n')
	}
	b.WriteString(in.th.InputLine.Render(strings.Repeat("─", max(in.width, 1))))
	b.WriteByte('\n')
	b.WriteString(strings.TrimRight(in.ta.View(), "\n"))
	in.view = b.String()
	in.cursor = in.ta.Cursor()
	in.lines = strings.Split(in.view, "\n")
	in.widths = make([]int, len(in.lines))
	for i, l := range in.lines {
		in.widths[i] = xansi.StringWidth(l)
	}
}

// hintLine is the candidates, the one Tab filled in marked.
func (in *Input) hintLine() string {
	if in.cycleIdx < 0 || in.cycleIdx >= len(in.hints) {
		return in.th.Dim.Render(truncate("  "+strings.Join(in.hints, "  "), in.width))
	}
	var b strings.Builder
	b.WriteString(in.th.Dim.Render("  " + strings.Join(in.hints[:in.cycleIdx], "  ")))
	if in.cycleIdx > 0 {
		b.WriteString(in.th.Dim.Render("  "))
	}
	b.WriteString(in.th.Selected.Render(in.hints[in.cycleIdx]))
	if rest := in.hints[in.cycleIdx+1:]; len(rest) > 0 {
		b.WriteString(in.th.Dim.Render("  " + strings.Join(rest, "  ")))
	}
	return xansi.Truncate(b.String(), in.width, "…")
}

// Lines are View's lines and their widths.
func (in *Input) Lines() ([]string, []int) { return in.lines, in.widths }

// View draws the hints, a rule and the text area.
func (in *Input) View() string { return in.view }

// Cursor is where the terminal's cursor goes, relative to View's origin.
func (in *Input) Cursor() *tea.Cursor {
	if in.cursor == nil {
		return nil
	}
	cp := *in.cursor
	c := &cp
	c.Y += 1 + in.popLines
	if len(in.hints) > 0 {
		c.Y++
	}
	return c
}
