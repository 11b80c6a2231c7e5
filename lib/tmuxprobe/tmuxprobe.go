// Package tmuxprobe keeps `tmux info` off co's start path.
//
// lipgloss v2 sets its package variable Writer at initialisation with
// colorprofile.NewWriter(os.Stdout, os.Environ()) (lipgloss writer.go),
// and colorprofile.Detect, on a terminal inside tmux (TMUX set), runs
// `tmux info` to learn whether tmux passes true colour on: about 20 ms
// before main on every co started in tmux, the measured start path of
// issue 44, for a Writer co never writes through (the full-screen chat
// is given its colour profile, ui/tui, and asks tmux after its first
// frame; co's other output does not use lipgloss's printing functions).
//
// Go initialises packages in import-path order among those whose imports
// are initialised (the specification's "Package initialization", Go
// 1.21 and later). This package imports only the standard library and its
// path sorts before github.com/lucasb-eyer/go-colorful, which lipgloss
// imports, so its init runs before lipgloss's: it takes TMUX out of the
// environment, and Restore, the first thing main does, puts it back.
// startup_test.go (TestNoTmuxSubprocessAtInit) runs a build in a pseudo-
// terminal with a recording tmux on PATH to hold this to it.
package tmuxprobe

import "os"

var saved, had = os.LookupEnv("TMUX")

func init() {
	if had {
		os.Unsetenv("TMUX")
	}
}

// Restore puts TMUX back as co was started with it.
func Restore() {
	if had {
		os.Setenv("TMUX", saved)
	}
}
