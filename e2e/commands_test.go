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
