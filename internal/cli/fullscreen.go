package cli

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/co-cli/co/tools/todo"
	"github.com/co-cli/co/ui/slash"
	"github.com/co-cli/co/ui/tui"
)

// runFullScreen runs the full-screen chat; first, when set, is sent as
// its first message.
func runFullScreen(ctx context.Context, c *chat, s env, first string) error {
	if os.Getenv("GOGC") == "" {
		// The chat keeps little live memory (about 4 MB) but renders
		// (allocates) a lot while a reply streams: collecting at 1.35x the
		// live heap instead of 2x keeps the session's peak footprint about
		// 2 MB lower for ~20 ms of CPU per long reply (scripts/bench-tui.sh
		// with BENCH_GOGC compares).
		debug.SetGCPercent(35)
		// While a turn runs, the chat renders (allocates) several times
		// faster than it keeps: collecting at 2x then instead cuts the
		// stream's CPU by about a tenth, for a few MB more at its peak
		// (docs/figures.md, the stream against the turn-3 build).
		tui.TurnGC(100)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// While a turn runs, its goroutines wake each other hundreds of
		// times a second for microseconds each: one thread for them
		// spares waking idle ones (docs/figures.md, the same section).
		tui.TurnProcs(1)
	}
	level, unsandboxed := c.Isolation()
	se := c.slashEnv(tui.HelpText(tui.DefaultKeyMap(), tui.DefaultModalKeyMap()))
	// The chat draws a switched-to session from the agent's history itself.
	se.Sessions = func(arg string) slash.Result { return sessionsSlash(c.App, arg, nil) }
	se.Inbox = func(arg string) slash.Result { return inboxSlash(c.App, arg, nil) }
	o := tui.Options{
		Agent: c.Agent,
		Slash: se,
		Welcome: tui.Welcome{
			Version:     c.version,
			DataDir:     c.Config.Paths.DataDir,
			Isolation:   level,
			Unsandboxed: unsandboxed,
			Tools:       c.Tools.Len(),
			ToolsText:   func() string { return toolsCount(c.Tools, c.MCP, true) },
		},
		First:         first,
		Background:    mcpBackground(ctx, c.MCP),
		Theme:         c.Config.Settings.Theme,
		Notify:        c.Config.Settings.Notify,
		NoColor:       noColor(),
		HistoryPath:   filepath.Join(c.Config.Paths.DataDir, "history.txt"),
		Feed:          c.Telemetry.Feed,
		Output:        s.Out,
		HideReasoning: c.hideReasoning,
		Mentions:      c.mentions(),
		// The settings' warnings first: they were found before anything ran.
		Notes: func() []string { return append(c.startNotes(), extensionNotes(c.Extensions.Get())...) },
		Setup: c.setupEnv(),
	}
	if c.App.Memory != nil {
		o.Memory = c.App.Memory.Store // the /memory view (opened on first use)
	}
	if l := c.App.Todos(); l != nil {
		o.Todos = todoLines{l}
	}
	return tui.Run(ctx, o)
}

// todoLines shows the run's todo list in the chat's side panel.
type todoLines struct{ l *todo.List }

func (t todoLines) Subscribe() (<-chan struct{}, func()) { return t.l.Subscribe() }

func (t todoLines) Lines() []string {
	items := t.l.Snapshot()
	if len(items) == 0 {
		return nil
	}
	return strings.Split(todo.Render(items), "\n")
}
