package tui

import (
	"github.com/alecthomas/chroma/v2/lexers"
	"math/rand"
	"strings"
	"testing"

	xansi "github.com/charmbracelet/x/ansi"
)

var markdownSamples = map[string]string{
	"paragraphs":   "First paragraph with **bold** and `code`.\n\nSecond paragraph\nwith a soft break.\n\nThird.",
	"heading+list": "# Title\n\nIntro:\n- one\n- two\n\n- three (loose)\n\nAfter the list.\n\n1. first\n2. second\n\n   continued item\n3. third\n\nEnd.",
	"fences":       "Code:\n\n```go\nfunc main() {\n\n\tfmt.Println(\"hi\")\n\nfoo\n}\n```\n\nAfter.\n\n~~~\nplain\n\n~~~\n\nDone.",
	"unclosed":     "Text\n\n```python\nprint(1)\n\nprint(2)",
	"table":        "| a | b |\n|---|---|\n| 1 | 2 |\n\nBelow the table.",
	"quote+rule":   "> quoted\n> more\n\n---\n\nText after *rule*.\n\n    indented code\n\n    more indented\n\nEnd",
	"links":        "See [the docs](https://example.com/docs) and https://example.com/raw.\n\nNext.",
	"crlf-ish":     "a\n\n\n\nb\n \n\t\nc",
	"nested-fence": "- item\n\n  ```\n  code in item\n\n  more\n  ```\n- item 2\n\nPara.",
	"wide":         "日本語のテキストが続きます。日本語のテキストが続きます。日本語のテキストが続きます。\n\n" + strings.Repeat("x", 300),
}

func testMarkdown() *markdown {
	th := NewTheme("dark", false)
	return newMarkdown(th.Markdown)
}

// The property the streaming renderer rests on: however the text is cut
// into chunks, and whenever it is rendered on the way, the final render
// equals rendering the whole text at once.
func TestStreamingMarkdownEqualsFreshRender(t *testing.T) {
	md := testMarkdown()
	rng := rand.New(rand.NewSource(1))
	for name, text := range markdownSamples {
		t.Run(name, func(t *testing.T) {
			for _, width := range []int{40, 78} {
				want := strings.Join(renderMarkdown(md, text, width), "\n")
				for trial := 0; trial < 20; trial++ {
					var s mdStream
					for rest := text; rest != ""; {
						n := 1 + rng.Intn(12)
						if n > len(rest) {
							n = len(rest)
						}
						s.append(rest[:n])
						rest = rest[n:]
						if rng.Intn(3) == 0 {
							s.render(md, width, rng.Intn(8)) // render mid-stream, as frames do
						}
					}
					s.finish()
					if got := strings.Join(renderAll(&s, md, width), "\n"); got != want {
						t.Fatalf("width %d trial %d: incremental render differs\n got: %q\nwant: %q", width, trial, got, want)
					}
				}
			}
		})
	}
}

func renderAll(s *mdStream, md *markdown, width int) []string {
	lines, _, _ := s.render(md, width, 0)
	return lines
}

// Asked for its last lines only, a reply renders just the blocks those
// need, and what it returns is the end of the full render.
func TestPartialRenderIsASuffixOfTheFullRender(t *testing.T) {
	md := testMarkdown()
	text := strings.Repeat(markdownSamples["heading+list"]+"\n\n"+markdownSamples["fences"]+"\n\n", 6)
	var s mdStream
	s.append(text)
	s.finish()
	var fresh mdStream
	fresh.append(text)
	fresh.finish()
	full := renderAll(&fresh, md, 50)
	for _, need := range []int{1, 5, 20, 60, len(full) + 10} {
		got, widths, partial := s.render(md, 50, need)
		for i, l := range got {
			if widths[i] != xansi.StringWidth(l) {
				t.Fatalf("need %d: width of line %d is %d, kept %d", need, i, xansi.StringWidth(l), widths[i])
			}
		}
		if len(got) < min(need, len(full)) {
			t.Fatalf("need %d: got %d lines", need, len(got))
		}
		if strings.Join(full[len(full)-len(got):], "\n") != strings.Join(got, "\n") {
			t.Fatalf("need %d: not a suffix of the full render", need)
		}
		if partial != (len(got) < len(full)) {
			t.Fatalf("need %d: partial = %v with %d of %d lines", need, partial, len(got), len(full))
		}
	}
	rendered := 0
	var lazy mdStream
	lazy.append(text)
	lazy.finish()
	lazy.render(md, 50, 10)
	for _, b := range lazy.blocks {
		if b.r != nil {
			rendered++
		}
	}
	if rendered > 4 {
		t.Fatalf("rendered %d of %d blocks for 10 lines", rendered, len(lazy.blocks))
	}
}

// Block boundaries found in a prefix never move as text arrives.
func TestBlockSplitterIsPrefixStable(t *testing.T) {
	for name, text := range markdownSamples {
		var whole blockSplitter
		want := whole.scan(text, true)
		for cut := 0; cut <= len(text); cut++ {
			var s blockSplitter
			got := append(s.scan(text[:cut], false), s.scan(text, true)...)
			if len(got) != len(want) {
				t.Fatalf("%s: cut at %d gives boundaries %v, whole text %v", name, cut, got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: cut at %d gives boundaries %v, whole text %v", name, cut, got, want)
				}
			}
		}
	}
}

func TestBlockSplitterKeepsStructuresTogether(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // the blocks
	}{
		{"paragraphs", "a\n\nb\n\nc", []string{"a\n\n", "b\n\n", "c"}},
		{"fence with blank lines", "```\nx\n\ny\n```\n\nz", []string{"```\nx\n\ny\n```\n\n", "z"}},
		{"loose list", "- a\n\n- b\n\n  more b\n\nafter", []string{"- a\n\n- b\n\n  more b\n\n", "after"}},
		{"indented code", "p\n\n    code\n\n    more\n\nq", []string{"p\n\n    code\n\n    more\n\n", "q"}},
		{"unclosed fence", "```\na\n\nb", []string{"```\na\n\nb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s mdStream
			s.append(tt.text)
			s.finish()
			var got []string
			for _, b := range s.blocks {
				got = append(got, s.Source()[b.start:b.end])
			}
			got = append(got, s.Source()[s.tailFrom:s.tailEnd])
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("blocks %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMarkdownLinesFitAndCarryNoHyperlinks(t *testing.T) {
	md := testMarkdown()
	for name, text := range markdownSamples {
		for _, w := range []int{20, 50, 100} {
			for _, l := range renderMarkdown(md, text, w) {
				if xansi.StringWidth(l) > w {
					t.Errorf("%s at %d: line wider than the pane (%d): %q", name, w, xansi.StringWidth(l), l)
				}
				if strings.Contains(l, "\x1b]8;") || strings.Contains(l, "\x1b]") {
					t.Errorf("%s: rendered line carries an OSC sequence: %q", name, l)
				}
			}
		}
	}
}

func TestStripHyperlinks(t *testing.T) {
	in := "a\x1b]8;id=1;https://x\x1b\\link\x1b]8;;\x1b\\b\x1b]8;;http://y\x07c\x1b]8;;\x07"
	if got := stripHyperlinks(in); got != "alinkbc" {
		t.Fatalf("got %q", got)
	}
}

func TestTrimPadding(t *testing.T) {
	tests := map[string]string{
		"plain  ":                              "plain",
		"\x1b[1mbold\x1b[m\x1b[38;5;1m \x1b[m": "\x1b[1mbold\x1b[m", // closed once
		"   ":                                  "",
		"\x1b[38;5;252m \x1b[m":                "",
	}
	for in, want := range tests {
		if got := trimPadding(in); got != want {
			t.Errorf("trimPadding(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzStreamingMarkdown(f *testing.F) {
	for _, s := range markdownSamples {
		f.Add(s, uint8(3))
	}
	f.Add("```\n\n```\n\n- a\n\n1) b\n\n+ c\n\n*\n\n", uint8(1))
	md := testMarkdown()
	f.Fuzz(func(t *testing.T, text string, chunk uint8) {
		if len(text) > 2000 {
			return
		}
		n := int(chunk%16) + 1
		var s mdStream
		for i := 0; i < len(text); i += n {
			s.append(text[i:min(i+n, len(text))])
			if i%(3*n) == 0 {
				s.render(md, 40, i%7)
			}
		}
		s.finish()
		got := strings.Join(renderAll(&s, md, 40), "\n")
		want := strings.Join(renderMarkdown(md, text, 40), "\n")
		if got != want {
			t.Fatalf("incremental %q\nfresh %q", got, want)
		}
	})
}

// The background warm-up of the highlighter runs while the chat renders
// code blocks; chroma's lazily built state must stand that (-race).
func TestWarmingTheHighlighterWhileRendering(t *testing.T) {
	md := newMarkdown(NewTheme("dark", false).Markdown)
	done := make(chan struct{})
	go func() { warmChroma(); close(done) }()
	for i := 0; i < 5; i++ {
		lines := renderMarkdown(md, "```go\nfunc main() { println(\"hi\") }\n```\n\n```python\nprint('x')\n```", 60)
		if !strings.Contains(strings.Join(lines, "\n"), "println") {
			t.Fatalf("code block not rendered: %q", lines)
		}
	}
	<-done
	if len(lexers.Names(false)) < 200 {
		t.Fatal("warming did not load chroma's lexers")
	}
}
