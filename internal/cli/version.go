package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newVersionCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print co's version",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(s.Out, "co %s\n", s.version)
			return nil
		},
	}
}
