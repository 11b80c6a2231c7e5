package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's commands table names every command and subcommand the
// built co lists in its --help (co tail, co traces and co logs were
// missing: issue 40). A row names a command in its first cell: `co NAME`
// or `co NAME SUB`.
func TestREADMECommandsTableIsComplete(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	first := commandsTableFirstCells(t, string(b))
	bin := filepath.Join(t.TempDir(), "co")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	help := func(args ...string) string {
		cmd := exec.Command(bin, append(args, "--help")...)
		cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home + "/.config", "XDG_DATA_HOME=" + home + "/.local/share",
			"XDG_STATE_HOME=" + home + "/.local/state", "PATH=" + os.Getenv("PATH"), "TERM=dumb"}
		cmd.Dir = home
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("co %s --help: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	top := helpCommands(help())
	if len(top) < 10 {
		t.Fatalf("co --help lists only %d commands: %v", len(top), top)
	}
	for _, name := range top {
		if name == "help" {
			continue // cobra's own
		}
		want := []string{"co " + name}
		for _, sub := range helpCommands(help(name)) {
			if sub != "help" {
				want = append(want, "co "+name+" "+sub)
			}
		}
		for _, w := range want {
			if !tableNames(first, w) {
				t.Errorf("co --help lists %q; the README's commands table has no row for it", w)
			}
		}
	}
}

// A table without a command's row is caught, and a longer command does
// not stand for a shorter one's prefix.
func TestREADMECommandsTableCheckCatches(t *testing.T) {
	readme := "# co\n\n## Commands\n\n| command | what it does |\n|---|---|\n| `co status` | x |\n| `co sessions` / `co sessions rm ID` | y |\n| `co logsx` | z |\n\nmore\n"
	first := commandsTableFirstCells(t, readme)
	for w, want := range map[string]bool{"co status": true, "co sessions rm": true, "co sessions": true, "co logs": false, "co tail": false} {
		if got := tableNames(first, w); got != want {
			t.Errorf("tableNames(%q) = %v, want %v", w, got, want)
		}
	}
	help := "Usage:\n  co [flags]\n\nAvailable Commands:\n  config      Show settings\n  tail        Follow spans\n\nFlags:\n  -h, --help\n"
	if got := strings.Join(helpCommands(help), ","); got != "config,tail" {
		t.Errorf("helpCommands = %q", got)
	}
}

// commandsTableFirstCells returns the first cells of the table under the
// README's "## Commands" heading.
func commandsTableFirstCells(t *testing.T, readme string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n## Commands\n")
	if !ok {
		t.Fatal("README has no ## Commands section")
	}
	var cells []string
	inTable := false
	for _, l := range strings.Split(rest, "\n") {
		if strings.HasPrefix(l, "## ") {
			break
		}
		if strings.HasPrefix(l, "|") {
			inTable = true
			cells = append(cells, splitRow(l)[0])
			continue
		}
		if inTable {
			break
		}
	}
	if len(cells) < 3 {
		t.Fatalf("the README's ## Commands section has no table")
	}
	return cells
}

// tableNames reports whether a first cell names the command: a code span
// that is the command or starts with it followed by a space.
func tableNames(cells []string, command string) bool {
	for _, c := range cells {
		spans := strings.Split(c, "`")
		for i := 1; i < len(spans); i += 2 {
			s := spans[i]
			if s == command || strings.HasPrefix(s, command+" ") {
				return true
			}
		}
	}
	return false
}

// helpCommands returns the names under "Available Commands:" in cobra's
// help.
func helpCommands(help string) []string {
	_, rest, ok := strings.Cut(help, "Available Commands:\n")
	if !ok {
		return nil
	}
	var names []string
	for _, l := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		if strings.HasPrefix(l, "   ") {
			continue // a long summary continues under its column
		}
		names = append(names, strings.Fields(l)[0])
	}
	return names
}
