// Package tui is co's full-screen chat: a Bubble Tea v2 program over the
// agent and its events. The root model (App) lays out, routes messages and
// keeps focus; each pane is its own component in its own file: the
// transcript (chat.go, entries in entry.go, markdown in markdown.go), the
// prompt (input.go, history.go), the approval modal (modal.go), the spans
// side panel (sidepanel.go), the status bar (statusbar.go) and the welcome
// banner (welcome.go).
//
// Every string that came from the model, a tool, a file or the network
// goes through lib/safe before it is drawn.
//
// Concurrency: the model is used by Bubble Tea's event loop only. Each turn
// has a pump goroutine (events.go) that reads the agent's channel and hands
// its events to the loop as messages; the telemetry feed, provider
// resolution and the files a message mentions are read by commands. Nothing but the loop touches the model.
package tui

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/lib/count"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/lib/startmark"
	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/ui/mention"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/setup"
	"github.com/co-cli/co/ui/slash"
)

// ExitWindow is how soon a second Ctrl+C at an idle prompt must follow the
// first to exit.
const ExitWindow = 2 * time.Second

// sidePanelMinWidth is the terminal width below which the side panel hides
// itself; between sidePanelNarrowMin and it, Ctrl+T still opens it (beside
// a narrower chat), and below sidePanelNarrowMin there is no room for it.
const (
	sidePanelMinWidth  = 100
	sidePanelNarrowMin = 60
)

// interruptMsg is a SIGINT delivered while the terminal is not in raw mode;
// it counts as Ctrl+C.
type interruptMsg struct{}

// flashDoneMsg clears a status flash.
type flashDoneMsg struct{ Seq int }

// historyErrMsg reports a failure to save the input history.
type historyErrMsg struct{ Err error }

// queued is a message typed while a turn ran.
type queued struct {
	text  string
	bang  bool
	shown string // what the transcript shows for it, when not text (a /NAME custom command)
	// args, for a /NAME custom command, is what the user typed after the
	// name: only its @path mentions attach files, not the command file's.
	args   string
	custom bool
	// atts are the images and PDFs attached (pasted paths) to it; it
	// waits in the queue until they are read (ready).
	atts []*attachment
}

// ready reports whether q's attachments are all read.
func (q queued) ready() bool { return unread(q.atts) == nil }

// display is what the user typed for q.
func (q queued) display() string {
	switch {
	case q.shown != "":
		return q.shown
	case q.bang:
		return "!" + q.text
	}
	return q.text
}

// App is the root model.
type App struct {
	// ahead is how many bytes typed before the chat started are still to
	// come (typeahead.go).
	ahead int
	// tmux is what the chat knows of tmux (tmuxprofile.go).
	tmux    tmuxState
	todos   Todos
	todoCh  <-chan struct{}
	confirm *slash.Result // a slash command's question awaiting y (memory.go)
	mem     *memView      // the /memory view, while open (memview.go)
	pick    *rewindPick   // the /rewind picker, while open (undo.go)
	undo    *undoFlow     // an undo asking its questions (undo.go)
	memOpen func() (*memory.Store, error)
	agent   *agent.Agent
	slash   slash.Env
	keys    KeyMap
	mkeys   ModalKeyMap
	th      *Theme
	md      *markdown
	chat    *Chat
	input   *Input
	modal   *Modal
	form    *FormModal // an MCP server's form (form.go)
	side    *SidePanel
	status  *StatusBar
	welcome *welcomeEntry
	wel     Welcome
	feed    <-chan telemetry.SpanEvent
	unsub   func()
	done    <-chan struct{} // closed when the program ends

	width, height int
	sideWanted    bool // the panel at sidePanelMinWidth columns and wider (Ctrl+T)
	sideNarrow    bool // the panel below that (Ctrl+T); off until asked for
	mouseOff      bool
	inputHeight   int

	turn          int // the current (or last) turn's id
	running       bool
	reading       bool   // the running turn reads its mentioned files; the agent has not started it
	shown         string // what the user typed for the running turn, when the model gets other text (/NAME)
	cancelled     bool   // the user cancelled the running turn
	pump          *pump
	cancel        context.CancelFunc
	reply         *assistantEntry // the reply being streamed
	think         *reasoningEntry // the reasoning being streamed
	models        modelsState
	hideReasoning bool
	tools         map[string]*toolEntry
	mentions      mention.Source // where @path mentions attach files from; nil: nowhere
	turnTokens    int
	queue         []queued

	ctrlC    time.Time
	flashSeq int
	// autoTheme: the theme setting is "auto"; the terminal's answer to
	// the background colour request picks light or dark.
	autoTheme bool
	// notifier notifies through the terminal while it is not focused
	// (notify.go).
	notifier *notifier

	start func(text, shown string, bang bool, atts []message.Attachment) (<-chan agent.Event, context.CancelFunc)
	// pending are the images and PDFs attached to the next message
	// (pasted paths), shown above the input (attach.go); turnAtts the
	// running turn's.
	pending  []*attachment
	turnAtts []message.Attachment
	// probe is a paste whose paths are being checked; held the keys and
	// pastes that came since, handled after it (attach.go).
	probe               *mediaProbe
	held                []heldMsg
	probeSeq, attachSeq int
	// slashWait is a slash command running off the loop (slashwait.go);
	// keys and pastes are held for it too. confirmOf is the command whose
	// question (confirm) waits for y.
	slashWait *slashRun
	slashSeq  int
	// switchBg are the commands switching the conversation that are no
	// longer waited for (ctrl+c), by id: messages queue until they answer.
	switchBg  map[int]string
	confirmOf string
	// turnMsg is the running turn's message as queued, given back to the
	// input when an attachment stops it before it goes (TurnFailed.NotSent).
	turnMsg queued
	// startRun starts a turn a slash command made (slash.SwitchedRun).
	startRun func(run func(context.Context) <-chan agent.Event) (<-chan agent.Event, context.CancelFunc)
	now      func() time.Time
	// notes are the start-up warnings (Options.Notes), kept to show again
	// when the transcript is redrawn for the terminal's background.
	notesFn func() []string
	notes   []string
	// first is Options.First, submitted by Init.
	first string
	// background delivers notes from outside any turn (Options.Background).
	background <-chan present.Note

	// setup is the first-run provider setup, while open (setup.go);
	// setupEnv what it needs (nil: no setup offered), setupOffered that it
	// has opened by itself once.
	setup        *setupView
	setupEnv     *setup.Env
	setupOffered bool
	firstPending string // Options.First, held until the setup is over
	// notesShown: the start-up notes are in the transcript (or there are
	// none to wait for); firstAfterNotes, Options.First held until they
	// are, so the warnings come before the first message, not after.
	notesShown      bool
	firstAfterNotes string
	// activity is what a running tool said it is doing (its notice's first
	// clause), for the status bar instead of "Co is thinking…", until the
	// call activityCall ends.
	activity, activityCall string
	// gc: the runtime's settings changed for the turn (turngc.go).
	gc turnGCState
}

// firstMsg submits Options.First.
type firstMsg struct{ text string }

// New makes the root model. ctx bounds every turn it starts.
func New(ctx context.Context, o Options) *App {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	th := NewTheme(o.Theme, o.NoColor || noColor(o.Environ))
	keys, mkeys := DefaultKeyMap(), DefaultModalKeyMap()
	md := newMarkdown(th.Markdown)
	hist, err := LoadHistory(o.HistoryPath)
	a := &App{
		agent: o.Agent, slash: o.Slash, keys: keys, mkeys: mkeys, th: &th, md: md,
		side: NewSidePanel(&th), status: NewStatusBar(&th), wel: o.Welcome,
		sideWanted: true, tools: map[string]*toolEntry{}, now: now, done: ctx.Done(), todos: o.Todos,
		hideReasoning: o.HideReasoning,
		notesFn:       o.Notes,
		first:         o.First,
		background:    o.Background,
		memOpen:       o.Memory,
		setupEnv:      o.Setup,
		autoTheme:     (o.Theme == "auto" || o.Theme == "") && th.Name != "none",
		notifier:      newNotifier(o.Notify),
	}
	// The pump saves streamed text right before each frame shows it.
	o.Agent.DeferDrafts()
	if a.slash.Agent == nil {
		a.slash.Agent = o.Agent
	}
	if a.slash.HelpExtra == "" {
		a.slash.HelpExtra = HelpText(keys, mkeys)
	}
	a.chat = NewChat(a.th, md)
	a.input = NewInput(a.th, keys, hist)
	a.input.models = func(prefix string) []string { return slash.CompleteModel(o.Agent, prefix) }
	if o.Mentions != nil {
		a.mentions = o.Mentions
		a.input.index = mention.NewIndex(o.Mentions) // lists nothing until "@" is typed
		_, a.input.checkChoice = o.Mentions.(mention.MediaSource)
	}
	a.input.commands = func(prefix string) []string { return slash.CompleteIn(a.slash, prefix) }
	a.input.args = func(line string) (string, []string, bool) { return slash.CompleteArg(a.slash, line) }
	a.welcome = &welcomeEntry{w: o.Welcome, setup: o.Setup != nil}
	a.chat.Add(a.welcome)
	if h, xs := o.Agent.Shown(); len(h) > 0 || len(xs) > 0 {
		a.showHistory("") // a resumed session
	}
	if err != nil {
		a.chat.Add(newNotice(noticeError, "could not read the input history: "+err.Error()))
	}
	a.setProvider()
	if o.Feed != nil {
		a.feed, a.unsub = o.Feed.Subscribe(256)
	}
	a.start = func(text, shown string, bang bool, atts []message.Attachment) (<-chan agent.Event, context.CancelFunc) {
		tctx, cancel := context.WithCancel(ctx)
		switch {
		case bang:
			return o.Agent.RunBang(tctx, text), cancel
		case len(atts) > 0:
			return o.Agent.SubmitAttached(tctx, text, shown, atts), cancel
		}
		return o.Agent.SubmitShown(tctx, text, shown), cancel
	}
	a.startRun = func(run func(context.Context) <-chan agent.Event) (<-chan agent.Event, context.CancelFunc) {
		tctx, cancel := context.WithCancel(ctx)
		return run(tctx), cancel
	}
	a.refreshStatus()
	return a
}

// noColor reports whether a NO_COLOR in environ (a test's, given as
// Options.Environ) asks for no colours.
func noColor(environ []string) bool {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "NO_COLOR="); ok && v != "" {
			return true
		}
	}
	return false
}

// close ends the feed subscription and any running turn.
func (a *App) close() {
	if a.unsub != nil {
		a.unsub()
	}
	if a.cancel != nil {
		a.cancel()
	}
}

// Init starts waiting for the provider and the spans.
func (a *App) Init() tea.Cmd {
	var cmds []tea.Cmd
	// Always wait: resolution may end between New and Init, and the welcome
	// panel drawn in New must hear of it (WaitProvider returns at once then).
	ag := a.agent
	cmds = append(cmds, safeCmd(func() tea.Msg {
		p, note, err := ag.WaitProvider(context.Background())
		return providerMsg{Provider: p, Note: note, Err: err}
	}))
	if a.feed != nil {
		cmds = append(cmds, safeCmd(readFeed(a.feed)))
	}
	if a.background != nil {
		cmds = append(cmds, safeCmd(readBackground(a.background)))
	}
	if a.todos != nil {
		a.todoCh, _ = a.todos.Subscribe() // ends with the process
		cmds = append(cmds, safeCmd(watchTodos(a.todoCh)))
	}
	if a.requestsBackground() {
		// The first frame is drawn at once in the provisional (light)
		// theme; the answer switches it. A terminal that does not answer
		// keeps light.
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if a.notifier.setting == NotifyAuto {
		// The terminal's name, for a terminal the environment does not
		// name (over ssh); one that does not answer leaves auto to the
		// environment.
		cmds = append(cmds, tea.RequestTerminalVersion)
	}
	cmds = append(cmds, safeCmd(warmHighlighter))
	if a.tmux.env != nil {
		// After the first frame (tmuxprofile.go).
		env := a.tmux.env
		cmds = append(cmds, safeCmd(func() tea.Msg {
			time.Sleep(warmDelay)
			return askTmux(env)()
		}))
	}
	if a.notesFn != nil {
		f := a.notesFn
		// After the first frame: what f reads must not compete with it.
		cmds = append(cmds, safeCmd(func() tea.Msg {
			time.Sleep(warmDelay)
			return notesMsg{Notes: f()}
		}))
	}
	if a.first != "" {
		first := a.first
		if a.setupEnv != nil {
			// With no provider the setup comes first (firstMsg waits for
			// it): find out before the prompt is sent.
			cmds = append(cmds, safeCmd(func() tea.Msg {
				_, _, _ = ag.WaitProvider(context.Background())
				return firstMsg{first}
			}))
		} else {
			cmds = append(cmds, func() tea.Msg { return firstMsg{first} })
		}
	}
	// The first frame is out by then: open the provider's connection while
	// the user types (the agent does it in the background, silently).
	cmds = append(cmds, safeCmd(func() tea.Msg {
		time.Sleep(warmDelay)
		ag.Warm()
		return nil
	}))
	return tea.Batch(cmds...)
}

// requestsBackground reports whether Init asks the terminal for its
// background colour.
func (a *App) requestsBackground() bool { return a.autoTheme }

// setBackground picks the theme for the terminal's background. Only before
// the first turn: every pane is redrawn from scratch then (the welcome
// banner and a resumed conversation); a terminal answers long before.
func (a *App) setBackground(msg tea.BackgroundColorMsg) {
	if !a.autoTheme || a.turn > 0 || a.running || len(a.queue) > 0 {
		return
	}
	a.autoTheme = false // once
	name := "light"
	if msg.IsDark() {
		name = "dark"
	}
	if name == a.th.Name {
		return
	}
	*a.th = NewTheme(name, false)
	*a.md = *newMarkdown(a.th.Markdown)
	a.input.SetTheme()
	a.chat.Clear()
	a.welcome = &welcomeEntry{w: a.wel, setup: a.setupEnv != nil}
	a.chat.Add(a.welcome)
	if h, xs := a.agent.Shown(); len(h) > 0 || len(xs) > 0 {
		a.showHistory("")
	}
	a.showNotes()
	a.setProvider()
	a.layout()
	if a.sideShown() {
		a.side.Tick(a.now())
	}
}

// Update routes a message to its handler.
func (a *App) Update(msg tea.Msg) (m tea.Model, cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			a.chat.Add(newNotice(noticeError, fmt.Sprintf("internal error: %v (the chat goes on; please report this)", r)))
			m, cmd = a, nil
		}
	}()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height = msg.Width, msg.Height
		a.layout()
	case tea.KeyPressMsg:
		msg = a.aheadKey(msg)
		switch {
		case a.probe != nil && key.Matches(msg, a.keys.Interrupt):
			cmd = a.giveUpProbe()
		case a.slashWait != nil && key.Matches(msg, a.keys.Interrupt):
			cmd = a.stopWaiting()
		case a.hold(msg):
		default:
			cmd = a.handleKey(msg)
		}
	case tea.MouseWheelMsg:
		a.handleWheel(msg)
	case tea.PasteMsg:
		if !a.hold(msg) {
			cmd = a.handlePaste(msg)
		}
	case probedMsg:
		cmd = a.handleProbed(msg)
	case probeSlowMsg:
		if a.probe != nil && a.probe.id == msg.id {
			a.probe.slow = true
			a.layout()
		}
	case mediaReadMsg:
		cmd = a.handleMediaRead(msg)
	case slashDoneMsg:
		cmd = a.handleSlashDone(msg)
	case rewoundMsg:
		cmd = a.handleRewound(msg)
	case sentUndoneMsg:
		cmd = a.handleSentUndone(msg)
	case slashSlowMsg:
		if a.slashWait != nil && a.slashWait.id == msg.id {
			a.slashWait.slow = true
			a.layout()
		}
	case inputFlushMsg:
		cmd = tea.Batch(a.input.Flushed(), a.prefetchModels(false))
	case mentionFilesMsg:
		a.input.FilesListed()
	case tea.BackgroundColorMsg:
		a.setBackground(msg)
	case tmuxProfileMsg:
		cmd = a.onTmuxProfile(msg)
	case tea.EnvMsg:
		a.notifier.environment(msg)
	case tea.TerminalVersionMsg:
		a.notifier.terminalVersion(msg.Name)
	case tea.FocusMsg:
		a.notifier.blurred = false
	case tea.BlurMsg:
		a.notifier.blurred = true
	case interruptMsg:
		cmd = a.interrupt()
	case firstMsg:
		if _, done, err := a.agent.Provider(); done && errors.Is(err, provider.ErrNoProvider) && a.setupEnv != nil {
			// Sent when the setup is over (closeSetup): to the provider
			// it set up, or, skipped, to fail saying what to set.
			a.firstPending = msg.text
			break
		}
		if a.notesFn != nil && !a.notesShown {
			a.firstAfterNotes = msg.text
			break
		}
		// As if typed and sent: into the history, then handled as Enter is.
		cmd = a.handleSubmit(Submission{Text: msg.text, save: a.input.record(msg.text)})
	case agentEventMsg:
		cmd = a.handleAgentEvent(msg)
	case turnClosedMsg:
		cmd = a.handleTurnClosed(msg)
	case expandedMsg:
		cmd = a.handleExpanded(msg)
	case spanMsg:
		a.side.Apply(msg.Span)
		cmd = safeCmd(readFeed(a.feed))
	case providerMsg:
		a.setProvider()
		if errors.Is(msg.Err, provider.ErrNoProvider) && !a.setupOffered {
			// No provider: offer to set one up here, rather than only
			// saying what to set and leaving the user to quit.
			a.setupOffered = true
			cmd = a.openSetup()
		}
	case setupStartedMsg:
		a.handleSetupStarted()
	case setupAnsweredMsg:
		cmd = a.handleSetupAnswered(msg)
	case notesMsg:
		a.notes = msg.Notes
		a.showNotes()
		a.notesShown = true
		a.chat.Bottom()
		if text := a.firstAfterNotes; text != "" {
			a.firstAfterNotes = ""
			cmd = a.handleSubmit(Submission{Text: text, save: a.input.record(text)})
		}
	case backgroundMsg:
		kind := noticeInfo
		if msg.Note.Problem {
			kind = noticeError
		}
		a.chat.Add(newNotice(kind, msg.Note.Text))
		a.welcome.invalidate() // its tool count
		a.chat.Bottom()
		cmd = safeCmd(readBackground(a.background))
	case spinTickMsg:
		var moved bool
		cmd, moved = a.status.Update(msg, a.now())
		if moved {
			a.clocks(a.now())
		}
	case formArmedMsg:
		if a.form != nil && a.form == msg.form {
			cmd = a.form.Arm(a.now())
		}
	case formWithdrawnMsg:
		if a.form != nil && a.form.Request().Withdrawn == msg.done {
			a.form = nil
			a.chat.Add(newNotice(noticeInfo, "The MCP server withdrew its form."))
			a.refreshStatus()
		}
	case modalArmedMsg:
		if a.modal != nil {
			cmd = a.modal.Arm(msg, a.now())
		}
	case flashDoneMsg:
		if msg.Seq == a.flashSeq {
			a.status.Flash("")
		}
	case compactedMsg:
		a.handleCompacted(msg)
	case modelsMsg:
		a.handleModels(msg)
	case memListMsg:
		if a.mem != nil {
			a.mem.listed(msg)
		}
	case memDoneMsg:
		if a.mem != nil {
			cmd = a.mem.done(msg)
		}
	case todosChangedMsg:
		a.showTodos()
		cmd = safeCmd(watchTodos(a.todoCh))
	case historyErrMsg:
		a.chat.Add(newNotice(noticeError, "could not save the input history: "+msg.Err.Error()))
	case panicMsg:
		a.chat.Add(newNotice(noticeError, "internal error (the chat goes on; please report this): "+msg.Err))
	}
	if a.input.Height() != a.inputHeight {
		a.layout()
	}
	return a, cmd
}

// layout sizes the panes for the window.
func (a *App) layout() {
	if a.width == 0 || a.height == 0 {
		return
	}
	main := max(a.height-1, 1)
	cw := a.width
	if a.sideShown() {
		sw := min(max(a.width/4, 30), 44)
		cw = a.width - sw
		a.side.SetSize(sw, main)
	}
	a.input.SetWidth(cw)
	a.inputHeight = a.input.Height()
	a.chat.SetSize(cw, max(main-a.inputHeight-a.queuedLines(), 1))
	a.status.SetWidth(a.width)
	if a.form != nil {
		a.form.SetSize(a.width, main)
	}
	if a.modal != nil {
		a.modal.SetSize(a.width, main)
	}
	if a.mem != nil {
		a.mem.SetSize(a.width, main)
	}
	if a.setup != nil {
		a.setup.SetSize(a.width, main)
	}
	if a.pick != nil {
		a.pick.SetSize(a.width, main)
	}
}

func (a *App) sideShown() bool {
	switch {
	case a.width >= sidePanelMinWidth:
		return a.sideWanted
	case a.width >= sidePanelNarrowMin:
		return a.sideNarrow
	}
	return false
}

func (a *App) queuedLines() int { return min(len(a.queue), 3) + a.pendingCount() }

func (a *App) handleKey(k tea.KeyPressMsg) tea.Cmd { return a.handleKeyAt(k, a.now()) }

// handleKeyAt handles k typed at at: now, or earlier for a key held
// (slashwait.go), which the modal or form that opened since must not take
// as an answer the user gave having read it.
func (a *App) handleKeyAt(k tea.KeyPressMsg, at time.Time) tea.Cmd {
	if key.Matches(k, a.keys.Interrupt) {
		return a.interrupt()
	}
	a.ctrlC = time.Time{}
	if a.modal != nil {
		return a.modalKey(k, at)
	}
	if a.form != nil {
		return a.formKey(k, at)
	}
	if a.mem != nil {
		return a.memKey(k)
	}
	if a.setup != nil {
		return a.setupKey(k)
	}
	if a.pick != nil {
		return a.pickKey(k)
	}
	if key.Matches(k, a.keys.Detach) && len(a.pending) > 0 {
		a.detach()
		return nil
	}
	switch {
	case key.Matches(k, a.keys.Cancel):
		if a.input.MentionOpen() {
			a.input.CloseMention() // Esc closes the @ list first
			return nil
		}
		if a.running {
			return a.cancelTurn()
		}
		if len(a.queue) > 0 {
			a.unqueue() // a message waiting for its attachments to be read
			return nil
		}
		if a.confirm != nil && a.input.Empty() {
			return a.dismissConfirm()
		}
		a.chat.Unselect()
		return a.toInput(k)
	case key.Matches(k, a.keys.Quit) && a.input.Empty():
		return tea.Quit
	case key.Matches(k, a.keys.Suspend):
		return tea.Suspend
	case key.Matches(k, a.keys.PageUp):
		a.chat.ScrollUp(max(a.chat.height-2, 1))
	case key.Matches(k, a.keys.PageDown):
		a.chat.ScrollDown(max(a.chat.height-2, 1))
	case key.Matches(k, a.keys.Top) && a.input.Empty():
		a.chat.Top()
	case key.Matches(k, a.keys.Bottom) && a.input.Empty():
		a.chat.Bottom()
	case key.Matches(k, a.keys.SelectPrev):
		a.chat.Select(-1)
	case key.Matches(k, a.keys.SelectNext):
		a.chat.Select(+1)
	case key.Matches(k, a.keys.Copy):
		return a.copy()
	case key.Matches(k, a.keys.Expand):
		a.chat.ToggleExpand()
	case key.Matches(k, a.keys.Reasoning):
		if !a.chat.ToggleReasoning() {
			return a.flash("No reasoning to expand", 2*time.Second)
		}
	case key.Matches(k, a.keys.ToggleSpans):
		// Issue 27: below 100 columns Ctrl+T used to flip a flag that had
		// no effect there, while the bar advertised it.
		switch {
		case a.width >= sidePanelMinWidth:
			a.sideWanted = !a.sideWanted
		case a.width >= sidePanelNarrowMin:
			a.sideNarrow = !a.sideNarrow
		default:
			// Short enough for the bar of a terminal this narrow.
			return a.flash(fmt.Sprintf("spans need %d columns", sidePanelNarrowMin), 3*time.Second)
		}
		a.layout()
		if a.sideShown() {
			a.side.Tick(a.now())
		}
	case key.Matches(k, a.keys.Mouse):
		a.mouseOff = !a.mouseOff
		a.refreshStatus()
	default:
		return a.toInput(k)
	}
	return nil
}

// toInput hands a key or a paste to the prompt and acts on a submission.
func (a *App) toInput(msg tea.Msg) tea.Cmd {
	tab := false
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, a.keys.Complete) {
		tab = true
	}
	sub, cmd := a.input.Update(msg)
	if path := a.input.Chosen(); path != "" {
		// The @ list's choice, maybe an image or PDF: checked off the
		// loop (the keys after it wait).
		return tea.Batch(cmd, a.chooseMedia(path))
	}
	if a.input.Gathering() {
		return cmd // a burst: the flush looks at the text
	}
	if sub == nil {
		return tea.Batch(cmd, a.prefetchModels(tab))
	}
	a.models.failed = false
	return tea.Batch(cmd, a.handleSubmit(*sub))
}

func (a *App) handleWheel(m tea.MouseWheelMsg) {
	if a.mem != nil && a.modal == nil {
		a.mem.Wheel(m.Button == tea.MouseWheelUp)
		return
	}
	switch m.Button {
	case tea.MouseWheelUp:
		a.chat.ScrollUp(3)
	case tea.MouseWheelDown:
		a.chat.ScrollDown(3)
	}
}

// interrupt is Ctrl+C: it cancels a running turn; on a draft it clears
// the prompt (the draft goes to the history) and does not arm exit; at an
// empty idle prompt the first press warns and a second within ExitWindow
// exits, so a draft is never thrown away by quitting.
func (a *App) interrupt() tea.Cmd {
	if a.running {
		return a.cancelTurn()
	}
	if len(a.queue) > 0 {
		a.unqueue() // a message waiting for its attachments to be read
		return nil
	}
	if a.mem != nil && a.modal == nil {
		a.closeMem() // as Esc
		return nil
	}
	if a.modal == nil && !a.input.Empty() {
		a.ctrlC = time.Time{}
		a.flashSeq++
		a.status.Flash("")
		return a.saveHistory(a.input.Clear())
	}
	now := a.now()
	if !a.ctrlC.IsZero() && now.Sub(a.ctrlC) <= ExitWindow {
		return tea.Quit
	}
	a.ctrlC = now
	return a.flash("Press Ctrl+C again to exit", ExitWindow)
}

// flash shows msg in the status bar for d.
func (a *App) flash(msg string, d time.Duration) tea.Cmd {
	a.flashSeq++
	seq := a.flashSeq
	a.status.Flash(msg)
	return tea.Tick(d, func(time.Time) tea.Msg { return flashDoneMsg{Seq: seq} })
}

func (a *App) modalKey(k tea.KeyPressMsg, at time.Time) tea.Cmd {
	idx := a.modal.Index()
	switch a.modal.HandleKey(k, at) {
	case ModalCancel:
		return a.cancelTurn()
	case ModalAnswered:
		a.markAnswered(idx)
		req := a.modal.Request()
		req.Reply(a.modal.Verdicts())
		a.modal = nil
		a.markWaiting(req, false)
		a.refreshStatus() // no longer waiting for approval
	case ModalSwallowed:
		// The user was typing for the prompt: the text goes there.
		if k.Text != "" && k.Code != tea.KeyEnter {
			return a.toInput(k)
		}
	default:
		if a.modal.Index() != idx {
			a.markAnswered(idx)
			return a.modal.ArmCmd()
		}
	}
	return nil
}

// markWaiting shows the calls of req as waiting for approval, or running
// again once answered.
func (a *App) markWaiting(req agent.ApprovalRequested, waiting bool) {
	now := a.now()
	for _, c := range req.Calls {
		if t := a.tools[c.CallID]; t != nil {
			t.wait(waiting, now)
		}
	}
	a.chat.SetNow(now)
	a.chat.Changed()
}

// cancelTurn cancels the running turn; the agent ends it with TurnFailed
// (history stays valid) and a pending approval is denied as interrupted.
// A turn still reading its mentioned files never reached the agent: it
// ends here, as a cancelled turn does when its events end (the read's
// result is dropped when it comes).
func (a *App) cancelTurn() tea.Cmd {
	if a.cancel != nil {
		a.cancel()
	}
	a.cancelled = true
	a.modal = nil
	a.closeForm()
	if a.reading {
		a.reading = false
		a.chat.Add(newNotice(noticeInfo, interruptedText))
		return a.handleTurnClosed(turnClosedMsg{Turn: a.turn})
	}
	return nil
}

// interruptedText ends a turn the user cancelled.
const interruptedText = "Interrupted."

func (a *App) copy() tea.Cmd {
	text := ""
	if e := a.chat.Selected(); e != nil {
		text = e.plain()
	} else {
		text = a.chat.LastReply()
	}
	if text == "" {
		return a.flash("Nothing to copy yet", 2*time.Second)
	}
	text = safe.Text(text)
	return tea.Batch(tea.SetClipboard(text), a.flash("Copied "+count.Of(len([]rune(text)), "character")+" to the clipboard", 2*time.Second))
}

func (a *App) handleSubmit(msg Submission) tea.Cmd {
	cmds := []tea.Cmd{a.saveHistory(msg.save)}
	a.chat.Unselect()
	text := msg.Text
	trimmed := strings.TrimSpace(text)
	switch {
	case a.confirm != nil:
		cmds = append(cmds, a.answerConfirm(trimmed))
	case trimmed == "exit" || trimmed == "quit":
		cmds = append(cmds, tea.Quit)
	case trimmed == "/memory" && a.memOpen != nil:
		cmds = append(cmds, a.openMem())
	case slash.IsCommand(trimmed):
		cmds = append(cmds, a.runSlash(trimmed))
	case strings.HasPrefix(trimmed, "!"):
		cmd := strings.TrimSpace(trimmed[1:])
		if cmd == "" {
			a.chat.Add(newNotice(noticeError, "type a command after !, e.g. !ls"))
			break
		}
		cmds = append(cmds, a.beginOrQueue(queued{text: cmd, bang: true}))
	default:
		cmds = append(cmds, a.beginOrQueue(queued{text: text, atts: a.takePending()}))
	}
	a.refreshStatus()
	return tea.Batch(cmds...)
}

// saveHistory runs a history save function off the loop.
func (a *App) saveHistory(save func() error) tea.Cmd {
	if save == nil {
		return nil
	}
	return safeCmd(func() tea.Msg {
		if err := save(); err != nil {
			return historyErrMsg{Err: err}
		}
		return nil
	})
}

// showNotes adds the start-up notes to the transcript.
// A warning has its own mark (⚠, not a failure's ✗), a note none.
func (a *App) showNotes() {
	for _, n := range a.notes {
		kind := noticeError
		switch {
		case strings.HasPrefix(n, "warning: "):
			kind = noticeWarn
		case strings.HasPrefix(n, "note: "):
			kind = noticeInfo
		}
		a.chat.Add(newNotice(kind, n))
	}
}

func (a *App) runSlash(line string) tea.Cmd {
	if a.askClear(line) {
		return nil
	}
	name, _, _ := strings.Cut(line, " ")
	// A turn whose files are still read (begin) is running before the
	// agent has it: what the agent refuses during a turn is refused now.
	env := a.slash
	env.Running = a.running
	if slashOffLoop[name] {
		return a.startSlash(env, line)
	}
	return a.slashDone(line, slash.Dispatch(env, line), false)
}

// slashDone acts on a command's result; shown: its line is in the
// transcript already.
func (a *App) slashDone(line string, r slash.Result, shown bool) tea.Cmd {
	if r.Action == slash.Send {
		// A custom command or skill: the transcript shows what was typed,
		// the model gets the text it stands for.
		return a.beginOrQueue(queued{text: r.Prompt, shown: line, args: r.Args, custom: true, atts: a.takePending()})
	}
	if !shown {
		a.chat.Add(newUserEntry(line))
	}
	switch r.Action {
	case slash.Exit:
		return tea.Quit
	case slash.Clear:
		a.chat.Clear()
		a.turnTokens = 0
	case slash.Switched:
		a.chat.Clear()
		a.chat.Add(a.welcome)
		// The switch's own line ends the transcript, once: not a
		// "Resumed" line and then a "Switched" one (issue 27).
		a.showHistory(r.Output)
		r.Output = ""
		a.turnTokens = 0
	case slash.SwitchedRun:
		if a.running || r.Run == nil {
			r.Output, r.Err = "a turn is running; cancel it first", true
			break
		}
		// The run's saved session, as /sessions ID shows one, then the
		// command at its end and the turn it starts (the approval modal
		// first).
		a.chat.Clear()
		a.chat.Add(a.welcome)
		a.showHistory(r.Output)
		a.turnTokens = 0
		a.turn++
		a.startShown(queued{text: line})
		events, cancel := a.startRun(r.Run)
		a.cancel = cancel
		a.pump = newPump(a.turn, events, a.done, a.agent.SyncDraft)
		a.gcForTurn()
		return tea.Batch(a.pump.next, a.status.Start(a.now()))
	case slash.Compact:
		a.chat.Add(newNotice(noticeInfo, r.Output))
		a.chat.Bottom()
		a.refreshStatus()
		return a.compact()
	case slash.ListModels:
		n := newNotice(noticeInfo, r.Output)
		a.models.note = n
		a.chat.Add(n)
		a.chat.Bottom()
		return a.fetchModels(true)
	case slash.ModelSwitched:
		a.modelSwitched()
	case slash.RewindAction:
		if r.Rewind == nil {
			break
		}
		a.chat.Add(newNotice(noticeInfo, r.Output+" …"))
		a.chat.Bottom()
		return a.startRewind(*r.Rewind, false)
	case slash.RewindPick:
		a.openRewindPick(r)
		a.chat.Bottom()
		return nil
	case slash.Setup:
		if a.setupEnv == nil {
			r.Output, r.Err = "No setup here: set a provider with co config set (see co config).", true
			break
		}
		a.chat.Bottom()
		return a.openSetup()
	}
	if r.Output != "" {
		kind := noticeOutput
		if r.Err {
			kind = noticeError
		}
		a.chat.Add(newNotice(kind, r.Output))
	}
	if r.OnConfirm != nil {
		a.askConfirm(r, line)
	}
	a.chat.Bottom()
	a.refreshStatus()
	return nil
}

// beginOrQueue starts q, or queues it behind the running turn, or behind
// (or as) a message whose attachments are still being read, or until a
// switch of the conversation answers (slashwait.go).
func (a *App) beginOrQueue(q queued) tea.Cmd {
	if a.running || len(a.queue) > 0 || !q.ready() || a.switching() != "" {
		a.queue = append(a.queue, q)
		a.layout()
		return a.next()
	}
	return a.begin(q)
}

// next starts the first queued message when no turn runs, its
// attachments are read and no switch of the conversation is under way.
func (a *App) next() tea.Cmd {
	if a.running || len(a.queue) == 0 || !a.queue[0].ready() || a.switching() != "" {
		return nil
	}
	q := a.queue[0]
	a.queue = a.queue[1:]
	a.layout()
	return a.begin(q)
}

// unqueue gives the queued messages back to the input (before what is
// typed there) and their attachments back above it.
func (a *App) unqueue() {
	q := a.queue
	a.queue = nil
	a.putBack(q...)
}

// putBack puts messages back into the input, before what is typed there,
// and their attachments above it, in order; it returns how many
// attachments came back.
func (a *App) putBack(qs ...queued) int {
	var parts []string
	var atts []*attachment
	for _, q := range qs {
		parts = append(parts, q.display())
		atts = append(atts, q.atts...)
	}
	a.restore(atts)
	if v := a.input.Value(); v != "" {
		parts = append(parts, v)
	}
	a.input.SetValue(strings.Join(parts, "\n"))
	a.layout()
	a.refreshStatus()
	return len(atts)
}

// begin starts a turn (or a !cmd). A message that mentions files shows
// at once and the turn counts as running (Enter queues, Ctrl+C and Esc
// cancel), but the files are read off the loop (expandMentions) and the
// agent's turn starts when they are (handleExpanded). Any other message
// starts the agent's turn here, with no round trip.
func (a *App) begin(q queued) tea.Cmd {
	a.turn++
	a.turnAtts, a.turnMsg = mediaOf(q.atts), q
	if !q.bang && a.mentions != nil {
		typed := q.text
		if q.custom {
			typed = q.args // only the user's own words attach files
		}
		if len(mention.Find(typed)) > 0 {
			a.startShown(q)
			a.reading = true
			return tea.Batch(expandMentions(a.turn, a.mentions, typed, q.text), a.status.Start(a.now()))
		}
	}
	a.startShown(q)
	a.startAgent(q.text, q.bang)
	return tea.Batch(a.pump.next, a.status.Start(a.now()))
}

// startShown marks a turn as running and shows the user's message.
func (a *App) startShown(q queued) {
	a.cancel, a.running, a.cancelled = nil, true, false
	a.shown = q.shown
	a.reply, a.think, a.tools, a.turnTokens = nil, nil, map[string]*toolEntry{}, 0
	a.side.SetRecalled(nil) // until this turn says what it recalled
	a.chat.Add(newUserEntry(q.display()))
	a.addMedia(mediaOf(q.atts))
	a.chat.Bottom()
	a.refreshStatus()
}

// startAgent starts the agent's turn (or the !cmd) and its pump.
func (a *App) startAgent(prompt string, bang bool) {
	events, cancel := a.start(prompt, a.shown, bang, a.turnAtts)
	a.cancel = cancel
	a.pump = newPump(a.turn, events, a.done, a.agent.SyncDraft)
	a.gcForTurn()
}

// expandedMsg is turn Turn's message with its mentioned files read.
type expandedMsg struct {
	Turn   int
	Prompt mention.Expanded
	Err    string // reading them panicked
}

// expandMentions is the command that reads the files typed mentions
// (bounded: MaxFiles files of read_file's size cap, as the message goes to
// the model) into text. A panic comes back as the turn's failure (as
// safeCmd reports one), so the turn still ends.
func expandMentions(turn int, src mention.Source, typed, text string) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = expandedMsg{Turn: turn, Err: fmt.Sprintf("reading the mentioned files panicked: %v\n%s", r, debug.Stack())}
			}
		}()
		return expandedMsg{Turn: turn, Prompt: mention.ExpandFor(src, typed, text)}
	}
}

// handleExpanded shows what was attached and starts the agent's turn; a
// result for a turn that was cancelled (or any other) is dropped.
func (a *App) handleExpanded(msg expandedMsg) tea.Cmd {
	if msg.Turn != a.turn || !a.reading {
		return nil
	}
	a.reading = false
	if msg.Err != "" {
		a.chat.Add(newNotice(noticeError, "internal error (the chat goes on; please report this): "+msg.Err))
		return a.handleTurnClosed(turnClosedMsg{Turn: a.turn})
	}
	a.addAttachments(msg.Prompt.Attached)
	a.addMedia(msg.Prompt.Media)
	a.turnAtts = append(a.turnAtts, msg.Prompt.Media...)
	for _, p := range msg.Prompt.Problems {
		a.chat.Add(newNotice(noticeInfo, p))
	}
	a.chat.Bottom()
	a.startAgent(msg.Prompt.Prompt, false)
	a.refreshStatus()
	return a.pump.next
}

func (a *App) handleAgentEvent(msg agentEventMsg) tea.Cmd {
	if msg.Turn != a.turn || a.pump == nil {
		return nil
	}
	cmds := []tea.Cmd{a.pump.next}
	now := a.now()
	switch e := msg.Event.(type) {
	case agent.ReasoningDelta:
		if a.hideReasoning {
			return tea.Batch(cmds...)
		}
		if a.think == nil {
			if strings.TrimSpace(e.Text) == "" {
				return tea.Batch(cmds...)
			}
			a.endReply(false)
			a.think = newReasoningEntry(now, a.keys.Reasoning.Help().Key)
			a.chat.Add(a.think)
		}
		a.think.append(e.Text)
		a.chat.Changed()
		if a.status.Frame(now) {
			a.clocks(now)
		}
		return tea.Batch(cmds...)
	case agent.TextDelta:
		a.endThink(now)
		if a.reply == nil {
			a.reply = &assistantEntry{}
			a.chat.Add(a.reply)
		}
		a.reply.append(e.Text)
		a.chat.Changed()
		if a.status.Frame(now) {
			a.clocks(now)
		}
		return tea.Batch(cmds...) // the status bar shows nothing new
	case agent.Notice:
		a.endThink(now)
		a.endReply(false)
		if t := a.tools[e.CallID]; t != nil && e.CallID != "" {
			// The tool's own word while it runs: in its block, before its
			// output, and on the bar while it waits ("starting the
			// sandbox…", not "Co is thinking…").
			t.notes = append(t.notes, safe.Text(e.Text))
			t.invalidate()
			a.chat.Changed()
			a.activity, a.activityCall = firstClause(safe.Text(e.Text)), e.CallID
			break
		}
		a.chat.Add(newNotice(noticeInfo, e.Text))
	case agent.MemoryRecalled:
		a.recalled(e)
	case agent.RiskRaised:
		a.endThink(now)
		a.endReply(false)
		a.chat.Add(newNotice(noticeWarn, agent.RiskNotice(e)))
	case agent.ToolCallStarted:
		a.endThink(now)
		a.endReply(false)
		t := newToolEntry(e, now)
		a.tools[e.CallID] = t
		a.chat.SetNow(now)
		a.chat.Add(t)
	case agent.ToolCallFinished:
		if a.activityCall == e.CallID {
			a.activity, a.activityCall = "", ""
		}
		if t := a.tools[e.CallID]; t != nil {
			t.finish(e)
			a.chat.Changed()
		}
	case agent.ApprovalRequested:
		a.modal = NewModal(e, a.th, a.mkeys, a.width, max(a.height-1, 1), now)
		a.markWaiting(e, true)
		cmds = append(cmds, a.modal.ArmCmd())
		tools := make([]string, len(e.Calls))
		for i, c := range e.Calls {
			tools[i] = c.Tool
		}
		cmds = append(cmds, a.notifier.notify(approvalText(tools)))
	case agent.FormRequested:
		a.closeForm() // one form at a time: a newer one replaces it
		a.form = NewFormModal(e, a.th, a.width, max(a.height-1, 1), now)
		cmds = append(cmds, a.notifier.notify("form from MCP server "+safe.Text(e.Form.Server)), formWithdrawn(e), a.form.ArmCmd())
	case agent.TurnFinished:
		a.activity, a.activityCall = "", ""
		a.endThink(now)
		a.endReply(false)
		a.turnTokens = e.Usage.Total()
		cmds = append(cmds, a.notifier.notify("turn finished"))
	case agent.TurnFailed:
		a.activity, a.activityCall = "", ""
		a.endThink(now)
		a.endReply(e.Interrupted)
		a.turnTokens = e.Usage.Total()
		a.modal = nil
		a.closeForm()
		if e.Interrupted {
			a.chat.Add(newNotice(noticeInfo, interruptedText))
		} else {
			cmds = append(cmds, a.notifier.notify("turn failed"))
			a.chat.Add(newNotice(noticeError, e.Message))
			if e.NotSent {
				a.giveBack("", a.turnMsg)
			}
			if errors.Is(e.Err, provider.ErrNoProvider) && a.setupEnv != nil {
				a.chat.Add(newNotice(noticeInfo, "Type /setup to choose a provider here."))
			}
		}
	}
	a.refreshStatus()
	return tea.Batch(cmds...)
}

// giveBack puts messages that did not go (why, when not said already)
// back into the input (before what is typed there) and their attachments
// back above it, to fix and send.
func (a *App) giveBack(why string, qs ...queued) {
	say := "Your message is back in the input."
	if a.putBack(qs...) > 0 {
		say = "Your message is back in the input (its attachments above it): ctrl+x removes the last attachment."
	}
	if why != "" {
		say = why + " " + say
	}
	a.chat.Add(newNotice(noticeInfo, say))
}

// endThink collapses the streamed reasoning: the answer (or a call) began.
func (a *App) endThink(now time.Time) {
	if a.think != nil {
		a.think.finish(now)
		a.chat.Changed()
		a.think = nil
	}
}

// endReply closes the streamed reply: its last block renders as final.
func (a *App) endReply(interrupted bool) {
	if a.reply != nil {
		a.reply.finish(interrupted)
		a.chat.Changed()
		a.reply = nil
	}
}

func (a *App) handleTurnClosed(msg turnClosedMsg) tea.Cmd {
	if msg.Turn != a.turn {
		return nil
	}
	a.gcAfterTurn()
	a.endThink(a.now())
	a.endReply(a.cancelled)
	for _, t := range a.tools {
		t.abandon()
	}
	a.chat.Changed()
	if a.cancel != nil {
		a.cancel()
	}
	a.running, a.pump, a.cancel, a.modal = false, nil, nil, nil
	a.closeForm()
	a.status.Stop()
	defer a.refreshStatus()
	if len(a.queue) == 0 {
		return nil
	}
	if a.cancelled {
		// Cancelling stops the queue too: the queued text goes back to the
		// prompt for the user to send or change.
		a.unqueue()
		return nil
	}
	return a.next()
}

// setProvider shows the provider in the banner and the status bar.
func (a *App) setProvider() {
	p, done, err := a.agent.Provider()
	errText := ""
	if err != nil {
		errText = err.Error()
	}
	a.welcome.setProvider(providerText(p, a.reportedModel(p)), done, errText)
	a.chat.Changed()
	a.refreshStatus()
}

func (a *App) refreshStatus() {
	p, done, err := a.agent.Provider()
	ap := a.agent.Approvals()
	yoloUses, yoloLeft := ap.YoloLeft()
	reported := a.reportedModel(p)
	if done && err == nil {
		a.setWelcomeProvider(p, reported)
	}
	untrusted, untrustedN := a.agent.RiskBrief()
	a.status.SetInfo(StatusInfo{
		Untrusted:     untrusted,
		UntrustedN:    untrustedN,
		Provider:      p.Name,
		Model:         p.Model,
		Reported:      reported,
		Resolving:     !done,
		NoProvider:    done && err != nil,
		Isolation:     a.wel.Isolation,
		Unsandboxed:   a.wel.Unsandboxed,
		Yolo:          yoloUses > 0,
		YoloUses:      yoloUses,
		YoloLeft:      yoloLeft,
		Grants:        len(ap.Grants()),
		TurnTokens:    a.turnTokens,
		SessionTokens: a.agent.Usage().Total(),
		SessionCost:   present.SessionCost(a.agent.Usage()),
		Queued:        len(a.queue),
		MouseOff:      a.mouseOff,
		Waiting:       a.modal != nil,
		Form:          a.form != nil,
		Activity:      a.activity,
	})
}

// View lays the panes out. It only reads what Update rendered.
func (a *App) View() (v tea.View) {
	defer func() {
		if r := recover(); r != nil {
			v = tea.NewView(fmt.Sprintf("internal error drawing the screen: %v", r))
			v.AltScreen = true
		}
	}()
	startmark.Mark("view")
	v.AltScreen = true
	v.WindowTitle = "co"
	// Focus reports tell notifications when the terminal is not looked at.
	v.ReportFocus = a.notifier.on()
	if !a.mouseOff {
		v.MouseMode = tea.MouseModeCellMotion
	}
	if a.width == 0 || a.height == 0 {
		return v
	}
	if a.height == 1 {
		v.SetContent(a.status.View())
		return v
	}
	main := a.height - 1
	cw := a.width
	var side []string
	if a.sideShown() {
		cw = a.width - a.side.width
		side = a.side.Rows()
	}
	chat := a.chat.Rows()
	chatH := a.chat.height
	var queued []string
	for i, q := range a.queue[:min(len(a.queue), 3)] {
		t := q.display()
		if n := len(q.atts); n > 0 {
			t += fmt.Sprintf("  📎 %d", n)
		}
		lead := "  ⏳ queued: "
		if e := unread(q.atts); e != nil {
			lead = "  ⏳ sends once " + safe.Text(e.name) + " is read: "
		} else if sw := a.switching(); i == 0 && sw != "" && !a.running {
			lead = "  ⏳ sends once " + safe.Text(sw) + " has answered: "
		}
		queued = append(queued, a.th.Queued.Render(truncate(lead+strings.ReplaceAll(safe.Text(t), "\n", " ⏎ "), cw)))
	}
	queued = append(queued, a.pendingLines(cw)...)
	inLines, inWidths := a.input.Lines()
	inputTop := chatH + len(queued)

	// One builder for the whole frame: the view is rebuilt after every
	// message, so it allocates as little as it can.
	var b strings.Builder
	b.Grow(main*(a.width+64) + len(a.status.View()))
	pad := func(w int) {
		for ; w > 0; w-- {
			b.WriteByte(' ')
		}
	}
	text := func(s string, w int) {
		if w > cw {
			s, w = xansi.Truncate(s, cw, ""), cw
		}
		b.WriteString(s)
		pad(cw - w)
	}
	for i := 0; i < main; i++ {
		switch {
		case i < chatH && i < len(chat):
			r := chat[i]
			if r.mark == "" {
				pad(cw)
				break
			}
			b.WriteString(r.mark) // gutter columns wide
			text(r.text, r.width+gutter)
		case i < chatH:
			pad(cw)
		case i < inputTop:
			q := queued[i-chatH]
			text(q, xansi.StringWidth(q))
		case i-inputTop < len(inLines):
			text(inLines[i-inputTop], inWidths[i-inputTop])
		default:
			pad(cw)
		}
		if i < len(side) {
			b.WriteString(side[i])
		}
		b.WriteByte('\n')
	}
	b.WriteString(a.status.View())
	content := b.String()
	if box := a.overlayBox(); box != "" {
		rows := strings.Split(content, "\n")
		last := len(rows) - 1
		rows = append(overlay(rows[:last], box, a.width, a.modal == nil && a.form == nil && a.mem == nil && a.setup != nil), rows[last])
		content = strings.Join(rows, "\n")
	} else if c := a.input.Cursor(); c != nil {
		c.Y += inputTop
		v.Cursor = c
	}
	v.SetContent(content)
	return v
}

// clocks moves the running clocks shown besides the status bar's
// spinner: running tools' elapsed time and the side panel's running spans.
// It runs when the spinner moves (StatusBar.Frame), on a streamed frame
// or on the spinner's tick, so while text streams they repaint with the
// text instead of in frames of their own between its frames.
func (a *App) clocks(now time.Time) {
	a.chat.Tick(now)
	if a.sideShown() {
		a.side.Tick(now)
	}
}

// firstClause is text up to its first " (" : "starting the sandbox…" of
// "starting the sandbox… (its container is being created; …)".
func firstClause(text string) string {
	if i := strings.Index(text, " ("); i > 0 {
		return text[:i]
	}
	return text
}

// formWithdrawnMsg: the form of req no longer needs an answer.
type formWithdrawnMsg struct{ done <-chan struct{} }

// formWithdrawn waits for req's form to be withdrawn (the server cancelled
// it, the call ended).
func formWithdrawn(req agent.FormRequested) tea.Cmd {
	return func() tea.Msg {
		<-req.Withdrawn
		return formWithdrawnMsg{done: req.Withdrawn}
	}
}

func (a *App) formKey(k tea.KeyPressMsg, at time.Time) tea.Cmd {
	res, ans := a.form.HandleKey(k, at)
	switch res {
	case FormCancelTurn:
		return a.cancelTurn()
	case FormAnswered:
		req := a.form.Request()
		req.Reply(ans)
		a.form = nil
		word := map[tools.FormAction]string{tools.FormAccept: "sent", tools.FormDecline: "declined", tools.FormCancel: "cancelled"}[ans.Action]
		a.chat.Add(newNotice(noticeInfo, fmt.Sprintf("Form from MCP server %s: %s.", req.Form.Server, word)))
		a.refreshStatus()
	case FormSwallowed:
		cmd := a.form.ArmCmd()
		if k.Text != "" && k.Code != tea.KeyEnter {
			return tea.Batch(cmd, a.toInput(k))
		}
		return cmd
	}
	return nil
}

// closeForm cancels an open form: the turn it belongs to ended.
func (a *App) closeForm() {
	if a.form != nil {
		a.form.Request().Reply(tools.FormAnswer{Action: tools.FormCancel})
		a.form = nil
	}
}
