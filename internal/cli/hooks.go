package cli

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/co-cli/co/hooks"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/count"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/slash"
)

func newHooksCmd(s env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "List the hooks in force and where each came from; consent to a project's",
		Long: `co hooks lists the hooks of your settings file and of the project's
(./.co-cli/settings.json): each one's event, matcher, command, timeout and
on_failure, the file it came from, and whether it waits for your consent.
A project's hooks never run, in the chat or in co run, until you consent to
them with co hooks trust (or /hooks trust in the chat). See docs/hooks.md.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			l, err := loadSettings()
			if err != nil {
				return err
			}
			printConfigWarnings(s, l)
			fmt.Fprint(s.Out, hooksText(app.NewHooks(l, nil, nil), "co hooks trust"))
			return nil
		},
	}
	var yes bool
	trust := &cobra.Command{
		Use:   "trust",
		Short: "Consent to the project's hooks as they are now",
		Long: `A hook in the project file (./.co-cli/settings.json) never runs by itself:
co hooks trust shows the project's hooks in full and the project files their
commands name, asks you (--yes: without asking), then records your consent to
those exact hooks and those files' content (in co's data directory, keyed by
the project's path and a hash of both). From then on they run in the chat and
in co run. A changed hook, or a changed script, needs consent again.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			l, err := loadSettings()
			if err != nil {
				return err
			}
			printConfigWarnings(s, l)
			set := app.NewHooks(l, nil, nil)
			if !set.AwaitingConsent() {
				if l.ProjectHooks.Empty() {
					return fmt.Errorf("this project has no hooks to consent to (%s has no \"hooks\")", safe.Text(l.Paths.ProjectFile))
				}
				fmt.Fprintf(s.Out, "The project's hooks already have your consent as they are now; they run.\n")
				return nil
			}
			fmt.Fprint(s.Out, projectHooksText(set))
			if !yes {
				f, ok := s.In.(*os.File)
				if !ok || !term.IsTerminal(f.Fd()) {
					return errors.New("co hooks trust asks before recording consent, and standard input is not a terminal: read the hooks above and run co hooks trust --yes to consent without asking")
				}
				fmt.Fprintf(s.Out, "%s [y/N] ", hooksQuestion)
				line, _ := bufio.NewReader(f).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
					return errors.New("not trusted: the project's hooks stay off")
				}
			}
			if err := app.TrustHooks(l, set); err != nil {
				return fmt.Errorf("recording consent to the project's hooks: %w", err)
			}
			fmt.Fprintf(s.Out, "Trusted the project's hooks: they run from now on, while they and the files they name stay as they are.\n")
			return nil
		},
	}
	trust.Flags().BoolVarP(&yes, "yes", "y", false, "consent without asking (for scripts); the hooks are still shown")
	cmd.AddCommand(trust)
	return cmd
}

const hooksQuestion = "Let co run the project's hooks shown above, on this machine as you, now and in later runs while they stay so?"

// hooksSlash is /hooks: the list; /hooks trust: consent to the project's,
// after showing them.
func hooksSlash(a *app.App, arg string) slash.Result {
	set := a.Hooks()
	switch strings.TrimSpace(arg) {
	case "", "list":
		return slash.Result{Output: strings.TrimRight(hooksText(set, "/hooks trust"), "\n")}
	case "trust":
		if !set.AwaitingConsent() {
			if a.Config.ProjectHooks.Empty() {
				return slash.Result{Output: "This project has no hooks to consent to.", Err: true}
			}
			return slash.Result{Output: "The project's hooks already have your consent; they run."}
		}
		return slash.Result{
			Output:  strings.TrimRight(projectHooksText(set), "\n"),
			Confirm: hooksQuestion,
			OnConfirm: func() slash.Result {
				if err := a.TrustHooks(); err != nil {
					return slash.Result{Output: safe.Text("recording consent to the project's hooks: " + err.Error()), Err: true}
				}
				return slash.Result{Output: "Trusted the project's hooks: they run from now on (/hooks lists them)."}
			},
		}
	}
	return slash.Result{Output: "usage: /hooks or /hooks trust", Err: true}
}

// hooksNotice is the start notice when the project has hooks that wait
// for consent ("" otherwise): once at the chat's start, on co run's and a
// scheduled run's stderr. list and trust are the commands that list them
// and consent to them there.
func hooksNotice(set *hooks.Set, list, trust string) string {
	if !set.AwaitingConsent() {
		return ""
	}
	n := 0
	file := ""
	for _, h := range set.List() {
		if h.Origin.Project {
			n++
			file = h.Origin.File
		}
	}
	// The project file is inside the workspace: named from it, short.
	if rel, err := filepath.Rel(filepath.Dir(filepath.Dir(file)), file); err == nil {
		file = rel
	}
	return fmt.Sprintf("this project's %s declares %s that will not run until you consent: %s shows them, %s runs them",
		safe.Text(file), count.Of(n, "hook"), list, trust)
}

// hooksText lists the hooks in force and those waiting for consent, as
// /hooks, co hooks and co config show them; trust is how to consent.
func hooksText(set *hooks.Set, trust string) string {
	all := set.List()
	if len(all) == 0 {
		return "No hooks are configured: add \"hooks\" to your settings file\n(docs/hooks.md has examples).\n"
	}
	var b strings.Builder
	active := 0
	for _, h := range all {
		if h.Active {
			active++
		}
	}
	fmt.Fprintf(&b, "%s in force", count.Of(active, "hook"))
	if waiting := len(all) - active; waiting > 0 {
		fmt.Fprintf(&b, ", %d awaiting your consent (%s)", waiting, trust)
	}
	b.WriteString(":\n")
	for _, h := range all {
		writeHook(&b, h)
	}
	if files := set.ProjectFiles(); len(files) > 0 {
		fmt.Fprintf(&b, "Consent to the project's hooks covers these files' content too: %s\n", safe.Reveal(strings.Join(files, ", ")))
	}
	return b.String()
}

// projectHooksText shows the project's hooks in full, before consent.
func projectHooksText(set *hooks.Set) string {
	var b strings.Builder
	b.WriteString("The project's hooks (they run on this machine as you, outside the sandbox):\n")
	for _, h := range set.List() {
		if h.Origin.Project {
			writeHook(&b, h)
		}
	}
	if files := set.ProjectFiles(); len(files) > 0 {
		fmt.Fprintf(&b, "Consent covers these files' content too (a changed one asks again): %s\n", safe.Reveal(strings.Join(files, ", ")))
	}
	return b.String()
}

// writeHook writes one hook: its event and matcher, its command, its
// timeout and on_failure, and where it came from. What a file holds
// passes through lib/safe (Reveal: the user decides on it).
func writeHook(b *strings.Builder, h hooks.Listed) {
	matcher := h.Matcher
	if matcher == "" {
		matcher = "*"
	}
	fmt.Fprintf(b, "  %s  matcher %s\n", h.Event, safe.Reveal(matcher))
	cmd := strings.ReplaceAll(safe.Reveal(strings.TrimSpace(h.Hook.Command)), "\n", "\n             ")
	fmt.Fprintf(b, "    command: %s\n", cmd)
	timeout := fmt.Sprintf("timeout %s (default)", hooks.DefaultTimeout)
	if h.Hook.Timeout > 0 {
		timeout = fmt.Sprintf("timeout %s", time.Duration(h.Hook.Timeout)*time.Second)
	}
	onFailure := h.Hook.OnFailure
	if onFailure == "" {
		onFailure = hooks.FailOpen
	}
	from := "your settings, " + safe.Text(h.Origin.File)
	if h.Origin.Project {
		from = "the project's settings, " + safe.Text(h.Origin.File)
		if !h.Active {
			from += ": awaiting your consent, not run"
		}
	}
	fmt.Fprintf(b, "    %s, on_failure %s; from %s\n", timeout, onFailure, from)
}
