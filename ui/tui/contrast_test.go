package tui

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
	"testing"

	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/agent"
)

// themeBackgrounds are the terminal backgrounds each theme is for: a
// plain one and a common tinted one.
var themeBackgrounds = map[string][]color.Color{
	"light": {color.RGBA{0xFF, 0xFF, 0xFF, 0xFF}, color.RGBA{0xFA, 0xFA, 0xFA, 0xFF}},
	"dark":  {color.RGBA{0x00, 0x00, 0x00, 0xFF}, color.RGBA{0x1E, 0x1E, 0x1E, 0xFF}, color.RGBA{0x28, 0x2C, 0x34, 0xFF}},
}

// minCodeContrast is WCAG's AA level for normal text.
const minCodeContrast = 4.5

var codeSamples = []string{
	"```go\n// Package main says hello.\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n\tx := 42 + len(\"s\\n\")\n\tif x > 1 && true {\n\t\tfmt.Println(x, nil)\n\t}\n}\n```\n",
	"```python\nclass A(object):\n    @staticmethod\n    def f(x=1.5):  # note\n        raise ValueError('no')\n```\n",
	"```diff\n--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n```\n",
	"```\nplain code without a language\n```\n",
	"Some `inline code` in a line.\n",
}

// Code must be readable on the background its theme is for: every glyph
// of a code block (and of inline code) has a contrast of at least 4.5:1
// against the terminal's background, or against the background the style
// sets itself.
func TestCodeContrast(t *testing.T) {
	for _, name := range []string{"light", "dark"} {
		th := NewTheme(name, false)
		md := newMarkdown(th.Markdown)
		for _, src := range codeSamples {
			lines, _ := md.block(src, 70)
			for _, bg := range themeBackgrounds[name] {
				for _, l := range lines {
					for _, run := range sgrRuns(l) {
						if strings.TrimSpace(strings.ReplaceAll(run.text, "\u00a0", " ")) == "" {
							continue
						}
						b := bg
						if run.bg != nil {
							b = run.bg
						}
						fg := run.fg
						if fg == nil {
							continue // the terminal's own foreground
						}
						if c := contrast(fg, b); c < minCodeContrast {
							t.Errorf("%s theme: %q drawn %s on %s: contrast %.2f < %.1f", name, run.text, hex(fg), hex(b), c, minCodeContrast)
						}
					}
				}
			}
		}
	}
}

type sgrRun struct {
	text   string
	fg, bg color.Color
}

// sgrRuns splits a rendered line into runs of text with their colours.
func sgrRuns(s string) []sgrRun {
	var out []sgrRun
	var fg, bg color.Color
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, sgrRun{text: cur.String(), fg: fg, bg: bg})
			cur.Reset()
		}
	}
	for len(s) > 0 {
		if strings.HasPrefix(s, "\x1b[") {
			end := strings.IndexByte(s, 'm')
			if end < 0 {
				break
			}
			flush()
			params := strings.Split(s[2:end], ";")
			s = s[end+1:]
			for i := 0; i < len(params); i++ {
				n, _ := strconv.Atoi(params[i])
				switch {
				case params[i] == "" || n == 0:
					fg, bg = nil, nil
				case n == 39:
					fg = nil
				case n == 49:
					bg = nil
				case n >= 30 && n <= 37 || n >= 90 && n <= 97:
					fg = xansi.IndexedColor(ansiIndex(n, 30, 90))
				case n >= 40 && n <= 47 || n >= 100 && n <= 107:
					bg = xansi.IndexedColor(ansiIndex(n, 40, 100))
				case n == 38 || n == 48:
					var c color.Color
					if i+1 < len(params) && params[i+1] == "5" && i+2 < len(params) {
						k, _ := strconv.Atoi(params[i+2])
						c = xansi.IndexedColor(k)
						i += 2
					} else if i+1 < len(params) && params[i+1] == "2" && i+4 < len(params) {
						r, _ := strconv.Atoi(params[i+2])
						g, _ := strconv.Atoi(params[i+3])
						b, _ := strconv.Atoi(params[i+4])
						c = color.RGBA{uint8(r), uint8(g), uint8(b), 0xFF}
						i += 4
					}
					if n == 38 {
						fg = c
					} else {
						bg = c
					}
				}
			}
			continue
		}
		cur.WriteByte(s[0])
		s = s[1:]
	}
	flush()
	return out
}

func ansiIndex(n, base, bright int) int {
	if n >= bright {
		return n - bright + 8
	}
	return n - base
}

func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xFFFF
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func hex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// The golden chat views' code block (go.mod) is readable on the background
// of each theme: the same check over the frame the goldens hold.
func TestGoldenCodeContrast(t *testing.T) {
	for _, name := range goldenThemes {
		a := goldenApp(t, name, 80, agent.Config{})
		fillTranscript(a)
		a.Update(windowSize(80, 34))
		a.chat.Top()
		found := 0
		for _, l := range strings.Split(a.View().Content, "\n") {
			plain := xansi.Strip(l)
			if !strings.Contains(plain, "module example.com/demo") && !strings.Contains(plain, "go 1.26") {
				continue
			}
			found++
			for _, run := range sgrRuns(l) {
				if run.fg == nil || strings.TrimSpace(run.text) == "" || strings.ContainsAny(run.text, "│─") {
					continue
				}
				for _, bg := range themeBackgrounds[name] {
					b := bg
					if run.bg != nil {
						b = run.bg
					}
					if c := contrast(run.fg, b); c < minCodeContrast {
						t.Errorf("%s golden: %q drawn %s on %s: contrast %.2f", name, run.text, hex(run.fg), hex(b), c)
					}
				}
			}
		}
		if found != 2 {
			t.Fatalf("%s: the code block's lines not found in the view (%d)", name, found)
		}
	}
}
