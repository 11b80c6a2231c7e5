package tui

import (
	"fmt"
	"strings"
	"time"

	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/lib/safe"
)

// reasoningEntry is the model's reasoning ("thinking") before an answer
// or a tool call: shown dimmed while it streams, then collapsed to one
// line that the reasoning key (ctrl+r) expands again.
//
// Streaming costs per chunk what the reasoning's unfinished last line
// costs: finished lines are wrapped and styled once and kept.
type reasoningEntry struct {
	lineCache
	src       []string // source lines, sanitised; the last one may be unfinished
	streaming bool
	expanded  bool
	started   time.Time
	dur       time.Duration // how long it streamed; 0 when unknown (a resumed session)
	keyHelp   string        // the key that expands it, for the collapsed line

	// The body's finished lines, wrapped and styled for wrapW: body[0] is
	// the header, body[1:1+done] the wrapped lines of src[:doneSrc].
	wrapW   int
	body    []string
	widths  []int
	done    int
	doneSrc int
}

func newReasoningEntry(now time.Time, keyHelp string) *reasoningEntry {
	return &reasoningEntry{streaming: true, started: now, keyHelp: keyHelp}
}

// savedReasoning is the reasoning of a message read back from a saved
// session: collapsed, its duration unknown.
func savedReasoning(text, keyHelp string) *reasoningEntry {
	e := &reasoningEntry{keyHelp: keyHelp}
	e.append(text)
	e.trimEnd()
	return e
}

// empty reports whether nothing but blank lines arrived.
func (e *reasoningEntry) empty() bool {
	return strings.TrimSpace(strings.Join(e.src, "")) == ""
}

func (e *reasoningEntry) append(text string) {
	text = safe.Text(text)
	if len(e.src) == 0 {
		// Models often start with blank lines: they would only push the
		// text down.
		text = strings.TrimLeft(text, "\n")
		if text == "" {
			return
		}
		e.src = append(e.src, "")
	}
	parts := strings.Split(text, "\n")
	e.src[len(e.src)-1] += parts[0]
	e.src = append(e.src, parts[1:]...)
	e.invalidate()
}

// finish ends the streaming: the entry collapses to its summary line.
func (e *reasoningEntry) finish(now time.Time) {
	if !e.streaming {
		return
	}
	e.streaming = false
	e.dur = now.Sub(e.started)
	e.trimEnd()
	e.invalidate()
}

func (e *reasoningEntry) trimEnd() {
	for len(e.src) > 0 && strings.TrimSpace(e.src[len(e.src)-1]) == "" {
		e.src = e.src[:len(e.src)-1]
	}
	e.wrapW = 0 // the kept lines may have lost their last one
}

// toggle expands or collapses a finished entry.
func (e *reasoningEntry) toggle() bool {
	if e.streaming {
		return false
	}
	e.expanded = !e.expanded
	e.invalidate()
	return true
}

func (e *reasoningEntry) header(rc *renderCtx) string {
	th := rc.th
	switch {
	case e.streaming:
		return th.Dim.Render("✻ Thinking…")
	case e.expanded:
		return th.Dim.Render("▾ " + e.summary() + " (" + e.keyHelp + " to collapse)")
	default:
		return th.Dim.Render("▸ " + e.summary() + " (" + e.keyHelp + " to expand)")
	}
}

func (e *reasoningEntry) summary() string {
	if e.dur <= 0 {
		return "Thought"
	}
	s := int(e.dur.Round(time.Second) / time.Second)
	if s < 1 {
		return "Thought for <1s"
	}
	if s < 60 {
		return fmt.Sprintf("Thought for %ds", s)
	}
	return fmt.Sprintf("Thought for %dm%02ds", s/60, s%60)
}

func (e *reasoningEntry) render(width int, rc *renderCtx) []string {
	if l, ok := e.cached(width); ok {
		return l
	}
	head := e.header(rc)
	if !e.streaming && !e.expanded {
		return e.store(width, []string{head})
	}
	inner := max(width-2, 4)
	if e.wrapW != width || e.body == nil {
		e.wrapW, e.body, e.widths, e.done, e.doneSrc = width, e.body[:0], e.widths[:0], 0, 0
		e.body, e.widths = append(e.body, ""), append(e.widths, 0)
	}
	e.body[0], e.widths[0] = head, xansi.StringWidth(head)
	// Lines that are finished are wrapped once; while streaming, the last
	// one is not finished.
	finished := len(e.src)
	if e.streaming && finished > 0 {
		finished--
	}
	e.body, e.widths = e.body[:1+e.done], e.widths[:1+e.done]
	for ; e.doneSrc < finished; e.doneSrc++ {
		e.body, e.widths = e.wrapLine(e.body, e.widths, e.src[e.doneSrc], inner, rc)
	}
	e.done = len(e.body) - 1
	lines, widths := e.body, e.widths
	if finished < len(e.src) {
		lines, widths = e.wrapLine(lines, widths, e.src[finished], inner, rc)
	}
	return e.storeWidths(width, lines, widths)
}

// wrapLine appends the wrapped, styled lines of one source line.
func (e *reasoningEntry) wrapLine(lines []string, widths []int, src string, inner int, rc *renderCtx) ([]string, []int) {
	for _, l := range wrapText(expandTabs(src), inner) {
		s := "  " + rc.th.Dim.Render(l)
		lines, widths = append(lines, s), append(widths, 2+xansi.StringWidth(l))
	}
	return lines, widths
}

func (e *reasoningEntry) plain() string { return strings.Join(e.src, "\n") }

func (e *reasoningEntry) release() {
	e.lineCache.release()
	e.wrapW, e.body, e.widths, e.done, e.doneSrc = 0, nil, nil, 0, 0
}

func (e *reasoningEntry) heldLines() int { return max(e.lineCache.heldLines(), len(e.body)) }
