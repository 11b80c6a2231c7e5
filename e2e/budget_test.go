package e2e

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// co run against llama-server's imitation (llmtest's llamacpp profile):
// with its whole tool set co's request is over a 2,048-token window (the
// server would answer 400 "exceeds the available context size"); co learns
// the window from /props, sends only the shell and file tools and a compact
// prompt, says so, and the answer comes. co status names the window and its
// source.
func TestRunOnASmallLlamaCppWindow(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileLlamaCpp)

	// The figures: co's fixed part with everything it sends by default, on a
	// window large enough for it.
	srv.SetLlamaContext(32768)
	srv.Script(llmtest.Reply{Text: "big"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "run", "hi")
	if code != 0 || out != "big\n" {
		t.Fatalf("32k window: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	full := srv.Requests()[0]
	t.Logf("co's request for \"hi\" with every default tool: %d tokens (chars/4), %d tools", llmtest.PromptTokens(full), len(full.Body.Tools))

	srv.SetLlamaContext(2048)
	srv.Script(llmtest.Reply{Text: "small"})
	out, errOut, code = runCo(t, t.TempDir(), env(t, srv), "", "run", "hi")
	if code != 0 || out != "small\n" {
		t.Fatalf("2k window: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "context window is small (2048 tokens)") {
		t.Errorf("no notice of what co left out; stderr %q", errOut)
	}
	small := srv.Requests()[1]
	if n := llmtest.PromptTokens(small); n >= 2048 || len(small.Body.Tools) >= len(full.Body.Tools) {
		t.Fatalf("sent %d tokens, %d tools on a 2048 window", n, len(small.Body.Tools))
	}
	for _, tool := range small.Body.Tools {
		if name := tool.Function.Name; name != "run_shell_command" && !strings.Contains(name, "file") && name != "list_directory" {
			t.Errorf("sent %s on a small window", name)
		}
	}
	t.Logf("on a 2048-token window: %d tokens, %d tools", llmtest.PromptTokens(small), len(small.Body.Tools))

	out, _, code = runCo(t, t.TempDir(), env(t, srv), "", "status")
	if code != 0 || !strings.Contains(out, "2048 tokens (from llama.cpp /props n_ctx)") {
		t.Fatalf("co status: exit %d\n%s", code, out)
	}
}
