package cli

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

	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/ui/plain"
	"github.com/co-cli/co/ui/safe"
	"github.com/co-cli/co/ui/slash"
)

// newChatCmd is co itself: the chat, full-screen (fullscreen.go) or
// line-based (--plain).
func newChatCmd(s env) *cobra.Command {
	var f chatFlags
	var rf resumeFlags
	root := &cobra.Command{
		Use:   "co",
		Short: "co — a personal AI assistant in your terminal",
		Long: `co opens a chat with an LLM (Gemini, Ollama or any OpenAI-compatible server)
that can call tools: shell commands in a Docker sandbox, workspace files,
notes, the web, Google and Slack. Side-effecting calls stop for your approval.

Without a subcommand, co starts the chat. It uses the line-based --plain mode
when standard output is not a terminal or TERM is dumb.`,
		Args:          usageArgs(cobra.NoArgs),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(*cobra.Command, []string) error {
			return runChat(s, f, rf)
		},
	}
	f.add(root)
	rf.add(root)
	return root
}

// newChatSubCmd is `co chat`, the design's name for the chat: the same as
// bare co, with the same flags, for people who type the command's name.
func newChatSubCmd(s env) *cobra.Command {
	var f chatFlags
	var rf resumeFlags
	cmd := &cobra.Command{
		Use:   "chat",
		Short: "Start the chat (the same as co without a subcommand)",
		Long: `co chat opens the chat, exactly as co without a subcommand does: full-screen
in a terminal, line-based (--plain) when standard output is not a terminal or
TERM is dumb.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			return runChat(s, f, rf)
		},
	}
	f.add(cmd)
	rf.add(cmd)
	return cmd
}

// wantPlain reports whether the chat must be line-based: asked for, or
// standard output is not a terminal, or TERM is dumb.
func wantPlain(flag bool, s env) bool {
	if flag || os.Getenv("TERM") == "dumb" {
		return true
	}
	f, ok := s.Out.(*os.File)
	return !ok || !term.IsTerminal(f.Fd())
}

// chatFlags are the chat's flags.
type chatFlags struct {
	plain       bool
	noReasoning bool // --no-reasoning
}

func (f *chatFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.plain, "plain", false, "line-based chat for dumb terminals, pipes and screen readers")
	cmd.Flags().BoolVar(&f.noReasoning, "no-reasoning", false, "hide the model's reasoning (as show_reasoning=false does)")
}

// chat is a chat's app and what the front end is told beside it.
type chat struct {
	*app.App
	version string
	// hideReasoning leaves the model's reasoning out of the chat
	// (show_reasoning false or --no-reasoning).
	hideReasoning bool
}

func runChat(s env, f chatFlags, rf resumeFlags) error {
	// The settings' warnings are shown in the chat itself (the full-screen
	// transcript, the --plain banner): on stderr the full-screen chat
	// would draw over them.
	l, err := loadSettings()
	if err != nil {
		return err
	}
	ctx, stop, received := signalContext(syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	a, err := app.New(ctx, l, app.Options{Version: s.version, Resume: rf.resume(), Warnings: s.Err})
	if err != nil {
		printConfigWarnings(s, l) // no chat to show them in
		return err
	}
	c := &chat{App: a, version: s.version, hideReasoning: f.noReasoning || !l.Settings.ShowReasoning}
	if !wantPlain(f.plain, s) {
		// The full-screen chat reads the skills and commands once its
		// first frame is out (tui.Options.Notes).
		err = runFullScreen(ctx, c, s)
	} else {
		a.Extensions.Start()
		err = runPlain(ctx, c, s)
	}
	a.Close()
	if sig := received(); sig != 0 && err == nil {
		// Ended by SIGTERM or SIGHUP: say so, as shells expect (143, 129).
		return exitCode(sig)
	}
	return err
}

// runPlain runs the line-based chat.
func runPlain(ctx context.Context, c *chat, s env) error {
	ints := make(chan os.Signal, 4)
	signal.Notify(ints, os.Interrupt)
	defer signal.Stop(ints)
	return plain.Run(ctx, plain.Options{
		Agent:      c.Agent,
		In:         s.In,
		Out:        s.Out,
		Banner:     c.plainBanner() + c.resumedText(),
		Slash:      c.slashEnv(""),
		Interrupts: ints,
		// Reasoning is dimmed only on a terminal that shows colour.
		HideReasoning: c.hideReasoning,
		Color:         colorAllowed(s),
		Mentions:      c.mentions(),
	})
}

// colorAllowed reports whether the output may carry SGR colour: a
// terminal, not dumb, and NO_COLOR unset.
func colorAllowed(s env) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := s.Out.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// slashEnv is what the slash commands act on.
func (c *chat) slashEnv(helpExtra string) slash.Env {
	return slash.Env{
		Agent:           c.Agent,
		Status:          func() string { return statusText(context.Background(), c.App, c.version, false) },
		Tools:           c.toolsText,
		HelpExtra:       helpExtra,
		NewConversation: c.NewConversation,
		Sessions: func(arg string) slash.Result {
			return sessionsSlash(c.App, arg, transcriptText)
		},
		Custom: c.customEnv(),
		MCP:    func(arg string) slash.Result { return mcpSlash(c.App, arg) },
		Memory: memorySlash(c.App),
	}
}

// resumedText is the transcript of a resumed session, for --plain.
func (c *chat) resumedText() string {
	if c.Resumed == nil {
		return ""
	}
	return "\n" + transcriptText(c.Resumed) + "(resumed session " + c.App.Agent.SessionID() + "; type to continue)"
}

// plainBanner is the welcome of --plain: one line of facts, then how to
// get help. It never waits on the network.
func (c *chat) plainBanner() string {
	// A probe of a local Ollama that is not running is refused at once;
	// give it a moment so the banner can name the provider.
	wctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, _, _ = c.Agent.WaitProvider(wctx)
	cancel()
	var b strings.Builder
	level, _ := c.Isolation()
	fmt.Fprintf(&b, "co %s — %s — sandbox: %s (isolation %s) — %s — data: %s\n",
		c.version, c.providerLine(), c.Selection.Backend, level, plural(c.Tools.Len(), "tool"), c.Config.Paths.DataDir)
	if w := sandboxWarning(c.App); w != "" {
		fmt.Fprintf(&b, "WARNING: %s\n", w)
	}
	for _, n := range configNotes(c.Config) {
		b.WriteString(n + "\n")
	}
	if set := c.extensionsFor(100 * time.Millisecond); set != nil {
		for _, n := range extensionNotes(set) {
			b.WriteString(n + "\n")
		}
	}
	b.WriteString("Type a message, /help for commands, exit to quit.")
	return safe.Text(b.String()) // model names and errors come from the server
}

// providerLine describes the provider without waiting for a probe.
func (c *chat) providerLine() string {
	p, done, err := c.Agent.Provider()
	switch {
	case !done:
		return "provider: checking for Ollama…"
	case err != nil:
		return "provider: none usable — " + err.Error()
	}
	return fmt.Sprintf("provider: %s (%s)", p.Name, p.Model)
}

// toolsText is the /tools listing.
func (c *chat) toolsText() string {
	return toolsListing(c.Tools, c.Unconfigured) + notSentLine(c.Tools, c.Agent.ToolSent, c.Agent.SendingLess())
}

// notSentLine names the tools not sent to the model (llm_tool_groups, or
// co's choice for a small context window, less saying what co sends); ""
// when all are sent.
func notSentLine(reg *tools.Registry, sent func(string) bool, less string) string {
	var held []string
	for _, t := range reg.All() {
		if !sent(t.Name()) {
			held = append(held, t.Name())
		}
	}
	if len(held) == 0 {
		return ""
	}
	why := "llm_tool_groups"
	if less != "" {
		why = "the context window is small: co sends " + less
	}
	return safe.Text(fmt.Sprintf("not sent to the model (%s): %s\n", why, strings.Join(held, ", ")))
}

func toolsListing(reg *tools.Registry, unconfigured []tools.Unconfigured) string {
	var b strings.Builder
	all := reg.All()
	w := 24
	for _, t := range all {
		w = max(w, len(t.Name()))
	}
	fmt.Fprintf(&b, "%d tools:\n", reg.Len())
	for _, t := range all {
		fmt.Fprintf(&b, "  %-*s %s\n", w, t.Name(), approvalClass(t))
	}
	for _, u := range unconfigured {
		fmt.Fprintf(&b, "  %s\n", u)
	}
	return safe.Text(b.String())
}

// approvalClass says how a tool's calls are approved, for /tools.
func approvalClass(t tools.Tool) string {
	_, perCall := t.(tools.Checker)
	switch {
	case perCall && t.Class() == tools.ReadOnly:
		return "read-only, but some calls ask (decided per call)"
	case perCall:
		return "asks, decided per call by its policy"
	case t.Class() == tools.ReadOnly:
		if o, ok := t.(tools.OwnState); ok {
			return "runs at once: changes only " + o.Changes()
		}
		return "read-only: runs at once"
	}
	return "asks"
}

// plural renders "1 tool", "3 tools".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
