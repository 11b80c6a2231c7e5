package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/co-cli/co/agent/llmtest"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// extWorkspace is a repository with AGENTS.md at its root and in the
// workspace (a subfolder), a skill, a custom command, and a command whose
// front matter is broken.
func extWorkspace(t *testing.T) string {
	repo := t.TempDir()
	ws := filepath.Join(repo, "app")
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(repo, "AGENTS.md"), "ROOT-RULE: run make test before finishing.\n")
	writeFile(t, filepath.Join(ws, "AGENTS.md"), "APP-RULE: this app is written in Go.\n")
	writeFile(t, filepath.Join(ws, ".agents", "skills", "release", "SKILL.md"),
		"---\nname: release\ndescription: Cut a release of the app. Use when asked to release.\n---\nSKILL-BODY: tag with git tag vX.Y.Z, then see references/notes.md.\n")
	writeFile(t, filepath.Join(ws, ".agents", "skills", "release", "references", "notes.md"), "REFERENCE-NOTES\n")
	writeFile(t, filepath.Join(ws, ".co-cli", "commands", "fix.md"), "---\ndescription: Fix a GitHub issue\n---\nFix issue $ARGUMENTS and add a test.\n")
	writeFile(t, filepath.Join(ws, ".co-cli", "commands", "broken.md"), "---\ndescription: Use when: broken\n---\nx\n")
	return ws
}

func systemMessage(r llmtest.Request) string {
	for _, m := range r.Body.Messages {
		if m.Role == openai.ChatMessageRoleSystem {
			return m.Content
		}
	}
	return ""
}

// The AGENTS.md files reach the request's system prompt (nearest last),
// the skill's name and description do too, and its body does not until
// the model calls read_skill.
func TestInstructionsAndSkillsReachTheRequest(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{Text: "first answer"},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "read_skill", Args: `{"name":"release"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "read_skill", Args: `{"name":"release","file":"references/notes.md"}`}}},
		llmtest.Reply{Text: "released"},
	)
	ws := extWorkspace(t)
	out, errOut, code := runCo(t, ws, env(t, srv), "hello\nplease release\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4:\n%s", len(reqs), out)
	}
	sys := systemMessage(reqs[0])
	root, app := strings.Index(sys, "ROOT-RULE"), strings.Index(sys, "APP-RULE")
	if root < 0 || app < root {
		t.Errorf("the system prompt lacks the AGENTS.md files, nearest last:\n%s", sys)
	}
	if !strings.Contains(sys, "- release: Cut a release of the app. Use when asked to release.") {
		t.Errorf("the system prompt lacks the skill's description:\n%s", sys)
	}
	for i, r := range reqs[:2] {
		if strings.Contains(string(r.Raw), "SKILL-BODY") {
			t.Errorf("request %d carries the skill's body before read_skill was called", i)
		}
	}
	if !strings.Contains(string(reqs[2].Raw), "SKILL-BODY") || !strings.Contains(string(reqs[2].Raw), "references/notes.md") {
		t.Errorf("the request after read_skill lacks the body:\n%s", reqs[2].Raw)
	}
	if !strings.Contains(string(reqs[3].Raw), "REFERENCE-NOTES") {
		t.Errorf("the request after read_skill with a file lacks the file")
	}
	if !strings.Contains(out, "released") {
		t.Errorf("output:\n%s", out)
	}
}

// /NAME runs custom commands and skills in --plain; /help lists them; a
// broken file is reported with its path and line, the rest still load.
func TestPlainCustomCommandsAndSkills(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "fixed it"}, llmtest.Reply{Text: "releasing"})
	ws := extWorkspace(t)
	out, errOut, code := runCo(t, ws, env(t, srv), "/help\n/fix 42\n/release v1.2.0\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"warning: " + filepath.Join(ws, ".co-cli", "commands", "broken.md") + ":2: the front matter is not valid YAML: mapping values are not allowed in this context",
		"Custom commands (/NAME ARGS sends the file's text):", "/fix       Fix a GitHub issue",
		"Skills (/NAME ARGS asks the model to use the skill):", "/release   Cut a release of the app.",
		"fixed it", "releasing",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests:\n%s", len(reqs), out)
	}
	if got := reqs[0].LastUserMessage(); got != "Fix issue 42 and add a test." {
		t.Errorf("/fix 42 sent %q", got)
	}
	got := reqs[1].LastUserMessage()
	if !strings.HasPrefix(got, `Use the skill "release" for this request: v1.2.0`) || !strings.Contains(got, "SKILL-BODY") {
		t.Errorf("/release sent %q", got)
	}
}

// co status lists the instruction files, skills, commands and problems.
func TestStatusListsInstructionFiles(t *testing.T) {
	ws := extWorkspace(t)
	srv := llmtest.NewServer() // the provider answers: co status exits 0
	defer srv.Close()
	out, errOut, code := runCo(t, ws, env(t, srv), "", "status")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	repo := filepath.Dir(ws)
	// The padding follows status's longest row name: spaces squeezed.
	for _, want := range []string{
		"instructions " + filepath.Join(repo, "AGENTS.md") + " (43 bytes)",
		filepath.Join(ws, "AGENTS.md") + " (37 bytes)",
		"skills 1: release",
		"commands 1: /fix",
		"file problems " + filepath.Join(ws, ".co-cli", "commands", "broken.md") + ":2:",
	} {
		if !strings.Contains(squeeze(out), want) {
			t.Errorf("co status lacks %q:\n%s", want, out)
		}
	}
}

// In the full-screen chat: the warning shows, Tab completes a custom
// command, /fix runs it, /help lists it.
func TestTUICustomCommands(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "on it"}, llmtest.Reply{Text: "skill done"})
	ws := extWorkspace(t)
	s := startTUI(t, ws, tuiEnv(t, srv), 140, 45)
	s.ready()
	// Single words: where the warning wraps depends on the temporary
	// directory's length.
	s.waitFor(tuiWait, "broken.md:2:", "YAML")
	s.typeText("/fi")
	s.keys("Tab")
	s.waitFor(tuiWait, "/fix ")
	s.typeText("7")
	s.keys("Enter")
	s.waitFor(tuiWait, "❯ /fix 7", "on it")
	if got := srv.Requests()[0].LastUserMessage(); got != "Fix issue 7 and add a test." {
		t.Errorf("/fix 7 sent %q", got)
	}
	s.send("/release now")
	s.waitFor(tuiWait, "❯ /release now", "skill done")
	if got := srv.Requests()[1].LastUserMessage(); !strings.Contains(got, "SKILL-BODY") {
		t.Errorf("/release sent %q", got)
	}
	s.send("/help")
	s.waitFor(tuiWait, "Custom commands", "Fix a GitHub issue", "Cut a release of the app.")
}

// A repository's command file that writes @.env attaches nothing: only
// the @path the user types after /NAME attaches a file, in the full-screen
// chat and in --plain alike.
func TestCommandFilesCannotAttachFiles(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".co-cli", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".co-cli", "commands", "review.md"), []byte("Please review the code. Context: @.env\n$ARGUMENTS\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("DB_PASSWORD=hunter2-supersecret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main // MAIN-MARKER\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte(".env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(front string, reqs []llmtest.Request) {
		t.Helper()
		if len(reqs) == 0 {
			t.Fatalf("%s: no request", front)
		}
		got := reqs[len(reqs)-1].LastUserMessage()
		if strings.Contains(got, "hunter2") {
			t.Errorf("%s: the command file's @.env attached the user's secrets:\n%s", front, got)
		}
		if !strings.Contains(got, "MAIN-MARKER") || !strings.Contains(got, "Please review the code.") {
			t.Errorf("%s: the user's own @main.go was not attached to the command's text:\n%s", front, got)
		}
	}

	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDefault(llmtest.Reply{Text: "reviewed"})
	out, errOut, code := runCo(t, ws, env(t, srv), "/review @main.go\n", "--plain")
	if code != 0 || !strings.Contains(out, "attached: main.go") || strings.Contains(out, "attached: .env") {
		t.Fatalf("--plain: exit %d\n%s\n%s", code, out, errOut)
	}
	check("--plain", srv.Requests())

	tui := llmtest.NewServer()
	defer tui.Close()
	tui.SetDefault(llmtest.Reply{Text: "reviewed"})
	s := startTUI(t, ws, tuiEnv(t, tui), 120, 40)
	s.ready()
	s.send("/review @main.go ")
	shown := s.waitFor(tuiWait, "reviewed")
	if strings.Contains(shown, "attached .env") || !strings.Contains(shown, "attached main.go") {
		t.Errorf("full screen shows the wrong attachments:\n%s", shown)
	}
	check("full screen", tui.Requests())
}

// A resumed session shows /NAME ARGS as it was typed, not the command's
// or skill's text the model got.
func TestResumeShowsCustomCommandsAsTyped(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDefault(llmtest.Reply{Text: "done"})
	ws := extWorkspace(t)
	e := env(t, srv)
	if out, errOut, code := runCo(t, ws, e, "/fix 42\n/release v1.2.0\n", "--plain"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if got := srv.Requests()[0].LastUserMessage(); got != "Fix issue 42 and add a test." {
		t.Fatalf("the model must still get the command's text: %q", got)
	}
	out, _, code := runCo(t, ws, e, "", "--continue", "--plain")
	if code != 0 {
		t.Fatalf("--continue: exit %d\n%s", code, out)
	}
	assertInOrder(t, out, []string{"co> /fix 42", "done", "co> /release v1.2.0", "done", "(resumed session"})
	for _, not := range []string{"Fix issue 42", "Use the skill", "SKILL-BODY"} {
		if strings.Contains(out, not) {
			t.Errorf("the resumed transcript shows the text the model got (%q):\n%s", not, out)
		}
	}
	te := append([]string(nil), e...)
	for i, kv := range te {
		if strings.HasPrefix(kv, "TERM=") {
			te[i] = "TERM=xterm-256color"
		}
	}
	s := startTUI(t, ws, te, 120, 40, "--continue")
	shown := s.waitFor(tuiWait, "Resumed session")
	assertInOrder(t, shown, []string{"/fix 42", "/release v1.2.0", "Resumed session"})
	if strings.Contains(shown, "Fix issue 42") || strings.Contains(shown, "Use the skill") {
		t.Errorf("the full-screen resume shows the text the model got:\n%s", shown)
	}
}

// co status counts only the commands /NAME can run: one a built-in
// shadows is a file problem, not a command.
func TestStatusLeavesOutShadowedCommands(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer() // the provider answers: co status exits 0
	defer srv.Close()
	if err := os.MkdirAll(filepath.Join(ws, ".co-cli", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".co-cli", "commands", "help.md"), []byte("my help\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".co-cli", "commands", "review.md"), []byte("review it\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCo(t, ws, env(t, srv), "", "status")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	// The padding follows status's longest row name: any run of spaces.
	if !regexp.MustCompile(`(?m)^commands +1: /review$`).MatchString(out) || !strings.Contains(out, "/help is not used") {
		t.Errorf("co status:\n%s", out)
	}
}
