package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/lib/startmark"
	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/ui/mention"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/setup"
	"github.com/co-cli/co/ui/slash"
)

// Options configures the full-screen chat.
type Options struct {
	Agent *agent.Agent
	// Slash is the environment of slash commands; HelpExtra defaults to the
	// chat's keys (HelpText).
	Slash   slash.Env
	Welcome Welcome
	// Theme is "auto", "light" or "dark" (the theme setting); "auto" (or
	// "") asks the terminal for its background and draws light until it
	// answers. NO_COLOR turns colours off whatever it says.
	Theme string
	// Notify is the notify setting: auto (or ""), off, bell, osc9 or
	// osc777 (notify.go). Auto reads the environment Bubble Tea runs with
	// (Environ) and asks the terminal for its name (XTVERSION).
	Notify string
	// HistoryPath is the input history file ("" keeps no file).
	HistoryPath string
	// Feed supplies live spans for the side panel (the agent's tracer must
	// publish to it); nil leaves the panel without spans.
	Feed *telemetry.Feed
	// Input and Output default to the terminal (os.Stdin, os.Stdout).
	Input  io.Reader
	Output io.Writer
	// Environ defaults to the process's environment (TERM, for Bubble
	// Tea); a NO_COLOR in it takes the colours away, as NoColor does.
	Environ []string
	// NoColor draws without colours: NO_COLOR is set (internal/cli reads
	// it, once for every front end).
	NoColor bool
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Todos, when set, is shown live in the side panel.
	Todos Todos
	// HideReasoning leaves the model's reasoning out of the transcript
	// (show_reasoning false, --no-reasoning).
	HideReasoning bool
	// Mentions is the workspace @path mentions complete and attach from;
	// nil: no completion, nothing attached.
	Mentions mention.Source
	// Notes, when set, returns warnings to show (bad skill or command
	// files); it is called off the loop once the first frame is out, and
	// may read files and wait.
	Notes func() []string
	// Background, when set, delivers what happens outside any turn (an
	// MCP server that failed or connected): each is shown in the
	// transcript when it arrives, and the welcome banner is drawn again
	// (Welcome.ToolsText may have changed).
	Background <-chan present.Note
	// Memory opens the memory store (memory.Lazy.Store) for the /memory
	// view; nil (memory off): /memory is the line command of Slash.
	Memory func() (*memory.Store, error)
	// First, when set, is submitted once the chat is up, as if typed and
	// sent with Enter (co "what is 2+2"); it joins the input history.
	First string
	// Setup, when set, is what the first-run provider setup needs: the
	// chat opens it when co has no provider, and /setup opens it at any
	// time. Nil: no setup is offered.
	Setup *setup.Env
}

// Run runs the chat until the user exits or ctx ends. SIGTERM and SIGHUP
// end it too; on every way out (including a panic) the terminal is
// restored. A SIGINT that reaches the process (the terminal is in raw
// mode, so Ctrl+C normally arrives as a key) counts as Ctrl+C.
func Run(ctx context.Context, o Options) error {
	if o.Agent == nil {
		return errors.New("tui: no agent")
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	app := New(ctx, o)
	defer app.close()

	// 60 frames a second at most. The renderer wakes at this rate even when
	// idle (frames whose view did not change cost only the wake-up): 120
	// kept an idle chat at ~0.8 % of a core; 60 halves that and still
	// draws a keystroke within ~17 ms.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithFPS(60)}
	if o.Input != nil {
		opts = append(opts, tea.WithInput(o.Input))
	}
	if o.Output != nil {
		opts = append(opts, tea.WithOutput(o.Output))
	}
	if o.Environ != nil {
		opts = append(opts, tea.WithEnvironment(o.Environ))
	}
	var out io.Writer = os.Stdout
	if o.Output != nil {
		out = o.Output
	}
	if env := environ(o); !o.NoColor && !noColor(env) {
		if p, ok := tmuxProfile(out, env); ok {
			opts = append(opts, tea.WithColorProfile(p))
			app.tmux = tmuxState{env: env, start: p}
		}
	}
	p := tea.NewProgram(app, opts...)
	var in any = os.Stdin
	if o.Input != nil {
		in = o.Input
	}
	app.ahead = typedAhead(in)

	ints := make(chan os.Signal, 1)
	signal.Notify(ints, os.Interrupt)
	defer signal.Stop(ints)
	go func() {
		for {
			select {
			case <-ints:
				p.Send(interruptMsg{})
			case <-ctx.Done():
				return
			}
		}
	}()

	startmark.Mark("program")
	_, err := p.Run()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tea.ErrProgramPanic):
		return fmt.Errorf("the chat crashed (the terminal was restored; please report this): %w", err)
	case ctx.Err() != nil:
		return nil // SIGTERM, SIGHUP or the caller ended it
	}
	return err
}
