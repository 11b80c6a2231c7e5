package tui

import (
	"strings"
	"testing"
	"time"

	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// Issue 40: a command's long output was cut mid-word at the panel's edge
// ("No such file or direc" / "tory"). It wraps at spaces; a token wider
// than the panel (a path, a URL) is still cut, after a slash where it has
// one; nothing is lost.
func TestToolOutputWrapsAtWords(t *testing.T) {
	th := NewTheme("dark", false)
	rc := &renderCtx{th: &th, collapseLines: 100}
	long := "/workspace/" + strings.Repeat("very-long-directory-name/", 4) + "file.txt"
	display := "cat: /tmp/TestTUISandboxHostPath2100360029/001/notes.txt: No such file or directory\n" +
		"  indented line that goes on and on past the edge of the panel with many words\n" + long
	e := newToolEntry(agent.ToolCallStarted{CallID: "c", Name: "run_shell_command", Args: `{"cmd":"cat x"}`}, time.Time{})
	e.finish(agent.ToolCallFinished{CallID: "c", Status: message.CallDone, Result: tools.Result{Display: display}})
	const width = 70
	var body []string
	for _, l := range e.render(width, rc)[1:] {
		plain := xansi.Strip(l)
		if xansi.StringWidth(plain) > width {
			t.Errorf("line wider than %d: %q", width, plain)
		}
		body = append(body, strings.TrimPrefix(plain, "  │ "))
	}
	words := strings.Fields(strings.Join(body, " "))
	for _, w := range strings.Fields(display[:strings.LastIndexByte(display, '\n')]) {
		found := false
		for _, got := range words {
			found = found || got == w
		}
		if !found {
			t.Errorf("%q is not whole on one line:\n%s", w, strings.Join(body, "\n"))
		}
	}
	at := len(body) - 1
	for at > 0 && !strings.HasPrefix(body[at], "/workspace/") {
		at--
	}
	if got := strings.Join(body[at:], ""); got != long || len(body[at:]) < 2 {
		t.Errorf("the long path, cut to fit, reads %q, want %q", body[at:], long)
	}
	for _, piece := range body[at : len(body)-1] {
		if !strings.HasSuffix(piece, "/") {
			t.Errorf("a long path is cut after a slash: %q", body[at:])
		}
	}
}

// Wrapping looks at a window of a long line; where that window is too
// narrow to fill a line (zero-width marks), it looks at the whole line, so
// the result is the same: every line fits and nothing is lost.
func TestWrapWordsLongLines(t *testing.T) {
	for name, l := range map[string]string{
		"one long token": strings.Repeat(`{"k":"v"},`, 2000),
		"many words":     strings.Repeat("lorem ipsum dolor ", 2000),
		"zero-width":     strings.Repeat("e"+strings.Repeat("\u0301", 200), 100),
		"wide runes":     strings.Repeat("漢字かな ", 500),
	} {
		t.Run(name, func(t *testing.T) {
			lines := wrapWords(l, 40)
			for _, w := range lines {
				if xansi.StringWidth(w) > 40 {
					t.Fatalf("line of %d columns: %q", xansi.StringWidth(w), w)
				}
			}
			if strings.ReplaceAll(strings.Join(lines, ""), " ", "") != strings.ReplaceAll(l, " ", "") {
				t.Fatal("text lost or changed")
			}
		})
	}
}
