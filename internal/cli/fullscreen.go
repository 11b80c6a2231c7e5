package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/co-cli/co/tools/todo"
	"github.com/co-cli/co/ui/tui"
	"github.com/co-cli/co/ui/slash"
)

// runTUI runs the full-screen chat for ss.
func runTUI(ctx context.Context, ss *session, s streams) error {
	if os.Getenv("GOGC") == "" {
		// The chat keeps little live memory (about 4 MB) but renders
		// (allocates) a lot while a reply streams: collecting at 1.35x the
		// live heap instead of 2x keeps the session's peak footprint about
		// 2 MB lower for ~20 ms of CPU per long reply (scripts/bench-tui.sh
		// with BENCH_GOGC compares).
		debug.SetGCPercent(35)
	}
	level, unsandboxed := ss.isolation()
	env := ss.slashEnv(tui.HelpText(tui.DefaultKeyMap(), tui.DefaultModalKeyMap()))
	// The chat draws a switched-to session from the agent's history itself.
	env.Sessions = func(arg string) slash.Result { return ss.sessionsSlash(arg, nil) }
	o := tui.Options{
		Agent: ss.agent,
		Slash: env,
		Welcome: tui.Welcome{
			Version:     version,
			DataDir:     ss.loaded.Paths.DataDir,
			Isolation:   level,
			Unsandboxed: unsandboxed,
			Tools:       ss.tools.Len(),
		},
		Theme:         ss.loaded.Settings.Theme,
		HistoryPath:   filepath.Join(ss.loaded.Paths.DataDir, "history.txt"),
		Feed:          ss.tracing.feed,
		Output:        s.out,
		HideReasoning: ss.hideReasoning,
	}
	if l := todo.Find(ss.tools); l != nil {
		o.Todos = todoLines{l}
	}
	return tui.Run(ctx, o)
}

// todoLines shows the session's todo list in the chat's side panel.
type todoLines struct{ l *todo.List }

func (t todoLines) Subscribe() (<-chan struct{}, func()) { return t.l.Subscribe() }

func (t todoLines) Lines() []string {
	items := t.l.Snapshot()
	if len(items) == 0 {
		return nil
	}
	return strings.Split(todo.Render(items), "\n")
}
