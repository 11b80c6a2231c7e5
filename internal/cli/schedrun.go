package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/ui/headless"
)

// runScheduled is one scheduled run of sch, in its workspace (the working
// directory), as its systemd timer, cron or launchd entry makes it through
// co schedule run NAME: a new session of kind sessions.Scheduled, the
// agent unattended (headless.Unattended: what needs approval waits for the
// user, stored with its provenance; approve and tools come from the user's
// settings only). The answer and every notice go to log. It returns the
// saved session's id and the exit code: co run's, 4 (headless.ExitWaiting)
// when a call waits.
func runScheduled(ctx context.Context, s env, sch config.Schedule, log io.Writer) (sessionID string, code int) {
	l, err := loadSettings()
	if err != nil {
		fmt.Fprintf(log, "co: %v\n", err)
		return "", exitError
	}
	a, err := app.New(ctx, l, app.Options{Version: s.version, Kind: sessions.Scheduled, Schedule: sch.Name})
	if err != nil {
		printConfigWarnings(env{Streams{In: s.In, Out: log, Err: log}, s.version}, l)
		fmt.Fprintf(log, "co: %v\n", err)
		return "", exitError
	}
	defer a.Close()
	for _, w := range startupWarnings(a) {
		fmt.Fprintf(log, "co: %s\n", w)
	}
	for _, n := range extensionNotes(a.Extensions.Get()) {
		fmt.Fprintf(log, "co: %s\n", n)
	}
	code = headless.Run(ctx, headless.Options{Agent: a.Agent, Prompt: sch.Prompt, Out: log, Err: log,
		Unattended: &headless.Unattended{Schedule: sch.Name, Approve: sch.Approve, Tools: sch.Tools, Store: a.Sessions}})
	return a.Agent.SessionID(), code
}
