package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// The chat's /undo and /rewind through the built co (issue 41), with the
// unsandboxed shell (the engine's tests cover the Docker sandbox).

func writeFileCall(id, path, content string) llmtest.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return llmtest.ToolCall{ID: id, Name: "write_file", Args: string(args)}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sentText is everything a request sent the model, as it went.
func sentText(r llmtest.Request) string { return string(r.Raw) }

const undoPrompt = "rewrite notes please"

// startUndoTurn runs, in the full screen, one turn that writes notes.txt
// through write_file and creates made.txt through the shell, both without
// asking (/yolo, allowed unsandboxed), and waits for its reply.
func startUndoTurn(t *testing.T, srv *llmtest.Server, dir string, te []string) *tuiSession {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{writeFileCall("c1", "notes.txt", "after\n")}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c2", "echo made > made.txt")}},
		llmtest.Reply{Text: "Rewrote the notes zebra."},
	)
	s := startTUI(t, dir, te, 110, 40)
	s.ready()
	s.send("/yolo")
	s.waitFor(tuiWait, "yolo on")
	s.send(undoPrompt)
	s.waitFor(tuiWait, "Rewrote the notes zebra.")
	if got := readFile(t, dir, "notes.txt"); got != "after\n" {
		t.Fatalf("the turn did not write notes.txt: %q", got)
	}
	if !fileExists(dir, "made.txt") {
		t.Fatal("the turn's shell command made no made.txt")
	}
	return s
}

// /undo takes back the last turn's files (write_file and shell alike) and
// its place in the conversation, and puts its prompt back in the input:
// Enter sends it again, and that request holds nothing of the turn.
func TestTUIUndoRestoresFilesAndPutsThePromptBack(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	te := tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess", "CO_CLI_YOLO_UNSANDBOXED=true")
	s := startUndoTurn(t, srv, dir, te)

	s.send("/undo")
	scr := s.waitFor(tuiWait, "Took back turn 1", "restored: notes.txt", "removed:  made.txt", "Your prompt is back in the input")
	if strings.Contains(scr, "Rewrote the notes zebra.") {
		t.Fatalf("the undone turn's reply is still in the transcript:\n%s", scr)
	}
	if got := readFile(t, dir, "notes.txt"); got != "before\n" {
		t.Errorf("notes.txt after /undo = %q, want %q", got, "before\n")
	}
	if fileExists(dir, "made.txt") {
		t.Error("made.txt, made by the undone turn's shell command, is still there")
	}

	// The prompt is in the input: Enter alone sends it again.
	n := len(srv.Requests())
	srv.Script(llmtest.Reply{Text: "Second try."})
	s.keys("Enter")
	s.waitFor(tuiWait, "Second try.")
	reqs := srv.Requests()
	if len(reqs) != n+1 {
		t.Fatalf("%d requests after Enter, want %d", len(reqs), n+1)
	}
	last := reqs[len(reqs)-1]
	if got := last.LastUserMessage(); !strings.Contains(got, undoPrompt) {
		t.Errorf("Enter sent %q, want the undone prompt %q", got, undoPrompt)
	}
	if body := sentText(last); strings.Contains(body, "zebra") || strings.Contains(body, "echo made") {
		t.Errorf("the request after /undo still holds the undone turn:\n%s", body)
	}
}

// A turn taken back with /undo does not come back with co --continue.
func TestUndoneTurnStaysOutAfterContinue(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	te := tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess", "CO_CLI_YOLO_UNSANDBOXED=true")
	s := startUndoTurn(t, srv, dir, te)
	s.send("/undo")
	s.waitFor(tuiWait, "Took back turn 1", "Your prompt is back in the input")
	s.keys("C-c") // clears the prompt put back: it is not sent
	s.send("/exit")
	if code := s.exitCode(tuiWait); code != 0 {
		t.Fatalf("co exited %d", code)
	}

	srv.Script(llmtest.Reply{Text: "Fresh answer."})
	out, errOut, code := runCo(t, dir, te, "what now?\n", "--continue", "--plain")
	if code != 0 || !strings.Contains(out, "Fresh answer.") {
		t.Fatalf("--continue exit %d:\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "zebra") || !strings.Contains(out, "taken back with /undo or /rewind: not shown") {
		t.Errorf("the resumed transcript shows the undone turn, or does not say it left it out:\n%s", out)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if got := last.LastUserMessage(); got != "what now?" {
		t.Fatalf("last request's user message = %q", got)
	}
	if body := sentText(last); strings.Contains(body, "zebra") || strings.Contains(body, undoPrompt) {
		t.Errorf("after --continue the request still holds the undone turn:\n%s", body)
	}
}

// --plain: /rewind lists the turns numbered; /rewind 1 files takes back
// the files of turn 1 and every later turn and keeps the conversation;
// the prompt is printed so it can be copied.
func TestPlainRewindFiles(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{writeFileCall("c1", "a.txt", "a1\n")}},
		llmtest.Reply{Text: "First done."},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c2", "echo b > b.txt")}},
		llmtest.Reply{Text: "Second done."},
		llmtest.Reply{Text: "Still here."},
	)
	script := strings.Join([]string{"/yolo", "first turn", "second turn", "/rewind", "/rewind 1 files", "/history", "are you there?", ""}, "\n")
	out, errOut, code := runCo(t, dir, env(t, srv, "CO_CLI_YOLO_UNSANDBOXED=true"), script, "--plain")
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"  1. first turn", "  2. second turn",
		"Took back turns 1 to 2 (files only",
		"restored: a.txt", "removed:  b.txt",
		"Your prompt was: first turn",
		"2 turns", // the conversation kept them
		"Still here.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if got := readFile(t, dir, "a.txt"); got != "a0\n" {
		t.Errorf("a.txt = %q, want a0", got)
	}
	if fileExists(dir, "b.txt") {
		t.Error("b.txt, made by turn 2, is still there")
	}
	// Files only: the next request still holds both turns.
	if body := sentText(srv.Requests()[len(srv.Requests())-1]); !strings.Contains(body, "Second done.") {
		t.Errorf("files only took the turns out of the conversation:\n%s", body)
	}
}
