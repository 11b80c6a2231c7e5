package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/sessions"
)

// newCompletionCmd is `co completion SHELL`: the completion script cobra
// generates for bash, zsh or fish, on standard output.
func newCompletionCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell completion script for bash, zsh or fish",
		Long: `co completion prints a script that completes co's commands and flags in
bash, zsh or fish, and the ids of saved sessions (--resume, co sessions rm)
and memories (co memory rm), each with a short description. Load it in the
current shell, or install it for every new one (see the examples).

The bash script needs nothing else: it uses the bash-completion package's
helpers when they are loaded and its own otherwise (scripts cobra writes
print "_get_comp_words_by_ref: command not found" without it). The zsh
script needs compinit.`,
		Example: `  # bash, this shell:
  source <(co completion bash)
  # bash, every new shell (with the bash-completion package, or without it):
  co completion bash > ~/.local/share/bash-completion/completions/co
  echo 'source <(co completion bash)' >> ~/.bashrc
  # zsh (compinit must be on), fish:
  co completion zsh > "${fpath[1]}/_co"
  co completion fish > ~/.config/fish/completions/co.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      usageArgs(cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs)),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				var b bytes.Buffer
				if err := root.GenBashCompletionV2(&b, true); err != nil {
					return err
				}
				script, err := bashStandalone(b.String())
				if err != nil {
					return err
				}
				_, err = fmt.Fprint(s.Out, script)
				return err
			case "zsh":
				return root.GenZshCompletion(s.Out)
			default:
				return root.GenFishCompletion(s.Out, true)
			}
		},
	}
}

// bashFallbacks stand in for the two functions of the bash-completion
// package that cobra's bash script calls, when the package is not loaded
// (a minimal system, macOS's bash, a shell started with --norc):
// _get_comp_words_by_ref (the line's words, not split at = and :) and
// _filedir (file names; an extension filter is not applied).
const bashFallbacks = `
# co's script needs nothing from the bash-completion package: without it,
# these stand in for its _get_comp_words_by_ref and _filedir.
__co_comp_words()
{
    # The words of the line up to the cursor, split at blanks only (not at
    # = or :, as COMP_WORDS is), as _get_comp_words_by_ref -n =: gives them.
    local line=${COMP_LINE:0:COMP_POINT}
    read -r -a words <<< "$line"
    if [[ -z $line || $line == *[[:blank:]] ]]; then
        words+=("")
    fi
    cword=$(( ${#words[@]} - 1 ))
    cur=${words[cword]}
    prev=
    if (( cword > 0 )); then
        prev=${words[cword-1]}
    fi
}

__co_filedir()
{
    if declare -F _filedir >/dev/null 2>&1; then
        _filedir "$@"
        return
    fi
    local IFS=$'\n'
    if [[ ${1-} == -d ]]; then
        COMPREPLY=($(compgen -d -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
`

// bashWordsCall is the line of cobra's script that needs bash-completion.
const bashWordsCall = "    _get_comp_words_by_ref \"$@\" cur prev words cword\n"

var bashFiledir = regexp.MustCompile(`\b_filedir\b`)

// bashStandalone makes cobra's bash completion script work without the
// bash-completion package: its calls go to the fallbacks when the
// package's functions are not defined.
func bashStandalone(script string) (string, error) {
	if !strings.Contains(script, bashWordsCall) || !bashFiledir.MatchString(script) {
		// A new cobra changed its script: the test of this fails too.
		return "", errors.New("cannot adapt cobra's bash completion script (its calls to bash-completion changed); please report this")
	}
	script = bashFiledir.ReplaceAllString(script, "__co_filedir")
	script = strings.Replace(script, bashWordsCall, `    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
    else
        __co_comp_words
    fi
`, 1)
	head, rest, _ := strings.Cut(script, "\n")
	return head + "\n" + bashFallbacks + rest, nil
}

// completeSessionIDs completes the ids of saved sessions (--resume, co
// sessions rm): this workspace's first, most recent first, each with its
// title and last activity, "co run: " before a co run's, "scheduled
// NAME: " before a schedule's run (and, for another
// workspace's, the name of its folder first). It never creates the store.
func completeSessionIDs(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	const directive = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	l, _ := loadReport() // a settings problem: complete from what loads
	if l == nil {
		return nil, directive
	}
	if _, err := os.Stat(app.SessionsPath(l)); err != nil {
		return nil, directive
	}
	st, err := app.OpenSessions(l)
	if err != nil {
		return nil, directive
	}
	defer st.Close()
	list, err := st.List("", 0)
	if err != nil {
		return nil, directive
	}
	ws, _ := app.WorkingDir()
	var here, elsewhere []cobra.Completion
	for _, i := range list {
		if !strings.HasPrefix(i.ID, toComplete) {
			continue
		}
		desc := i.Title
		if desc == "" {
			desc = "(untitled)"
		}
		desc += " · " + i.Updated.Format("2006-01-02 15:04")
		switch i.Kind {
		case sessions.Run:
			desc = "co run: " + desc
		case sessions.Scheduled:
			desc = "scheduled " + i.Schedule + ": " + desc
		}
		if i.Workspace == ws {
			here = append(here, completion(i.ID, desc))
		} else {
			elsewhere = append(elsewhere, completion(i.ID, "in "+filepath.Base(i.Workspace)+": "+desc))
		}
	}
	return append(here, elsewhere...), directive
}

// completeMemoryIDs completes the ids of memories (co memory rm), pinned
// first, then the most recent, each with the start of its text. It never
// creates the store.
func completeMemoryIDs(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	const directive = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	l, _ := loadReport()
	if l == nil {
		return nil, directive
	}
	if _, err := os.Stat(app.MemoryPath(l)); err != nil {
		return nil, directive
	}
	st, err := app.OpenMemory(l)
	if err != nil {
		return nil, directive
	}
	defer st.Close()
	ms, err := st.List()
	if err != nil {
		return nil, directive
	}
	var out []cobra.Completion
	for _, m := range ms {
		if strings.HasPrefix(m.ID, toComplete) {
			desc := m.Content
			if m.Pinned {
				desc = "(pinned) " + desc
			}
			out = append(out, completion(m.ID, desc))
		}
	}
	return out, directive
}

// completion is a completion with its description, both made safe and kept
// on one line (a shell prints them as they are), the description cut to
// 60 characters.
func completion(value, desc string) cobra.Completion {
	clean := func(s string) string { return strings.ReplaceAll(cell(s), "\t", " ") }
	d := []rune(clean(desc))
	if len(d) > 60 {
		d = append(d[:59], '…')
	}
	return cobra.CompletionWithDesc(clean(value), string(d))
}

// oneArg is for commands taking one id: once it is given, nothing more
// is completed, file names included.
func oneArg(f cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return f(cmd, args, toComplete)
	}
}
