package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/agent/llmtest"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// auto picks by the variables that name the terminal, then by its answer
// to XTVERSION, and wraps for tmux; a method the setting names is used as
// it is.
func TestChooseNotify(t *testing.T) {
	tests := []struct {
		name    string
		setting string
		env     []string
		answer  string
		method  string
		tmux    bool
	}{
		{"off", "off", []string{"TERM_PROGRAM", "iTerm.app"}, "", "off", false},
		{"empty is auto", "", []string{"TERM_PROGRAM", "iTerm.app"}, "", "osc9", false},
		{"iTerm2 by TERM_PROGRAM", "auto", []string{"TERM_PROGRAM", "iTerm.app", "TERM", "xterm-256color"}, "", "osc9", false},
		{"iTerm2 over ssh by LC_TERMINAL", "auto", []string{"LC_TERMINAL", "iTerm2", "TERM", "xterm-256color"}, "", "osc9", false},
		{"iTerm2 by ITERM_SESSION_ID", "auto", []string{"ITERM_SESSION_ID", "w0t0p0:1"}, "", "osc9", false},
		{"WezTerm", "auto", []string{"TERM_PROGRAM", "WezTerm"}, "", "osc9", false},
		{"WezTerm by its pane", "auto", []string{"WEZTERM_PANE", "3"}, "", "osc9", false},
		{"ghostty", "auto", []string{"TERM_PROGRAM", "ghostty"}, "", "osc9", false},
		{"ghostty by TERM", "auto", []string{"TERM", "xterm-ghostty"}, "", "osc9", false},
		{"kitty by TERM", "auto", []string{"TERM", "xterm-kitty"}, "", "osc9", false},
		{"kitty by its window", "auto", []string{"KITTY_WINDOW_ID", "1"}, "", "osc9", false},
		{"foot", "auto", []string{"TERM", "foot-extra"}, "", "osc777", false},
		{"rxvt-unicode", "auto", []string{"TERM", "rxvt-unicode-256color"}, "", "osc777", false},
		{"Windows Terminal rings", "auto", []string{"WT_SESSION", "abc", "TERM", "xterm-256color"}, "", "bell", false},
		{"Terminal.app rings", "auto", []string{"TERM_PROGRAM", "Apple_Terminal"}, "", "bell", false},
		{"VS Code rings", "auto", []string{"TERM_PROGRAM", "vscode"}, "", "bell", false},
		{"GNOME Terminal rings", "auto", []string{"VTE_VERSION", "7600", "TERM", "xterm-256color"}, "", "bell", false},
		{"nothing known rings", "auto", nil, "", "bell", false},
		{"XTVERSION names iTerm2", "auto", []string{"TERM", "xterm-256color"}, "iTerm2 3.5.0", "osc9", false},
		{"XTVERSION names kitty", "auto", nil, "kitty(0.35.2)", "osc9", false},
		{"XTVERSION names foot", "auto", nil, "foot(1.16.2)", "osc777", false},
		{"XTVERSION of an unknown terminal", "auto", nil, "XTerm(390)", "bell", false},
		{"the environment wins over the answer", "auto", []string{"TERM_PROGRAM", "ghostty"}, "foot(1.16.2)", "osc9", false},
		{"tmux in an iTerm2 that started it", "auto", []string{"TMUX", "/tmp/tmux-0/default,1,0", "TERM_PROGRAM", "tmux", "LC_TERMINAL", "iTerm2"}, "", "osc9", true},
		{"tmux in a terminal not named rings", "auto", []string{"TMUX", "/tmp/tmux-0/default,1,0", "TERM_PROGRAM", "tmux", "TERM", "tmux-256color"}, "", "bell", true},
		{"tmux known by its answer", "auto", []string{"TERM", "screen-256color"}, "tmux 3.4", "bell", true},
		{"a named method in tmux is wrapped", "osc777", []string{"TMUX", "x"}, "", "osc777", true},
		{"a named method is used as it is", "osc9", []string{"TERM_PROGRAM", "Apple_Terminal"}, "", "osc9", false},
		{"bell named", "bell", []string{"TERM_PROGRAM", "iTerm.app"}, "", "bell", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ChooseNotify(tt.setting, envOf(tt.env...), tt.answer)
			if c.Method != tt.method || c.Tmux != tt.tmux {
				t.Errorf("ChooseNotify(%q, %v, %q) = %+v, want method %s tmux %v", tt.setting, tt.env, tt.answer, c, tt.method, tt.tmux)
			}
			if c.Why == "" {
				t.Errorf("no reason given: %+v", c)
			}
		})
	}
}

// The bytes each method writes, with and without tmux's passthrough.
func TestNotifySequence(t *testing.T) {
	tests := []struct {
		method string
		tmux   bool
		want   string
	}{
		{"off", false, ""},
		{"bell", false, "\a"},
		{"bell", true, "\a"}, // tmux rings its own bell and passes it on
		{"osc9", false, "\x1b]9;co: turn finished\a"},
		{"osc777", false, "\x1b]777;notify;co;turn finished\a"},
		{"osc9", true, "\x1bPtmux;\x1b\x1b]9;co: turn finished\a\x1b\\"},
		{"osc777", true, "\x1bPtmux;\x1b\x1b]777;notify;co;turn finished\a\x1b\\"},
	}
	for _, tt := range tests {
		got := NotifyChoice{Method: tt.method, Tmux: tt.tmux}.Sequence("co", "turn finished")
		if got != tt.want {
			t.Errorf("%s (tmux %v) = %q, want %q", tt.method, tt.tmux, got, tt.want)
		}
	}
}

// Nothing in a notification's text can end its OSC or start another: BEL,
// ESC (so ST and every other sequence), the C1 controls (ST is 0x9c),
// newlines and OSC 777's separator all go.
func TestNotifyTextCannotEndOrInjectTheSequence(t *testing.T) {
	evil := []string{
		"done\x07\x1b]9;pwned\x07",
		"a\x1b\\b\x1b]777;notify;x;y\x1b\\",
		"c1 \u009c st \u009b csi \u0090 dcs",
		"raw \x9c byte \x9b",
		"two\nlines\r\tand;semicolons",
		"\x1b[31mred\x1b[0m",
	}
	for _, body := range evil {
		for _, m := range []string{"osc9", "osc777"} {
			for _, tmux := range []bool{false, true} {
				seq := NotifyChoice{Method: m, Tmux: tmux}.Sequence("co", body)
				inner := seq
				if tmux {
					if !strings.HasPrefix(seq, "\x1bPtmux;") || !strings.HasSuffix(seq, "\x1b\\") {
						t.Fatalf("%s: not wrapped: %q", m, seq)
					}
					inner = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(seq, "\x1bPtmux;"), "\x1b\\"), "\x1b\x1b", "\x1b")
				}
				// One ESC, at the start; one BEL, at the end; nothing else
				// below space, DEL or C1 in between.
				if strings.Count(inner, "\x1b") != 1 || !strings.HasPrefix(inner, "\x1b]") {
					t.Errorf("%s tmux=%v %q: ESC inside the text: %q", m, tmux, body, seq)
				}
				if strings.Count(inner, "\a") != 1 || !strings.HasSuffix(inner, "\a") {
					t.Errorf("%s tmux=%v %q: BEL inside the text: %q", m, tmux, body, seq)
				}
				text := strings.TrimSuffix(strings.TrimPrefix(inner, "\x1b]"), "\a")
				for _, r := range text {
					if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
						t.Errorf("%s %q: control %U left in %q", m, body, r, text)
					}
				}
				if want := map[string]int{"osc9": 1, "osc777": 3}[m]; strings.Count(text, ";") != want {
					t.Errorf("%s %q: a ';' from the text splits the parameters: %q", m, body, text)
				}
			}
		}
	}
	if got := notifyText(strings.Repeat("x", 500), 120); len(got) != 120 {
		t.Errorf("a long text is kept at %d characters, want 120", len(got))
	}
}

// The chat notifies when a turn ends or an approval waits only after the
// terminal said it lost focus, and stops once it says it has it again; a
// reply's BEL or OSC never reaches the terminal through the notification.
func TestNotifiesOnlyWhileTheTerminalIsNotFocused(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(
		llmtest.Reply{Text: "first"},
		llmtest.Reply{Text: "second \x07\x1b]9;pwned\x07 done"},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "git status")}},
		llmtest.Reply{Text: "fourth"},
		llmtest.Reply{Text: "fifth"},
	)
	d := newDriver(t, Options{Agent: f.ag, Notify: "osc9"}, 100, 40)
	if !d.app.View().ReportFocus {
		t.Fatal("the chat does not ask the terminal for focus reports")
	}
	turn := func(text string) {
		t.Helper()
		d.typeText(text)
		d.key("enter")
		d.until("the turn to end", d.idle)
		d.drain()
	}

	turn("one") // no focus report yet: counted as focused
	if len(d.raw) != 0 {
		t.Fatalf("notified before the terminal reported losing focus: %q", d.raw)
	}

	d.send(tea.BlurMsg{})
	turn("two")
	if want := []string{"\x1b]9;co: turn finished\a"}; !equal(d.raw, want) {
		t.Fatalf("after a blur the turn's end wrote %q, want %q", d.raw, want)
	}

	d.raw = nil
	d.typeText("three")
	d.key("enter")
	d.until("the modal", func() bool { return d.app.modal != nil })
	// Not drain: the turn waits on the modal. The notification is the
	// opening's own command.
	d.until("the approval's notification", func() bool { return len(d.raw) > 0 })
	if want := []string{"\x1b]9;co: approval needed: run_shell_command\a"}; !equal(d.raw, want) {
		t.Fatalf("the waiting approval wrote %q, want %q", d.raw, want)
	}
	d.raw = nil
	d.send(tea.FocusMsg{})
	d.clock.Advance(ApprovalGrace + time.Millisecond)
	d.key("y")
	d.until("the turn to end", d.idle)
	d.drain()
	if len(d.raw) != 0 {
		t.Fatalf("notified while focused: %q", d.raw)
	}

	turn("five")
	if len(d.raw) != 0 {
		t.Fatalf("notified while focused: %q", d.raw)
	}
}

// notify=off asks for no focus reports and never writes.
func TestNotifyOffWritesNothing(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "done"})
	d := newDriver(t, Options{Agent: f.ag, Notify: "off"}, 100, 40)
	if d.app.View().ReportFocus {
		t.Error("notify=off still asks the terminal for focus reports")
	}
	d.send(tea.BlurMsg{})
	d.typeText("go")
	d.key("enter")
	d.until("the turn to end", d.idle)
	d.drain()
	if len(d.raw) != 0 {
		t.Fatalf("notify=off wrote %q", d.raw)
	}
}

// auto reads the environment Bubble Tea runs with (tea.EnvMsg) and the
// terminal's answer to XTVERSION.
func TestNotifyAutoHearsTheEnvironmentAndTheTerminal(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"}, llmtest.Reply{Text: "c"})
	d := newDriver(t, Options{Agent: f.ag}, 100, 40)
	d.send(tea.BlurMsg{})
	turn := func() string {
		t.Helper()
		d.raw = nil
		d.typeText("x")
		d.key("enter")
		d.until("the turn to end", d.idle)
		d.drain()
		return strings.Join(d.raw, "")
	}
	if got := turn(); got != "\a" {
		t.Errorf("auto with nothing known wrote %q, want the bell", got)
	}
	d.send(tea.TerminalVersionMsg{Name: "foot(1.16.2)"})
	if got := turn(); got != "\x1b]777;notify;co;turn finished\a" {
		t.Errorf("auto after foot answered wrote %q", got)
	}
	d.send(tea.EnvMsg{"TERM_PROGRAM=iTerm.app", "TMUX=/tmp/t,1,0"})
	if got := turn(); got != "\x1bPtmux;\x1b\x1b]9;co: turn finished\a\x1b\\" {
		t.Errorf("auto in tmux in iTerm2 wrote %q", got)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
