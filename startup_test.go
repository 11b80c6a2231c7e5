package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/quick"
	"github.com/alecthomas/chroma/v2/styles"
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
