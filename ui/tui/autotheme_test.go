package tui

import (
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/agent"
)

// With the theme "auto" the chat draws its first frame at once in the
// provisional light theme, asks the terminal for its background, and
// switches to dark when the answer says the background is dark; code is
// then drawn in the dark theme's colours.
func TestAutoThemeFollowsTheTerminalBackground(t *testing.T) {
	for _, tc := range []struct {
		name string
		bg   color.Color
		want string
	}{
		{"dark background", color.RGBA{0x10, 0x10, 0x10, 0xFF}, "dark"},
		{"light background", color.RGBA{0xFA, 0xFA, 0xFA, 0xFF}, "light"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := goldenApp(t, "auto", 80, agent.Config{})
			if a.th.Name != "light" {
				t.Fatalf("provisional theme %q, want light", a.th.Name)
			}
			if !a.requestsBackground() {
				t.Fatal("Init does not ask the terminal for its background")
			}
			a.Update(tea.BackgroundColorMsg{Color: tc.bg})
			if a.th.Name != tc.want {
				t.Fatalf("theme after the answer %q, want %q", a.th.Name, tc.want)
			}
			lines, _ := a.md.block("```go\nx := 1\n```\n", 60)
			code := strings.Join(lines, "\n")
			wantText := "38;2;31;35;40" // #1F2328
			if tc.want == "dark" {
				wantText = "38;2;216;216;216" // #D8D8D8
			}
			if !strings.Contains(code, wantText) {
				t.Errorf("code not in the %s theme's colours: %q", tc.want, code)
			}
			if !strings.Contains(a.View().Content, "co") {
				t.Error("no view")
			}
		})
	}
	t.Run("a fixed theme ignores the answer", func(t *testing.T) {
		a := goldenApp(t, "light", 80, agent.Config{})
		if a.requestsBackground() {
			t.Error("asks the terminal although the theme is set")
		}
		a.Update(tea.BackgroundColorMsg{Color: color.Black})
		if a.th.Name != "light" {
			t.Errorf("theme %q", a.th.Name)
		}
	})
}
