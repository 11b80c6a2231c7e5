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
// directory): the answer and every notice go to log. It returns the saved
// session's id and the exit code (co run's).
//
// For now it is an ordinary headless turn, as co run without --yes: calls
// that need approval do not run. The unattended run (its rules, calls kept
// waiting) replaces this body.
func runScheduled(ctx context.Context, s env, sch config.Schedule, log io.Writer) (sessionID string, code int) {
	l, err := loadSettings()
	if err != nil {
		fmt.Fprintf(log, "co: %v\n", err)
		return "", exitError
	}
	a, err := app.New(ctx, l, app.Options{Version: s.version, Kind: sessions.Run})
	if err != nil {
		fmt.Fprintf(log, "co: %v\n", err)
		return "", exitError
	}
	defer a.Close()
	for _, w := range startupWarnings(a) {
		fmt.Fprintf(log, "co: %s\n", w)
	}
	code = headless.Run(ctx, headless.Options{Agent: a.Agent, Prompt: sch.Prompt, Out: log, Err: log})
	return a.Agent.SessionID(), code
}
