// Command ansihtml turns a terminal capture with SGR colours (tmux
// capture-pane -e -p) into an HTML page that shows it as the terminal did,
// for the README's screenshot (scripts/screenshot.sh). It reads standard
// input and writes the page to standard output.
//
//	ansihtml [-cols 120] [-rows 36] [-bg '#ffffff'] [-fg '#1f2328'] < capture > page.html
package main

import (
	"bufio"
	"flag"
	"fmt"
	"html"
	"io"
	"os"
	"strconv"
	"strings"
)

// style is the SGR state of a cell.
type style struct {
	fg, bg                      string
	bold, dim, ital, under, rev bool
}

func (s style) css(defFG, defBG string) string {
	fg, bg := s.fg, s.bg
	if s.rev {
		if fg == "" {
			fg = defFG
		}
		if bg == "" {
			bg = defBG
		}
		fg, bg = bg, fg
	}
	var b strings.Builder
	if fg != "" {
		b.WriteString("color:" + fg + ";")
	}
	if bg != "" {
		b.WriteString("background:" + bg + ";")
	}
	if s.bold {
		b.WriteString("font-weight:bold;")
	}
	if s.dim {
		b.WriteString("opacity:.6;")
	}
	if s.ital {
		b.WriteString("font-style:italic;")
	}
	if s.under {
		b.WriteString("text-decoration:underline;")
	}
	return b.String()
}

// The xterm palette's first 16 colours.
var basic = []string{"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
	"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"}

func color256(n int) string {
	switch {
	case n < 16:
		return basic[n]
	case n < 232:
		n -= 16
		lv := []int{0, 95, 135, 175, 215, 255}
		return fmt.Sprintf("#%02x%02x%02x", lv[n/36], lv[n/6%6], lv[n%6])
	default:
		g := 8 + (n-232)*10
		return fmt.Sprintf("#%02x%02x%02x", g, g, g)
	}
}

// apply reads one SGR parameter list into s.
func (s *style) apply(params string) {
	if params == "" {
		params = "0"
	}
	p := strings.Split(strings.ReplaceAll(params, ":", ";"), ";")
	num := func(i int) int { n, _ := strconv.Atoi(p[i]); return n }
	for i := 0; i < len(p); i++ {
		switch n := num(i); {
		case n == 0:
			*s = style{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.dim = true
		case n == 3:
			s.ital = true
		case n == 4:
			s.under = true
		case n == 7:
			s.rev = true
		case n == 22:
			s.bold, s.dim = false, false
		case n == 23:
			s.ital = false
		case n == 24:
			s.under = false
		case n == 27:
			s.rev = false
		case n >= 30 && n <= 37:
			s.fg = basic[n-30]
		case n >= 90 && n <= 97:
			s.fg = basic[n-90+8]
		case n >= 40 && n <= 47:
			s.bg = basic[n-40]
		case n >= 100 && n <= 107:
			s.bg = basic[n-100+8]
		case n == 39:
			s.fg = ""
		case n == 49:
			s.bg = ""
		case (n == 38 || n == 48) && i+1 < len(p):
			var c string
			switch num(i + 1) {
			case 5:
				if i+2 < len(p) {
					c = color256(num(i + 2))
				}
				i += 2
			case 2:
				if i+4 < len(p) {
					c = fmt.Sprintf("#%02x%02x%02x", num(i+2), num(i+3), num(i+4))
				}
				i += 4
			}
			if n == 38 {
				s.fg = c
			} else {
				s.bg = c
			}
		}
	}
}

func main() {
	cols := flag.Int("cols", 120, "terminal width")
	rows := flag.Int("rows", 36, "terminal height")
	bg := flag.String("bg", "#ffffff", "default background")
	fg := flag.String("fg", "#1f2328", "default foreground")
	flag.Parse()
	in, err := io.ReadAll(bufio.NewReader(os.Stdin))
	if err != nil {
		fmt.Fprintln(os.Stderr, "ansihtml:", err)
		os.Exit(1)
	}
	var out strings.Builder
	var cur style
	open := false
	text := string(in)
	for i := 0; i < len(text); {
		if text[i] == 0x1b && i+1 < len(text) && text[i+1] == '[' {
			j := i + 2
			for j < len(text) && (text[j] < 0x40 || text[j] > 0x7e) {
				j++
			}
			if j < len(text) && text[j] == 'm' {
				cur.apply(text[i+2 : j])
				if open {
					out.WriteString("</span>")
				}
				out.WriteString(`<span style="` + cur.css(*fg, *bg) + `">`)
				open = true
			}
			i = j + 1
			continue
		}
		if text[i] == 0x1b { // another escape: drop it and its final byte
			i += 2
			continue
		}
		j := i
		for j < len(text) && text[j] != 0x1b {
			j++
		}
		out.WriteString(html.EscapeString(text[i:j]))
		i = j
	}
	if open {
		out.WriteString("</span>")
	}
	fmt.Printf(`<!doctype html><meta charset="utf-8"><style>
body{margin:0;background:%[3]s}
pre{margin:0;padding:12px 14px;font:15px/1.25 "DejaVu Sans Mono",monospace;color:%[4]s;background:%[3]s;
width:%[1]dch;height:calc(%[2]d * 1.25em);overflow:hidden;white-space:pre}
</style><pre>%[5]s</pre>
`, *cols, *rows, *bg, *fg, strings.TrimRight(out.String(), "\n"))
}
