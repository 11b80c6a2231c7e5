package main

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/quick"
	"github.com/alecthomas/chroma/v2/styles"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
)

// atInit is what chroma's registries held once every package of the binary
// had been initialised, before any test ran.
var atInit struct{ styles, lexers int }

func TestMain(m *testing.M) {
	atInit.styles = len(styles.Registry)
	atInit.lexers = len(lexers.GlobalLexerRegistry.Lexers)
	os.Exit(m.Run())
}

// third_party/chroma defers parsing chroma's embedded styles and lexers to
// their first use; done at init they cost every start, even `co version`,
// about 9 ms. Nothing in co may trigger them at init again.
func TestChromaRegistriesAreNotParsedAtInit(t *testing.T) {
	if atInit.styles != 0 {
		t.Errorf("%d chroma styles were parsed at init; want 0 (something calls styles.Get, Names or Register at init)", atInit.styles)
	}
	// Only the lexers written in Go register at init (there are 20).
	if atInit.lexers > 30 {
		t.Errorf("%d chroma lexers registered at init; want only the ~20 written in Go", atInit.lexers)
	}
	// Registering a style and using it (what glamour does for code
	// blocks) parses none of the embedded ones.
	own := chroma.MustNewStyle("co-first", chroma.StyleEntries{chroma.Keyword: "#00ff00"})
	styles.Register(own)
	if got := styles.Get("co-first"); got != own {
		t.Fatalf("Get of a registered style = %v", got)
	}
	if n := len(styles.Registry); n != 1 {
		t.Errorf("registering and using one style parsed the embedded ones (%d styles)", n)
	}
}

// The lazy registries answer exactly as the eager ones did.
func TestChromaLazyRegistriesAreComplete(t *testing.T) {
	// A style registered before first use (glamour registers "charm")
	// survives the load.
	mine := chroma.MustNewStyle("co-test", chroma.StyleEntries{chroma.Keyword: "#ff0000"})
	styles.Registry[mine.Name] = mine
	if got := styles.Get("co-test"); got != mine {
		t.Fatalf("a style registered before the first use was replaced by the load")
	}
	names := styles.Names()
	for _, want := range []string{"monokai", "swapoff", "github", "dracula", "co-test"} {
		if !slices.Contains(names, want) {
			t.Errorf("styles.Names() lacks %q (have %d)", want, len(names))
		}
	}
	if len(names) < 60 {
		t.Errorf("styles.Names() has %d styles, want the ~70 embedded ones", len(names))
	}
	if styles.Fallback == nil || styles.Fallback.Name != "swapoff" {
		t.Errorf("styles.Fallback = %v, want swapoff", styles.Fallback)
	}
	if got := styles.Get("no-such-style"); got != styles.Fallback {
		t.Errorf("Get of an unknown style = %v, want the fallback", got)
	}

	all := lexers.Names(false)
	if len(all) < 250 {
		t.Errorf("lexers.Names has %d lexers, want the ~260 embedded and Go ones", len(all))
	}
	for name, want := range map[string]string{
		"go": "Go", "python": "Python", "bash": "Bash", "json": "JSON",
		"phtml": "PHTML", "markdown": "markdown", "rust": "Rust", "mysql": "MySQL",
	} {
		l := lexers.Get(name)
		if l == nil || l.Config().Name != want {
			t.Errorf("lexers.Get(%q) = %v, want %s", name, l, want)
		}
	}
	if l := lexers.Match("main.go"); l == nil || l.Config().Name != "Go" {
		t.Errorf("lexers.Match(main.go) = %v, want Go", l)
	}
	// The analysers set by Go code on embedded lexers are in place.
	zone := "$ORIGIN example.com.\n@ IN SOA ns.example.com. admin.example.com. (1 2 3 4 5)\n"
	if l := lexers.Analyse(zone); l == nil || l.Config().Name != "dns" {
		t.Errorf("lexers.Analyse(zone file) = %v, want dns", l)
	}
	// PHTML's rules are built from the embedded PHP lexer.
	var b strings.Builder
	if err := quick.Highlight(&b, "<?php echo 1; ?>", "phtml", "terminal16m", "monokai"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\x1b[") || !strings.Contains(b.String(), "echo") {
		t.Errorf("highlighted PHTML has no colour: %q", b.String())
	}
}

// third_party/go-runewidth answers widths above U+02FF from its interval
// tables instead of filling a 2.2 MB table that then stays resident: the
// answers are the same, and the process's memory does not grow by it.
func TestRuneWidthWithoutTheBigTable(t *testing.T) {
	before := rssAnonKB(t)
	c := &runewidth.Condition{StrictEmojiNeutral: true}
	for r, want := range map[rune]int{
		'a': 1, 'é': 1, '─': 1, '│': 1, '❯': 1, '•': 1, '中': 2, '한': 2, 'ｱ': 1, 'Ａ': 2,
		'\u0301': 0, '\u200b': 0, '😀': 2, '🙂': 2, '⌚': 2, '\U0001F1E6': 1, '\x00': 0, '\u00ad': 0,
	} {
		if got := c.RuneWidth(r); got != want {
			t.Errorf("RuneWidth(%U) = %d, want %d", r, got, want)
		}
	}
	for r := rune(0x300); r < 0x30000; r += 7 {
		c.RuneWidth(r)
	}
	if grew := rssAnonKB(t) - before; grew > 1024 {
		t.Errorf("resident memory grew by %d KB measuring widths; the 2.2 MB table was built", grew)
	}
	if w := xansi.StringWidth("│ ❯ 中文 ─"); w != 10 {
		t.Errorf("ansi.StringWidth = %d, want 10", w)
	}
}

func rssAnonKB(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "RssAnon:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatal("no RssAnon in /proc/self/status")
	return 0
}
