package tui

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/lib/safe"
)

// Notifications through the terminal: when a turn ends, or an approval
// waits, and the terminal is not focused, the chat writes a sequence the
// terminal turns into a desktop notification (OSC 9, OSC 777) or rings
// its bell. Never while focused: focus is what the terminal reports (DEC
// mode 1004, Bubble Tea's View.ReportFocus, tea.FocusMsg and tea.BlurMsg);
// before its first report the chat counts as focused, so a terminal that
// never reports focus gets no notification at all (as crush does with no
// focus events: https://github.com/charmbracelet/crush/pull/2590).
//
// The sequence goes out with tea.Raw: Bubble Tea (charm.land/bubbletea/v2
// v2.1.1, tea.go) queues a RawMsg's text in the program's output buffer
// (Program.execute) and its renderer loop (startRenderer) writes that
// buffer out whole before it flushes the next frame, never inside one; OSC
// 9, OSC 777 and BEL move no cursor, so the renderer's idea of the screen
// stays true.

// The notify setting's values: auto picks one of the others.
const (
	NotifyAuto   = "auto"
	NotifyOff    = "off"
	NotifyBell   = "bell"
	NotifyOSC9   = "osc9"
	NotifyOSC777 = "osc777"
)

// NotifyChoice is how notifications reach the terminal.
type NotifyChoice struct {
	// Method is off, bell, osc9 or osc777.
	Method string
	// Tmux: co runs inside tmux, so an OSC goes out wrapped in tmux's
	// passthrough (DCS tmux; … ST), which needs allow-passthrough on.
	Tmux bool
	// Why says how auto chose (the variable or answer that named the
	// terminal), or that the setting named the method.
	Why string
}

// The terminals auto knows, by what names them, and the method each shows;
// where each terminal's behaviour was read: docs/SOURCES.md, "Terminal
// notifications". What the terminal answers to XTVERSION (CSI > q) is used
// when the environment named no terminal: over ssh only LC_* variables
// cross, but the answer does.
var notifyTerminals = []struct {
	name   string
	method string
	env    [][2]string // variable, value ("" : set at all; "prefix*")
	answer string      // the XTVERSION answer starts with it (lower case)
}{
	{"Windows Terminal", NotifyBell, [][2]string{{"WT_SESSION", ""}}, ""},
	{"iTerm2", NotifyOSC9, [][2]string{{"TERM_PROGRAM", "iTerm.app"}, {"LC_TERMINAL", "iTerm2"}, {"ITERM_SESSION_ID", ""}}, "iterm2"},
	{"WezTerm", NotifyOSC9, [][2]string{{"TERM_PROGRAM", "WezTerm"}, {"WEZTERM_PANE", ""}, {"TERM", "wezterm*"}}, "wezterm"},
	{"ghostty", NotifyOSC9, [][2]string{{"TERM_PROGRAM", "ghostty"}, {"GHOSTTY_RESOURCES_DIR", ""}, {"TERM", "xterm-ghostty"}}, "ghostty"},
	{"kitty", NotifyOSC9, [][2]string{{"TERM", "xterm-kitty"}, {"KITTY_WINDOW_ID", ""}}, "kitty"},
	{"foot", NotifyOSC777, [][2]string{{"TERM", "foot*"}}, "foot"},
	{"rxvt-unicode", NotifyOSC777, [][2]string{{"TERM", "rxvt-unicode*"}}, ""},
}

// ChooseNotify picks how notifications reach the terminal: setting is
// the notify setting ("" is auto), getenv reads the environment co runs
// in, answer is the terminal's answer to XTVERSION ("" when none came).
// A method named by the setting is used as it is, wrapped for tmux when
// co runs inside it.
func ChooseNotify(setting string, getenv func(string) string, answer string) NotifyChoice {
	answer = strings.ToLower(strings.TrimSpace(answer))
	tmux := getenv("TMUX") != "" || getenv("TERM_PROGRAM") == "tmux" ||
		strings.HasPrefix(getenv("TERM"), "tmux") || strings.HasPrefix(answer, "tmux")
	switch setting {
	case NotifyOff:
		return NotifyChoice{Method: NotifyOff, Why: "notify is off"}
	case NotifyBell, NotifyOSC9, NotifyOSC777:
		return NotifyChoice{Method: setting, Tmux: tmux, Why: "notify is " + setting}
	}
	for _, t := range notifyTerminals {
		for _, kv := range t.env {
			v := getenv(kv[0])
			if v == "" {
				continue
			}
			if kv[1] == "" || v == kv[1] || strings.HasSuffix(kv[1], "*") && strings.HasPrefix(v, strings.TrimSuffix(kv[1], "*")) {
				why := t.name + " (" + kv[0] + ")"
				if kv[1] != "" {
					why = t.name + " (" + kv[0] + "=" + safe.Text(v) + ")"
				}
				return NotifyChoice{Method: t.method, Tmux: tmux, Why: why}
			}
		}
	}
	for _, t := range notifyTerminals {
		if t.answer != "" && strings.HasPrefix(answer, t.answer) {
			return NotifyChoice{Method: t.method, Tmux: tmux, Why: t.name + " (its answer to XTVERSION)"}
		}
	}
	return NotifyChoice{Method: NotifyBell, Tmux: tmux, Why: "no terminal known to show OSC 9 or OSC 777"}
}

// Sequence is what the terminal is sent for a notification titled title
// saying body: "" when the method is off. title and body are cleaned
// (notifyText) so that nothing in them can end the sequence or start
// another.
func (c NotifyChoice) Sequence(title, body string) string {
	title, body = notifyText(title, 20), notifyText(body, 120)
	var seq string
	switch c.Method {
	case NotifyBell:
		// tmux handles a bell itself (bell-action, monitor-bell) and
		// passes it on to the terminal: never wrapped.
		return "\a"
	case NotifyOSC9:
		// ESC ] 9 ; text BEL (iTerm2: "OSC 9 ; [Message content goes here] ST").
		text := body
		if title != "" {
			text = title + ": " + body
		}
		seq = "\x1b]9;" + text + "\a"
	case NotifyOSC777:
		// ESC ] 777 ; notify ; title ; body BEL (urxvt's notify, foot).
		seq = "\x1b]777;notify;" + title + ";" + body + "\a"
	default:
		return ""
	}
	if c.Tmux {
		// tmux passes a sequence to the terminal outside it only wrapped
		// in DCS tmux; … ST with every ESC inside doubled, and only with
		// allow-passthrough on (tmux(1), allow-passthrough).
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}

// notifyText is s made safe inside an OSC's text: through lib/safe (an ESC
// becomes a visible ␛), then every control character left (newline, tab,
// and C0/C1 controls, should any remain) and the OSC's parameter separator
// ";" become spaces, runs of spaces one, and at most limit runes kept. No
// byte of it can end the sequence (BEL, ST = ESC \, the C1 ST 0x9c) or
// start another.
func notifyText(s string, limit int) string {
	s = safe.Text(s)
	var b strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || r == ';' || unicode.IsSpace(r) {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		if n == limit {
			break
		}
		space = false
		b.WriteRune(r)
		n++
	}
	return strings.TrimRight(b.String(), " ")
}

// notifier is the chat's side of notifications: the choice, what the
// terminal has said of its focus, and what auto still needs to hear.
type notifier struct {
	setting string // the notify setting
	env     func(string) string
	answer  string // XTVERSION
	choice  NotifyChoice
	// blurred: the terminal's last focus report said it lost focus.
	// Before any report the chat counts as focused.
	blurred bool
}

func newNotifier(setting string) *notifier {
	if setting == "" {
		setting = NotifyAuto
	}
	n := &notifier{setting: setting, env: func(string) string { return "" }}
	n.choice = ChooseNotify(setting, n.env, "")
	return n
}

// on reports whether the chat asks for focus reports at all.
func (n *notifier) on() bool { return n.setting != NotifyOff }

// environment takes the environment Bubble Tea runs with (tea.EnvMsg).
func (n *notifier) environment(msg tea.EnvMsg) {
	n.env = msg.Getenv
	n.choice = ChooseNotify(n.setting, n.env, n.answer)
}

// terminalVersion takes the terminal's answer to XTVERSION.
func (n *notifier) terminalVersion(name string) {
	n.answer = name
	n.choice = ChooseNotify(n.setting, n.env, n.answer)
}

// notify returns the command that notifies, or nil while the terminal is
// focused (or not known to be unfocused) or notifications are off.
func (n *notifier) notify(body string) tea.Cmd {
	if !n.blurred {
		return nil
	}
	seq := n.choice.Sequence("co", body)
	if seq == "" {
		return nil
	}
	return tea.Raw(seq)
}

// approvalText is the notification of an approval that waits: the tools
// its calls are to.
func approvalText(tools []string) string {
	var uniq []string
	for _, t := range tools {
		if !slices.Contains(uniq, t) {
			uniq = append(uniq, t)
		}
	}
	return "approval needed: " + strings.Join(uniq, ", ")
}
