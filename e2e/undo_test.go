package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// undoFile is a file of an undo test's workspace: its content and mode.
type undoFile struct {
	body string
	mode fs.FileMode
}

// writeUndoFiles makes the files in dir, with their modes exactly.
func writeUndoFiles(t *testing.T, dir string, files map[string]undoFile) {
	t.Helper()
	for name, f := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(f.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}
}

// checkUndoFiles fails unless each file in dir has its content and mode.
func checkUndoFiles(t *testing.T, dir string, files map[string]undoFile) {
	t.Helper()
	for name, f := range files {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != f.body || fi.Mode().Perm() != f.mode {
			t.Errorf("%s = %q, mode %v; want %q, mode %v", name, b, fi.Mode().Perm(), f.body, f.mode)
		}
	}
}

// undoTurn is the stub model's turn that changes the workspace through
// both the file tools and the shell: a file rewritten, a mode changed, a
// file deleted, folders and files created, one named with an escape
// sequence.
func undoTurn() llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{
		localCall("w1", "write_file", map[string]any{"path": "greeting.txt", "content": "goodbye\n"}),
		localCall("s1", "run_shell_command", map[string]any{"cmd": "chmod 600 plan.txt && rm old.sh && mkdir -p made/deep && printf new > made/deep/n.txt && printf x > \"$(printf 'e\\033[2Jvil')\""}),
	}}
}

var undoBefore = map[string]undoFile{
	"greeting.txt": {"hello\n", 0o640},
	"plan.txt":     {"step one\n", 0o644},
	"old.sh":       {"#!/bin/sh\necho old\n", 0o755},
}

// chatTurn runs co --plain in dir (unsandboxed: the env's subprocess
// backend) for one prompt whose calls it approves, until it exits.
func chatTurn(t *testing.T, dir string, e []string, prompt string) {
	t.Helper()
	out, errOut, code := runCo(t, dir, e, prompt+"\ny\ny\n", "--plain")
	if code != 0 || !strings.Contains(out, "Done.") {
		t.Fatalf("the chat's turn: exit %d\n%s\n%s", code, out, errOut)
	}
}

// A chat's turn that wrote, changed a mode, deleted and created through
// write_file and an unsandboxed shell is taken back by co undo from the
// shell after the chat exited: bytes and modes as before, the new folder
// gone, each path and the prompt printed; the conversation no longer
// holds the turn when it is continued.
func TestUndoFromTheShellTakesBackTheChatsLastTurn(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(undoTurn(), llmtest.Reply{Text: "Done."}, llmtest.Reply{Text: "Fresh start."})
	dir := t.TempDir()
	writeUndoFiles(t, dir, undoBefore)
	e := env(t, srv)
	chatTurn(t, dir, e, "tidy the files")
	if _, err := os.Stat(filepath.Join(dir, "made", "deep", "n.txt")); err != nil {
		t.Fatalf("the turn did not run: %v", err)
	}

	out, errOut, code := runCo(t, dir, e, "", "undo")
	if code != 0 {
		t.Fatalf("co undo: exit %d\n%s\n%s", code, out, errOut)
	}
	checkUndoFiles(t, dir, undoBefore)
	if _, err := os.Lstat(filepath.Join(dir, "made")); err == nil {
		t.Error("the folder the turn made is still there")
	}
	for _, want := range []string{
		"restored        greeting.txt", "restored        plan.txt", "restored        old.sh",
		"removed         made/deep/n.txt", "tidy the files",
		"removed         e␛[2Jvil", // a name's escape sequence shown, never sent to the terminal
	} {
		if !strings.Contains(out, want) {
			t.Errorf("co undo's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("co undo printed a raw escape sequence:\n%q", out)
	}

	// co sessions counts the turn as undone.
	if list, _, _ := runCo(t, dir, e, "", "sessions"); !strings.Contains(list, "0 (1 undone)") {
		t.Errorf("co sessions does not show the turn undone:\n%s", list)
	}
	// The conversation goes on from before the turn.
	out, errOut, code = runCo(t, dir, e, "start again\n", "--plain", "--continue")
	if code != 0 || !strings.Contains(out, "Fresh start.") {
		t.Fatalf("co --continue: exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	for _, m := range reqs[len(reqs)-1].Body.Messages {
		if strings.Contains(m.Content, "tidy the files") || strings.Contains(m.Content, "goodbye") {
			t.Errorf("the request after co undo still holds the undone turn: %s %q", m.Role, m.Content)
		}
	}
	// Nothing is left to undo in it but the new turn; a second co undo
	// takes that one, not the one already undone.
	if out, _, _ := runCo(t, dir, e, "", "undo", "--list"); !strings.Contains(out, "start again") || strings.Contains(out, "tidy the files") {
		t.Errorf("co undo --list:\n%s", out)
	}
	out, errOut, code = runCo(t, dir, e, "", "undo")
	if code != 0 || !strings.Contains(out, "start again") || strings.Contains(out, "tidy the files") {
		t.Errorf("the second co undo: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runCo(t, dir, e, "", "undo")
	if code != 1 || !strings.Contains(errOut, "has no turns left to undo") {
		t.Errorf("co undo with every turn undone: exit %d\n%s\n%s", code, out, errOut)
	}
}

// A file changed after the turn is a conflict: co undo keeps it, names it
// with why and exits 3, saying --force; co undo --force then puts it back.
func TestUndoKeepsAConflictingFileUntilForce(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(undoTurn(), llmtest.Reply{Text: "Done."})
	dir := t.TempDir()
	writeUndoFiles(t, dir, undoBefore)
	e := env(t, srv)
	chatTurn(t, dir, e, "tidy the files")
	// The user edits the file the turn wrote, after the turn.
	if err := os.WriteFile(filepath.Join(dir, "greeting.txt"), []byte("my own edit\n"), 0o640); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := runCo(t, dir, e, "", "undo")
	if code != 3 {
		t.Fatalf("co undo with a conflict: exit %d, want 3\n%s\n%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "greeting.txt")); string(b) != "my own edit\n" {
		t.Errorf("the conflicting file was overwritten: %q", b)
	}
	if !strings.Contains(out, "greeting.txt: changed after the turn") || !strings.Contains(errOut, "co undo --force --session ") {
		t.Errorf("the conflict is not named, or --force not said:\n%s\n%s", out, errOut)
	}

	out, errOut, code = runCo(t, dir, e, "", "undo", "--force")
	if code != 0 {
		t.Fatalf("co undo --force: exit %d\n%s\n%s", code, out, errOut)
	}
	checkUndoFiles(t, dir, undoBefore)
	if !strings.Contains(out, "restored        greeting.txt") {
		t.Errorf("co undo --force does not say it restored greeting.txt:\n%s", out)
	}
}

// co undo takes the latest *chat* session; a co run's session is taken
// with --session ID, and without it co undo says there is no chat to undo
// and how to name one.
func TestUndoSessionTakesACoRunsTurn(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(undoTurn(), llmtest.Reply{Text: "Done."})
	dir := t.TempDir()
	writeUndoFiles(t, dir, undoBefore)
	e := env(t, srv, "CO_CLI_YOLO_UNSANDBOXED=true")
	out, errOut, code := runCo(t, dir, e, "", "run", "--json", "--yes", "tidy the files")
	if code != 0 {
		t.Fatalf("co run: exit %d\n%s\n%s", code, out, errOut)
	}
	id, _ := jsonEvents(t, out)[0]["id"].(string)
	if id == "" {
		t.Fatalf("co run named no session:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err != nil {
		t.Fatalf("the turn did not run: %v", err)
	}

	out, errOut, code = runCo(t, dir, e, "", "undo")
	if code != 1 || !strings.Contains(errOut, "no saved chat session in "+dir) || !strings.Contains(errOut, "co undo --session ID") {
		t.Errorf("co undo with only a co run's session: exit %d\n%s\n%s", code, out, errOut)
	}
	checkUndoFiles(t, dir, map[string]undoFile{"greeting.txt": {"goodbye\n", 0o640}})

	out, errOut, code = runCo(t, dir, e, "", "undo", "--session", id[:8])
	if code != 0 {
		t.Fatalf("co undo --session: exit %d\n%s\n%s", code, out, errOut)
	}
	checkUndoFiles(t, dir, undoBefore)
	if !strings.Contains(out, id) {
		t.Errorf("co undo --session does not name the session %s:\n%s", id, out)
	}
}

// With no saved session at all co undo says so plainly, exits 1 and
// creates no store; flags that contradict each other are usage errors.
func TestUndoWithNoSessionSaysSo(t *testing.T) {
	dir := t.TempDir()
	e := env(t, nil)
	out, errOut, code := runCo(t, dir, e, "", "undo")
	if code != 1 || !strings.Contains(errOut, "no saved chat session in "+dir+", so there is nothing to undo here") {
		t.Errorf("co undo with no session: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dataDir(e), "sessions.db")); err == nil {
		t.Error("co undo created the sessions store")
	}
	for _, args := range [][]string{
		{"undo", "--files-only", "--conversation-only"},
		{"undo", "--turns", "0"},
		{"undo", "--sent", "--force"},
		{"undo", "extra"},
	} {
		if _, errOut, code := runCo(t, dir, e, "", args...); code != 2 {
			t.Errorf("co %s: exit %d, want 2 (usage)\n%s", strings.Join(args, " "), code, errOut)
		}
	}
}
