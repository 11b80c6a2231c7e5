package main

import "github.com/spf13/cobra"

// googleCommands are co google auth and co google check.
func googleCommands(s streams) []*cobra.Command { return nil }
