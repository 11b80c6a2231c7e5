// Package vt is a small terminal emulator for the benchmarks that drive
// co (and its peers) as a user does: scripts/benchtui and
// scripts/benchpeers feed it a program's output and read the screen.
package vt

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Screen is a small terminal emulator: enough of VT100/xterm for what a
// Bubble Tea program writes (cursor movement, erasing, scrolling regions,
// insert/delete, repeat, the alternate screen), so the benchmark can tell
// when text is really on the screen rather than merely somewhere in the
// byte stream. Styles are ignored.
type Screen struct {
	mu          sync.Mutex
	w, h        int
	main, alt   [][]rune
	cells       [][]rune
	x, y        int
	top, bottom int // scrolling region, inclusive
	pendingWrap bool
	autowrap    bool
	savedX      int
	savedY      int
	last        rune
	parser      *ansi.Parser
	partial     []byte
}

// New is a blank screen of w columns and h rows.
func New(w, h int) *Screen {
	s := &Screen{w: w, h: h, autowrap: true, parser: ansi.NewParser()}
	s.main = blank(w, h)
	s.alt = blank(w, h)
	s.cells = s.main
	s.bottom = h - 1
	return s
}

func blank(w, h int) [][]rune {
	c := make([][]rune, h)
	for i := range c {
		c[i] = make([]rune, w)
		for j := range c[i] {
			c[i][j] = ' '
		}
	}
	return c
}

// Write feeds terminal output. A sequence or a character cut at the end
// of p waits for the next write.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := append(s.partial, p...)
	keep := incompleteTail(b)
	s.partial = append([]byte(nil), b[len(b)-keep:]...)
	b = b[:len(b)-keep]
	for len(b) > 0 {
		seq, width, n, _ := ansi.DecodeSequence(b, 0, s.parser)
		if n == 0 {
			break
		}
		s.apply(seq, width)
		b = b[n:]
	}
	return len(p), nil
}

// incompleteTail is how many bytes at the end of b start a sequence or a
// UTF-8 character that has not ended yet.
func incompleteTail(b []byte) int {
	if i := bytes.LastIndexByte(b, 0x1b); i >= 0 {
		t := b[i:]
		complete := false
		switch {
		case len(t) < 2:
		case t[1] == '[':
			for _, c := range t[2:] {
				if c >= 0x40 && c <= 0x7e {
					complete = true
					break
				}
			}
		case t[1] == ']' || t[1] == 'P' || t[1] == '_' || t[1] == '^' || t[1] == 'X':
			complete = bytes.IndexByte(t, 0x07) >= 0
		default:
			complete = true
			for _, c := range t[1:] {
				if c >= 0x20 && c <= 0x2f {
					complete = false // intermediates: wait for the final byte
					continue
				}
				complete = true
				break
			}
		}
		if !complete {
			return len(t)
		}
	}
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return 0
		}
		if c >= 0xc0 { // a lead byte
			if !utf8.FullRune(b[len(b)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

func (s *Screen) apply(seq []byte, width int) {
	if len(seq) == 0 {
		return
	}
	c := seq[0]
	switch {
	case c == 0x1b && len(seq) > 1 && seq[1] == '[':
		s.csi(seq)
	case c == 0x1b && len(seq) > 1:
		s.esc(seq[1:])
	case c < 0x20 || c == 0x7f:
		s.control(c)
	case width > 0 || c >= 0x20:
		r := []rune(string(seq))
		if len(r) == 0 {
			return
		}
		s.put(r[0], max(width, 1))
	}
}

func (s *Screen) put(r rune, width int) {
	if s.pendingWrap && s.autowrap {
		s.x = 0
		s.lineFeed()
	}
	s.pendingWrap = false
	if s.x+width > s.w {
		if !s.autowrap {
			s.x = s.w - width
		} else {
			s.x = 0
			s.lineFeed()
		}
	}
	s.cells[s.y][s.x] = r
	if width == 2 && s.x+1 < s.w {
		s.cells[s.y][s.x+1] = 0
	}
	s.last = r
	s.x += width
	if s.x >= s.w {
		s.x = s.w - 1
		s.pendingWrap = true
	}
}

func (s *Screen) control(c byte) {
	switch c {
	case '\r':
		s.x, s.pendingWrap = 0, false
	case '\n', 0x0b, 0x0c:
		s.lineFeed()
		s.pendingWrap = false
	case '\b':
		if s.x > 0 {
			s.x--
		}
		s.pendingWrap = false
	case '\t':
		s.x = min((s.x/8+1)*8, s.w-1)
	}
}

func (s *Screen) lineFeed() {
	if s.y == s.bottom {
		s.scrollUp(1)
		return
	}
	if s.y < s.h-1 {
		s.y++
	}
}

func (s *Screen) scrollUp(n int) {
	for ; n > 0; n-- {
		copy(s.cells[s.top:s.bottom], s.cells[s.top+1:s.bottom+1])
		s.cells[s.bottom] = blankLine(s.w)
	}
}

func (s *Screen) scrollDown(n int) {
	for ; n > 0; n-- {
		copy(s.cells[s.top+1:s.bottom+1], s.cells[s.top:s.bottom])
		s.cells[s.top] = blankLine(s.w)
	}
}

func blankLine(w int) []rune {
	l := make([]rune, w)
	for i := range l {
		l[i] = ' '
	}
	return l
}

func (s *Screen) esc(rest []byte) {
	switch rest[0] {
	case '7':
		s.savedX, s.savedY = s.x, s.y
	case '8':
		s.x, s.y = s.savedX, s.savedY
	case 'D':
		s.lineFeed()
	case 'E':
		s.x = 0
		s.lineFeed()
	case 'M':
		if s.y == s.top {
			s.scrollDown(1)
		} else if s.y > 0 {
			s.y--
		}
	case 'c':
		*s = *New(s.w, s.h)
	}
}

func (s *Screen) csi(seq []byte) {
	final := seq[len(seq)-1]
	body := string(seq[2 : len(seq)-1])
	private := strings.HasPrefix(body, "?") || strings.HasPrefix(body, ">") || strings.HasPrefix(body, "<") || strings.HasPrefix(body, "=")
	if private {
		body = body[1:]
	}
	if i := strings.IndexAny(body, " !\"#$%&'*+,-./"); i >= 0 {
		return // sequences with intermediates (cursor style, soft reset...)
	}
	var params []int
	if body != "" {
		for _, f := range strings.Split(body, ";") {
			f, _, _ = strings.Cut(f, ":")
			n := 0
			for _, d := range f {
				if d >= '0' && d <= '9' {
					n = n*10 + int(d-'0')
				}
			}
			params = append(params, n)
		}
	}
	p := func(i, def int) int {
		if i < len(params) && params[i] != 0 {
			return params[i]
		}
		return def
	}
	if private {
		if final == 'h' || final == 'l' {
			on := final == 'h'
			for _, m := range params {
				switch m {
				case 1049, 1047, 47:
					if on && !sameBuf(s.cells, s.alt) {
						s.alt = blank(s.w, s.h)
						s.cells = s.alt
					} else if !on {
						s.cells = s.main
					}
				case 7:
					s.autowrap = on
				}
			}
		}
		return
	}
	s.pendingWrap = false
	switch final {
	case 'A':
		s.y = max(s.y-p(0, 1), 0)
	case 'B', 'e':
		s.y = min(s.y+p(0, 1), s.h-1)
	case 'C', 'a':
		s.x = min(s.x+p(0, 1), s.w-1)
	case 'D':
		s.x = max(s.x-p(0, 1), 0)
	case 'E':
		s.y, s.x = min(s.y+p(0, 1), s.h-1), 0
	case 'F':
		s.y, s.x = max(s.y-p(0, 1), 0), 0
	case 'G', '`':
		s.x = clamp(p(0, 1)-1, 0, s.w-1)
	case 'd':
		s.y = clamp(p(0, 1)-1, 0, s.h-1)
	case 'H', 'f':
		s.y, s.x = clamp(p(0, 1)-1, 0, s.h-1), clamp(p(1, 1)-1, 0, s.w-1)
	case 'J':
		switch p(0, 0) {
		case 0:
			s.eraseLine(s.y, s.x, s.w)
			for y := s.y + 1; y < s.h; y++ {
				s.eraseLine(y, 0, s.w)
			}
		case 1:
			for y := 0; y < s.y; y++ {
				s.eraseLine(y, 0, s.w)
			}
			s.eraseLine(s.y, 0, s.x+1)
		default:
			for y := 0; y < s.h; y++ {
				s.eraseLine(y, 0, s.w)
			}
		}
	case 'K':
		switch p(0, 0) {
		case 0:
			s.eraseLine(s.y, s.x, s.w)
		case 1:
			s.eraseLine(s.y, 0, s.x+1)
		default:
			s.eraseLine(s.y, 0, s.w)
		}
	case 'X':
		s.eraseLine(s.y, s.x, min(s.x+p(0, 1), s.w))
	case '@':
		n := min(p(0, 1), s.w-s.x)
		l := s.cells[s.y]
		copy(l[s.x+n:], l[s.x:s.w-n])
		for i := s.x; i < s.x+n; i++ {
			l[i] = ' '
		}
	case 'P':
		n := min(p(0, 1), s.w-s.x)
		l := s.cells[s.y]
		copy(l[s.x:], l[s.x+n:])
		for i := s.w - n; i < s.w; i++ {
			l[i] = ' '
		}
	case 'L':
		if s.y >= s.top && s.y <= s.bottom {
			t := s.top
			s.top = s.y
			s.scrollDown(p(0, 1))
			s.top = t
		}
	case 'M':
		if s.y >= s.top && s.y <= s.bottom {
			t := s.top
			s.top = s.y
			s.scrollUp(p(0, 1))
			s.top = t
		}
	case 'S':
		s.scrollUp(p(0, 1))
	case 'T':
		s.scrollDown(p(0, 1))
	case 'b':
		for i := 0; i < p(0, 1); i++ {
			s.put(s.last, 1)
		}
	case 'r':
		s.top, s.bottom = clamp(p(0, 1)-1, 0, s.h-1), clamp(p(1, s.h)-1, 0, s.h-1)
		s.x, s.y = 0, 0
	case 's':
		s.savedX, s.savedY = s.x, s.y
	case 'u':
		s.x, s.y = s.savedX, s.savedY
	}
}

func sameBuf(a, b [][]rune) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

func (s *Screen) eraseLine(y, from, to int) {
	for x := from; x < to && x < s.w; x++ {
		s.cells[y][x] = ' '
	}
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

// Text is the screen as lines of text.
func (s *Screen) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, l := range s.cells {
		for _, r := range l {
			if r != 0 {
				b.WriteRune(r)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Contains reports whether the screen shows sub on one line.
func (s *Screen) Contains(sub string) bool { return strings.Contains(s.Text(), sub) }
