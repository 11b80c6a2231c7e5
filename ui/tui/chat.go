package tui

import (
	"sort"
	"time"

	xansi "github.com/charmbracelet/x/ansi"
)

// Chat is the transcript pane: entries rendered when they come near the
// screen, and a viewport that either follows the bottom or stays where the
// user scrolled. Positions are (entry, line) pairs rather than absolute
// line numbers, so only the entries on screen are ever rendered: drawing
// a frame costs the same with ten or a thousand earlier messages.
//
// What is rendered is kept for the entries used last, up to keepLines
// lines besides those on screen; the others hold only their text and
// render again when scrolled to. So the rendered lines the chat holds do
// not grow with the conversation.
//
// Entries render in Update (layout); View only reads what is cached.
type Chat struct {
	entries  []entry
	width    int // of the whole pane, gutter included
	height   int
	follow   bool // stick to the bottom as output arrives
	top      pos  // first line on screen when not following
	selected int  // index of the selected entry, or -1
	rc       renderCtx

	// used is when each entry holding rendered lines was last rendered
	// or read (a count of uses, not a time).
	used map[entry]uint64
	uses uint64
	// moved is set when an entry started holding lines or the view moved
	// since the last trim: a streamed chunk alone needs no trim.
	moved bool
}

// keepLines is how many rendered lines the chat keeps for entries off
// the screen: a few screens to scroll back through without rendering.
const keepLines = 1000

// pos is a line of the transcript: line within entry idx, where line 0
// is the blank line before the entry (except for the first one).
type pos struct{ idx, line int }

// ChatOption configures a Chat.
type ChatOption func(*Chat)

// WithCollapseLines sets how many lines of tool output show collapsed.
func WithCollapseLines(n int) ChatOption { return func(c *Chat) { c.rc.collapseLines = n } }

// NewChat makes an empty transcript.
func NewChat(th *Theme, md *markdown, opts ...ChatOption) *Chat {
	c := &Chat{follow: true, selected: -1, rc: renderCtx{th: th, md: md, collapseLines: 6}, used: map[entry]uint64{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// gutter is the width of the selection mark on the left of every line.
const gutter = 2

func (c *Chat) inner() int { return max(c.width-gutter, 8) }

// SetSize resizes the pane; entries re-wrap to the new width as they come
// on screen.
func (c *Chat) SetSize(w, h int) {
	c.moved = true
	c.width, c.height = w, max(h, 1)
	c.layout()
}

// SetNow sets the clock used for running tools' elapsed time.
func (c *Chat) SetNow(t time.Time) { c.rc.now = t }

// Add appends an entry.
func (c *Chat) Add(e entry) {
	c.entries = append(c.entries, e)
	c.layout()
}

// Clear removes every entry.
func (c *Chat) Clear() {
	c.entries, c.used = nil, map[entry]uint64{}
	c.follow, c.top, c.selected = true, pos{}, -1
}

// Len is the number of entries.
func (c *Chat) Len() int { return len(c.entries) }

// Changed re-renders after entries changed in place (streamed text, a
// finished tool call).
func (c *Chat) Changed() { c.layout() }

// Tick refreshes the elapsed time of running tools.
func (c *Chat) Tick(now time.Time) {
	c.rc.now = now
	running := false
	for i := len(c.entries) - 1; i >= 0 && i >= len(c.entries)-32; i-- {
		if t, ok := c.entries[i].(*toolEntry); ok && t.state == toolRunning {
			t.tick()
			running = true
		}
	}
	if running {
		c.layout()
	}
}

// blockLen is the number of lines entry i takes, blank separator included.
// It renders the entry if needed (Update only).
func (c *Chat) blockLen(i int) int {
	c.touch(c.entries[i])
	n := len(c.entries[i].render(c.inner(), &c.rc))
	if i > 0 {
		n++
	}
	return n
}

// tailLen is like blockLen for the chat following the bottom, which needs
// only the last need lines of an entry.
func (c *Chat) tailLen(i, need int) int {
	tr, ok := c.entries[i].(tailRenderer)
	if !ok {
		return c.blockLen(i)
	}
	c.touch(c.entries[i])
	n := len(tr.renderTail(c.inner(), &c.rc, need))
	if i > 0 {
		n++
	}
	return n
}

// touch marks e as used now.
func (c *Chat) touch(e entry) {
	c.uses++
	if _, ok := c.used[e]; !ok {
		c.moved = true
	}
	c.used[e] = c.uses
}

// layout renders what the viewport shows, settles the scroll position and
// releases what is rendered far from the screen.
func (c *Chat) layout() {
	if c.width == 0 || len(c.entries) == 0 {
		return
	}
	c.place()
	c.trim()
}

// place renders what the viewport shows and settles the scroll position.
func (c *Chat) place() {
	if c.follow {
		need := c.height
		for i := len(c.entries) - 1; i >= 0 && need > 0; i-- {
			need -= c.tailLen(i, need)
		}
		return
	}
	c.top = c.clamp(c.top)
	// Render forward from the top; at the end with the screen not full,
	// follow the bottom again.
	have := 0
	for i := c.top.idx; i < len(c.entries) && have < c.height+c.top.line; i++ {
		have += c.blockLen(i)
	}
	if have-c.top.line < c.height {
		c.follow = true
		c.place()
	}
}

// trim releases the rendered lines of the entries used longest ago until
// those off the screen hold at most keepLines lines. It looks only at the
// entries that hold lines, so its cost does not grow with the
// conversation either.
func (c *Chat) trim() {
	if !c.moved {
		return
	}
	c.moved = false
	first, last := c.onScreen()
	type held struct {
		e     entry
		used  uint64
		lines int
	}
	var off []held
	total := 0
	for e, u := range c.used {
		n := e.heldLines()
		if n == 0 {
			delete(c.used, e)
			continue
		}
		if !c.shown(e, first, last) {
			off = append(off, held{e, u, n})
			total += n
		}
	}
	if total <= keepLines {
		return
	}
	sort.Slice(off, func(i, j int) bool { return off[i].used < off[j].used })
	for _, h := range off {
		if total <= keepLines {
			break
		}
		h.e.release()
		delete(c.used, h.e)
		total -= h.lines
	}
}

// onScreen is the range of entries with a line on screen (the view's
// first and last entry), from their cached lines.
func (c *Chat) onScreen() (first, last int) {
	start := c.top
	if c.follow {
		start = c.bottomTopCached()
	}
	have := -start.line
	last = start.idx
	for i := start.idx; i < len(c.entries) && have < c.height; i++ {
		have += c.cachedLen(i)
		last = i
	}
	return start.idx, last
}

// shown reports whether e is one of the entries first to last.
func (c *Chat) shown(e entry, first, last int) bool {
	for i := first; i <= last && i < len(c.entries); i++ {
		if c.entries[i] == e {
			return true
		}
	}
	return false
}

// cachedLen is blockLen from the cache, rendering nothing (View's count).
func (c *Chat) cachedLen(i int) int {
	ls, _ := c.entries[i].cached(c.inner())
	n := len(ls)
	if i > 0 {
		n++
	}
	return n
}

// bottomTopCached is bottomTop from the caches, as Rows finds it.
func (c *Chat) bottomTopCached() pos { return c.bottomTopBy(c.cachedLen) }

// clamp keeps p inside the transcript.
func (c *Chat) clamp(p pos) pos {
	if p.idx >= len(c.entries) {
		return pos{idx: len(c.entries) - 1}
	}
	if p.idx < 0 {
		return pos{}
	}
	if n := c.blockLen(p.idx); p.line >= n {
		p.line = n - 1
	}
	return p
}

// bottomTop is the top line of the screen when following the bottom.
func (c *Chat) bottomTop() pos { return c.bottomTopBy(c.blockLen) }

// bottomTopBy is the top line of the screen when following the bottom,
// with lines(i) the lines entry i takes.
func (c *Chat) bottomTopBy(lines func(int) int) pos {
	need := c.height
	for i := len(c.entries) - 1; i >= 0; i-- {
		n := lines(i)
		if n >= need {
			return pos{idx: i, line: n - need}
		}
		need -= n
	}
	return pos{}
}

// ScrollUp moves the view n lines up; the view stops following.
func (c *Chat) ScrollUp(n int) {
	c.moved = true
	if len(c.entries) == 0 {
		return
	}
	if c.follow {
		c.top, c.follow = c.bottomTop(), false
	}
	p := c.top
	p.line -= n
	for p.line < 0 && p.idx > 0 {
		p.idx--
		p.line += c.blockLen(p.idx)
	}
	if p.line < 0 {
		p.line = 0
	}
	c.top = p
	c.layout()
}

// ScrollDown moves the view n lines down; reaching the end follows again.
func (c *Chat) ScrollDown(n int) {
	c.moved = true
	if c.follow || len(c.entries) == 0 {
		return
	}
	p := c.top
	p.line += n
	for p.idx < len(c.entries)-1 {
		l := c.blockLen(p.idx)
		if p.line < l {
			break
		}
		p.line -= l
		p.idx++
	}
	c.top = p
	c.layout()
}

// Top shows the start of the transcript.
func (c *Chat) Top() {
	c.moved = true
	if len(c.entries) == 0 {
		return
	}
	c.follow, c.top = false, pos{}
	c.layout()
}

// Bottom shows the end and follows new output.
func (c *Chat) Bottom() {
	c.moved = true
	c.follow = true
	c.layout()
}

// Following reports whether the view sticks to the bottom.
func (c *Chat) Following() bool { return c.follow }

// Select moves the selection by delta entries (from the last entry when
// nothing is selected) and scrolls it into view.
func (c *Chat) Select(delta int) {
	if len(c.entries) == 0 {
		return
	}
	s := c.selected
	switch {
	case s < 0 && delta < 0:
		s = len(c.entries) - 1
	case s < 0:
		return
	default:
		s += delta
	}
	if s < 0 {
		s = 0
	}
	if s >= len(c.entries) {
		c.selected = -1
		c.Bottom()
		return
	}
	c.selected = s
	c.reveal(s)
}

// Unselect clears the selection.
func (c *Chat) Unselect() { c.selected = -1 }

// Selected returns the selected entry, or nil.
func (c *Chat) Selected() entry {
	if c.selected < 0 || c.selected >= len(c.entries) {
		return nil
	}
	return c.entries[c.selected]
}

// reveal scrolls so entry i's first line is on screen.
func (c *Chat) reveal(i int) {
	c.moved = true
	first := pos{idx: i}
	if i > 0 {
		first.line = 1
	}
	if c.follow {
		bt := c.bottomTop()
		if before(bt, first) || bt == first {
			return // already on screen
		}
	} else if !before(first, c.top) && c.linesBetween(c.top, first) < c.height {
		return
	}
	c.follow, c.top = false, first
	c.layout()
}

func before(a, b pos) bool { return a.idx < b.idx || a.idx == b.idx && a.line < b.line }

// linesBetween counts lines from a to b (a before b), stopping past the
// screen height.
func (c *Chat) linesBetween(a, b pos) int {
	n := 0
	for i := a.idx; i < b.idx && n <= c.height; i++ {
		n += c.blockLen(i)
	}
	return n - a.line + b.line
}

// ToggleExpand expands or collapses the selected tool call's output, or
// the last one whose output is collapsed.
func (c *Chat) ToggleExpand() bool {
	var t *toolEntry
	if s, ok := c.Selected().(*toolEntry); ok {
		t = s
	} else {
		for i := len(c.entries) - 1; i >= 0; i-- {
			if te, ok := c.entries[i].(*toolEntry); ok && te.collapsible(&c.rc) {
				t = te
				break
			}
		}
	}
	if t == nil || !t.collapsible(&c.rc) {
		return false
	}
	t.expanded = !t.expanded
	t.invalidate()
	c.layout()
	return true
}

// ToggleReasoning expands or collapses the selected reasoning block, or
// else the last finished one.
func (c *Chat) ToggleReasoning() bool {
	r, _ := c.Selected().(*reasoningEntry)
	for i := len(c.entries) - 1; i >= 0 && r == nil; i-- {
		if re, ok := c.entries[i].(*reasoningEntry); ok && !re.streaming {
			r = re
		}
	}
	if r == nil || !r.toggle() {
		return false
	}
	c.layout()
	return true
}

// LastReply is the text of the last assistant reply, or "".
func (c *Chat) LastReply() string {
	for i := len(c.entries) - 1; i >= 0; i-- {
		if a, ok := c.entries[i].(*assistantEntry); ok {
			return a.plain()
		}
	}
	return ""
}

// row is one screen line of the transcript: the gutter (selection mark),
// the text and the text's width.
type row struct {
	mark, text string
	width      int
}

// Rows returns the screen's lines, from the caches. It builds only the
// lines on screen, however long the entries are, and measures none: the
// widths were kept when the entries rendered.
func (c *Chat) Rows() []row {
	if len(c.entries) == 0 || c.width == 0 {
		return nil
	}
	w := c.inner()
	// blockLines is entry i's cached lines and widths and the number of
	// lines it takes (with the blank line before it).
	blockLines := func(i int) ([]string, []int, int) {
		e := c.entries[i]
		ls, _ := e.cached(w)
		n := len(ls)
		if i > 0 {
			n++
		}
		return ls, e.lineWidths(), n
	}
	start := c.top
	if c.follow {
		// Walk back from the end to the first line on screen.
		need := c.height
		start = pos{}
		for i := len(c.entries) - 1; i >= 0; i-- {
			_, _, n := blockLines(i)
			if n >= need {
				start = pos{idx: i, line: n - need}
				break
			}
			need -= n
		}
	}
	selMark := c.rc.th.Selected.Render("▌ ")
	rows := make([]row, 0, c.height)
	for i, k := start.idx, start.line; i < len(c.entries) && len(rows) < c.height; i, k = i+1, 0 {
		ls, ws, n := blockLines(i)
		for ; k < n && len(rows) < c.height; k++ {
			j := k
			if i > 0 {
				if k == 0 {
					rows = append(rows, row{})
					continue
				}
				j--
			}
			r := row{mark: "  ", text: ls[j]}
			if j < len(ws) {
				r.width = ws[j]
			} else {
				r.width = xansi.StringWidth(ls[j])
			}
			if i == c.selected {
				r.mark = selMark
			}
			rows = append(rows, r)
		}
	}
	if !c.follow && len(rows) == c.height && c.height > 2 {
		more := c.rc.th.Dim.Render("↓ more below · end to follow")
		rows[c.height-1] = row{mark: "  ", text: more, width: xansi.StringWidth(more)}
	}
	return rows
}
