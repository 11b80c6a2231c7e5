package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/co-cli/co/agent/llmtest"
)

// tmuxNotification is an OSC 9 wrapped in tmux's passthrough, as co
// writes it inside tmux: ESC P tmux; ESC ESC ] 9 ; text BEL ESC \.
var tmuxNotification = regexp.MustCompile("\x1bPtmux;\x1b\x1b\\]9;([^\x07\x1b]*)\x07\x1b\\\\")

// The full-screen chat in tmux (auto in an iTerm2 that started tmux:
// LC_TERMINAL=iTerm2 and TMUX) notifies when a turn ends or an approval
// waits after the terminal reported losing focus, wrapped in tmux's
// passthrough, and not once it reported focus again. The terminal outside
// tmux is a client attached in a pseudo-terminal the test holds: it
// reports focus (ESC [ O, ESC [ I), tmux with focus-events on passes that
// to the pane, and with allow-passthrough on passes co's notification out
// to it. What co writes is read from the pane's raw output (pipe-pane -O),
// what reached the outer terminal from the client's. A reply carrying BEL
// and an OSC of its own reaches the terminal neither as a notification nor
// raw.
func TestTUINotifiesWhileTheTerminalIsNotFocused(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	srv.Script(
		llmtest.Reply{Text: "first reply \x07\x1b]9;pwned\x07 end"},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "touch approved.txt")}},
		llmtest.Reply{Text: "after approval"},
		llmtest.Reply{Text: "focused reply"},
		llmtest.Reply{Text: "last reply"},
	)
	s := startTUI(t, dir, tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess", "LC_TERMINAL=iTerm2",
		"TMUX=/tmp/tmux-test/default,1,0", "TERM_PROGRAM=tmux"), 110, 40)
	raw := filepath.Join(t.TempDir(), "pane.out")
	s.tmux("set", "-s", "focus-events", "on")
	s.tmux("set", "-g", "allow-passthrough", "on")
	s.ready()
	s.tmux("pipe-pane", "-O", "-t", "co", "cat >> "+shq(raw))
	outer := s.attach(110, 40)
	// The terminal outside tmux reports losing and regaining focus, as a
	// terminal does with focus reporting on; tmux (focus-events on) tells
	// the pane, and the client's flags say when it has.
	blur := func() { outer.report(false) }
	focus := func() { outer.report(true) }
	notes := func() []string {
		b, _ := os.ReadFile(raw)
		var out []string
		for _, m := range tmuxNotification.FindAllStringSubmatch(string(b), -1) {
			out = append(out, m[1])
		}
		return out
	}
	// What the terminal outside tmux received through the passthrough.
	outerNotes := func() []string {
		var out []string
		for _, m := range osc9.FindAllStringSubmatch(outer.out.String(), -1) {
			out = append(out, m[1])
		}
		return out
	}
	waitNotes := func(want ...string) {
		t.Helper()
		deadline := hangDeadline(tuiWait)
		for !slices.Equal(notes(), want) || !slices.Equal(outerNotes(), want) {
			if time.Now().After(deadline) {
				b, _ := os.ReadFile(raw)
				t.Fatalf("notifications %q (outside tmux %q), want %q; raw output ends:\n%q", notes(), outerNotes(), want, tail(string(b), 600))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// Unfocused: the turn's end notifies.
	blur()
	s.send("hello")
	s.waitFor(tuiWait, "first reply")
	waitNotes("co: turn finished")

	// Still unfocused: the approval notifies when it opens.
	s.send("make the file")
	s.waitFor(tuiWait, "Approve run_shell_command?")
	waitNotes("co: turn finished", "co: approval needed: run_shell_command")

	// Focused again: approving, the turn's end and the next turn say
	// nothing. The last turn, unfocused again, notifies: its notification
	// comes after anything these two turns wrote, so the list being
	// exactly three long shows they wrote none.
	focus()
	s.waitArmed()
	s.keys("y")
	s.waitFor(tuiWait, "after approval")
	s.send("now focused")
	s.waitFor(tuiWait, "focused reply")
	blur()
	s.send("away again")
	s.waitFor(tuiWait, "last reply")
	waitNotes("co: turn finished", "co: approval needed: run_shell_command", "co: turn finished")

	b, _ := os.ReadFile(raw)
	if strings.Contains(string(b), "\x1b]9;pwned") || strings.Contains(string(b), "\x1b\x1b]9;pwned") {
		t.Errorf("the reply's own OSC 9 reached the terminal raw: %q", tail(string(b), 600))
	}
	if strings.Contains(outer.out.String(), "\x1b]9;pwned") {
		t.Errorf("the reply's own OSC 9 reached the terminal outside tmux")
	}
	if !fileExists(dir, "approved.txt") {
		t.Error("the approved command did not run")
	}

	// On the way out co turns focus reporting off again, or the shell
	// after it would get ESC [ I and ESC [ O as typed text.
	s.keys("C-d")
	if code := s.exitCode(tuiWait); code != 0 {
		t.Fatalf("co exited %d", code)
	}
	deadline := hangDeadline(tuiWait)
	for {
		b, _ := os.ReadFile(raw)
		if strings.Contains(string(b), "\x1b[?1004l") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("co did not turn focus reporting off on exit; raw output ends:\n%q", tail(string(b), 600))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// osc9 is an OSC 9 as the terminal outside tmux receives it.
var osc9 = regexp.MustCompile("\x1b\\]9;([^\x07\x1b]*)\x07")

// tmuxClient is a tmux client attached to the session in a pseudo-terminal
// the test holds: the terminal outside tmux.
type tmuxClient struct {
	s   *tuiSession
	pty *os.File
	out *syncBuffer // what tmux drew and passed through to the terminal
}

// attach attaches a client of w×h (the session's size, so that attaching
// resizes nothing) and waits until tmux lists it.
func (s *tuiSession) attach(w, h int) *tmuxClient {
	s.t.Helper()
	cmd := exec.Command("tmux", "-S", s.sock, "attach", "-t", "co")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8"}
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(w), Rows: uint16(h)})
	if err != nil {
		s.t.Fatalf("attaching a tmux client: %v", err)
	}
	c := &tmuxClient{s: s, pty: f, out: &syncBuffer{}}
	go func() { _, _ = io.Copy(c.out, f) }()
	s.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = f.Close()
	})
	c.waitFlags(true)
	return c
}

// report sends the focus report a terminal sends (ESC [ I, ESC [ O) and
// waits until tmux has taken it: the client's flags say so.
func (c *tmuxClient) report(focused bool) {
	c.s.t.Helper()
	seq := "\x1b[O"
	if focused {
		seq = "\x1b[I"
	}
	if _, err := c.pty.Write([]byte(seq)); err != nil {
		c.s.t.Fatal(err)
	}
	c.waitFlags(focused)
}

// waitFlags waits until tmux lists the client, focused or not.
func (c *tmuxClient) waitFlags(focused bool) {
	c.s.t.Helper()
	deadline := hangDeadline(tuiWait)
	for {
		out, _ := exec.Command("tmux", "-S", c.s.sock, "list-clients", "-F", "#{client_flags}").CombinedOutput()
		flags := strings.TrimSpace(string(out))
		if strings.Contains(flags, "attached") && strings.Contains(flags, "focused") == focused {
			return
		}
		if time.Now().After(deadline) {
			c.s.t.Fatalf("the tmux client never became focused=%v: flags %q", focused, flags)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// co status says how the chat would notify in this terminal and why;
// co config shows the setting; a wrong value names the ones allowed.
func TestStatusShowsNotifications(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	tests := []struct {
		name  string
		extra []string
		want  []string
	}{
		{"auto in WezTerm", []string{"TERM_PROGRAM=WezTerm"},
			[]string{"OSC 9 when a turn ends or an approval waits and the chat's terminal is not focused (auto: WezTerm (TERM_PROGRAM=WezTerm))"}},
		{"auto with nothing known", nil,
			[]string{"the bell when a turn ends", "(auto: no terminal known to show OSC 9 or OSC 777)"}},
		{"off", []string{"CO_CLI_NOTIFY=off", "TERM_PROGRAM=WezTerm"}, []string{"off (notify=off)"}},
		{"osc777 inside tmux", []string{"CO_CLI_NOTIFY=osc777", "TMUX=/tmp/t,1,0"},
			[]string{"OSC 777 when a turn ends", "(notify=osc777)", "inside tmux: sent through its passthrough; needs `set -g focus-events on` and `set -g allow-passthrough on`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCo(t, t.TempDir(), env(t, srv, tt.extra...), "", "status")
			if code != 0 {
				t.Fatalf("co status: exit %d\n%s\n%s", code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("co status lacks %q:\n%s", w, out)
				}
			}
		})
	}
	out, _, code := runCo(t, t.TempDir(), env(t, srv, "CO_CLI_NOTIFY=bell"), "", "config")
	if code != 0 || configRow(out, "notify") != squash("notify bell (from $CO_CLI_NOTIFY)") {
		t.Errorf("co config does not show notify=bell (exit %d):\n%s", code, out)
	}
	_, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "config", "set", "notify", "loud")
	if code == 0 || !strings.Contains(errOut, `"notify" must be "auto", "off", "bell", "osc9" or "osc777", got "loud"`) {
		t.Errorf("co config set notify loud: exit %d, stderr:\n%s", code, errOut)
	}
}
