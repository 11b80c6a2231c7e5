package main

import (
	"testing"

	xansi "github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
)

// The transcript's layout counts columns: the frame and the prompt are
// box-drawing characters and ❯ (one column), CJK text and emoji take two,
// combining marks none. These are the widths co's layout relies on, from
// the libraries as released.
func TestTerminalWidths(t *testing.T) {
	c := &runewidth.Condition{StrictEmojiNeutral: true}
	for r, want := range map[rune]int{
		'a': 1, 'é': 1, '─': 1, '│': 1, '❯': 1, '•': 1, '中': 2, '한': 2, 'ｱ': 1, 'Ａ': 2,
		'\u0301': 0, '\u200b': 0, '😀': 2, '🙂': 2, '⌚': 2, '\U0001F1E6': 1, '\x00': 0, '\u00ad': 0,
	} {
		if got := c.RuneWidth(r); got != want {
			t.Errorf("RuneWidth(%U) = %d, want %d", r, got, want)
		}
	}
	if w := xansi.StringWidth("│ ❯ 中文 ─"); w != 10 {
		t.Errorf("ansi.StringWidth = %d, want 10", w)
	}
}
