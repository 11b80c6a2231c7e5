package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/lib/testneeds"
)

// tuiSession is co's full-screen chat running in a tmux pane of a tmux
// server of its own (its own socket), so the test reads the screen as a
// person would see it and types as a person would.
type tuiSession struct {
	t       *testing.T
	sock    string
	dir     string // co's working directory
	sttyOut string // `stty -a` after co exits
}

// tuiEnv is env() for a real terminal: TERM names a colour terminal.
func tuiEnv(t *testing.T, srv *llmtest.Server, extra ...string) []string {
	t.Helper()
	e := env(t, srv, extra...)
	for i, kv := range e {
		if strings.HasPrefix(kv, "TERM=") {
			e[i] = "TERM=xterm-256color"
		}
	}
	return e
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// startTUI runs co in a w×h tmux pane. After co exits the pane shows
// CO_EXIT=<code> and the terminal settings are saved for the test.
func startTUI(t *testing.T, dir string, environ []string, w, h int, args ...string) *tuiSession {
	t.Helper()
	return startTUIAfter(t, "", dir, environ, w, h, args...)
}

// startTUIAfter is startTUI with co started only once the file gate
// exists (none: at once): what is typed before goes to the terminal
// while no program reads it, as a user types while co starts.
func startTUIAfter(t *testing.T, gate, dir string, environ []string, w, h int, args ...string) *tuiSession {
	t.Helper()
	return startTUIGated(t, t.TempDir(), gate, dir, environ, w, h, args...)
}

// startTUIIn is startTUI with the tmux server's socket and files in tmp
// (tmp/tmux.sock): a test that gives co a TMUX names that socket.
func startTUIIn(t *testing.T, tmp, dir string, environ []string, w, h int, args ...string) *tuiSession {
	t.Helper()
	return startTUIGated(t, tmp, "", dir, environ, w, h, args...)
}

func startTUIGated(t *testing.T, tmp, gate, dir string, environ []string, w, h int, args ...string) *tuiSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testneeds.Tmux.Missing(t, err)
	}
	s := &tuiSession{t: t, sock: filepath.Join(tmp, "tmux.sock"), dir: dir, sttyOut: filepath.Join(tmp, "stty.txt")}
	var envArgs []string
	for _, kv := range environ {
		envArgs = append(envArgs, shq(kv))
	}
	var coArgs []string
	for _, a := range args {
		coArgs = append(coArgs, shq(a))
	}
	wait := ""
	if gate != "" {
		wait = fmt.Sprintf("while [ ! -e %s ]; do sleep 0.05; done\n", shq(gate))
	}
	script := fmt.Sprintf("#!/bin/sh\ncd %s || exit 1\n%senv -i %s %s %s\necho \"CO_EXIT=$?\"\nstty -a > %s\nexec sleep 600\n",
		shq(dir), wait, strings.Join(envArgs, " "), shq(coBin), strings.Join(coArgs, " "), shq(s.sttyOut))
	wrapper := filepath.Join(tmp, "run.sh")
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// set-clipboard on: an OSC 52 from the pane would become a tmux buffer,
	// so the test can see whether anything reached the clipboard.
	conf := filepath.Join(tmp, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g set-clipboard on\nset -g escape-time 10\nset -g status off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("tmux", "-S", s.sock, "-f", conf, "new-session", "-d", "-s", "co",
		"-x", strconv.Itoa(w), "-y", strconv.Itoa(h), wrapper)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "TERM=xterm-256color", "LANG=C.UTF-8"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("starting tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen at the end:\n%s", s.screen())
		}
		// co exits on the pane's SIGHUP and writes as it does (spans, the
		// session): the test's folders are removed only after it is gone.
		var pids []string
		if out, err := exec.Command("tmux", "-S", s.sock, "list-panes", "-a", "-F", "#{pane_pid}").Output(); err == nil {
			for _, shell := range strings.Fields(string(out)) {
				kids, _ := exec.Command("pgrep", "-P", shell).Output()
				pids = append(pids, strings.Fields(string(kids))...)
			}
		}
		_ = exec.Command("tmux", "-S", s.sock, "kill-server").Run()
		deadline := hangDeadline(30 * time.Second)
		for _, pid := range pids {
			for running(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
		}
	})
	return s
}

// running reports whether process pid exists and is not a zombie.
func running(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

func (s *tuiSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is what the pane shows, as text.
func (s *tuiSession) screen() string {
	out, err := exec.Command("tmux", "-S", s.sock, "capture-pane", "-p", "-t", "co").CombinedOutput()
	if err != nil {
		return fmt.Sprintf("(capture failed: %v %s)", err, out)
	}
	return string(out)
}

// waitFor waits until the screen shows every one of want and returns it.
// After an action, want must be text only the action produces: text that
// was on the screen before it (a word of the typed prompt, which the
// prompt shows before Enter; an earlier reply; the welcome box; the status
// bar; the prompt's placeholder) passes at once, whatever the action did,
// and times out instead once the action's output scrolls it away. For
// such text use waitForNew.
func (s *tuiSession) waitFor(timeout time.Duration, want ...string) string {
	s.t.Helper()
	deadline := hangDeadline(timeout)
	for {
		scr := s.screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(scr, w) {
				ok = false
			}
		}
		if ok {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %q; screen:\n%s", want, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitForNew does act and waits until the screen shows text more times
// than just before it, and returns the screen. It is for text that may
// already be on the screen when act begins (a word of the typed prompt, an
// earlier reply, the welcome box, the status bar), which waitFor would find
// at once whether act did anything or not. Call it on a settled screen, and
// only where the earlier occurrences stay on it: if act's output scrolls
// one away the count does not grow; then wait for text only act produces.
func (s *tuiSession) waitForNew(timeout time.Duration, text string, act func()) string {
	s.t.Helper()
	n := strings.Count(s.screen(), text)
	act()
	return s.waitUntil(timeout, fmt.Sprintf("%q shown more than the %d times before", text, n), func(scr string) bool {
		return strings.Count(scr, text) > n
	})
}

// turnOver reports whether the status bar (the screen's last line) says no
// turn is running: no spinner. Text in the bar that is there at every
// moment ("tokens … turn") says nothing about the turn.
func turnOver(scr string) bool {
	return !strings.ContainsAny(lastLine(scr), "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
}

// ready waits for the prompt.
func (s *tuiSession) ready() { s.t.Helper(); s.waitFor(20*time.Second, "Ask co anything") }

// typeText types text literally.
func (s *tuiSession) typeText(text string) { s.t.Helper(); s.tmux("send-keys", "-t", "co", "-l", text) }

// keys sends tmux key names (Enter, Escape, C-c, PPage...).
func (s *tuiSession) keys(keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", "co"}, keys...)...)
}

// send types a line and presses Enter.
func (s *tuiSession) send(line string) { s.t.Helper(); s.typeText(line); s.keys("Enter") }

func (s *tuiSession) resize(w, h int) {
	s.t.Helper()
	s.tmux("resize-window", "-t", "co", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h))
}

// format evaluates a tmux format for the pane, e.g. #{alternate_on}.
func (s *tuiSession) format(f string) string {
	s.t.Helper()
	return strings.TrimSpace(s.tmux("display-message", "-p", "-t", "co", f))
}

// exitCode waits for co to exit and returns its code.
func (s *tuiSession) exitCode(timeout time.Duration) int {
	s.t.Helper()
	scr := s.waitFor(timeout, "CO_EXIT=")
	i := strings.Index(scr, "CO_EXIT=")
	code, _ := strconv.Atoi(strings.Fields(scr[i+len("CO_EXIT="):])[0])
	return code
}

// coPID is the pid of the co process (the child of the pane's shell).
func (s *tuiSession) coPID() int {
	s.t.Helper()
	shell := s.format("#{pane_pid}")
	out, err := exec.Command("pgrep", "-P", shell).Output()
	if err != nil {
		s.t.Fatalf("finding co under pid %s: %v", shell, err)
	}
	pid, _ := strconv.Atoi(strings.Fields(string(out))[0])
	return pid
}

func (s *tuiSession) signal(sig syscall.Signal) {
	s.t.Helper()
	if err := syscall.Kill(s.coPID(), sig); err != nil {
		s.t.Fatal(err)
	}
}

// assertRestored checks the terminal after co exited: cooked mode with
// echo, main screen, no mouse reporting, cursor shown, bracketed paste off.
func (s *tuiSession) assertRestored() {
	s.t.Helper()
	var stty []byte
	deadline := time.Now().Add(tuiWait)
	for len(stty) == 0 && time.Now().Before(deadline) {
		stty, _ = os.ReadFile(s.sttyOut)
		time.Sleep(20 * time.Millisecond)
	}
	st := " " + strings.Join(strings.Fields(string(stty)), " ") + " "
	for _, want := range []string{" icanon ", " echo ", " isig ", " icrnl "} {
		if !strings.Contains(st, want) {
			s.t.Errorf("terminal not restored: stty lacks %q: %s", want, stty)
		}
	}
	for f, want := range map[string]string{
		"#{alternate_on}":        "0",
		"#{mouse_any_flag}":      "0",
		"#{mouse_button_flag}":   "0",
		"#{mouse_standard_flag}": "0",
		"#{cursor_flag}":         "1",
		"#{keypad_cursor_flag}":  "0",
	} {
		if got := s.format(f); got != want {
			s.t.Errorf("after exit %s = %s, want %s", f, got, want)
		}
	}
}

// buffers lists tmux's paste buffers (what OSC 52 writes).
func (s *tuiSession) buffers() string {
	out, _ := exec.Command("tmux", "-S", s.sock, "list-buffers", "-F", "#{buffer_sample}").CombinedOutput()
	return strings.TrimSpace(string(out))
}

func tuiShellCall(id, cmd string) llmtest.ToolCall {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return llmtest.ToolCall{ID: id, Name: "run_shell_command", Args: string(args)}
}

func fileExists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// waitUntil waits until cond holds for the screen and returns it.
func (s *tuiSession) waitUntil(timeout time.Duration, what string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := hangDeadline(timeout)
	for {
		scr := s.screen()
		if cond(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// styledScreen is what the pane shows with its SGR escapes (capture-pane -e).
func (s *tuiSession) styledScreen() string {
	out, err := exec.Command("tmux", "-S", s.sock, "capture-pane", "-e", "-p", "-t", "co").CombinedOutput()
	if err != nil {
		return fmt.Sprintf("(capture failed: %v %s)", err, out)
	}
	return string(out)
}

// modalArmed reports whether the approval modal on a styled screen has
// lit its key hints: the "y" of "y approve once" is bold (the theme's
// KeyHint, bold in every palette) once the grace period is over, dim
// (never bold) before.
func modalArmed(styled string) bool {
	for _, line := range strings.Split(styled, "\n") {
		i := strings.Index(line, "y\x1b[")
		for i >= 0 {
			rest := line[i+1:]
			if plain := stripSGR(rest); strings.HasPrefix(plain, " approve once") {
				// tmux writes one SGR per attribute ("\x1b[1m\x1b[38;5;26my"):
				// read every escape right before the "y".
				bold := false
				for head := line[:i]; strings.HasSuffix(head, "m"); {
					j := strings.LastIndex(head, "\x1b[")
					if j < 0 {
						break
					}
					params := strings.TrimSuffix(head[j+2:], "m")
					if strings.Trim(params, "0123456789;") != "" {
						break // text, not an escape, ends in "m"
					}
					for _, p := range strings.Split(params, ";") {
						bold = bold || p == "1"
					}
					head = head[:j]
				}
				return bold
			}
			k := strings.Index(rest, "y\x1b[")
			if k < 0 {
				break
			}
			i += 1 + k
		}
	}
	return false
}

// stripSGR drops the SGR escapes (ESC [ … m) from s.
func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := strings.IndexByte(s[i:], 'm')
			if j < 0 {
				break
			}
			i += j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// waitArmed waits until the approval modal's grace period is over, seen
// as a person sees it: its key hints light up. A key sent before then is
// swallowed by design (ui/tui/modal.go, ApprovalGrace), so tests that mean
// to answer wait for this event rather than sleep past the grace period.
func (s *tuiSession) waitArmed() {
	s.t.Helper()
	deadline := hangDeadline(tuiWait)
	for !modalArmed(s.styledScreen()) {
		if time.Now().After(deadline) {
			s.t.Fatalf("the modal's key hints never lit up; screen:\n%q", s.styledScreen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
