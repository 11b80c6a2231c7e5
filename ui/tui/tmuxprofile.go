package tui

import (
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// Inside tmux, Bubble Tea's colour detection (colorprofile.Detect) runs
// `tmux info` as a subprocess before the first frame, to learn whether
// tmux passes true colour on (its Tc or RGB feature): ~20 ms of the start
// path (issue 44). The chat is given the profile the environment and the
// terminfo entry tell instead, and asks tmux once the first frame is out;
// when tmux does pass true colour, the screen is drawn again in it.

// tmuxProfile returns the profile to start with when env is tmux's (TMUX
// set): the one Detect finds without asking tmux; ok false outside tmux.
func tmuxProfile(out io.Writer, env []string) (p colorprofile.Profile, ok bool) {
	rest := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, "TMUX=") {
			ok = kv != "TMUX="
			continue
		}
		rest = append(rest, kv)
	}
	if !ok {
		return 0, false
	}
	return colorprofile.Detect(out, rest), true
}

// tmuxProfileMsg is what tmux said of its colours (askTmux).
type tmuxProfileMsg struct{ profile colorprofile.Profile }

// askTmux asks tmux for its colour profile (colorprofile.Tmux runs `tmux
// info`), after the first frame.
func askTmux(env []string) tea.Cmd {
	return func() tea.Msg {
		return tmuxProfileMsg{colorprofile.Tmux(env)}
	}
}

// onTmuxProfile switches to tmux's profile when it is richer than the one
// the chat started with, and draws the whole screen again in it (cells
// already drawn would keep their first colours otherwise).
func (a *App) onTmuxProfile(msg tmuxProfileMsg) tea.Cmd {
	if msg.profile <= a.tmux.start {
		return nil
	}
	a.tmux.start = msg.profile
	return tea.Sequence(func() tea.Msg { return tea.ColorProfileMsg{Profile: msg.profile} }, tea.ClearScreen)
}

// tmuxState is what the chat knows of tmux: the environment to ask it
// with, nil outside tmux, and the profile drawn with.
type tmuxState struct {
	env   []string
	start colorprofile.Profile
}

// environ is o.Environ or the process's.
func environ(o Options) []string {
	if o.Environ != nil {
		return o.Environ
	}
	return os.Environ()
}
