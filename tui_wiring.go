package main

import (
	"context"
	"path/filepath"

	"github.com/co-cli/co/tui"
)

// runTUI runs the full-screen chat for ss.
func runTUI(ctx context.Context, ss *session, s streams) error {
	level, unsandboxed := ss.isolation()
	o := tui.Options{
		Agent: ss.agent,
		Slash: ss.slashEnv(tui.HelpText(tui.DefaultKeyMap(), tui.DefaultModalKeyMap())),
		Welcome: tui.Welcome{
			Version:     version,
			DataDir:     ss.loaded.Paths.DataDir,
			Isolation:   level,
			Unsandboxed: unsandboxed,
			Tools:       ss.tools.Len(),
		},
		Theme:       ss.loaded.Settings.Theme,
		HistoryPath: filepath.Join(ss.loaded.Paths.DataDir, "history.txt"),
		Feed:        ss.tracing.feed,
		Output:      s.out,
	}
	return tui.Run(ctx, o)
}
