package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// Issue 40: a command given the workspace's path on the host (as the
// system prompt names it) failed in the Docker sandbox, where the
// workspace is /workspace, and the chat called it "rejected, sent back to
// the model"; the question never said where the command would run. Now a
// command that ran and exited non-zero is shown as failed with its exit
// code, its output says which path to use (for the model and the user
// alike), and the question says the workspace is /workspace there and
// what the host path it names is.
func TestTUISandboxHostPath(t *testing.T) {
	requireDocker(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(dir, "notes.txt")
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "cat "+host)}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c2", "touch "+filepath.Join(dir, "new.txt"))}},
		llmtest.Reply{Text: "All done."},
	)
	s := startTUI(t, dir, tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=docker"), 110, 45)
	s.ready()
	s.send("show my notes")
	scr := s.waitFor(2*time.Minute, "Approve run_shell_command?")
	// The question's lines, wrapped in its box, read as one text.
	flat := strings.Join(strings.Fields(strings.ReplaceAll(scr, "│", " ")), " ")
	for _, want := range []string{
		"Runs in the Docker sandbox, where the workspace is /workspace",
		"new.txt is /workspace/new.txt in the sandbox",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the question does not say %q:\n%s", want, scr)
		}
	}
	s.waitArmed()
	s.keys("n")
	scr = s.waitFor(tuiWait, "All done.")
	for _, bad := range []string{"rejected", "sent back to the model"} {
		if strings.Contains(scr, bad) {
			t.Errorf("a command that ran and exited 1 is shown as %q:\n%s", bad, scr)
		}
	}
	flat = strings.Join(strings.Fields(strings.ReplaceAll(scr, "│", " ")), " ")
	for _, want := range []string{"failed: the command exited with code 1", "notes.txt is /workspace/notes.txt there"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the failed cat does not show %q:\n%s", want, scr)
		}
	}
	// The model was told the path to use, with the command's own error.
	reqs := srv.Requests()
	res := reqs[1].ToolResults()
	if len(res) != 1 || !strings.Contains(res[0], "exited with code 1") || !strings.Contains(res[0], "No such file") ||
		!strings.Contains(res[0], host+" is /workspace/notes.txt there") || strings.Contains(res[0], "Fix the call") {
		t.Errorf("the model got %q", res)
	}
}
