package cli

import (
	"github.com/spf13/cobra"
)

// newCompletionCmd is `co completion SHELL`: the completion script cobra
// generates for bash, zsh or fish, on standard output.
func newCompletionCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell completion script for bash, zsh or fish",
		Long: `co completion prints a script that completes co's commands and flags in
bash, zsh or fish. Load it in the current shell, or install it for every new
one (see the examples).`,
		Example: `  source <(co completion bash)                       # bash, this shell
  co completion bash > ~/.local/share/bash-completion/completions/co
  co completion zsh > "${fpath[1]}/_co"              # zsh (compinit must be on)
  co completion fish > ~/.config/fish/completions/co.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      usageArgs(cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs)),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(s.Out, true)
			case "zsh":
				return root.GenZshCompletion(s.Out)
			default:
				return root.GenFishCompletion(s.Out, true)
			}
		},
	}
}
