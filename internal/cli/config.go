package cli

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/tools/shell"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/safe"
)

func newConfigCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Show the effective settings, where each value comes from, secrets masked",
		Long: `co config lists every setting with its effective value and its source:
default, the user file, the project file (./.co-cli/settings.json) or an
environment variable. Precedence: environment > project file > user file >
defaults. Secrets are masked. A project file may set only a few settings
(see the README's "What a project file may set"); a value it sets for any
other is not in effect, and its row says it was ignored.

A malformed settings file, or a wrong value in one or in the environment,
does not stop it: it says what is wrong first (file, line and column), lists
the settings without it, and exits 1.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			l, err := loadReport()
			if l == nil {
				return err
			}
			printConfigWarnings(s, l)
			printConfig(s, l)
			return err // exit 1, and said again on stderr
		},
	}
}

func printConfig(s env, l *config.Loaded) {
	if problems := settingsProblems(l); len(problems) > 0 {
		fmt.Fprintf(s.Out, "%s\n\n", strings.Join(problems, "\n"))
	}
	fmt.Fprintf(s.Out, "user file:    %s%s\nproject file: %s%s\ndata dir:     %s\n\n",
		l.Paths.UserFile, fileState(l, l.Paths.UserFile), l.Paths.ProjectFile, fileState(l, l.Paths.ProjectFile), l.Paths.DataDir)
	w := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "SETTING\tSOURCE\tENV\tVALUE")
	for _, e := range l.Entries() {
		v := fmt.Sprint(e.Value)
		if e.Key == "shell_safe_commands" {
			v += " (added to the built-in list: see below)"
		}
		for _, p := range l.Problems {
			if p.Key == e.Key {
				// What is shown is in effect without it; say what is not.
				v += fmt.Sprintf("  [left out, see ERROR above: %s]", p.Source)
			}
		}
		for _, src := range e.Ignored {
			// Value and source are what is in effect; say what is not.
			v += fmt.Sprintf("  [ignored: %s sets it, but a project file may not]", src)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", e.Key, e.Source, e.Env, present.Line(safe.Text(v)))
	}
	w.Flush()
	printSafeCommands(s, l)
}

// printSafeCommands shows the safe commands in effect: the built-in list,
// which always applies, and what shell_safe_commands adds to it.
func printSafeCommands(s env, l *config.Loaded) {
	builtin := shell.BuiltinSafeCommands()
	var added []string
	for _, c := range l.Settings.ShellSafeCommands {
		if c = strings.Join(strings.Fields(c), " "); !slices.Contains(builtin, c) && !slices.Contains(added, c) {
			added = append(added, c)
		}
	}
	fmt.Fprintf(s.Out, "\nsafe commands in effect (run without asking; their arguments are still checked):\n")
	fmt.Fprintf(s.Out, "  built in (always):  %s\n", wrapWords(builtin, 80, "                      "))
	if len(added) == 0 {
		fmt.Fprintf(s.Out, "  added by shell_safe_commands: none beyond the built-in list\n")
		return
	}
	fmt.Fprintf(s.Out, "  added by shell_safe_commands (%s): %s\n", l.Sources["shell_safe_commands"], strings.Join(added, ", "))
}

// wrapWords joins words with ", ", breaking lines before width and
// indenting continuation lines with indent.
func wrapWords(words []string, width int, indent string) string {
	var b strings.Builder
	col := len(indent)
	for i, w := range words {
		if i > 0 {
			b.WriteString(",")
			col++
			if col+1+len(w) > width {
				b.WriteString("\n" + indent)
				col = len(indent)
			} else {
				b.WriteString(" ")
				col++
			}
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// fileState is "" for a settings file that was read, else says it does
// not exist, or that it was left out (a partial load: see the ERROR).
func fileState(l *config.Loaded, path string) string {
	if l.Problem(path) != nil {
		return "  (LEFT OUT: see ERROR above)"
	}
	if slices.Contains(l.Files, path) {
		return ""
	}
	return "  (does not exist)"
}
