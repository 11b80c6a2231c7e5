package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// hookProject is a workspace whose .co-cli/settings.json declares a
// UserPromptSubmit hook running a project script that leaves hook-ran in
// the workspace: a project's hook, run only with the user's consent.
func hookProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		filepath.Join(".co-cli", "settings.json"): `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh .co-cli/mark.sh"}]}]}}`,
		filepath.Join(".co-cli", "mark.sh"):       "touch hook-ran\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A project's hook is refused in co run until the user consents with co
// hooks trust (which, without a terminal, asks for --yes), and runs after;
// a changed script asks again (issue 42).
func TestProjectHookRefusedInRunUntilTrusted(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"}, llmtest.Reply{Text: "three"})
	e := env(t, srv)
	dir := hookProject(t)

	out, errOut, code := runCo(t, dir, e, "", "run", "hello")
	if code != 0 || !strings.Contains(out, "one") {
		t.Fatalf("co run = %d:\n%s\n%s", code, out, errOut)
	}
	if fileExists(dir, "hook-ran") {
		t.Fatal("co run ran a project's hook without consent")
	}
	if !strings.Contains(errOut, "this project's .co-cli/settings.json declares 1 hook") || !strings.Contains(errOut, "co hooks trust runs them") {
		t.Errorf("co run did not say the project's hook waits for consent:\n%s", errOut)
	}

	out, _, code = runCo(t, dir, e, "", "hooks")
	if code != 0 || !strings.Contains(out, "command: sh .co-cli/mark.sh") || !strings.Contains(out, "awaiting your consent, not run") {
		t.Fatalf("co hooks = %d:\n%s", code, out)
	}
	out, errOut, code = runCo(t, dir, e, "", "hooks", "trust")
	if code == 0 || !strings.Contains(errOut, "co hooks trust --yes") || !strings.Contains(out, "sh .co-cli/mark.sh") {
		t.Fatalf("co hooks trust without a terminal = %d:\n%s\n%s", code, out, errOut)
	}
	if out, errOut, code = runCo(t, dir, e, "", "hooks", "trust", "--yes"); code != 0 {
		t.Fatalf("co hooks trust --yes = %d:\n%s\n%s", code, out, errOut)
	}

	out, errOut, code = runCo(t, dir, e, "", "run", "hello again")
	if code != 0 || !strings.Contains(out, "two") {
		t.Fatalf("co run = %d:\n%s\n%s", code, out, errOut)
	}
	if !fileExists(dir, "hook-ran") {
		t.Fatalf("the trusted project hook did not run:\n%s", errOut)
	}
	if strings.Contains(errOut, "co hooks trust") {
		t.Errorf("co run still says the hooks wait:\n%s", errOut)
	}

	// A changed script is refused again.
	if err := os.Remove(filepath.Join(dir, "hook-ran")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".co-cli", "mark.sh"), []byte("touch hook-ran; touch more\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, _ = runCo(t, dir, e, "", "run", "and again")
	if fileExists(dir, "hook-ran") || !strings.Contains(errOut, "co hooks trust") {
		t.Errorf("a changed script ran without consent:\n%s", errOut)
	}
}

// In the full-screen chat a project's hook is named once at the start
// with the command to consent; /hooks lists it as waiting; a prompt does
// not run it; /hooks trust shows it and asks; after y the next prompt
// runs it (issue 42).
func TestTUIProjectHookAsksForConsent(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "first answer"}, llmtest.Reply{Text: "second answer"})
	dir := hookProject(t)
	s := startTUI(t, dir, tuiEnv(t, srv), 200, 40)
	s.ready()
	scr := s.waitFor(tuiWait, "will not run until you consent", "/hooks trust runs them")
	if n := strings.Count(scr, "will not run until you consent"); n != 1 {
		t.Errorf("the notice is shown %d times:\n%s", n, scr)
	}

	s.send("/hooks")
	s.waitFor(tuiWait, "awaiting your consent, not run")
	s.send("hello")
	s.waitFor(tuiWait, "first answer")
	if fileExists(dir, "hook-ran") {
		t.Fatal("the chat ran a project's hook without consent")
	}

	s.send("/hooks trust")
	s.waitFor(tuiWait, "Let co run the project's hooks shown above")
	s.send("y")
	s.waitFor(tuiWait, "Trusted the project's hooks")
	s.send("hello again")
	s.waitFor(tuiWait, "second answer")
	if !fileExists(dir, "hook-ran") {
		t.Fatalf("the hook did not run after /hooks trust:\n%s", s.screen())
	}
}

// --plain: /hooks trust answered n leaves the hook off; y runs it at the
// next prompt.
func TestPlainProjectHookTrust(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "first"}, llmtest.Reply{Text: "second"})
	e := env(t, srv)
	dir := hookProject(t)

	out, _, code := runCo(t, dir, e, "/hooks trust\nn\nhello\n", "--plain")
	if code != 0 || !strings.Contains(out, "will not run until you consent") || !strings.Contains(out, "Let co run the project's hooks") {
		t.Fatalf("--plain = %d:\n%s", code, out)
	}
	if fileExists(dir, "hook-ran") {
		t.Fatalf("answering n ran the hook:\n%s", out)
	}
	out, _, _ = runCo(t, dir, e, "/hooks trust\ny\nhello\n", "--plain")
	if !strings.Contains(out, "Trusted the project's hooks") {
		t.Fatalf("y did not trust:\n%s", out)
	}
	if !fileExists(dir, "hook-ran") {
		t.Fatalf("the hook did not run after y:\n%s", out)
	}
}
