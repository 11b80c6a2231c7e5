package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/ui/present"
)

// ApprovalGrace is how long after an approval appears (and after each key
// typed in that time) keys do not answer it: keystrokes meant for the
// prompt never approve anything by accident.
const ApprovalGrace = 400 * time.Millisecond

// ModalResult is what a key did to the approval modal.
type ModalResult int

const (
	// ModalPending: the key was handled (scrolling, a refused "a"); the
	// modal waits for an answer.
	ModalPending ModalResult = iota
	// ModalSwallowed: the key came during the grace period and answered
	// nothing.
	ModalSwallowed
	// ModalAnswered: every call has a verdict (see Verdicts).
	ModalAnswered
	// ModalCancel: the user cancelled the turn.
	ModalCancel
)

// modalArmedMsg ends a grace period (the key hints light up).
type modalArmedMsg struct{ id, idx int }

var modalSeq int

// Modal asks the user about the calls of one ApprovalRequested, one at a
// time. It returns typed results and never talks to the agent itself.
type Modal struct {
	req        agent.ApprovalRequested
	verdicts   []message.Verdict
	idx        int
	scroll     int
	graceUntil time.Time
	opened     time.Time // when it showed (NewModal)
	armed      bool
	note       string // a one-line answer to a refused key
	keys       ModalKeyMap
	th         *Theme
	w, h       int
	body       []string // the current call's lines at the modal's width
	id         int
}

// NewModal opens the modal for req at now on a w×h screen.
func NewModal(req agent.ApprovalRequested, th *Theme, keys ModalKeyMap, w, h int, now time.Time) *Modal {
	modalSeq++
	m := &Modal{req: req, verdicts: make([]message.Verdict, len(req.Calls)), keys: keys, th: th, id: modalSeq, opened: now}
	m.w, m.h = w, h
	m.show(now)
	return m
}

// Request is the request the modal answers.
func (m *Modal) Request() agent.ApprovalRequested { return m.req }

// Verdicts are the answers so far, one per call (Deny where unanswered).
func (m *Modal) Verdicts() []message.Verdict { return m.verdicts }

// Index is the call on show (0-based).
func (m *Modal) Index() int { return m.idx }

// Armed reports whether keys answer the modal now (the grace period is over).
func (m *Modal) Armed() bool { return m.armed }

func (m *Modal) show(now time.Time) {
	m.scroll, m.note, m.armed = 0, "", false
	m.graceUntil = now.Add(ApprovalGrace)
	m.body = m.renderBody()
}

// ArmCmd is the tick that ends the current grace period.
func (m *Modal) ArmCmd() tea.Cmd {
	id, idx := m.id, m.idx
	return tea.Tick(ApprovalGrace, func(time.Time) tea.Msg { return modalArmedMsg{id: id, idx: idx} })
}

// Arm handles the grace tick; it returns another tick while keys keep
// extending the grace period.
func (m *Modal) Arm(msg modalArmedMsg, now time.Time) tea.Cmd {
	if msg.id != m.id || msg.idx != m.idx || m.armed {
		return nil
	}
	if now.Before(m.graceUntil) {
		id, idx := m.id, m.idx
		return tea.Tick(m.graceUntil.Sub(now), func(time.Time) tea.Msg { return modalArmedMsg{id: id, idx: idx} })
	}
	m.armed = true
	return nil
}

// SetSize resizes the screen the modal is centred on.
func (m *Modal) SetSize(w, h int) {
	m.w, m.h = w, h
	m.body = m.renderBody()
	m.scroll = min(m.scroll, m.maxScroll())
}

// HandleKey answers, scrolls or ignores a key pressed at now.
func (m *Modal) HandleKey(k tea.KeyPressMsg, now time.Time) ModalResult {
	switch {
	case key.Matches(k, m.keys.Cancel):
		return ModalCancel
	case key.Matches(k, m.keys.Up):
		m.scroll = max(m.scroll-1, 0)
		return ModalPending
	case key.Matches(k, m.keys.Down):
		m.scroll = min(m.scroll+1, m.maxScroll())
		return ModalPending
	case key.Matches(k, m.keys.PageUp):
		m.scroll = max(m.scroll-m.bodyHeight(), 0)
		return ModalPending
	case key.Matches(k, m.keys.PageDown):
		m.scroll = min(m.scroll+m.bodyHeight(), m.maxScroll())
		return ModalPending
	}
	if now.Before(m.graceUntil) {
		// Typed before the user could have read the modal: answer nothing,
		// and keep waiting until the typing stops. A key held since before
		// the modal opened (slashwait.go) comes with its own, earlier time:
		// it never shortens the wait.
		if t := now.Add(ApprovalGrace); t.After(m.graceUntil) {
			m.graceUntil = t
			m.armed = false
		}
		return ModalSwallowed
	}
	m.armed = true
	call := m.req.Calls[m.idx]
	switch {
	case key.Matches(k, m.keys.Approve):
		m.verdicts[m.idx] = message.ApproveOnce
	case key.Matches(k, m.keys.Deny):
		m.verdicts[m.idx] = message.Deny
	case key.Matches(k, m.keys.Always):
		if call.Check.AlwaysAsk {
			m.note = "This call must be approved each time: press y or n."
			return ModalPending
		}
		m.verdicts[m.idx] = message.ApproveSession
	default:
		return ModalPending
	}
	if m.idx++; m.idx >= len(m.req.Calls) {
		return ModalAnswered
	}
	m.show(now)
	return ModalPending
}

func (m *Modal) boxWidth() int { return max(min(m.w-4, 100), 24) }

// innerWidth is the text width inside the border and padding.
func (m *Modal) innerWidth() int { return m.boxWidth() - 4 }

// bodyRoom is how many rows the body may take: the screen less the border,
// the title and the footer, each wrapped to the modal's width.
func (m *Modal) bodyRoom() int {
	// border 2, a blank line under the title and one over the footer
	if !m.tight() {
		return m.h - 2 - len(m.titleLines()) - 2 - len(m.footerLines())
	}
	return max(m.h-2-len(m.titleLines())-len(m.footerLines()), 2)
}

// tight: the screen is too short for the blank lines around the body and
// four lines of it (a 40×12 terminal); the box drops the blank lines and
// shows fewer body lines rather than run past the screen's last row.
func (m *Modal) tight() bool {
	return m.h-2-len(m.titleLines())-2-len(m.footerLines()) < 4
}

// bodyHeight is how many body lines show at once: all of them when they
// fit, otherwise the room less the line that says how to scroll.
func (m *Modal) bodyHeight() int {
	room := m.bodyRoom()
	if len(m.body) <= room {
		return room
	}
	return room - 1
}

func (m *Modal) maxScroll() int { return max(len(m.body)-m.bodyHeight(), 0) }

var hiddenMarker = regexp.MustCompile(`<U\+[0-9A-F]{4}>`)

// Continuation marks in the command: a wrapped line starts with
// commandWrapMark where the command was cut to fit, and with two spaces
// where the command itself has a new line. Only the first line has "$ ".
const (
	commandPrompt   = "$ "
	commandWrapMark = "↪ "
	commandNewLine  = "  "
)

// renderBody lays out the current call: the exact command for the shell,
// the policy's reason, the preview (a diff, a draft) and the arguments the
// preview does not already show, wrapped at spaces and never truncated.
// Everything from the model goes through safe.Reveal, so hidden characters
// show as <U+…>.
func (m *Modal) renderBody() []string {
	th, w := m.th, m.innerWidth()
	call := m.req.Calls[m.idx]
	var out []string
	add := func(style lipgloss.Style, s string) {
		for _, l := range wrapWords(s, w) {
			out = append(out, markHidden(th, style.Render(l)))
		}
	}
	blank := func() {
		if len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
	}
	hidden := safe.HasHidden(call.Args) || safe.HasHidden(call.Check.Preview) || safe.HasHidden(call.Check.Reason)
	if hidden {
		add(th.Hidden, "⚠ This call contains hidden characters (bidirectional overrides or zero-width characters); they are shown as <U+…>.")
		blank()
	}
	if risk := present.Risk(call.Check); len(risk) > 0 {
		add(th.Error.Bold(true), safe.Reveal(risk[0]))
		for _, l := range risk[1:] {
			add(th.Warn, safe.Reveal(l))
		}
		blank()
	}
	cmd, isShell := shellCommand(call)
	if isShell {
		out = append(out, th.Dim.Render("Command:"))
		out = append(out, commandLines(th, cmd, w)...)
		out = append(out, whereLines(th, call.Check.Where, w)...)
		blank()
	}
	if r := call.Check.Reason; r != "" {
		add(th.Warn, "Why it asks: "+safe.Reveal(r))
		blank()
	}
	preview := strings.TrimRight(call.Check.Preview, "\n")
	if isShell && strings.TrimSpace(preview) == strings.TrimSpace(cmd) {
		preview = "" // the command above is the preview
	}
	if preview != "" {
		out = append(out, th.Dim.Render("Preview:"))
		out = append(out, previewLines(th, expandTabs(safe.Reveal(preview)), w)...)
		blank()
	}
	args := argLines(call.Args)
	inPreview := present.InPreview(call.Args, preview)
	kept := args[:0]
	for _, a := range args {
		// The command is shown above, and what the preview shows is not
		// shown twice.
		if !(isShell && a.raw == "cmd") && !inPreview[a.raw] {
			kept = append(kept, a)
		}
	}
	if len(kept) > 0 {
		out = append(out, th.Dim.Render("Arguments:"))
	} else if len(args) > 0 && len(inPreview) > 0 {
		out = append(out, th.Dim.Render("(every argument is in the preview above)"))
	}
	for _, a := range kept {
		if a.key == "" {
			for _, l := range wrapWords(expandTabs(a.value), w-2) {
				out = append(out, markHidden(th, "  "+l))
			}
			continue
		}
		if !strings.Contains(a.value, "\n") && xansi.StringWidth(a.key)+xansi.StringWidth(a.value)+4 <= w {
			out = append(out, markHidden(th, "  "+th.ToolName.Render(a.key)+": "+a.value))
			continue
		}
		out = append(out, "  "+th.ToolName.Render(a.key)+":")
		for _, l := range wrapWords(expandTabs(a.value), w-4) {
			out = append(out, markHidden(th, "    "+l))
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1] // View puts the one blank line over the footer
	}
	return out
}

// commandLines shows a shell command once: "$ " on its first line, "↪ " on
// each line wrapped to fit, two spaces on each line of its own. A break
// falls at a space where the line has one, so a path stays whole unless it
// is wider than the modal.
func commandLines(th *Theme, cmd string, w int) []string {
	var out []string
	for i, line := range strings.Split(expandTabs(safe.Reveal(cmd)), "\n") {
		for j, l := range wrapWords(line, w-2) {
			mark := th.Accent.Render(commandPrompt)
			switch {
			case j > 0:
				mark = th.Dim.Render(commandWrapMark)
			case i > 0:
				mark = commandNewLine
			}
			out = append(out, markHidden(th, mark+th.User.Render(l)))
		}
	}
	return out
}

// whereLines say where a shell command runs (the sandbox's /workspace)
// and what a host path it names is there, under the command.
func whereLines(th *Theme, where []string, w int) []string {
	var out []string
	for _, s := range where {
		for _, l := range wrapWords(safe.Reveal(s), w) {
			out = append(out, markHidden(th, th.Dim.Render(l)))
		}
	}
	return out
}

// wrapWords wraps plain text (no escape sequences) to width columns,
// breaking at spaces: a word is cut only when it is wider than a line by
// itself (and then it starts where the line has room, and is cut after a
// slash where it has one). Unlike ansi.Wrap it never breaks after a hyphen,
// so /tmp/install-script.sh stays one piece ("~/.config/co-" /
// "cli/settings.json" in /status, issue 27). The spaces at a break are
// dropped; new lines in s are kept.
func wrapWords(s string, width int) []string {
	width = max(width, 4)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for {
			fit := fitWidth(l, width) // bytes of the widest prefix that fits
			if fit == len(l) {
				break
			}
			if fit == 0 {
				fit = len(string([]rune(l)[:1]))
			}
			cut, next := fit, fit
			if l[fit] != ' ' {
				// Break at the last space, unless the word after it is
				// wider than a line anyway: then it is cut here, filling
				// this line, rather than on the next.
				if sp := strings.LastIndexByte(l[:fit], ' '); sp > 0 && strings.TrimLeft(l[:sp], " ") != "" {
					word, _, _ := strings.Cut(strings.TrimLeft(window(l[sp:], 2*width+16), " "), " ")
					if xansi.StringWidth(word) <= width {
						cut, next = sp, sp+1
					}
				}
				// A word cut anyway (a long path) is cut after its last
				// slash that fits, so each piece reads as a path.
				if cut == fit {
					start := strings.LastIndexByte(l[:fit], ' ') + 1
					if sl := strings.LastIndexByte(l[start:fit], '/'); sl > 0 {
						cut, next = start+sl+1, start+sl+1
					}
				}
			}
			out = append(out, strings.TrimRight(l[:cut], " "))
			l = strings.TrimLeft(l[next:], " ")
		}
		out = append(out, l)
	}
	return out
}

// fitWidth is how many bytes of l fit in width columns. It measures a
// window of l twice the width, widened while all of it fits (wide or
// zero-width characters), not the whole line: wrapping a long line (64
// KiB of output) costs its length, not its square.
func fitWidth(l string, width int) int {
	for n := 2*width + 16; ; n *= 2 {
		win := window(l, n)
		fit := len(xansi.Truncate(win, width, ""))
		if fit < len(win) || len(win) == len(l) {
			return fit
		}
	}
}

// window is the first n bytes of l, or a little more to end at a
// character's start, or all of l.
func window(l string, n int) string {
	if len(l) <= n {
		return l
	}
	for n < len(l) && !utf8.RuneStart(l[n]) {
		n++
	}
	return l[:n]
}

// markHidden highlights the <U+…> markers Reveal puts for hidden characters.
func markHidden(th *Theme, s string) string {
	if !strings.Contains(s, "<U+") {
		return s
	}
	return hiddenMarker.ReplaceAllStringFunc(s, func(x string) string { return th.Hidden.Render(x) })
}

// previewLines wraps a preview; a unified diff gets its lines coloured.
func previewLines(th *Theme, p string, w int) []string {
	isDiff := strings.HasPrefix(p, "--- ") || strings.HasPrefix(p, "@@") || strings.Contains(p, "\n@@")
	var out []string
	for _, l := range strings.Split(p, "\n") {
		st := lipgloss.NewStyle()
		if isDiff {
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
				st = th.Title
			case strings.HasPrefix(l, "@@"):
				st = th.DiffHunk
			case strings.HasPrefix(l, "+"):
				st = th.DiffAdd
			case strings.HasPrefix(l, "-"):
				st = th.DiffDel
			}
		}
		for _, wl := range wrapWords(l, w-2) {
			out = append(out, markHidden(th, "  "+st.Render(wl)))
		}
	}
	return out
}

// shellCommand returns the command of a shell call.
func shellCommand(c agent.PendingCall) (string, bool) {
	if c.Tool != message.BangTool {
		return "", false
	}
	var a struct {
		Cmd *string `json:"cmd"`
	}
	if json.Unmarshal([]byte(c.Args), &a) != nil || a.Cmd == nil {
		return "", false
	}
	return *a.Cmd, true
}

// argLine is one argument: its key revealed for the screen, its key as
// in the JSON, and its value revealed.
type argLine struct{ key, raw, value string }

// argLines lists a JSON object's arguments in the model's order, values
// revealed in full; anything else is shown raw.
func argLines(args string) []argLine {
	raw := func() []argLine { return []argLine{{value: safe.Reveal(strings.TrimSpace(args))}} }
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return raw()
	}
	var out []argLine
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return raw()
		}
		k, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return raw()
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			out = append(out, argLine{safe.Reveal(k), k, safe.Reveal(s)})
			continue
		}
		var buf bytes.Buffer
		if json.Indent(&buf, v, "", "  ") != nil {
			buf.Reset()
			buf.Write(v)
		}
		out = append(out, argLine{safe.Reveal(k), k, safe.Reveal(buf.String())})
	}
	if len(out) == 0 {
		return []argLine{{value: "(none)"}}
	}
	return out
}

// titleLines are "Approve <tool>?" and, for several calls, "2 of 3" on
// the right; a tool name too long for one line wraps rather than being cut.
func (m *Modal) titleLines() []string {
	th, w := m.th, m.innerWidth()
	call := m.req.Calls[m.idx]
	count := ""
	if n := len(m.req.Calls); n > 1 {
		count = fmt.Sprintf("%d of %d", m.idx+1, n)
	}
	text := "Approve " + safe.Reveal(call.Tool) + "?"
	room := w
	if count != "" {
		room = w - xansi.StringWidth(count) - 1
	}
	var out []string
	for i, l := range wrapWords(text, room) {
		l = th.Title.Render(l)
		if i == 0 && count != "" {
			l += strings.Repeat(" ", max(w-xansi.StringWidth(l)-xansi.StringWidth(count), 1)) + th.Dim.Render(count)
		}
		out = append(out, markHidden(th, l))
	}
	return out
}

// footerLines are the answer to a refused key or what "a" would grant, then
// the keys, each wrapped to the modal's width: nothing in them is cut.
func (m *Modal) footerLines() []string {
	th, w := m.th, m.innerWidth()
	call := m.req.Calls[m.idx]
	var out []string
	wrapped := func(style lipgloss.Style, s string) {
		for _, l := range wrapWords(s, w) {
			out = append(out, markHidden(th, style.Render(l)))
		}
	}
	switch scope := call.Check.ScopeLabel; {
	case m.note != "":
		wrapped(th.Warn, m.note)
	case call.Check.AlwaysAsk:
		wrapped(th.Warn, "This call must be approved each time (no session grant).")
	case scope != "":
		const lead = "a approves for this session: "
		for i, l := range wrapWords(lead+safe.Reveal(scope), w) {
			if rest, ok := strings.CutPrefix(l, lead); i == 0 && ok {
				out = append(out, th.Dim.Render(lead)+markHidden(th, th.ToolName.Render(rest)))
				continue
			}
			out = append(out, markHidden(th, th.ToolName.Render(l)))
		}
	}
	keyStyle, textStyle := th.KeyHint, lipgloss.NewStyle()
	if !m.armed {
		keyStyle, textStyle = th.Dim, th.Dim
	}
	type hint struct{ key, text string }
	hints := []hint{{"y", "approve once"}, {"n/esc", "deny"}}
	if !call.Check.AlwaysAsk {
		hints = append(hints, hint{"a", "approve for the session"})
	}
	hints = append(hints, hint{"ctrl+c", "cancel turn"})
	// The hints are packed into as few lines as fit, never cut inside one.
	line, lineW := "", 0
	for i, h := range hints {
		ks, ts := keyStyle, textStyle
		if i == len(hints)-1 {
			ks, ts = th.Dim, th.Dim // cancelling is always there, never the point
		}
		hw := xansi.StringWidth(h.key) + 1 + xansi.StringWidth(h.text)
		if lineW > 0 && lineW+2+hw > w {
			out = append(out, line)
			line, lineW = "", 0
		}
		if lineW > 0 {
			line += textStyle.Render("  ")
			lineW += 2
		}
		line += ks.Render(h.key) + ts.Render(" "+h.text)
		lineW += hw
	}
	return append(out, line)
}

// View draws the modal's box (not yet placed on the screen).
func (m *Modal) View() string {
	th, w := m.th, m.innerWidth()
	gap := []string{""}
	if m.tight() {
		gap = nil
	}
	lines := append(m.titleLines(), gap...)

	bh := m.bodyHeight()
	body := m.body
	if len(body) > bh {
		end := min(m.scroll+bh, len(body))
		body = append([]string(nil), body[m.scroll:end]...)
		// The way to the rest, where the eye ends: the keys are below.
		more := fmt.Sprintf("↑↓ pgup pgdn scroll · lines %d–%d of %d", m.scroll+1, end, len(m.body))
		if end < len(m.body) {
			more += " · more below"
		}
		body = append(body, th.Dim.Render(truncate(more, w)))
	}
	lines = append(lines, body...)
	lines = append(lines, gap...)
	lines = append(lines, m.footerLines()...)

	for i, l := range lines {
		if pad := w - xansi.StringWidth(l); pad > 0 {
			lines[i] = l + strings.Repeat(" ", pad)
		}
	}
	return th.Modal.Render(strings.Join(lines, "\n"))
}

// overlay draws box centred over base (lines of width w). The rows the box
// covers are blank beside it, and so are the rows just above and below
// it: no text of the chat shows beside a modal's borders or cut off
// against them. With clearAll the whole base is blank (the setup, which
// stands for the chat until it is over).
func overlay(base []string, box string, w int, clearAll bool) []string {
	boxLines := strings.Split(box, "\n")
	bw := 0
	for _, l := range boxLines {
		bw = max(bw, xansi.StringWidth(l))
	}
	x := max((w-bw)/2, 0)
	y := max((len(base)-len(boxLines))/2, 0)
	blank := strings.Repeat(" ", w)
	out := append([]string(nil), base...)
	for row := range out {
		if clearAll || (row >= y-1 && row <= y+len(boxLines)) {
			out[row] = blank
		}
	}
	for i, l := range boxLines {
		row := y + i
		if row >= len(out) {
			break
		}
		right := max(w-x-xansi.StringWidth(l), 0)
		out[row] = strings.Repeat(" ", x) + "\x1b[m" + l + "\x1b[m" + strings.Repeat(" ", right)
	}
	return out
}
