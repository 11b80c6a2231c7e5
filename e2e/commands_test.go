package e2e

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// `co chat` is the design's name for the chat: it starts it as bare co does.
func TestChatSubcommandStartsTheChat(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "chat reply"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "hi\n", "chat", "--plain")
	if code != 0 || !strings.Contains(out, "chat reply") {
		t.Fatalf("co chat: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// `co completion SHELL` prints a completion script for that shell; another
// shell is a usage error.
func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{"bash": "complete -o default -F __start_co co", "zsh": "#compdef co", "fish": "complete -c co"} {
		out, errOut, code := runCo(t, t.TempDir(), env(t, nil), "", "completion", shell)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("co completion %s: exit %d, stdout lacks %q\nstderr:\n%s", shell, code, want, errOut)
		}
	}
	if _, _, code := runCo(t, t.TempDir(), env(t, nil), "", "completion", "tcsh"); code != 2 {
		t.Errorf("co completion tcsh: exit %d, want 2", code)
	}
}
