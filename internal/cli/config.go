package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/mattn/go-runewidth"
	"github.com/spf13/cobra"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/tools/shell"
	"github.com/co-cli/co/ui/present"
)

func newConfigCmd(s env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective settings, where each value comes from, secrets masked",
		Long: `co config lists every setting with its effective value and its source:
default, the user file, the project file (./.co-cli/settings.json) or an
environment variable. Precedence: environment > project file > user file >
defaults. Secrets are masked. A project file may set only a few settings
(docs/configuration.md, "What a project file may set"); a value it sets
for any other is not in effect, and its row says it was ignored.

A malformed settings file, or a wrong value in one or in the environment,
does not stop it: it says what is wrong first (file, line and column), lists
the settings without it, and exits 1.

co config set KEY VALUE writes one setting to the user file, checked as co
checks it at start; co config unset KEY takes it out again.`,
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
	cmd.AddCommand(newConfigSetCmd(s), newConfigUnsetCmd(s))
	return cmd
}

func newConfigSetCmd(s env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "set KEY [VALUE]",
		Short: "Set a setting in your user settings file",
		Long: `co config set KEY VALUE writes KEY to your user settings file
($XDG_CONFIG_HOME/co-cli/settings.json, or ~/.config/co-cli/settings.json),
checked as co checks it when it starts. VALUE is written as the setting's
environment variable is read: true/false (also 1/0, yes/no, on/off), a
number, a comma-separated list (CLAUDE.md,GEMINI.md) or a JSON array, a
JSON value for shell_policy and mcp_servers. Without VALUE it is read from
standard input, one line, not echoed on a terminal: the way to give an API
key without leaving it in your shell's history.

Only this key changes: every other key keeps its place and formatting, keys
co does not know included. The file is written atomically with mode 0600.
A project file is never written: edit ./.co-cli/settings.json yourself.`,
		Example: `  co config set context_files CLAUDE.md,GEMINI.md
  co config set llm_provider ollama
  co config set gemini_api_key          (then paste the key)`,
		Args: usageArgs(setArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			key := args[0]
			var value string
			if len(args) == 2 {
				value = args[1]
			} else {
				var err error
				if value, err = readValue(s, key); err != nil {
					return err
				}
			}
			return editUserFile(s, config.Change{Key: key, Value: value})
		},
	}
	// A value may start with "-" (llm_temperature -1): after KEY nothing
	// is a flag.
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// setArgs is KEY and at most one VALUE. A word more is named: a flag
// there (--project, say) is not one co config set has, and it writes only
// the user file; other words are a value that needs quotes.
func setArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return errors.New("no setting given: co config set KEY VALUE (co config lists the keys)")
	}
	if len(args) <= 2 {
		return nil
	}
	for _, a := range args[2:] {
		if strings.HasPrefix(a, "-") {
			return fmt.Errorf("unknown flag %s after %s %s: co config set has no flags; it writes only your user settings file "+
				"(a project's ./.co-cli/settings.json is edited by hand)", a, args[0], args[1])
		}
	}
	return fmt.Errorf("%q after %s %s is one word too many: co config set takes KEY and one VALUE; quote a value with spaces (co config set %s '%s')",
		strings.Join(args[2:], " "), args[0], args[1], args[0], strings.Join(args[1:], " "))
}

func newConfigUnsetCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "unset KEY",
		Short: "Remove a setting from your user settings file (back to the default)",
		Long: `co config unset KEY removes KEY from your user settings file, so the
default applies again (or the project file's value or an environment
variable, which come after it). Every other key is left as it is.`,
		Example: `  co config unset theme`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return editUserFile(s, config.Change{Key: args[0], Unset: true})
		},
	}
}

// readValue reads a setting's value from standard input: one line, not
// echoed when standard input is a terminal.
func readValue(s env, key string) (string, error) {
	if f, ok := s.In.(*os.File); ok && term.IsTerminal(f.Fd()) {
		fmt.Fprintf(s.Err, "%s (not echoed): ", key)
		b, err := term.ReadPassword(f.Fd())
		fmt.Fprintln(s.Err)
		if err != nil {
			return "", fmt.Errorf("cannot read the value of %s: %w", key, err)
		}
		return string(b), nil
	}
	line, err := bufio.NewReader(s.In).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("cannot read the value of %s from standard input: %w", key, err)
	}
	if strings.TrimSpace(line) == "" {
		return "", usageError{fmt.Errorf("no value for %s: give it after the key, or on standard input", key), "co config set"}
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// editUserFile applies one change to the user file and says what it did,
// and what, if anything, still overrides it.
func editUserFile(s env, c config.Change) error {
	paths, err := config.ResolvePaths(config.LoadOptions{})
	if err != nil {
		return err
	}
	if err := config.EditFile(paths.UserFile, c); err != nil {
		// A problem with no file named is one with the command line: the
		// key or the value given.
		var ce *config.Error
		if errors.As(err, &ce) && ce.Source == "" {
			name := "co config set"
			if c.Unset {
				name = "co config unset"
			}
			return usageError{err, name}
		}
		return err
	}
	l, err := config.Load(config.LoadOptions{})
	if err != nil { // the user file is fine; something else is not
		fmt.Fprintf(s.Err, "co: warning: %s\n", safe.Text(err.Error()))
	}
	if c.Unset {
		fmt.Fprintf(s.Out, "unset %s in %s\n", c.Key, paths.UserFile)
	} else {
		fmt.Fprintf(s.Out, "set %s = %s in %s\n", c.Key, userValue(c.Key), paths.UserFile)
	}
	if l != nil {
		if src := l.Sources[c.Key]; src.Layer > config.LayerUser {
			fmt.Fprintf(s.Err, "co: note: %s still overrides it (co config shows the value in effect)\n", safe.Text(src.String()))
		}
	}
	return nil
}

func printConfig(s env, l *config.Loaded) {
	if problems := settingsProblems(l); len(problems) > 0 {
		fmt.Fprintf(s.Out, "%s\n\n", strings.Join(problems, "\n"))
	}
	fmt.Fprintf(s.Out, "user file:    %s%s\nproject file: %s%s\ndata dir:     %s\n\n",
		l.Paths.UserFile, fileState(l, l.Paths.UserFile), l.Paths.ProjectFile, fileState(l, l.Paths.ProjectFile), l.Paths.DataDir)
	entries := l.Entries()
	col := 0
	for _, e := range entries {
		col = max(col, len(e.Key)+2)
	}
	width := outWidth(s)
	fmt.Fprintf(s.Out, "%-*s%s\n", col, "SETTING", "VALUE  (SOURCE; ENVIRONMENT VARIABLE)")
	for _, e := range entries {
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
		v += "  (" + origin(e.Source.String(), e.Env, e.Source.Layer < config.LayerUser, e.Source.Layer == config.LayerEnv) + ")"
		for i, line := range wrapCell(present.Line(safe.Text(v)), width-col) {
			key := ""
			if i == 0 {
				key = e.Key
			}
			fmt.Fprintf(s.Out, "%-*s%s\n", col, key, line)
		}
	}
	printSafeCommands(s, l)
	// The hooks, the user's and the project's, as /hooks lists them.
	fmt.Fprintf(s.Out, "\n%s", hooksText(app.NewHooks(l, nil, nil), "co hooks trust"))
}

// origin says where a setting's value comes from and what overrides it:
// "default; env CO_CLI_THEME", "from $CO_CLI_THEME", "from FILE; env
// CO_CLI_THEME", "default; user file only". source is the source's name
// (config.Source's String); byDefault and byEnv say its layer.
func origin(source, env string, byDefault, byEnv bool) string {
	if !byDefault {
		source = "from " + source
	}
	switch {
	case byEnv:
		return source
	case env == "":
		return source + "; user file only"
	}
	return source + "; env " + env
}

// outWidth is the width co's tables fit: the terminal's, or 80 when the
// output is not a terminal (a pipe, a file) or the terminal says none.
func outWidth(s env) int {
	if f, ok := s.Out.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w >= 40 {
			return w
		}
	}
	return 80
}

// wrapCell breaks text into lines of at most room columns, at spaces, or
// after a comma or a slash in a word wider than that (a JSON list, a URL),
// or, in a word with neither, at room itself.
func wrapCell(text string, room int) []string {
	room = max(room, 20)
	var out []string
	cur := ""
	for _, w := range strings.Split(text, " ") {
		switch {
		case cur == "":
			cur = w
		case runewidth.StringWidth(cur)+1+runewidth.StringWidth(w) <= room:
			cur += " " + w
		default:
			out = append(out, cur)
			cur = w
		}
		for runewidth.StringWidth(cur) > room {
			cut := breakAt(cur, room)
			out = append(out, cur[:cut])
			cur = cur[cut:]
		}
	}
	return append(out, cur)
}

// breakAt is where a word wider than room breaks: after its last comma
// or slash within room, else at room.
func breakAt(word string, room int) int {
	cut, n := 0, 0
	for i, r := range word {
		n += runewidth.RuneWidth(r)
		if n > room {
			break
		}
		cut = i + len(string(r))
	}
	last := strings.LastIndexAny(word[:cut], ",/")
	if last > 0 {
		return last + 1
	}
	return max(cut, 1)
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
	fmt.Fprintf(s.Out, "  built in (always):  %s\n", wrapWords(builtin, outWidth(s), "                      "))
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
			if col+1+len(w)+1 > width { // +1: the comma after it
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

// userValue is KEY's value as the user file now has it, as co config shows
// values (a list as JSON), whatever overrides it: the file read alone, no
// environment variable or project file. A secret is masked: "(hidden)",
// or "(hidden, ends …wxyz)" when long enough that four characters say
// nothing of it.
func userValue(key string) string {
	userOnly := func(name string) (string, bool) {
		if name == "HOME" || strings.HasPrefix(name, "XDG_") {
			return os.LookupEnv(name)
		}
		return "", false
	}
	l, _ := config.Load(config.LoadOptions{Getenv: userOnly, WorkDir: os.TempDir(), Partial: true})
	if l == nil {
		return "(see co config)"
	}
	for _, e := range l.Entries() {
		if e.Key != key {
			continue
		}
		if e.Secret {
			if i := strings.Index(e.Value, "(…"); i >= 0 {
				return "(hidden, ends " + strings.TrimSuffix(e.Value[i+1:], ")") + ")"
			}
			return "(hidden)"
		}
		return present.Line(safe.Text(e.Value))
	}
	return "(see co config)"
}
