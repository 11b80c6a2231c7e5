package shell

import (
	"slices"
)

// BuiltinSafeCommands is the built-in safe list, sorted: the programs
// (and git's read-only subcommands, as "git status") that run without
// asking whatever shell_safe_commands says. Their arguments are still
// checked (an option that writes or runs a program asks). It is for
// display: co config shows it beside the user's additions.
func BuiltinSafeCommands() []string {
	p := &Policy{}
	p.builtins()
	out := make([]string, 0, len(p.safe)+len(p.gitRead))
	for name := range p.safe {
		if name != "git" {
			out = append(out, name)
		}
	}
	for sub := range p.gitRead {
		out = append(out, "git "+sub)
	}
	slices.Sort(out)
	return out
}
