package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// Issue 40: a command's long output was cut mid-word at the edge of its
// panel. It wraps at spaces, as the user reads it: every word of the
// output is whole on the screen.
func TestTUIToolOutputWrapsAtWords(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	// The output's words (alphabetical2 … alphabetical20) are not in the
	// command, which the call's title shows.
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "seq -s ' alphabetical' 1 20")}},
		llmtest.Reply{Text: "Counted."},
	)
	s := startTUI(t, dir, tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess"), 100, 40)
	s.ready()
	s.send("count")
	s.waitFor(tuiWait, "Approve run_shell_command?") // unsandboxed, every command asks
	s.waitArmed()
	s.keys("y")
	scr := s.waitFor(tuiWait, "Counted.")
	words := map[string]bool{}
	for _, w := range strings.Fields(strings.ReplaceAll(scr, "│", " ")) {
		words[w] = true
	}
	for i := 2; i <= 20; i++ {
		if w := fmt.Sprint("alphabetical", i); !words[w] {
			t.Errorf("%s is not whole on the screen:\n%s", w, scr)
		}
	}
}
