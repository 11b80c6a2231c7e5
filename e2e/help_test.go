package e2e

import (
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// helpCommands are the commands an --help lists under "Available
// Commands:", by name.
func helpCommands(help string) []string {
	var names []string
	in := false
	for _, line := range strings.Split(help, "\n") {
		switch {
		case line == "Available Commands:":
			in = true
		case in && line == "":
			in = false
		case in && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   "):
			// A summary's continuation is indented further.
			names = append(names, strings.Fields(line)[0])
		}
	}
	return names
}

// Every command's --help, found as a user finds them (co --help, then
// each command's), exits 0 and fits 80 columns: a SPEC's examples, a
// flag's description or a command's summary wider than that wrapped
// mid-word in a terminal of 80 columns, and a pager showed it cut.
func TestEveryHelpFitsEightyColumns(t *testing.T) {
	e := env(t, nil)
	seen := 0
	var walk func(path []string)
	walk = func(path []string) {
		args := append(append([]string{}, path...), "--help")
		out, errOut, code := runCo(t, t.TempDir(), e, "", args...)
		name := strings.Join(append([]string{"co"}, path...), " ")
		seen++
		if code != 0 || errOut != "" {
			t.Errorf("%s --help: exit %d, stderr %q", name, code, errOut)
		}
		for i, line := range strings.Split(out, "\n") {
			if w := runewidth.StringWidth(line); w > 80 {
				t.Errorf("%s --help, line %d is %d columns wide:\n%s", name, i+1, w, line)
			}
		}
		for _, c := range helpCommands(out) {
			if c != "help" {
				walk(append(append([]string{}, path...), c))
			}
		}
	}
	walk(nil)
	if seen < 20 {
		t.Errorf("only %d commands' help was read: the walk lost its way", seen)
	}
}
