package tui

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	xansi "github.com/charmbracelet/x/ansi"
)

// markdown renders markdown with glamour, keeping one renderer per width
// (building one costs more than rendering a paragraph). It is used from
// Update only, never from View.
type markdown struct {
	style ansi.StyleConfig
	// langs are the code languages chroma knows (built on first use).
	langs map[string]bool
	// renderers by wrap width; a few widths at most (resizes).
	byWidth map[int]*glamour.TermRenderer
	order   []int
}

const maxRendererWidths = 8

// listWrap is the wrap width lists are rendered at: each item on one line,
// wrapped afterwards with a hanging indent (hangIndent).
const listWrap = 2000

func newMarkdown(style ansi.StyleConfig) *markdown {
	return &markdown{style: style, byWidth: map[int]*glamour.TermRenderer{}}
}

func (m *markdown) renderer(width int) *glamour.TermRenderer {
	if r, ok := m.byWidth[width]; ok {
		return r
	}
	// True colour: chroma's 256-colour formatter breaks ties between palette
	// entries at random, and the renderer downsamples to the terminal anyway.
	r, err := glamour.NewTermRenderer(glamour.WithStyles(m.style), glamour.WithWordWrap(width), glamour.WithChromaFormatter("terminal16m"))
	if err != nil {
		return nil
	}
	if len(m.order) >= maxRendererWidths {
		delete(m.byWidth, m.order[0])
		m.order = m.order[1:]
	}
	m.byWidth[width] = r
	m.order = append(m.order, width)
	return r
}

// block renders one markdown block (already sanitised text) to lines no
// wider than width, without leading or trailing blank lines, and returns
// each line's width beside it.
func (m *markdown) block(src string, width int) ([]string, []int) {
	if width < 4 {
		width = 4
	}
	out := ""
	src = m.plainFences(expandTabs(src))
	rw := width
	list := isList(src)
	switch {
	case list:
		// glamour wraps an item's text back to the margin, under the
		// bullet: render unwrapped and wrap with a hanging indent.
		rw = listWrap
	default:
		// glamour stretches a table across the whole width: give it
		// only what its columns need.
		if tw, ok := tableWidth(src); ok && tw < width {
			rw = tw
		}
	}
	if r := m.renderer(rw); r != nil {
		if s, err := r.Render(src); err == nil {
			out = s
		}
	}
	if out == "" && strings.TrimSpace(src) != "" {
		out = src // glamour failed: show the text as it is
	}
	out = stripHyperlinks(out)
	if list {
		out = hangIndent(out, width)
	}
	return tidyLines(out, width)
}

// isList reports whether a block starts with a list item.
func isList(src string) bool {
	for _, l := range strings.Split(src, "\n") {
		if t := strings.TrimLeft(l, " "); t != "" {
			return isListItem(t)
		}
	}
	return false
}

// tableWidth is the width a table block needs: its widest cell in each
// column, padded as glamour pads them, and the separators; false when the
// block is not a table.
func tableWidth(src string) (int, bool) {
	lines := strings.Split(strings.TrimSpace(src), "\n")
	if len(lines) < 2 || !strings.HasPrefix(strings.TrimSpace(lines[0]), "|") || !isDelimiterRow(lines[1]) {
		return 0, false
	}
	var cols []int
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if i == 1 || !strings.HasPrefix(l, "|") {
			continue
		}
		l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
		for j, c := range splitCells(l) {
			w := xansi.StringWidth(strings.TrimSpace(c)) + 2 // inline code's padding
			if j >= len(cols) {
				cols = append(cols, w)
			} else {
				cols[j] = max(cols[j], w)
			}
		}
	}
	total := 0
	for _, c := range cols {
		total += c + 2 // a space either side
	}
	return total + len(cols) - 1, len(cols) > 0
}

func isDelimiterRow(l string) bool {
	l = strings.TrimSpace(l)
	return strings.HasPrefix(l, "|") && strings.Contains(l, "-") && strings.Trim(l, "|-: ") == ""
}

// splitCells splits a table row at | not escaped with a backslash.
func splitCells(row string) []string {
	var cells []string
	start := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, row[start:i])
			start = i + 1
		}
	}
	return append(cells, row[start:])
}

// hangIndent wraps each line of a list rendered unwrapped to width, the
// wrapped part under the item's text (after its indentation and marker).
// Styles open at a break are opened again on the next line.
func hangIndent(s string, width int) string {
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		l = trimPadding(l)
		if xansi.StringWidth(l) <= width {
			b.WriteString(l)
			continue
		}
		hang := hangWidth(xansi.Strip(l))
		if hang > width/2 {
			hang = 0
		}
		head, body := xansi.Truncate(l, hang, ""), xansi.TruncateLeft(l, hang, "")
		parts := strings.Split(xansi.Wrap(body, width-hang, ""), "\n")
		open := ""
		for j, p := range parts {
			if j == 0 {
				b.WriteString(head)
			} else {
				b.WriteByte('\n')
				b.WriteString(strings.Repeat(" ", hang))
				b.WriteString(open)
				p = strings.TrimLeft(p, " ")
			}
			b.WriteString(p)
			open = openStyles(open + p)
			if open != "" {
				b.WriteString("\x1b[m")
			}
		}
	}
	return b.String()
}

// hangWidth is where an item's text starts: the indentation, then a
// bullet or number marker and its space.
func hangWidth(plain string) int {
	t := strings.TrimLeft(plain, " ")
	lead := len(plain) - len(t)
	for _, m := range []string{"• ", "- ", "* ", "+ "} {
		if strings.HasPrefix(t, m) {
			return lead + xansi.StringWidth(m)
		}
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return lead + i + 2
	}
	return lead
}

// openStyles is the SGR sequences in s since its last reset.
func openStyles(s string) string {
	var open strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return open.String()
		}
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return open.String()
		}
		seq := s[i : i+j+1]
		if seq == "\x1b[m" || seq == "\x1b[0m" {
			open.Reset()
		} else if isSGR(seq) {
			open.WriteString(seq)
		}
		s = s[i+j+1:]
	}
}

// warmHighlighter loads chroma's lexer registry and compiles a common
// lexer's rules in the background, once the first frame is out: done by
// the first code block instead, it delayed that frame by ~10 ms. It
// touches only chroma's own lazily built, lock-protected state.
func warmHighlighter() tea.Msg {
	time.Sleep(warmDelay)
	warmChroma()
	return nil
}

func warmChroma() {
	lexers.Names(true)
	if l := lexers.Get("go"); l != nil {
		if it, err := l.Tokenise(nil, "package main\n"); err == nil {
			for t := it(); t != chroma.EOF; t = it() {
			}
		}
	}
}

// warmDelay leaves the first frame the CPU.
const warmDelay = 150 * time.Millisecond

// plainFences marks code blocks with no language, or one chroma does not
// know, as plain text. Otherwise chroma guesses the language by running
// every lexer's analyser over the code, milliseconds per render.
func (m *markdown) plainFences(src string) string {
	if !strings.Contains(src, "```") && !strings.Contains(src, "~~~") {
		return src
	}
	lines := strings.Split(src, "\n")
	var fence byte
	var fenceLen int
	changed := false
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " \t")
		if fence != 0 {
			if n := fenceRun(trimmed, fence); n >= fenceLen && strings.TrimSpace(trimmed[n:]) == "" {
				fence = 0
			}
			continue
		}
		for _, c := range []byte{'`', '~'} {
			n := fenceRun(trimmed, c)
			if n < 3 || c == '`' && strings.Contains(trimmed[n:], "`") {
				continue
			}
			fence, fenceLen = c, n
			lang := ""
			if f := strings.Fields(trimmed[n:]); len(f) > 0 {
				lang = f[0]
			}
			if !m.knownLang(lang) {
				lines[i] = line[:len(line)-len(trimmed)] + trimmed[:n] + "text"
				changed = true
			}
		}
	}
	if !changed {
		return src
	}
	return strings.Join(lines, "\n")
}

func (m *markdown) knownLang(lang string) bool {
	if lang == "" {
		return false
	}
	if m.langs == nil {
		// Names and aliases, looked up in a map: lexers.Get would also try
		// every lexer's file patterns, milliseconds for a name it does not
		// know.
		m.langs = map[string]bool{}
		for _, n := range lexers.Names(true) {
			m.langs[strings.ToLower(n)] = true
		}
	}
	return m.langs[strings.ToLower(lang)]
}

// stripHyperlinks removes OSC 8 sequences glamour makes for links: a
// link's target is always printed beside its text, so the terminal never
// gets a clickable target that came from the model.
func stripHyperlinks(s string) string {
	const start = "\x1b]8;"
	if !strings.Contains(s, start) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, start)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+len(start):]
		// The sequence ends with BEL or ST (ESC \).
		j := strings.IndexAny(rest, "\x07\x1b")
		if j < 0 {
			return b.String()
		}
		if rest[j] == 0x1b && j+1 < len(rest) && rest[j+1] == '\\' {
			s = rest[j+2:]
		} else {
			s = rest[j+1:]
		}
	}
}

// tidyLines splits rendered text into lines, drops the padding glamour adds
// at the end of lines, the blank lines around the block, and hard-wraps
// what is still wider than width (long words, URLs). It returns the
// lines' widths too.
func tidyLines(s string, width int) ([]string, []int) {
	raw := strings.Split(s, "\n")
	lines := make([]string, 0, len(raw))
	widths := make([]int, 0, len(raw))
	for _, l := range raw {
		l = trimPadding(l)
		w := xansi.StringWidth(l)
		if w > width {
			for _, p := range strings.Split(xansi.Hardwrap(l, width, true), "\n") {
				lines, widths = append(lines, p), append(widths, xansi.StringWidth(p))
			}
			continue
		}
		lines, widths = append(lines, l), append(widths, w)
	}
	for len(lines) > 0 && widths[0] == 0 || len(lines) > 0 && isBlank(lines[0]) {
		lines, widths = lines[1:], widths[1:]
	}
	for n := len(lines); n > 0 && isBlank(lines[n-1]); n = len(lines) {
		lines, widths = lines[:n-1], widths[:n-1]
	}
	return lines, widths
}

// trimPadding removes trailing spaces and styles with nothing after them,
// then closes the line's styles so nothing bleeds into what follows.
func trimPadding(l string) string {
	styled := strings.IndexByte(l, 0x1b) >= 0
	for {
		n := len(l)
		l = strings.TrimRight(l, " ")
		if strings.HasSuffix(l, "m") {
			if i := strings.LastIndex(l, "\x1b["); i >= 0 && isSGR(l[i:]) {
				l = l[:i]
			}
		}
		if len(l) == n {
			break
		}
	}
	if styled && l != "" {
		l += "\x1b[m"
	}
	return l
}

// isSGR reports whether s is exactly one SGR sequence (ESC [ params m).
func isSGR(s string) bool {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' || s[len(s)-1] != 'm' {
		return false
	}
	for _, c := range s[2 : len(s)-1] {
		if (c < '0' || c > '9') && c != ';' && c != ':' {
			return false
		}
	}
	return true
}

func isBlank(l string) bool {
	if strings.IndexByte(l, 0x1b) >= 0 {
		l = xansi.Strip(l)
	}
	return strings.TrimSpace(l) == ""
}

// blockSplitter finds where markdown blocks end in text that grows at the
// end, so a streamed reply renders its finished blocks once and re-renders
// only the last one. A boundary is declared only when no text that could
// follow can change the blocks before it: after a blank line, outside a
// fenced code block, before a complete line that starts in column 0 (so
// not an indented continuation) and that does not continue a list.
//
// Feeding the same text in any number of pieces gives the same boundaries
// as feeding it at once; that is what makes incremental rendering equal
// to a fresh render.
type blockSplitter struct {
	pos      int  // start of the first line not yet scanned
	content  bool // the current block has a non-blank line
	blank    bool // the last scanned line was blank (after content)
	list     bool // the current block is a list
	fence    byte // ` or ~ while inside a fenced code block
	fenceLen int
}

// scan reads the complete lines of text from where the last scan stopped
// and returns the offsets where new blocks start. When final is true the
// text is complete and its last line counts even without a newline.
func (s *blockSplitter) scan(text string, final bool) []int {
	var starts []int
	for s.pos < len(text) {
		end := strings.IndexByte(text[s.pos:], '\n')
		var line string
		next := 0
		switch {
		case end >= 0:
			line, next = text[s.pos:s.pos+end], s.pos+end+1
		case final:
			line, next = text[s.pos:], len(text)
		default:
			return starts
		}
		if s.line(line, s.pos) {
			starts = append(starts, s.pos)
		}
		s.pos = next
	}
	return starts
}

// line scans one complete line at offset off and reports whether a new
// block starts at it.
func (s *blockSplitter) line(line string, off int) (newBlock bool) {
	trimmed := strings.TrimLeft(line, " \t")
	if s.fence != 0 {
		if n := fenceRun(trimmed, s.fence); n >= s.fenceLen && strings.TrimSpace(trimmed[n:]) == "" {
			s.fence = 0
		}
		s.blank = false
		return false
	}
	if strings.TrimSpace(line) == "" {
		if s.content {
			s.blank = true
		}
		return false
	}
	item := isListItem(trimmed)
	if s.content && s.blank && line[0] != ' ' && line[0] != '\t' && !(s.list && item) {
		newBlock = true
		s.list = false
	}
	if item && line[0] != ' ' && line[0] != '\t' {
		s.list = true
	}
	s.content, s.blank = true, false
	for _, c := range []byte{'`', '~'} {
		if n := fenceRun(trimmed, c); n >= 3 && (c == '~' || !strings.Contains(trimmed[n:], "`")) {
			s.fence, s.fenceLen = c, n
		}
	}
	return newBlock
}

// early reports whether the unfinished last line of text, text[pos:]
// after a scan, starts a new block whatever the rest of it turns out to
// be: line decides that from the line's first character alone (not
// blank, not indented) and, in a list, from whether it starts an item,
// which a first character that no item starts with settles. The line
// itself is scanned once complete, as always.
func (s *blockSplitter) early(text string) bool {
	if s.fence != 0 || !s.content || !s.blank || s.pos >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[s.pos:])
	if r == utf8.RuneError || unicode.IsSpace(r) {
		return false // a blank line so far, or a rune not complete yet
	}
	return !s.list || !strings.ContainsRune("-+*0123456789", r)
}

func fenceRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// isListItem reports whether a line (without its indentation) starts a
// list item: -, + or * then a space, or a number with . or ) then a space.
func isListItem(s string) bool {
	if len(s) >= 2 && (s[0] == '-' || s[0] == '+' || s[0] == '*') && (s[1] == ' ' || s[1] == '\t') {
		return true
	}
	if len(s) == 1 && (s[0] == '-' || s[0] == '+' || s[0] == '*') {
		return true
	}
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t')
}

// mdBlock is a finished block, text[start:end] of its reply, and its
// render at one width while the chat keeps it (nil once released): a
// reply far from the screen costs its text and two offsets a block.
type mdBlock struct {
	start, end int
	r          *blockRender
}

// blockRender is a block's lines rendered at width.
type blockRender struct {
	width  int
	lines  []string
	widths []int
}

// mdStream is an assistant reply rendered as it streams: finished blocks
// are rendered once per width and kept until the chat releases them; the
// unfinished tail is rendered again when text arrives. The reply's text
// is held once: blocks are offsets into it.
type mdStream struct {
	text     strings.Builder // while streaming
	full     string          // once finished: the text, without the builder's spare room
	split    blockSplitter
	blocks   []mdBlock
	done     int // where the finished blocks end in text
	final    bool
	tailFrom int // the rendered tail is text[tailFrom:tailEnd]
	tailEnd  int
	tail     []string // render of the tail at tailW
	tailWs   []int
	tailW    int
	tailDone bool
}

// append adds sanitised text.
func (s *mdStream) append(t string) {
	if s.final { // not expected: a finished reply takes no more text
		s.text.WriteString(s.full)
		s.full, s.final = "", false
	}
	s.text.WriteString(t)
	s.cut(false)
}

// finish marks the text complete.
func (s *mdStream) finish() {
	if s.final {
		return
	}
	s.cut(true)
	s.final = true
	s.full = strings.Clone(s.text.String())
	s.text = strings.Builder{}
	s.blocks = slices.Clone(s.blocks) // without the slice's spare room
}

func (s *mdStream) cut(final bool) {
	text := s.text.String()
	for _, start := range s.split.scan(text, final) {
		if start == s.done {
			continue // cut already, as soon as it began (below)
		}
		s.blocks = append(s.blocks, mdBlock{start: s.done, end: start})
		s.done = start
	}
	if !final && s.split.early(text) && s.split.pos > s.done {
		// The unfinished line starts a new block: the block before it is
		// finished, where the scan will cut it once the line is complete.
		// Cut it now, so the frames that show the line arriving (a
		// paragraph's first line is often all of it) render only the
		// line, not the whole block before it again with each frame.
		s.blocks = append(s.blocks, mdBlock{start: s.done, end: s.split.pos})
		s.done = s.split.pos
	}
	if s.tailFrom != s.done || s.tailEnd != len(text) {
		s.tailFrom, s.tailEnd, s.tailDone = s.done, len(text), false
	}
}

// Source is the whole text so far.
func (s *mdStream) Source() string {
	if s.final {
		return s.full
	}
	return s.text.String()
}

// release drops every rendered line; render makes them again.
func (s *mdStream) release() {
	for i := range s.blocks {
		s.blocks[i].r = nil
	}
	s.tail, s.tailWs, s.tailDone = nil, nil, false
}

// heldLines is the number of rendered lines kept, at any width.
func (s *mdStream) heldLines() int {
	n := len(s.tail)
	for i := range s.blocks {
		if r := s.blocks[i].r; r != nil {
			n += len(r.lines)
		}
	}
	return n
}

// render brings the rendered lines up to date for width and returns them.
// need > 0 asks only for the last need lines (a few more may come back):
// blocks above them stay unrendered and partial says so; the lines are
// then a suffix of the full render. A reply that arrives all at once thus
// renders what is on screen first, and the rest when it is scrolled to.
func (s *mdStream) render(md *markdown, width, need int) (out []string, widths []int, partial bool) {
	if !s.tailDone || s.tailW != width {
		s.tail, s.tailWs = md.block(s.Source()[s.done:s.tailEnd], width)
		s.tailW, s.tailDone = width, true
	}
	first := 0
	if need > 0 {
		n := len(s.tail)
		for first = len(s.blocks); first > 0 && n < need; {
			first--
			n += len(s.renderBlock(md, first, width).lines) + 1
		}
	}
	for i := first; i < len(s.blocks); i++ {
		r := s.renderBlock(md, i, width)
		out, widths = appendBlock(out, widths, r.lines, r.widths)
	}
	out, widths = appendBlock(out, widths, s.tail, s.tailWs)
	return out, widths, first > 0
}

// renderBlock returns finished block i rendered at width, rendering it
// only the first time (per width).
func (s *mdStream) renderBlock(md *markdown, i, width int) *blockRender {
	b := &s.blocks[i]
	if b.r == nil || b.r.width != width {
		lines, widths := md.block(s.Source()[b.start:b.end], width)
		b.r = &blockRender{width: width, lines: lines, widths: widths}
	}
	return b.r
}

func appendBlock(out []string, widths []int, lines []string, ws []int) ([]string, []int) {
	if len(lines) == 0 {
		return out, widths
	}
	if len(out) > 0 {
		out, widths = append(out, ""), append(widths, 0)
	}
	return append(out, lines...), append(widths, ws...)
}

// renderMarkdown renders complete text at once through the same block
// pipeline (what a streamed reply must equal once finished).
func renderMarkdown(md *markdown, text string, width int) []string {
	var s mdStream
	s.append(text)
	s.finish()
	lines, _, _ := s.render(md, width, 0)
	return lines
}
