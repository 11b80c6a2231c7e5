package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/co-cli/co/ui/plain"
	"github.com/co-cli/co/ui/slash"
)

// wantPlain reports whether the chat must be line-based: asked for, or
// standard output is not a terminal, or TERM is dumb.
func wantPlain(flag bool, s streams) bool {
	if flag || os.Getenv("TERM") == "dumb" {
		return true
	}
	f, ok := s.out.(*os.File)
	return !ok || !term.IsTerminal(f.Fd())
}

// chatFlags are the chat's flags.
type chatFlags struct {
	plain       bool
	noReasoning bool // --no-reasoning
}

func runChat(_ *cobra.Command, s streams, f chatFlags, rf resumeFlags) error {
	l, err := loadConfig(s)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ss, err := newSession(ctx, l)
	if err != nil {
		return err
	}
	defer ss.Close()
	resumed, err := ss.attachSessions(rf, s.err)
	if err != nil {
		return err
	}
	ss.resumed = resumed
	ss.hideReasoning = f.noReasoning || !l.Settings.ShowReasoning

	if !wantPlain(f.plain, s) {
		return runTUI(ctx, ss, s)
	}
	return runPlain(ctx, ss, s)
}

// runPlain runs the line-based chat for ss.
func runPlain(ctx context.Context, ss *session, s streams) error {
	ints := make(chan os.Signal, 4)
	signal.Notify(ints, os.Interrupt)
	defer signal.Stop(ints)
	return plain.Run(ctx, plain.Options{
		Agent:      ss.agent,
		In:         s.in,
		Out:        s.out,
		Banner:     ss.plainBanner() + ss.resumedText(),
		Slash:      ss.slashEnv(""),
		Interrupts: ints,
		// Reasoning is dimmed only on a terminal that shows colour.
		HideReasoning: ss.hideReasoning,
		Color:         colorAllowed(s),
	})
}

// colorAllowed reports whether the output may carry SGR colour: a
// terminal, not dumb, and NO_COLOR unset.
func colorAllowed(s streams) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := s.out.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

func (ss *session) slashEnv(helpExtra string) slash.Env {
	return slash.Env{
		Agent:           ss.agent,
		Status:          func() string { return ss.statusText(context.Background(), false) },
		Tools:           ss.toolsText,
		HelpExtra:       helpExtra,
		NewConversation: ss.newConversation,
		Sessions: func(arg string) slash.Result {
			return ss.sessionsSlash(arg, transcriptText)
		},
	}
}

// resumedText is the transcript of a resumed session, for --plain.
func (ss *session) resumedText() string {
	if ss.resumed == nil {
		return ""
	}
	return "\n" + transcriptText(ss.resumed) + "(resumed session; type to continue)"
}

// plainBanner is the welcome of --plain: one line of facts, then how to
// get help. It never waits on the network.
func (ss *session) plainBanner() string {
	// A probe of a local Ollama that is not running is refused at once;
	// give it a moment so the banner can name the provider.
	wctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, _, _ = ss.agent.WaitProvider(wctx)
	cancel()
	var b strings.Builder
	level, _ := ss.isolation()
	fmt.Fprintf(&b, "co %s — %s — sandbox: %s (isolation %s) — %s — data: %s\n",
		version, ss.providerLine(), ss.selection.Backend, level, plural(ss.tools.Len(), "tool"), ss.loaded.Paths.DataDir)
	if w := ss.sandboxWarning(); w != "" {
		fmt.Fprintf(&b, "WARNING: %s\n", w)
	}
	b.WriteString("Type a message, /help for commands, exit to quit.")
	return b.String()
}

// plural renders "1 tool", "3 tools".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
