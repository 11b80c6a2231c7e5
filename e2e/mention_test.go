package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// mentionWorkspace is a workspace with a few files, one .gitignore'd, and
// a secret beside it (outside).
func mentionWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "ws")
	for p, c := range map[string]string{
		"main.go":                     "package main\n\nfunc main() {}\n",
		"pkg/server/handler.go":       "package server\n\n// Handle serves one request.\nfunc Handle() {}\n",
		"pkg/server/handler_test.go":  "package server\n",
		".gitignore":                  "ignored/\n",
		"ignored/secretive_module.go": "package ignored\n",
		"notes.txt":                   "a note\n",
	} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "outside.txt"), []byte("TOP SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const mentionIntro = "Files the user attached with @path"

// In the full-screen chat, "@" opens a list of the workspace's files
// ranked by what follows it; ↓/↑ move, Tab puts the path in; on Enter the
// file goes to the model in a delimited block, the transcript shows an
// attachment line, and a mention that names no file is reported without
// losing the message. A resumed session shows the attachment line again,
// not the file.
func TestTUIMentionCompletesAndAttaches(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDefault(llmtest.Reply{Text: "got it"})
	dir := mentionWorkspace(t)
	e := tuiEnv(t, srv)
	s := startTUI(t, dir, e, 100, 35)
	s.ready()

	s.typeText("explain @hand")
	scr := s.waitFor(tuiWait, "▸ @pkg/server/handler.go", "  @pkg/server/handler_test.go")
	if strings.Contains(scr, "secretive") {
		t.Errorf("the list offers a .gitignore'd file:\n%s", scr)
	}
	s.keys("Down")
	s.waitFor(tuiWait, "▸ @pkg/server/handler_test.go")
	s.keys("Up")
	s.waitFor(tuiWait, "▸ @pkg/server/handler.go")
	s.keys("Tab")
	scr = s.waitFor(tuiWait, "explain @pkg/server/handler.go")
	if strings.Contains(scr, "handler_test.go") {
		t.Errorf("the list stayed open after Tab:\n%s", scr)
	}
	// .gitignore'd files are not offered.
	s.typeText("@secretive")
	s.waitFor(tuiWait, "no file matches secretive")
	// Esc closes the list and keeps the text; the word stays closed.
	s.keys("Escape")
	for deadline := time.Now().Add(tuiWait); ; {
		scr := s.screen()
		if !strings.Contains(scr, "no file matches") && strings.Contains(scr, "@secretive") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Esc did not close the list, or lost the text:\n%s", scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.typeText(" mail a@b.com @../outside.txt @nope.txt")
	s.keys("Enter")
	scr = s.waitFor(tuiWait, "got it", "↳ attached pkg/server/handler.go (4 lines)", "@nope.txt not attached", "@../outside.txt not attached", "@secretive not attached")
	if strings.Contains(scr, "TOP SECRET") || strings.Contains(scr, "Handle serves") {
		t.Errorf("the transcript shows a file's content:\n%s", scr)
	}
	got := srv.Requests()[0].LastUserMessage()
	typed := "explain @pkg/server/handler.go @secretive mail a@b.com @../outside.txt @nope.txt"
	if !strings.HasPrefix(got, typed+"\n\n"+mentionIntro) ||
		!strings.Contains(got, `<attached-file path="pkg/server/handler.go" lines=4`) ||
		!strings.Contains(got, "3\t// Handle serves one request.") ||
		strings.Count(got, "<attached-file") != 1 || strings.Contains(got, "TOP SECRET") {
		t.Errorf("the model got:\n%s", got)
	}

	// Resume: the attachment line again, the file not.
	s.keys("C-c")
	s.keys("C-c")
	if code := s.exitCode(tuiWait); code != 0 {
		t.Fatalf("exit %d", code)
	}
	r := startTUI(t, dir, e, 100, 35, "--continue")
	scr = r.waitFor(tuiWait, "Resumed session", "❯ explain @pkg/server/handler.go @secretive", "↳ attached pkg/server/handler.go (4 lines)", "got it")
	if strings.Contains(scr, "Handle serves") || strings.Contains(scr, mentionIntro) {
		t.Errorf("the resumed transcript shows the attached file:\n%s", scr)
	}
	// The reply to it, not "and now?": the prompt shows what is typed
	// before Enter, so that wait proved nothing. "got it" is on the
	// resumed screen already (the first reply, waited for above): one more.
	r.waitForNew(tuiWait, "got it", func() { r.send("and now?") })
	msgs := srv.WaitRequests(2, tuiWait)[1].Messages()
	found := false
	for _, m := range msgs {
		if m.Role == "user" && strings.Contains(m.Text(), "3\t// Handle serves one request.") {
			found = true
		}
	}
	if !found {
		t.Errorf("the resumed conversation lost the attachment: %+v", msgs)
	}
}

// --plain attaches @path files too and prints a line per file.
func TestPlainMentionAttaches(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDefault(llmtest.Reply{Text: "got it"})
	dir := mentionWorkspace(t)
	e := env(t, srv)
	out, errOut, code := runCo(t, dir, e, "look at @main.go, @notes.txt and @missing.go; mail a@b.com; @../outside.txt\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"attached: main.go (3 lines)",
		"attached: notes.txt (1 line)",
		"note: @missing.go not attached: \"missing.go\" does not exist",
		"note: @../outside.txt not attached:",
		"got it",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "TOP SECRET") || strings.Contains(out, "func main") {
		t.Errorf("the output shows a file's content:\n%s", out)
	}
	got := srv.Requests()[0].LastUserMessage()
	if !strings.HasPrefix(got, "look at @main.go, @notes.txt and @missing.go; mail a@b.com; @../outside.txt\n\n"+mentionIntro) ||
		!strings.Contains(got, "3\tfunc main() {}\n</attached-file>") || !strings.Contains(got, "1\ta note") || strings.Contains(got, "TOP SECRET") {
		t.Errorf("the model got:\n%s", got)
	}
	// --continue --plain shows the attachment lines, not the files.
	out, _, code = runCo(t, dir, e, "", "--continue", "--plain")
	if code != 0 || !strings.Contains(out, "co> look at @main.go") || !strings.Contains(out, "attached: main.go (3 lines)") || strings.Contains(out, "func main") {
		t.Errorf("resumed transcript (exit %d):\n%s", code, out)
	}
}
