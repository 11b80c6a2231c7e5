package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/lib/testneeds"
	"github.com/co-cli/co/sandbox"
	"github.com/co-cli/co/tools"
)

// armedRepo makes a git repository in dir whose .git/config names a
// program for everything git runs by itself: an fsmonitor, a clean and a
// smudge filter and a textconv and an external diff driver for *.x, an
// external diff, a pager, a post-index-change hook, a gpg program for the
// signatures log.showSignature shows. Each program writes a marker file
// .m-NAME in the top folder of the repository, where git runs them; they
// are relative, so the same repository works on the host and mounted in
// the sandbox.
func armedRepo(t *testing.T, dir string) {
	t.Helper()
	gitIn := func(args ...string) {
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
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	gitIn("init", "-q", "-b", "main")
	write("f.x", "one\n", 0o644)
	write("g.txt", "two\n", 0o644)
	write(".gitattributes", "*.x filter=evil diff=evil\n", 0o644)
	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "first")
	if err := os.Mkdir(filepath.Join(dir, "evil-hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("evil-hooks/post-index-change", "#!/bin/sh\ntouch .m-hook\n", 0o755)
	write("evil-gpg", "#!/bin/sh\ntouch .m-gpg\nexit 1\n", 0o755)
	for _, kv := range [][2]string{
		{"core.fsmonitor", "touch .m-fsmonitor; false"},
		{"filter.evil.clean", "touch .m-clean; cat"},
		{"filter.evil.smudge", "touch .m-smudge; cat"},
		{"diff.evil.textconv", "touch .m-textconv; cat"},
		{"diff.evil.command", "touch .m-diffcommand; true"},
		{"diff.external", "touch .m-external; true"},
		{"core.pager", "touch .m-pager; cat"},
		{"pager.log", "touch .m-pagerlog; cat"},
		{"core.hooksPath", "evil-hooks"},
		{"log.showSignature", "true"},
		{"gpg.program", "./evil-gpg"},
		{"core.sshCommand", "touch .m-ssh; false"},
		{"credential.helper", "!touch .m-credential; false"},
	} {
		gitIn("config", kv[0], kv[1])
	}
	// Changed files, and a stat that differs from the index's, so that
	// status has to read f.x again through its clean filter.
	write("f.x", "one\nmore\n", 0o644)
	write("g.txt", "two\nmore\n", 0o644)
	restat(t, dir)
}

// restat gives the files a new time, so git reads them again.
func restat(t *testing.T, dir string) {
	t.Helper()
	later := time.Now().Add(time.Hour)
	for _, f := range []string{"f.x", "g.txt"} {
		if err := os.Chtimes(filepath.Join(dir, f), later, later); err != nil {
			t.Fatal(err)
		}
	}
}

// markers lists the .m-* files git's programs left, and removes them.
func markers(t *testing.T, dir string) []string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(dir, ".m-*"))
	var names []string
	for _, f := range found {
		names = append(names, strings.TrimPrefix(filepath.Base(f), ".m-"))
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(names)
	return names
}

// The read-only git commands the policy runs without asking run no
// program a repository's configuration names: not unsandboxed, on the
// host, and not in the Docker sandbox. The same commands run as the
// repository asks (through the sandbox, without the guard) first, to show
// the repository is armed.
func TestGitReadOnlyRunsNoRepositoryProgram(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git: %v", err)
	}
	for _, backend := range []string{"subprocess", "docker", "docker-uid"} {
		t.Run(backend, func(t *testing.T) {
			uid := -1
			if backend == "docker-uid" {
				// Commands run as the workspace's owner: one that is neither
				// root nor 1000.
				if os.Geteuid() != 0 {
					t.Skip("needs root to give the workspace to another uid")
				}
				backend, uid = "docker", 4242
			}
			if backend == "docker" {
				if err := exec.Command("docker", "info").Run(); err != nil {
					testneeds.Docker.Missing(t, fmt.Errorf("docker info: %w", err))
				}
			}
			ws := t.TempDir()
			armedRepo(t, ws)
			if uid >= 0 {
				if out, err := exec.Command("chown", "-R", fmt.Sprintf("%d:%d", uid, uid), ws).CombinedOutput(); err != nil {
					t.Fatalf("chown: %v\n%s", err, out)
				}
			}
			ctx := context.Background()
			sb, _, err := sandbox.New(ctx, sandbox.Config{Backend: backend, Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sb.Close() })
			p, err := NewPolicy(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			tool := NewTool(sb, p, time.Minute)

			// Armed: git as the repository asks runs its programs.
			for _, c := range []string{"git status", "git diff", "git log -p"} {
				restat(t, ws)
				if _, err := sb.Run(ctx, c, sandbox.Options{Timeout: time.Minute}); err != nil {
					t.Fatal(err)
				}
			}
			armed := markers(t, ws)
			for _, want := range []string{"fsmonitor", "clean", "smudge", "textconv", "diffcommand", "external", "hook"} {
				if !slices.Contains(armed, want) {
					t.Fatalf("the repository is not armed: plain git left %v, not %s", armed, want)
				}
			}

			for _, tc := range []struct{ cmd, out string }{
				{"git status", "modified:   f.x"},
				{"git status --short", " M f.x"},
				{"git diff", "+more"},
				{"git --no-pager diff HEAD -- f.x", "+more"},
				{"git diff --stat", "f.x"},
				{"git log -p", "+one"},
				{"git log --stat", "first"},
				{"git show", "+one"},
				{"git show HEAD:f.x", "one"},
				{"git whatchanged -p", "+one"},
				{"git blame f.x", "more"},
				{"git diff-files -p", "+more"},
				{"git diff-index -p HEAD", "+more"},
				{"git ls-files -m", "f.x"},
				{"git describe --always --dirty", "-dirty"},
				{"cd . && git status --short | head -n 5", " M g.txt"},
			} {
				t.Run(tc.cmd, func(t *testing.T) {
					if v := p.Evaluate(tc.cmd); v.Decision != tools.Allow {
						t.Fatalf("the policy does not allow %q (%s): not the auto-approved path", tc.cmd, v.Reason)
					}
					restat(t, ws)
					res, err := tool.Run(ctx, call(tc.cmd))
					if err != nil {
						t.Fatalf("%v\n%s", err, res.Display)
					}
					if !strings.Contains(res.Display, tc.out) {
						t.Errorf("output does not have %q:\n%s", tc.out, res.Display)
					}
					if got := markers(t, ws); len(got) > 0 {
						t.Errorf("%s ran the repository's programs: %v\n%s", tc.cmd, got, res.Display)
					}
				})
			}
		})
	}
}

// The options that would make git run in submodules, with configuration
// the guard has not read, ask.
func TestGitSubmoduleOptionsAsk(t *testing.T) {
	p, err := NewPolicy(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  string
		want tools.Decision
	}{
		{"git status --ignore-submodules=none", tools.Ask},
		{"git status --ignore-sub=untracked", tools.Ask},
		{"git diff --ignore-submodules=none", tools.Ask},
		{"git diff --submodule=diff", tools.Ask},
		{"git log -p --subm=diff", tools.Ask},
		{"git status --ignore-submodules=all", tools.Allow},
		{"git status --ignore-submodules", tools.Allow},
		{"git diff --submodule=log", tools.Allow},
		{"git diff --submodule", tools.Allow},
		{"git log -- --submodule=diff", tools.Allow},
	} {
		if v := p.Evaluate(tc.cmd); v.Decision != tc.want {
			t.Errorf("%s: %v (%s), want %v", tc.cmd, v.Decision, v.Reason, tc.want)
		}
	}
}

// A git subcommand a user rule allowed (not on the built-in read-only
// list) runs as it is; the guard is only for the read-only ones.
func TestGitGuardLeavesOtherSubcommands(t *testing.T) {
	p, err := NewPolicy(nil, []string{"git commit"})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	armedRepo(t, ws)
	markers(t, ws)
	cmd := "git status --short && git commit -q -m second g.txt"
	v := p.Evaluate(cmd)
	if v.Decision != tools.Allow {
		t.Fatalf("%s: %v (%s)", cmd, v.Decision, v.Reason)
	}
	run := exec.Command("sh", "-c", p.GitGuarded(cmd, v, false))
	run.Dir = ws
	run.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// git commit writes the index: the repository's hook ran, for the
	// command the user allowed.
	if got := markers(t, ws); !slices.Contains(got, "hook") {
		t.Errorf("markers %v: want the commit's hook", got)
	}
}
