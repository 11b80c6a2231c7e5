package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/count"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/lib/startmark"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/ui/plain"
	"github.com/co-cli/co/ui/slash"
)

// newChatCmd is co itself: the chat, full-screen (fullscreen.go) or
// line-based (--plain).
func newChatCmd(s env) *cobra.Command {
	var f chatFlags
	var rf resumeFlags
	root := &cobra.Command{
		Use:   "co [PROMPT]",
		Short: "co — a personal AI assistant in your terminal",
		Long: `co opens a chat with an LLM (Gemini, Ollama or any OpenAI-compatible server)
that can call tools: shell commands in a Docker sandbox, workspace files,
notes, the web, Google and Slack. Side-effecting calls stop for your approval.

Without a subcommand, co starts the chat. It uses the line-based --plain mode
when standard output is not a terminal or TERM is dumb. Arguments that name
no command are the chat's first message, sent at once: co "what is 2+2" (as
co -- status sends "status"). One word close to a command's name is taken
for a typo of it instead: co stauts says "did you mean status?".

When the input is not a terminal (a script pipes it), the line-based chat
stops at the first turn that fails (no usable provider, a key refused) and
exits 1.`,
		Example: `  co                          # the chat
  co "why does make fail?"    # the chat, that question sent first
  co --plain what is 2+2      # line-based; the words are the message
  co -- status                # "status" as a message, not the command`,
		Args:          promptArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runChat(s, f, rf, strings.Join(args, " "))
		},
	}
	f.add(root)
	rf.add(root, false)
	return root
}

// newChatSubCmd is `co chat`, the design's name for the chat: the same as
// bare co, with the same flags, for people who type the command's name.
func newChatSubCmd(s env) *cobra.Command {
	var f chatFlags
	var rf resumeFlags
	cmd := &cobra.Command{
		Use:   "chat [PROMPT]",
		Short: "Start the chat (the same as co without a subcommand)",
		Long: `co chat opens the chat, exactly as co without a subcommand does: full-screen
in a terminal, line-based (--plain) when standard output is not a terminal or
TERM is dumb. Its arguments, if any, are the first message, sent at once.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			return runChat(s, f, rf, strings.Join(args, " "))
		},
	}
	f.add(cmd)
	rf.add(cmd, false)
	return cmd
}

// promptArgs checks co's own arguments: words that name no command are the
// chat's first message (co "what is 2+2"), as in Claude Code and Codex:
// `claude "query"` starts the REPL with an initial prompt
// (https://docs.anthropic.com/en/docs/claude-code/cli-reference), `codex
// "..."` the TUI (https://github.com/openai/codex/blob/main/docs/getting-started.md,
// "Initial prompt for interactive TUI"). But one bare
// word close to a command's name (co stauts) is a usage error that names
// the command meant: sent to the model it would cost a request and answer
// nothing the user wanted. "--" before the words sends them whatever they
// are (co -- status).
func promptArgs(cmd *cobra.Command, args []string) error {
	if len(args) != 1 || cmd.Flags().ArgsLenAtDash() == 0 {
		return nil
	}
	if meant := commandsNear(cmd, args[0]); len(meant) > 0 {
		return usageError{fmt.Errorf("unknown command %q for %q\n\nDid you mean this?\n\t%s\n\n(To send %q to the model as your first message: %s -- %s)",
			args[0], cmd.CommandPath(), strings.Join(meant, "\n\t"), args[0], cmd.CommandPath(), args[0]), ""}
	}
	return nil
}

// commandsNear are the names of cmd's commands that word may be a typo of:
// a bare word (letters, digits, - and _) that starts a command's name
// (sta, log) or is one slip from it (stats, chta: an insertion, deletion,
// substitution or swap of neighbours), two when it is six letters or more
// (stauts, memroy). Shorter words need to be closer: "hello" is two slips
// from "help" and is a greeting.
func commandsNear(cmd *cobra.Command, word string) []string {
	w := strings.ToLower(word)
	if w == "" || strings.TrimLeft(w, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return nil
	}
	limit := 1
	if len(w) >= 6 {
		limit = 2
	}
	var near []string
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() && c.Name() != "help" {
			continue
		}
		if strings.HasPrefix(c.Name(), w) || slips(w, c.Name()) <= limit {
			near = append(near, c.Name())
		}
	}
	return near
}

// slips is the optimal-string-alignment distance between a and b
// (Levenshtein's plus the swap of two neighbours), over bytes.
func slips(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// wantPlain reports whether the chat must be line-based: asked for, or
// standard output is not a terminal, or TERM is dumb.
func wantPlain(flag bool, s env) bool {
	if flag || termDumb() {
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
	// inbox is the start notice of what scheduled runs left ("" when
	// nothing), shown once with the start's warnings; read by startNotes,
	// which the full-screen chat calls after its first frame (reading
	// the inbox reads and writes the sessions file: issue 44).
	inbox     string
	inboxRead bool
}

// runChat runs the chat; first, when set, is sent as its first message.
func runChat(s env, f chatFlags, rf resumeFlags, first string) error {
	// The settings' warnings, and the app's (startupWarnings), are shown
	// in the chat itself (the full-screen transcript, the --plain banner):
	// on stderr the full-screen chat would draw over them.
	l, err := loadSettings()
	if err != nil {
		return err
	}
	startmark.Mark("settings")
	ctx, stop, received := signalContext(syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	a, err := app.New(ctx, l, app.Options{Version: s.version, Resume: rf.resume()})
	if err != nil {
		printConfigWarnings(s, l) // no chat to show them in
		return err
	}
	startmark.Mark("app")
	c := &chat{App: a, version: s.version, hideReasoning: f.noReasoning || !l.Settings.ShowReasoning}
	out := s.Out
	if !wantPlain(f.plain, s) {
		// The full-screen chat reads the skills and commands once its
		// first frame is out (tui.Options.Notes).
		err = runFullScreen(ctx, c, s, first)
		out = s.Err // the screen is gone: the terminal shows it
	} else {
		a.Extensions.Start()
		err = runPlain(ctx, c, s, first)
	}
	// The last check of the protected paths, once the chat is over.
	if w, _ := a.ExitCheck(ctx); w != "" {
		fmt.Fprintln(out, "co: "+safe.Text(w))
	}
	a.Close()
	if sig := received(); sig != 0 && err == nil {
		// Ended by SIGTERM or SIGHUP: say so, as shells expect (143, 129).
		return exitCode(sig)
	}
	return err
}

// runPlain runs the line-based chat.
// A script's chat (input not a terminal) stops at the first failed turn
// and exits 1: the script must learn it failed.
func runPlain(ctx context.Context, c *chat, s env, first string) error {
	ints := make(chan os.Signal, 4)
	signal.Notify(ints, os.Interrupt)
	defer signal.Stop(ints)
	err := plain.Run(ctx, plain.Options{
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
		Setup:         c.setupEnv(),
		First:         first,
		StopOnFailure: !isTerminal(s.In),
		Script:        !isTerminal(s.In),
		Background:    mcpBackground(ctx, c.MCP),
		Redraw:        !termDumb() && isTerminal(s.Out),
	})
	var failed *plain.Failed
	if errors.As(err, &failed) && sameFile(s.Out, s.Err) {
		// The chat printed the turn's error on this very screen (or
		// pipe): the exit code says it failed, without saying it again.
		return exitCode(exitError)
	}
	return err
}

// sameFile reports whether a and b write to the same file: one terminal,
// or one pipe (2>&1).
func sameFile(a, b io.Writer) bool {
	fa, ok := a.(*os.File)
	fb, ok2 := b.(*os.File)
	if !ok || !ok2 {
		return false
	}
	sa, err := fa.Stat()
	sb, err2 := fb.Stat()
	return err == nil && err2 == nil && os.SameFile(sa, sb)
}

// isTerminal reports whether r is a terminal.
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// colorAllowed reports whether the output may carry SGR colour: a
// terminal, not dumb, and NO_COLOR unset.
func colorAllowed(s env) bool {
	if noColor() || termDumb() {
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
		Inbox: func(arg string) slash.Result {
			return inboxSlash(c.App, arg, transcriptText)
		},
		Export:   func(arg string) slash.Result { return exportSlash(c.App, arg) },
		InboxIDs: func() []string { return inboxIDs(c.App) },
		Custom:   c.customEnv(),
		MCP:      func(arg string) slash.Result { return mcpSlash(c.App, arg) },
		Hooks:    func(arg string) slash.Result { return hooksSlash(c.App, arg) },
		Schedule: func(arg string) slash.Result { return scheduleSlash(context.Background(), arg) },
		Memory:   memorySlash(c.App),
		Undo:     c.App.Undo,
	}
}

// resumedText is the transcript of a resumed session, for --plain.
func (c *chat) resumedText() string {
	if c.Resumed == nil {
		return ""
	}
	// The turns taken back (/undo, /rewind) are no longer the conversation:
	// left out, as the model no longer gets them, and counted.
	var live []sessions.Entry
	undone := 0
	for _, e := range c.Resumed {
		if e.Undone != "" {
			undone++
			continue
		}
		live = append(live, e)
	}
	text := transcriptText(live)
	if undone > 0 {
		text += fmt.Sprintf("(%s taken back with /undo or /rewind: not shown)\n", count.Of(undone, "message"))
	}
	return "\n" + text + "(resumed session " + c.App.Agent.SessionID() + "; type to continue)"
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
	fmt.Fprintf(&b, "co %s — %s — sandbox: %s (isolation %s) — tools: %s — data: %s\n",
		c.version, c.providerLine(), c.Selection.Backend, level, toolsCount(c.Tools, c.MCP, false), c.Config.Paths.DataDir)
	if w := sandboxWarning(c.App, false); w != "" {
		fmt.Fprintf(&b, "WARNING: %s\n", w)
	}
	for _, n := range c.startNotes() {
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

// startNotes are the start's warnings (startupWarnings), the notice of a
// workspace that holds the home folder (homeNotice), then the inbox
// notice: what the chat says before anything else.
func (c *chat) startNotes() []string {
	if !c.inboxRead {
		// What scheduled runs left since co last said: one line, and
		// those runs are not counted again at the next start
		// (app.App.Inbox). First: a failure to read it is a warning.
		c.inboxRead = true
		c.inbox = inboxNotice(c.Inbox())
	}
	out := startupWarnings(c.App)
	if n := homeNotice(c.App); n != "" {
		out = append(out, n)
	}
	if n := hooksNotice(c.Hooks(), "/hooks", "/hooks trust"); n != "" {
		out = append(out, "note: "+n)
	}
	if c.inbox != "" {
		out = append(out, "note: "+c.inbox) // an information, not a warning: ui/tui styles it so
	}
	return out
}

// inboxNotice is the start notice of what scheduled runs left: "2
// scheduled runs since you were here, 1 approval waiting — /inbox"; ""
// when there is nothing.
func inboxNotice(n app.InboxNews) string {
	var parts []string
	if n.Runs > 0 {
		runs := plural(n.Runs, "scheduled run") + " since you were here"
		if n.Failed > 0 {
			// A run that failed is what the user most needs to hear of.
			runs += fmt.Sprintf(" (%d failed)", n.Failed)
		}
		parts = append(parts, runs)
	}
	if n.Waiting > 0 {
		parts = append(parts, plural(n.Waiting, "approval")+" waiting")
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " — /inbox"
}

// providerLine describes the provider without waiting for a probe.
func (c *chat) providerLine() string {
	p, done, err := c.Agent.Provider()
	switch {
	case !done:
		return "provider: checking for Ollama…"
	case errors.Is(err, provider.ErrNoProvider):
		// What to set is said once: by the setup, or by the first turn.
		return "provider: none"
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
	fmt.Fprintf(&b, "%s:\n", count.Of(reg.Len(), "tool"))
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
func plural(n int, word string) string { return count.Of(n, word) }
