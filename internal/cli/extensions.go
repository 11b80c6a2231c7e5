package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/co-cli/co/extensions"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/slash"
)

// customCommands are the custom commands and skills as /NAME, and the
// warnings about names that lose: a built-in command wins over both, a
// custom command over a skill.
func customCommands(set *extensions.Set) ([]slash.Custom, []string) {
	var out []slash.Custom
	var warns []string
	taken := map[string]string{}
	for _, c := range set.Commands {
		name := "/" + c.Name
		if slash.Builtin(name) {
			warns = append(warns, fmt.Sprintf("%s: the custom command %s is not used: the built-in %s wins (rename the file)", c.Path, name, name))
			continue
		}
		taken[name] = c.Path
		out = append(out, slash.Custom{Name: name, Help: c.Description, Message: func(args string) (string, error) { return c.Expand(args), nil }})
	}
	for _, s := range set.Skills {
		name := "/" + s.Name
		switch {
		case slash.Builtin(name):
			warns = append(warns, fmt.Sprintf("%s: the skill %s cannot be run as %s: the built-in %s wins (the model can still use it)", s.Path, s.Name, name, name))
			continue
		case taken[name] != "":
			warns = append(warns, fmt.Sprintf("%s: the skill %s cannot be run as %s: the custom command %s wins (the model can still use it)", s.Path, s.Name, name, taken[name]))
			continue
		}
		out = append(out, slash.Custom{Name: name, Help: s.Description, Skill: true, Message: s.UserMessage})
	}
	return out, warns
}

// extensionNotes are the problems with instruction, skill and command
// files, for the chat to show once it is up (sanitised: they quote files).
func extensionNotes(set *extensions.Set) []string {
	var out []string
	for _, p := range set.Problems {
		out = append(out, safe.Text("warning: "+p.String()))
	}
	_, warns := customCommands(set)
	for _, w := range warns {
		out = append(out, safe.Text("warning: "+w))
	}
	return out
}

// customEnv is slash.Env.Custom for the chat: it waits for the files read
// at start-up (milliseconds) the first time.
func (c *chat) customEnv() func() []slash.Custom {
	return func() []slash.Custom {
		cs, _ := customCommands(c.Extensions.Get())
		return cs
	}
}

// extensionStatus are the rows of co status and /status about instruction
// files, skills and commands.
func extensionStatus(set *extensions.Set) []string {
	var rows []string
	if len(set.Instructions) == 0 {
		rows = append(rows, "instructions\tnone (no AGENTS.md or context_files from the repository root down to the workspace, nor in the config dir)")
	}
	for i, f := range set.Instructions {
		label := ""
		if i == 0 {
			label = "instructions"
		}
		note := plural(int(f.Size), "byte")
		switch {
		case f.Shown == 0 && f.Size > 0:
			note += fmt.Sprintf("; left out: the instruction files are capped at %d bytes together", set.MaxBytes())
		case f.Truncated():
			note += fmt.Sprintf("; truncated to %d: the instruction files are capped at %d bytes together", f.Shown, set.MaxBytes())
		}
		rows = append(rows, fmt.Sprintf("%s\t%s (%s)", label, f.Path, note))
	}
	// Skills are the model's whatever /NAME runs; a command is only /NAME,
	// so one a built-in shadows is left out (file problems say so).
	var skills, cmds []string
	for _, s := range set.Skills {
		skills = append(skills, s.Name)
	}
	for _, c := range set.Commands {
		if !slash.Builtin("/" + c.Name) {
			cmds = append(cmds, "/"+c.Name)
		}
	}
	rows = append(rows, "skills\t"+listOrNone(skills), "commands\t"+listOrNone(cmds))
	for i, p := range set.Problems {
		label := ""
		if i == 0 {
			label = "file problems"
		}
		rows = append(rows, label+"\t"+p.String())
	}
	_, warns := customCommands(set)
	for _, w := range warns {
		rows = append(rows, "\t"+w)
	}
	return rows
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d: %s", len(xs), strings.Join(xs, ", "))
}

// extensionsFor waits (briefly) for the files read at start-up, for the
// --plain banner: nil when they are not read yet.
func (c *chat) extensionsFor(d time.Duration) *extensions.Set {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	set, _ := c.Extensions.Wait(ctx)
	return set
}
