package main

import "github.com/spf13/cobra"

// telemetryCommands are co tail, co traces and co logs.
func telemetryCommands(s streams) []*cobra.Command { return nil }
