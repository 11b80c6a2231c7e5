package tui

import (
	"strings"
	"testing"

	xansi "github.com/charmbracelet/x/ansi"
)

// A list item that wraps keeps its text under its text, not under the
// bullet (a hanging indent), and no line is wider than the pane.
func TestMarkdownWrappedListItemsKeepTheirIndent(t *testing.T) {
	md := testMarkdown()
	long := "first item that is long enough to wrap over the end of the line for sure, yes indeed it wraps"
	for _, tc := range []struct {
		name, src, marker string
	}{
		{"bullet", "- " + long + "\n- second\n", "• "},
		{"numbered", "1. " + long + "\n2. second\n", "1. "},
		{"nested", "- outer\n  - " + long + "\n", "• "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, widths := md.block(tc.src, 40)
			var plain []string
			for i, l := range lines {
				plain = append(plain, xansi.Strip(l))
				if widths[i] > 40 || xansi.StringWidth(l) != widths[i] {
					t.Errorf("line %d is %d wide (recorded %d), pane 40", i, xansi.StringWidth(l), widths[i])
				}
			}
			start := -1
			for i, p := range plain {
				if strings.Contains(p, tc.marker+"first item") {
					start = i
					break
				}
			}
			if start < 0 || start+1 >= len(plain) {
				t.Fatalf("item not found or not wrapped:\n%s", strings.Join(plain, "\n"))
			}
			textCol := xansi.StringWidth(plain[start][:strings.Index(plain[start], "first item")])
			cont := plain[start+1]
			if got := len(cont) - len(strings.TrimLeft(cont, " ")); got != textCol {
				t.Errorf("continuation indented %d, want %d (under the item's text):\n%s", got, textCol, strings.Join(plain, "\n"))
			}
			all := strings.Join(strings.Fields(strings.Join(plain, " ")), " ")
			if !strings.Contains(all, "yes indeed it wraps") {
				t.Errorf("text lost:\n%s", strings.Join(plain, "\n"))
			}
		})
	}
}

// A narrow table is as wide as its columns need, not stretched across the
// pane.
func TestMarkdownTwoColumnTableIsNotStretched(t *testing.T) {
	md := testMarkdown()
	lines, widths := md.block("| key | value |\n|---|---|\n| a | one |\n| bb | two |\n", 100)
	maxW := 0
	for _, w := range widths {
		maxW = max(maxW, w)
	}
	if maxW > 30 {
		var plain []string
		for _, l := range lines {
			plain = append(plain, xansi.Strip(l))
		}
		t.Fatalf("a two-column table of short cells is %d wide in a 100-column pane:\n%s", maxW, strings.Join(plain, "\n"))
	}
	s := xansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{"key", "value", "bb", "two"} {
		if !strings.Contains(s, want) {
			t.Errorf("table lacks %q:\n%s", want, s)
		}
	}
	// A table too wide for the pane still fits it.
	wide := "| " + strings.Repeat("long cell text ", 6) + " | " + strings.Repeat("more text ", 6) + " |\n|---|---|\n| x | y |\n"
	_, widths = md.block(wide, 60)
	for _, w := range widths {
		if w > 60 {
			t.Errorf("a wide table line is %d wide in a 60-column pane", w)
		}
	}
}
