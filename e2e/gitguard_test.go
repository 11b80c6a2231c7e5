package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// A workspace whose .git/config names programs for git to run (an
// fsmonitor, a clean filter, a textconv, an external diff, a hook), each
// writing a marker: co run, with the model asking for git status, git diff
// and git log -p, runs them in the Docker sandbox without asking, and none
// of the repository's programs runs.
func TestRunReadOnlyGitRunsNoRepositoryProgram(t *testing.T) {
	requireDocker(t)
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, body string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("f.x", "one\n", 0o644)
	write(".gitattributes", "*.x filter=evil diff=evil\n", 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "first")
	write("evil-hooks/post-index-change", "#!/bin/sh\ntouch .m-hook\n", 0o755)
	for _, kv := range [][2]string{
		{"core.fsmonitor", "touch .m-fsmonitor; false"},
		{"filter.evil.clean", "touch .m-clean; cat"},
		{"diff.evil.textconv", "touch .m-textconv; cat"},
		{"diff.external", "touch .m-external; true"},
		{"core.hooksPath", "evil-hooks"},
	} {
		git("config", kv[0], kv[1])
	}
	write("f.x", "one\nmore\n", 0o644)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "f.x"), later, later); err != nil {
		t.Fatal(err)
	}

	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "git status")}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c2", "git diff")}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c3", "git log -p")}},
		llmtest.Reply{Text: "Looked."},
	)
	out, errOut, code := runCo(t, dir, env(t, srv, "CO_CLI_SANDBOX_BACKEND=docker"), "", "run", "what changed?")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "Looked.") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (each git command ran without asking)\n%s", len(reqs), errOut)
	}
	for i, want := range []string{"modified:   f.x", "+more", "+one"} {
		msgs := reqs[i+1].Body.Messages
		if c := msgs[len(msgs)-1].Content; !strings.Contains(c, want) {
			t.Errorf("result %d lacks %q: %s", i+1, want, c)
		}
	}
	found, _ := filepath.Glob(filepath.Join(dir, ".m-*"))
	if len(found) > 0 {
		t.Errorf("the repository's programs ran: %v\n%s", found, errOut)
	}
}
