package tui

import (
	"fmt"
	"strings"
	"time"

	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/ui/present"
)

// renderCtx is what entries need to render.
type renderCtx struct {
	th  *Theme
	md  *markdown
	now time.Time
	// collapseLines is how many lines of a tool's output show collapsed.
	collapseLines int
}

// entry is one item of the transcript. Its lines are rendered in Update
// (render) and read in View (cached); text held by entries is sanitised
// when it arrives.
type entry interface {
	// render brings the lines up to date for width and returns them.
	render(width int, rc *renderCtx) []string
	// cached returns the lines of the last render at width, if still valid.
	cached(width int) ([]string, bool)
	// lineWidths are the display widths of the cached lines.
	lineWidths() []int
	// plain is the text to copy to the clipboard.
	plain() string
	// release drops every rendered line the entry holds (the chat keeps
	// only the entries near the screen rendered); render builds them
	// again from the entry's text.
	release()
	// heldLines is how many rendered lines the entry holds, at any width.
	heldLines() int
}

// lineCache keeps an entry's lines, and their widths, for one width.
type lineCache struct {
	width  int
	lines  []string
	widths []int
	valid  bool
}

func (c *lineCache) cached(width int) ([]string, bool) {
	return c.lines, c.valid && c.width == width
}

// lineWidths are the widths of the cached lines.
func (c *lineCache) lineWidths() []int { return c.widths }

func (c *lineCache) store(width int, lines []string) []string {
	widths := make([]int, len(lines))
	for i, l := range lines {
		widths[i] = xansi.StringWidth(l)
	}
	return c.storeWidths(width, lines, widths)
}

func (c *lineCache) storeWidths(width int, lines []string, widths []int) []string {
	c.width, c.lines, c.widths, c.valid = width, lines, widths, true
	return lines
}

func (c *lineCache) invalidate() { c.valid = false }

func (c *lineCache) release() { c.lines, c.widths, c.valid = nil, nil, false }

func (c *lineCache) heldLines() int { return len(c.lines) }

// userEntry is a message the user sent.
type userEntry struct {
	lineCache
	text string
}

func newUserEntry(text string) *userEntry { return &userEntry{text: safe.Text(text)} }

func (e *userEntry) render(width int, rc *renderCtx) []string {
	if l, ok := e.cached(width); ok {
		return l
	}
	lines := wrapText(e.text, width-2)
	for i, l := range lines {
		mark := "  "
		if i == 0 {
			mark = rc.th.UserMark.Render("❯ ")
		}
		lines[i] = mark + rc.th.User.Render(l)
	}
	return e.store(width, lines)
}

func (e *userEntry) plain() string { return e.text }

// tailRenderer is an entry that can render only its last lines (the chat
// following the bottom needs no more).
type tailRenderer interface {
	// renderTail returns at least the last need lines at width (all of
	// them when the entry is shorter).
	renderTail(width int, rc *renderCtx, need int) []string
}

// assistantEntry is a reply, streamed as markdown.
type assistantEntry struct {
	lineCache
	md          mdStream
	interrupted bool
	partial     bool // the cached lines are only the entry's last lines
}

func (e *assistantEntry) append(text string) {
	e.md.append(safe.Text(text))
	e.invalidate()
}

func (e *assistantEntry) finish(interrupted bool) {
	e.md.finish()
	e.interrupted = interrupted
	e.invalidate()
}

func (e *assistantEntry) render(width int, rc *renderCtx) []string {
	if l, ok := e.cached(width); ok && !e.partial {
		return l
	}
	return e.renderTail(width, rc, 0)
}

func (e *assistantEntry) renderTail(width int, rc *renderCtx, need int) []string {
	if l, ok := e.cached(width); ok && (!e.partial || need > 0 && len(l) >= need) {
		return l
	}
	lines, widths, partial := e.md.render(rc.md, width, need)
	if e.interrupted {
		mark := rc.th.Dim.Render("(interrupted)")
		lines, widths = append(lines, mark), append(widths, xansi.StringWidth(mark))
	}
	e.partial = partial
	return e.storeWidths(width, lines, widths)
}

func (e *assistantEntry) plain() string { return e.md.Source() }

func (e *assistantEntry) release() {
	e.lineCache.release()
	e.md.release()
	e.partial = false
}

// heldLines counts the blocks' lines: the entry's own lines are the same
// strings.
func (e *assistantEntry) heldLines() int { return max(e.lineCache.heldLines(), e.md.heldLines()) }

// toolState is where a tool call is.
type toolState int

const (
	toolRunning toolState = iota
	toolWaiting           // waiting for the user's approval
	toolDone
	toolFailed
	toolDenied
	toolInterrupted
	toolRetry
	toolKept     // kept waiting for the user by a scheduled run (co inbox)
	toolApproved // approved in the modal, which still asks about others of its batch
)

// toolEntry is one tool call: a compact line with its state and time, and
// its display text in a panel.
type toolEntry struct {
	lineCache
	id, name, args string
	bang           bool
	state          toolState
	started        time.Time
	dur            time.Duration
	outcome        string // present.Outcome, sanitised
	display        string // the tool's Display, sanitised, tabs expanded
	expanded       bool
	titleCut       bool // the last render cut the one-line title
	// notes are what the tool said while it ran (tools.Notify), shown in
	// its block under the title, before its output.
	notes []string
}

func newToolEntry(ev agent.ToolCallStarted, now time.Time) *toolEntry {
	return &toolEntry{id: ev.CallID, name: ev.Name, args: ev.Args, bang: ev.Bang, started: now}
}

func (e *toolEntry) finish(ev agent.ToolCallFinished) {
	e.dur = ev.Duration
	e.outcome = present.Outcome(ev)
	switch ev.Status {
	case message.CallDone:
		e.state = toolDone
	case message.CallDenied:
		e.state = toolDenied
	case message.CallWaiting:
		// Not denied: a scheduled run kept it for the user's approval.
		e.state = toolKept
	case message.CallInterrupted:
		e.state = toolInterrupted
	case message.CallRetry:
		e.state = toolRetry
	default:
		e.state = toolFailed
	}
	if ev.Status == message.CallDone || ev.Status == message.CallFailed || ev.Status == message.CallRetry {
		e.display = expandTabs(strings.TrimRight(safe.Text(ev.Result.Display), "\n"))
	}
	e.invalidate()
}

// wait marks the call as waiting for approval (waiting false: approved
// or answered, so running from now).
func (e *toolEntry) wait(waiting bool, now time.Time) {
	if e.state != toolRunning && e.state != toolWaiting && e.state != toolApproved {
		return
	}
	if waiting {
		e.state = toolWaiting
	} else {
		e.state, e.started = toolRunning, now
	}
	e.invalidate()
}

// abandon marks a call the turn ended without finishing.
func (e *toolEntry) abandon() {
	if e.state == toolRunning || e.state == toolWaiting || e.state == toolApproved {
		e.state, e.outcome = toolInterrupted, "did not finish"
		e.invalidate()
	}
}

// tick makes a running call show its new elapsed time.
func (e *toolEntry) tick() {
	if e.state == toolRunning {
		e.invalidate()
	}
}

// collapsible reports whether the output is longer than the collapsed view.
func (e *toolEntry) collapsible(rc *renderCtx) bool {
	return e.titleCut || strings.Count(e.display, "\n")+1 > rc.collapseLines
}

func (e *toolEntry) title() string {
	if e.bang {
		return "! " + present.Line(safe.Reveal(present.BangCommand(e.args)))
	}
	return present.Call(e.name, e.args)
}

// fullTitle is the call with its arguments' line breaks kept, shown under
// the one-line title when the entry is expanded.
func (e *toolEntry) fullTitle() string {
	if e.bang {
		return "! " + safe.Reveal(present.BangCommand(e.args))
	}
	return present.CallFull(e.name, e.args)
}

func (e *toolEntry) render(width int, rc *renderCtx) []string {
	if l, ok := e.cached(width); ok {
		return l
	}
	th := rc.th
	var icon, status string
	var st = th.Dim
	switch e.state {
	case toolRunning:
		icon, st = "◌", th.Running
		status = "running " + present.Duration(rc.now.Sub(e.started))
	case toolWaiting:
		icon, st, status = "?", th.Warn, "waiting for approval"
	case toolDone:
		icon, st = "✓", th.Success
		status = present.Duration(e.dur)
		if strings.Contains(e.outcome, "(") {
			status += " " + e.outcome[strings.Index(e.outcome, "("):]
		}
	case toolFailed:
		icon, st, status = "✗", th.Error, "failed "+present.Duration(e.dur)
	case toolRetry:
		icon, st, status = "↻", th.Warn, "sent back to the model"
	case toolDenied:
		icon, st, status = "⊘", th.Warn, "denied"
	case toolInterrupted:
		icon, st, status = "■", th.Dim, "interrupted"
	case toolKept:
		icon, st, status = "?", th.Warn, "kept waiting"
	case toolApproved:
		icon, st, status = "✓", th.Dim, "approved"
	}
	right := "  " + status
	avail := width - 2 - xansi.StringWidth(right)
	title := e.title()
	if avail < 8 {
		avail, right = width-2, ""
	}
	// The one-line title is cut when it is wider than the line or the
	// arguments have line breaks; expanding shows the whole call.
	e.titleCut = xansi.StringWidth(title) > avail || e.fullTitle() != title
	title = xansi.Truncate(title, avail, "…")
	lines := []string{st.Render(icon) + " " + th.ToolName.Render(title) + st.Render(right)}
	if e.expanded && e.titleCut {
		for _, l := range wrapText(expandTabs(e.fullTitle()), width-4) {
			lines = append(lines, "  "+th.Panel.Render("┊")+" "+th.ToolName.Render(l))
		}
	}

	for _, n := range e.notes {
		for _, l := range wrapText(n, width-4) {
			lines = append(lines, "  "+th.Notice.Render("↳ "+l))
		}
	}
	switch e.state {
	case toolFailed, toolRetry, toolDenied, toolKept:
		for _, l := range wrapText(e.outcome, width-2) {
			lines = append(lines, "  "+st.Render(l))
		}
	}
	if e.display != "" {
		lines = append(lines, e.panel(width, rc)...)
	}
	return e.store(width, lines)
}

// panel frames the display text with a bar on the left, collapsed to a few
// lines unless expanded.
func (e *toolEntry) panel(width int, rc *renderCtx) []string {
	th := rc.th
	inner := max(width-4, 4)
	// At spaces: a word is cut only when wider than the panel.
	body := wrapText(e.display, inner)
	more := 0
	if !e.expanded && len(body) > rc.collapseLines {
		more = len(body) - rc.collapseLines
		body = body[:rc.collapseLines]
	}
	bar := th.Panel.Render("│")
	out := make([]string, 0, len(body)+1)
	for _, l := range body {
		out = append(out, "  "+bar+" "+l)
	}
	switch {
	case more > 0:
		out = append(out, "  "+th.Panel.Render("╰ ")+th.Dim.Render(fmt.Sprintf("… %d more lines · ctrl+o to expand", more)))
	case e.expanded && e.collapsible(rc):
		out = append(out, "  "+th.Panel.Render("╰ ")+th.Dim.Render("ctrl+o to collapse"))
	}
	return out
}

func (e *toolEntry) plain() string {
	if e.display == "" {
		return e.fullTitle()
	}
	return e.fullTitle() + "\n" + e.display
}

// noticeKind is what a notice says.
type noticeKind int

const (
	noticeInfo   noticeKind = iota // a note from the agent or the chat
	noticeError                    // something failed
	noticeOutput                   // a slash command's output
	noticeAttach                   // a file attached with @path
	noticeWarn                     // a warning: untrusted content entered the conversation, a setting ignored
)

// noticeEntry is a line or block the chat shows that is not a message.
type noticeEntry struct {
	lineCache
	kind noticeKind
	text string // sanitised
}

func newNotice(kind noticeKind, text string) *noticeEntry {
	return &noticeEntry{kind: kind, text: expandTabs(safe.Text(strings.TrimRight(text, "\n")))}
}

func (e *noticeEntry) render(width int, rc *renderCtx) []string {
	if l, ok := e.cached(width); ok {
		return l
	}
	th := rc.th
	var lines []string
	switch e.kind {
	case noticeError:
		for i, l := range wrapText(e.text, width-2) {
			mark := "  "
			if i == 0 {
				mark = th.Error.Render("✗ ")
			}
			lines = append(lines, mark+th.Error.Render(l))
		}
	case noticeWarn:
		for i, l := range wrapText(e.text, width-2) {
			mark := "  "
			if i == 0 {
				mark = th.Warn.Render("⚠ ")
			}
			lines = append(lines, mark+th.Warn.Render(l))
		}
	case noticeOutput:
		lines = wrapHanging(e.text, width)
	case noticeAttach:
		for i, l := range wrapText(e.text, width-4) {
			mark := "    "
			if i == 0 {
				mark = th.Notice.Render("  ↳ ")
			}
			lines = append(lines, mark+th.Notice.Render(l))
		}
	default:
		for i, l := range wrapText(e.text, width-2) {
			mark := "  "
			if i == 0 {
				mark = th.Notice.Render("· ")
			}
			lines = append(lines, mark+th.Notice.Render(l))
		}
	}
	return e.store(width, lines)
}

func (e *noticeEntry) plain() string { return e.text }

// wrapText wraps plain text to width, keeping its line breaks and breaking
// words longer than a line.
func wrapText(s string, width int) []string {
	width = max(width, 4)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if xansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		out = append(out, wrapWords(l, width)...)
	}
	return out
}

// wrapHanging wraps a slash command's output (/status, /tools) to width,
// keeping each line's hanging indent: a wrapped line continues under the
// value of a "key  value" row, or under the line's own indentation.
func wrapHanging(s string, width int) []string {
	width = max(width, 4)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if xansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		head := l[:hangAt(l)]
		indent := xansi.StringWidth(head)
		if indent > width/2 {
			head, indent = "", 0
		}
		for i, w := range wrapWords(l[len(head):], width-indent) {
			if i == 0 {
				out = append(out, head+w)
				continue
			}
			out = append(out, strings.Repeat(" ", indent)+strings.TrimLeft(w, " "))
		}
	}
	return out
}

// hangAt is the byte offset wrapped lines of l continue under: the start
// of the value after the first gap of two or more spaces that follows the
// line's indentation, or else the end of the indentation.
func hangAt(l string) int {
	lead := len(l) - len(strings.TrimLeft(l, " "))
	if gap := strings.Index(l[lead:], "  "); gap > 0 {
		at := lead + gap
		return at + len(l[at:]) - len(strings.TrimLeft(l[at:], " "))
	}
	return lead
}

// truncate cuts s to width columns, marking the cut with an ellipsis.
func truncate(s string, width int) string { return xansi.Truncate(s, max(width, 1), "…") }

// expandTabs replaces tabs with spaces up to the next multiple of 8.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	// Kept for the entry's life: without the builder's spare room.
	return strings.Clone(b.String())
}
