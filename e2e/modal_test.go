package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// longModalCommand is one harmless command wider than the modal, with
// hyphenated paths (each narrower than the modal at 80 columns) and six
// programs that are not on the safe list, so six reasons to ask.
const longModalCommand = "mkdir -p out-dir/sub-directory-with-hyphens && " +
	"touch out-dir/sub-directory-with-hyphens/approved-by-the-user.txt && " +
	"cp out-dir/sub-directory-with-hyphens/approved-by-the-user.txt out-dir/copy-of-the-approved-file.txt && " +
	"echo finished-the-long-command > out-dir/the-last-step-was-reached.txt && " +
	"chmod 644 out-dir/copy-of-the-approved-file.txt && " +
	"rm -f out-dir/nothing-to-remove-here.txt"

// modalBox is the approval modal on screen as the user reads it: the rows
// between its borders, without the border and the padding.
func modalBox(t *testing.T, scr string) []string {
	t.Helper()
	rows := strings.Split(scr, "\n")
	top := -1
	for i, r := range rows {
		if strings.Contains(r, "│ Approve ") && i > 0 && strings.Contains(rows[i-1], "╭") {
			top = i
		}
	}
	if top < 0 {
		t.Fatalf("no approval modal on screen:\n%s", scr)
	}
	var out []string
	for _, r := range rows[top:] {
		if strings.Contains(r, "╰") {
			break
		}
		i, j := strings.Index(r, "│"), strings.LastIndex(r, "│")
		if i < 0 || j <= i {
			t.Fatalf("a modal row without its border: %q\n%s", r, scr)
		}
		out = append(out, strings.TrimSpace(r[i+len("│"):j]))
	}
	return out
}

// TestTUIApprovalModalAsAUserReadsIt: at 80×24, a long command shows once
// ("$ " once, "↪ " on the lines wrapped to fit), its hyphenated paths whole;
// every reason can be scrolled to; the keys are not cut; at 120×40 the same
// command fits on fewer lines; a write and a memory save show their
// content once.
func TestTUIApprovalModalAsAUserReadsIt(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	content := "first line of the note\nthe-unique-content-line-of-the-file\n"
	memory := "The user keeps the-unique-memory-text in mind."
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", longModalCommand)}},
		llmtest.Reply{Text: "Ran it."},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{localCall("c2", "write_file", map[string]any{"path": "notes/a-long-file-name.txt", "content": content})}},
		llmtest.Reply{Text: "Not written."},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{localCall("c3", "save_memory", map[string]any{"content": memory})}},
		llmtest.Reply{Text: "Not saved."},
	)
	s := startTUI(t, dir, tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess"), 80, 24)
	s.ready()
	s.send("run the long one")
	scr := s.waitFor(tuiWait, "Approve run_shell_command?", "Why it asks:")

	box := modalBox(t, scr)
	text := strings.Join(box, "\n")
	var words []string
	dollars, wraps := 0, 0
	for _, l := range box {
		switch {
		case strings.HasPrefix(l, "$ "):
			dollars++
			words = append(words, strings.Fields(l[2:])...)
		case strings.HasPrefix(l, "↪ "):
			wraps++
			words = append(words, strings.Fields(strings.TrimPrefix(l, "↪ "))...)
		}
	}
	if dollars != 1 || wraps == 0 {
		t.Fatalf("want the command once: one \"$ \" line and \"↪ \" lines, got %d and %d:\n%s", dollars, wraps, text)
	}
	if got := strings.Join(words, " "); got != longModalCommand {
		t.Fatalf("the command as shown:\n%s\nwant every word whole:\n%s", got, longModalCommand)
	}
	if strings.Contains(text, "…") {
		t.Errorf("something in the modal is cut:\n%s", text)
	}
	for _, want := range []string{"y approve once", "n/esc deny", "a approve for the session", "ctrl+c cancel turn", "Why it asks:"} {
		if !strings.Contains(text, want) {
			t.Errorf("the modal lacks %q:\n%s", want, text)
		}
	}

	// Every reason, scrolling to the end.
	reasons := map[string]bool{"mkdir": false, "touch": false, "cp": false, "chmod": false, "rm": false, "redirection": false}
	for range 40 {
		scr = s.screen()
		flat := strings.Join(strings.Fields(strings.Join(modalBox(t, scr), " ")), " ")
		if i := strings.Index(flat, "Why it asks:"); i >= 0 {
			for r := range reasons {
				if strings.Contains(flat[i:], r+" is not on the safe list") || (r == "redirection" && strings.Contains(flat[i:], "redirection to a file")) {
					reasons[r] = true
				}
			}
		}
		if !strings.Contains(scr, "more below") {
			break
		}
		s.keys("Down")
		screenAfter(s, scr)
	}
	for r, seen := range reasons {
		if !seen {
			t.Errorf("the reason for %s was never on screen; last screen:\n%s", r, scr)
		}
	}

	// Wider, the same command takes fewer lines and still reads as one.
	s.resize(120, 40)
	scr = s.waitFor(tuiWait, "Approve run_shell_command?")
	deadline := time.Now().Add(tuiWait)
	for strings.Count(strings.Join(modalBox(t, scr), "\n"), "↪ ") >= wraps {
		if time.Now().After(deadline) {
			t.Fatalf("at 120 columns the command takes as many lines as at 80:\n%s", scr)
		}
		time.Sleep(20 * time.Millisecond)
		scr = s.screen()
	}
	if n := strings.Count(scr, "$ "); n != 1 {
		t.Fatalf("at 120 columns \"$ \" shows %d times:\n%s", n, scr)
	}
	s.waitArmed()
	s.keys("y")
	s.waitFor(tuiWait, "Ran it.")
	if b, err := os.ReadFile(filepath.Join(dir, "out-dir", "the-last-step-was-reached.txt")); err != nil || string(b) != "finished-the-long-command\n" {
		t.Fatalf("the approved command did not run whole: %q %v", b, err)
	}

	// A write: the content once (in the diff), not again as an argument.
	s.resize(80, 24)
	s.send("write the note")
	scr = s.waitFor(tuiWait, "Approve write_file?", "+the-unique-content-line-of-the-file")
	text = strings.Join(modalBox(t, scr), "\n")
	if n := strings.Count(text, "the-unique-content-line-of-the-file"); n != 1 || strings.Contains(text, "Arguments:") {
		t.Fatalf("the content shows %d times (want once, in the preview):\n%s", n, text)
	}
	s.waitArmed()
	s.keys("n")
	s.waitFor(tuiWait, "Not written.")

	// A memory save: its text once.
	s.send("remember it")
	scr = s.waitFor(tuiWait, "Approve save_memory?", "the-unique-memory-text")
	text = strings.Join(modalBox(t, scr), "\n")
	if n := strings.Count(text, "the-unique-memory-text"); n != 1 || strings.Contains(text, "Arguments:") {
		t.Fatalf("the memory shows %d times (want once, in the preview):\n%s", n, text)
	}
	s.waitArmed()
	s.keys("n")
	s.waitFor(tuiWait, "Not saved.")
}

// screenAfter waits until the screen differs from prev and returns it.
func screenAfter(s *tuiSession, prev string) string {
	s.t.Helper()
	deadline := time.Now().Add(tuiWait)
	for {
		if scr := s.screen(); scr != prev {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen did not change:\n%s", prev)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPlainShowsALongCommandOnce: --plain prints a long command whole once,
// on its question, not also as the "tool:" line and as a preview; a command
// of several lines is printed as its lines once and the question points to
// it; a long call that runs without a question is printed whole once, when
// it ends.
func TestPlainShowsALongCommandOnce(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	multi := "mkdir -p multi-line-dir\ntouch multi-line-dir/the-second-line-ran.txt"
	// read_file runs without a question: its cut tool: line is followed,
	// when it ends, by the whole call.
	longPath := strings.Repeat("a-directory-with-a-long-name/", 4) + "the-file-at-the-end-of-the-long-path.txt"
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, longPath)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, longPath), []byte("the file's text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", longModalCommand)}},
		llmtest.Reply{Text: "Ran it."},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c2", multi)}},
		llmtest.Reply{Text: "Ran both lines."},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{localCall("c3", "read_file", map[string]any{"path": longPath})}},
		llmtest.Reply{Text: "Read it."},
	)
	out, _, code := runCo(t, dir, unsandboxed(t, srv), "run the long one\ny\nand the other\ny\nread the file\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if n := strings.Count(out, longModalCommand); n != 1 {
		t.Fatalf("the long command is printed whole %d times, want once:\n%s", n, out)
	}
	// Nor is it cut on the tool: line first (the same command twice, once
	// cut with …): the tool's name only, then the question.
	if !strings.Contains(out, "tool: run_shell_command\n") || strings.Contains(out, "tool: run_shell_command(cmd='mkdir -p out-dir") {
		t.Fatalf("the long command is on the tool: line as well as on its question:\n%s", out)
	}
	if !strings.Contains(out, "tool: read_file\n") || strings.Contains(out, "tool: read_file(path=") {
		t.Fatalf("a long call's tool: line is not the tool's name only:\n%s", out)
	}
	if !strings.Contains(out, "Approve run_shell_command(cmd='"+longModalCommand+"')? [y/n/a] y") {
		t.Fatalf("the question does not show the command:\n%s", out)
	}
	if !strings.Contains(out, "\n  mkdir -p multi-line-dir\n  touch multi-line-dir/the-second-line-ran.txt\nApprove run_shell_command(cmd=(shown above))? [y/n/a] y") {
		t.Fatalf("the command of two lines is not printed once before its question:\n%s", out)
	}
	// Short, it is also the "tool:" line's (as "ls -la" is); the question
	// does not print it again.
	if n := strings.Count(out, "touch multi-line-dir/the-second-line-ran.txt"); n != 2 || !strings.Contains(out, "tool: run_shell_command(cmd='mkdir -p multi-line-dir⏎touch") {
		t.Fatalf("the second line of the command is printed %d times, want twice (the tool: line, the question):\n%s", n, out)
	}
	if n := strings.Count(out, longPath); n != 1 || !strings.Contains(out, "\ncall: read_file(path='"+longPath+"')\nresult: read_file done") {
		t.Fatalf("a long call that runs without a question is printed whole %d times (want once, before its result):\n%s", n, out)
	}
	if !exists(dir, "out-dir/the-last-step-was-reached.txt") || !exists(dir, "multi-line-dir/the-second-line-ran.txt") {
		t.Fatalf("the approved commands did not run:\n%s", out)
	}
}

// TestTUIMCPApprovalShowsTheArgumentsOnce: the reference MCP server's echo
// asks at 80×24 with its arguments once (the preview, as sent to the
// server), not again under "Arguments".
func TestTUIMCPApprovalShowsTheArgumentsOnce(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "m1", Name: "mcp__everything__echo", Args: `{"message":"the-unique-mcp-message"}`}}},
		llmtest.Reply{Text: "Echoed."},
	)
	e := tuiEnv(t, srv)
	mcpSettings(t, e, everythingJSON(t))
	s := startTUI(t, t.TempDir(), e, 80, 24)
	s.ready()
	s.send("echo it")
	scr := s.waitFor(tuiWait, "Approve mcp__everything__echo?", "server: everything")
	text := strings.Join(modalBox(t, scr), "\n")
	if n := strings.Count(text, "the-unique-mcp-message"); n != 1 || strings.Contains(text, "Arguments:") {
		t.Fatalf("the message shows %d times (want once, in the preview):\n%s", n, text)
	}
	for _, want := range []string{"a approves for this session: echo on MCP server everything", "(every argument is in the preview above)", "ctrl+c cancel turn"} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
			t.Errorf("the modal lacks %q:\n%s", want, text)
		}
	}
	s.waitArmed()
	s.keys("y")
	s.waitFor(tuiWait, "Echoed.")
}

// In a 40×12 terminal the approval modal fits: it gave the body at least
// four rows whatever the height, so its last key hint (ctrl+c cancel
// turn) and its bottom border were below the screen. Now it drops its
// blank lines and shows fewer rows of the command, with the line that
// says how to scroll.
func TestTUIApprovalModalFitsATinyTerminal(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 40, 12)
	s.ready()
	s.send("!" + longModalCommand)
	scr := s.waitFor(tuiWait, "Approve run_shell_command?", "cancel turn", "scroll")
	rows := strings.Split(scr, "\n")
	top, bottom := -1, -1
	for i, r := range rows {
		switch {
		case strings.Contains(r, "│ Approve "):
			top = i
		case top >= 0 && bottom < 0 && strings.Contains(r, "╰") && strings.Contains(r, "╯"):
			bottom = i
		}
	}
	if top < 0 || bottom < 0 {
		t.Fatalf("the modal is not whole on the screen:\n%s", scr)
	}
	modalBox(t, scr) // every row between has both borders
	s.waitArmed()
	s.keys("n")
	s.waitFor(tuiWait, "denied")
}
