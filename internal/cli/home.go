package cli

import (
	"path/filepath"

	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
)

// homeNotice is the start notice of a workspace that holds the home folder
// (co started in ~, in /home or in /), "" otherwise: what that means — the
// shell commands see all of it, what co protects there — and how to start
// co in a project folder instead. Every start says it, in one line: it is
// true of every run started there, and nothing is stored to silence it; the
// way to silence it is to start co in a project folder.
func homeNotice(a *app.App) string {
	rel, ok := a.HomeWorkspace()
	if !ok {
		return ""
	}
	what := "the workspace is your home folder"
	if rel != "" {
		what = "the workspace (" + a.Workspace + ") holds your home folder (" + filepath.FromSlash(rel) + ")"
	}
	return safe.Text("note: " + what + ": shell commands and the file tools see all of it, the sandbox included. " +
		"co protects its shell start-up files, .ssh, .gnupg, git config, autostart, .local/bin and credential files " +
		"(the file tools ask, the sandbox undoes changes) and lets nothing write co's own folders. " +
		"To work on a project, start co there: cd ~/project && co")
}
