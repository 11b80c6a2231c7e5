package e2e

import (
	"strings"
	"syscall"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// sameIDRules answer "write it" with a write_file call and "list files"
// with a shell call, both named call_0: a server that numbers its calls
// per response (co's own numbering for a server that sends no id did the
// same) repeats ids across the turns of one session.
func sameIDRules(srv *llmtest.Server) {
	srv.Rules(
		llmtest.Reply{Match: "write it", ToolCalls: []llmtest.ToolCall{{ID: "call_0", Name: "write_file", Args: `{"path":"hello.txt","content":"hi\n"}`}}},
		llmtest.Reply{Match: "write it", Text: "Not written then."},
		llmtest.Reply{Match: "list files", ToolCalls: []llmtest.ToolCall{{ID: "call_0", Name: "run_shell_command", Args: `{"cmd":"echo listing-$((6*7))"}`}}},
		llmtest.Reply{Match: "list files", Text: "Listed."},
	)
}

// A resumed session shows each call with its own outcome when two turns'
// calls share an id: a denied write_file stayed "✓" with the later shell
// command's output under it, and --plain put the later approval before
// the earlier denial.
func TestResumeShowsEachCallsOwnOutcomeWhenIDsRepeat(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	sameIDRules(srv)
	dir := t.TempDir()
	e := env(t, srv)
	out, _, code := runCo(t, dir, e, "write it\nn\nlist files\ny\n", "--plain")
	if code != 0 || !strings.Contains(out, "listing-42") || !strings.Contains(out, "write_file denied") {
		t.Fatalf("the first session did not deny the write and run the command (exit %d):\n%s", code, out)
	}

	out, _, code = runCo(t, dir, e, "", "--continue", "--plain")
	if code != 0 {
		t.Fatalf("--continue exit %d:\n%s", code, out)
	}
	assertInOrder(t, out, []string{"co> write it", "approval: write_file denied", "result: write_file denied", "Not written then.",
		"co> list files", "approval: run_shell_command approved once", "result: run_shell_command done", "listing-42", "Listed."})

	te := append([]string(nil), e...)
	for i, kv := range te {
		if strings.HasPrefix(kv, "TERM=") {
			te[i] = "TERM=xterm-256color"
		}
	}
	s := startTUI(t, dir, te, 100, 40, "--continue")
	shown := s.waitFor(tuiWait, "Resumed session")
	assertInOrder(t, shown, []string{"write it", "write_file(", "Not written then.", "list files", "run_shell_command(", "listing-42", "Listed."})
	for _, l := range strings.Split(shown, "\n") {
		if strings.Contains(l, "write_file(") && !strings.Contains(l, "denied") {
			t.Errorf("the denied write_file is not shown denied: %q\n%s", l, shown)
		}
	}
	if w := shown[strings.Index(shown, "write_file("):strings.Index(shown, "list files")]; strings.Contains(w, "listing-42") {
		t.Errorf("the write_file call shows the later command's output:\n%s", shown)
	}
}

// A call left without a result (co killed while it waited for approval)
// gets "Interrupted by the user." on resume even when an earlier turn's
// call had the same id; without it the provider gets a tool call with no
// answer and refuses every later turn.
func TestResumePatchesAnUnansweredCallWhoseIDRepeats(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	sameIDRules(srv)
	srv.SetDefault(llmtest.Reply{Echo: true})
	dir := t.TempDir()
	e := env(t, srv)
	p := start(t, dir, e, "--plain")
	p.send("list files")
	p.waitFor("Approve run_shell_command", tuiWait)
	p.send("y")
	p.waitFor("Listed.", tuiWait)
	p.send("write it")
	p.waitFor("Approve write_file", tuiWait)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait(tuiWait)

	out, errOut, code := runCo(t, dir, e, "go on\n", "--continue", "--plain")
	if code != 0 || !strings.Contains(out, "You said: go on") {
		t.Fatalf("the resumed turn failed (exit %d):\n%s%s", code, out, errOut)
	}
	validHistory(t, srv.Requests()[len(srv.Requests())-1])
}
