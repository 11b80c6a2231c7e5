package cli

import (
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/config"
)

func newConfigCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Show the effective settings, where each value comes from, secrets masked",
		Long: `co config lists every setting with its effective value and its source:
default, the user file, the project file (./.co-cli/settings.json) or an
environment variable. Precedence: environment > project file > user file >
defaults. Secrets are masked.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			l, err := loadConfig(s)
			if err != nil {
				return err
			}
			printConfig(s, l)
			return nil
		},
	}
}

func printConfig(s env, l *config.Loaded) {
	fmt.Fprintf(s.Out, "user file:    %s%s\nproject file: %s%s\ndata dir:     %s\n\n",
		l.Paths.UserFile, fileState(l, l.Paths.UserFile), l.Paths.ProjectFile, fileState(l, l.Paths.ProjectFile), l.Paths.DataDir)
	w := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "SETTING\tSOURCE\tENV\tVALUE")
	for _, e := range l.Entries() {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", e.Key, e.Source, e.Env, e.Value)
	}
	w.Flush()
}

// fileState is "" for a settings file that was read, else says it does
// not exist (Load reads every file there is, or fails).
func fileState(l *config.Loaded, path string) string {
	if slices.Contains(l.Files, path) {
		return ""
	}
	return "  (does not exist)"
}
