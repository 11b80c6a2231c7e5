package cli

import (
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// fitHelp keeps every line within the width, and an example still a
// command a shell reads as written: its comment above it, a long command
// continued after " \" (joined again, it is the same command).
func TestFitHelp(t *testing.T) {
	const w = 40
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"column", "Flags:\n  -x, --extra   a description long enough to wrap at forty columns",
			[]string{"Flags:", "  -x, --extra   a description long", "                enough to wrap at forty", "                columns"}},
		{"prose", "a paragraph of prose that is longer than forty columns wide",
			[]string{"a paragraph of prose that is longer than", "forty columns wide"}},
		{"comment", "Examples:\n  co run \"what is 2+2\"   # the answer on stdout, nothing else",
			[]string{"Examples:", "  # the answer on stdout, nothing else", "  co run \"what is 2+2\""}},
		{"command", "Examples:\n  co schedule add brief --at \"weekdays 08:00\" Summarise the mail",
			[]string{"Examples:", "  co schedule add brief --at \\", "      \"weekdays 08:00\" Summarise the \\", "      mail"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Split(fitHelp(tc.in, w), "\n")
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("fitHelp =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for _, l := range got {
				if runewidth.StringWidth(l) > w {
					t.Errorf("%q is wider than %d", l, w)
				}
			}
		})
	}
}
