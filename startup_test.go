package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
	"github.com/mattn/go-runewidth"

	"github.com/co-cli/co/lib/tmuxprobe"
)

// The transcript's layout counts columns: the frame and the prompt are
// box-drawing characters and ❯ (one column), CJK text and emoji take two,
// combining marks none. These are the widths co's layout relies on, from
// the libraries as released.
func TestTerminalWidths(t *testing.T) {
	c := &runewidth.Condition{StrictEmojiNeutral: true}
	for r, want := range map[rune]int{
		'a': 1, 'é': 1, '─': 1, '│': 1, '❯': 1, '•': 1, '中': 2, '한': 2, 'ｱ': 1, 'Ａ': 2,
		'\u0301': 0, '\u200b': 0, '😀': 2, '🙂': 2, '⌚': 2, '\U0001F1E6': 1, '\x00': 0, '\u00ad': 0,
	} {
		if got := c.RuneWidth(r); got != want {
			t.Errorf("RuneWidth(%U) = %d, want %d", r, got, want)
		}
	}
	if w := xansi.StringWidth("│ ❯ 中文 ─"); w != 10 {
		t.Errorf("ansi.StringWidth = %d, want 10", w)
	}
}

// initBudget is the most a package of co's may allocate in its package
// initialisation. Every co process (co version included) pays for it
// before its first frame, whether or not it uses the package: tables,
// compiled expressions and clients belong in sync.OnceValue or behind the
// function that needs them.
const initBudget = 20 << 10

// co's own packages initialise lightly: this test binary links all of them,
// and runs it again with GODEBUG=inittrace=1 to read what each allocated.
// Allocated bytes, not clock time: the same on a busy machine.
func TestOwnPackagesInitialiseLightly(t *testing.T) {
	if os.Getenv("CO_TEST_INITTRACE") != "" {
		return // the child: initialisation is over, nothing to run
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOwnPackagesInitialiseLightly$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "CO_TEST_INITTRACE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// init github.com/co-cli/co/tools/web @1.2 ms, 0.05 ms clock, 38584 bytes, 342 allocs
	line := regexp.MustCompile(`(?m)^init (github\.com/co-cli/co/\S+) @.*, (\d+) bytes, (\d+) allocs$`)
	seen := 0
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		seen++
		if n, _ := strconv.Atoi(m[2]); n > initBudget {
			t.Errorf("%s allocates %d bytes (%s allocs) in package initialisation, budget %d: make what it builds lazy (sync.OnceValue)", m[1], n, m[3], initBudget)
		}
	}
	if seen == 0 {
		t.Fatalf("no package of co's in the init trace:\n%s", out)
	}
}

// Inside tmux, lipgloss's initialisation would run `tmux info` (its
// Writer's colour detection) before main; lib/tmuxprobe takes TMUX away
// from it. This test binary links both: it runs itself again on a
// pseudo-terminal, inside a "tmux" (TMUX set, a tmux on PATH that records
// each call), and finds no call from the initialisation; the same child
// asking colorprofile.Detect itself afterwards, TMUX back, does call it
// (the recording tmux works, the check can fail).
func TestNoTmuxSubprocessAtInit(t *testing.T) {
	switch os.Getenv("CO_TEST_TMUXPROBE") {
	case "init":
		return // initialisation is over
	case "detect":
		tmuxprobe.Restore()
		colorprofile.Detect(os.Stdout, os.Environ())
		return
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	fake := "#!/bin/sh\necho \"$@\" >> " + calls + "\necho 'Tc: [missing]'\n"
	if err := os.WriteFile(filepath.Join(dir, "tmux"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode  string
		calls int
	}{{"init", 0}, {"detect", 1}} {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestNoTmuxSubprocessAtInit$")
		cmd.Env = append(os.Environ(), "CO_TEST_TMUXPROBE="+c.mode, "TMUX=/tmp/tmux-1/default,1,0",
			"TERM=tmux-256color", "COLORTERM=", "NO_COLOR=", "PATH="+dir+":"+os.Getenv("PATH"))
		cmd.Stdout, cmd.Stdin = tty, tty
		var stderr strings.Builder
		cmd.Stderr = &stderr
		go func() { _, _ = io.Copy(io.Discard, ptmx) }() // drain what the child writes
		err = cmd.Run()
		tty.Close()
		ptmx.Close()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.mode, err, stderr.String())
		}
		b, _ := os.ReadFile(calls)
		if got := strings.Count(string(b), "info\n"); got != c.calls {
			t.Errorf("%s: tmux info ran %d times, want %d", c.mode, got, c.calls)
		}
		os.Remove(calls)
	}
}
