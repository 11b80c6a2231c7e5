// Package slash is the table of slash commands (/help, /clear, ...) shared by
// the full-screen chat and --plain. Commands return plain text and an action
// for the front end; they never draw anything themselves.
package slash

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/undo"
)

// Env is what commands may use.
type Env struct {
	Agent *agent.Agent
	// Running is set by a front end whose turn is under way before the
	// agent has it (its @files are still being read): what the agent
	// refuses during a turn is refused then too (busy).
	Running bool
	// Status returns the same report as `co status`.
	Status func() string
	// Tools returns the /tools listing.
	Tools func() string
	// HelpExtra is appended to /help (the front end's keys).
	HelpExtra string
	// NewConversation is called after /clear and /new reset the agent: the
	// old conversation stays saved, the next one is saved apart.
	NewConversation func()
	// Sessions lists the saved sessions of this workspace (arg "") or
	// switches to the one whose id starts with arg.
	Sessions func(arg string) Result
	// Memory is /memory: list, search, pin, edit and forget memories
	// (internal/cli's memorySlash). Nil: memory is not available.
	Memory func(arg string) Result
	// MCP is /mcp: the MCP servers' states, /mcp trust NAME, /mcp restart
	// NAME, /mcp login NAME, /mcp logout NAME.
	MCP func(arg string) Result
	// Hooks is /hooks: the hooks in force and where each came from;
	// /hooks trust consents to the project's. Nil: not available.
	Hooks func(arg string) Result
	// Schedule is /schedule: the schedules (co schedule list), and
	// /schedule add NAME --at "SPEC" PROMPT (co schedule add's code).
	// Nil: not available.
	Schedule func(arg string) Result
	// Inbox is /inbox: what scheduled runs left (their answers, the calls
	// they kept waiting), /inbox open RUN, /inbox approve ID, /inbox deny
	// ID (internal/cli's inboxSlash). Nil: no saved sessions here.
	Inbox func(arg string) Result
	// InboxIDs are the ids of the calls waiting now, for Tab after
	// "/inbox approve " and "/inbox deny " (nil: none completed).
	InboxIDs func() []string
	// Custom returns the custom commands and skills run as /NAME (it may
	// wait the milliseconds they take to read at start-up); nil: none.
	Custom func() []Custom
	// Export is /export [md|json|html] [FILE]: the saved session written
	// to a file in the workspace (internal/cli's exportSlash). Nil: no
	// saved sessions here.
	Export func(arg string) Result
	// Undo is the conversation's undo service (/undo, /rewind; internal/app's
	// Undo); nil: the conversation is not saved, there is nothing to take
	// back.
	Undo func() *undo.Service
}

// Custom is a /NAME that comes from a file: a custom command or a skill.
// Built-in commands win over custom ones with the same name.
type Custom struct {
	Name  string // with the slash
	Help  string // its description (from a file: shown through lib/safe)
	Skill bool   // a skill (else a custom command)
	// Message is what /NAME ARGS sends to the model as the user's message.
	Message func(args string) (string, error)
}

// Action is what the front end must do after a command.
type Action int

const (
	None          Action = iota
	Clear                // a new conversation began: clear the transcript
	Exit                 // leave co
	Compact              // summarise the conversation now (the front end runs Agent.Compact, which may take a while)
	Switched             // another saved session was loaded: show its transcript
	ListModels           // list the models: the front end calls Models (it may wait on the network) and shows ModelList
	ModelSwitched        // /model NAME switched the model for the next request on
	Send                 // send Prompt as the user's message (a custom command or a skill)
	Setup                // set up a provider: the front end runs the first-run setup (ui/setup)
	// SwitchedRun: another saved session was loaded (show its transcript,
	// as Switched), then Run is run as a turn (/inbox approve: the call
	// a scheduled run kept waiting, asked about with the approval modal or
	// question, then the model continuing).
	SwitchedRun
	// RewindAction: take back Rewind (/undo, /rewind N): the front end
	// runs it off its loop, asks about conflicts and what the turns sent,
	// and shows Report (the full screen redraws the transcript).
	RewindAction
	// RewindPick: /rewind alone; Turns are the turns to pick from (the
	// full screen's picker; --plain prints Output, the numbered list).
	RewindPick
)

// Result of a command.
type Result struct {
	Output string
	Action Action
	// Err marks output that reports a mistake (unknown command, refused).
	Err bool
	// Prompt is the message to send (Action Send).
	Prompt string
	// Args is what the user typed after /NAME (Action Send): the only
	// text whose @path mentions attach files (mention.ExpandFor).
	Args string
	// Confirm, when set, is a yes/no question (e.g. "Forget [id] …?"): the
	// front end asks it and calls OnConfirm only on yes.
	Confirm   string
	OnConfirm func() Result
	// Run starts the turn of Action SwitchedRun; its events are a turn's.
	Run func(ctx context.Context) <-chan agent.Event
	// Rewind is what Action RewindAction takes back (RewindPick: only its
	// Service is set).
	Rewind *Rewind
	// Turns are the turns of Action RewindPick, oldest first.
	Turns []undo.Turn
}

// Command is one slash command.
type Command struct {
	Name string // with the slash, e.g. "/help"
	Help string
	run  func(env Env, arg string) Result
}

// Commands lists the commands, sorted by name.
func Commands() []Command {
	cs := []Command{
		{"/help", "show commands and keys", help},
		{"/clear", "start a new conversation", clear},
		{"/new", "start a new conversation (same as /clear)", clear},
		{"/status", "provider, model, sandbox, config files", status},
		{"/tools", "list tools with their approval class", toolsCmd},
		{"/history", "turns, messages and tokens of this conversation", history},
		{"/cost", "what this session cost, by model (summaries too), from co's prices and your model_prices", costCmd},
		{"/compact", "summarise the conversation so far to free context", compact},
		{"/sessions", "list the chat's saved sessions of this workspace (* the current one; /sessions all: co run's too); /sessions ID switches to one", sessionsCmd},
		{"/memory", "list memories; /memory search Q, /memory pin|unpin ID, /memory edit ID TEXT, /memory rm ID", memoryCmd},
		{"/model", "list the provider's models; /model NAME switches (ollama:NAME etc. switches provider too)", modelCmd},
		{"/inbox", "scheduled runs, calls waiting; /inbox open RUN, approve ID, deny ID", inboxCmd},
		{"/mcp", "MCP servers and their state; /mcp trust NAME consents to a project's, /mcp restart NAME, /mcp login NAME, /mcp logout NAME", mcpCmd},
		{"/hooks", "the hooks in force and where each came from; /hooks trust consents to the project's", hooksCmd},
		{"/schedule", `scheduled runs (co schedule list); /schedule add NAME --at "SPEC" PROMPT adds one`, scheduleCmd},
		{"/setup", "set up the LLM provider: Gemini, Ollama or an OpenAI-compatible server (saved to your user settings)", func(Env, string) Result { return Result{Action: Setup} }},
		{"/export", "write this session to a file in the workspace: /export [md|json|html] [FILE]", exportCmd},
		{"/undo", "take back the last turn: its files and its messages; its prompt comes back", undoCmd},
		{"/rewind", "list the turns; /rewind N [files|conversation|summarise] takes back N and later", rewindCmd},
		{"/yolo", "toggle auto-approval of ask-class calls (never overrides deny)", yolo},
		{"/exit", "leave co", func(Env, string) Result { return Result{Action: Exit} }},
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	return cs
}

// IsCommand reports whether line is a slash command (as opposed to a
// message that happens to start with a path like /etc/hosts?). Lines whose
// first word has another slash are paths, sent to the model.
func IsCommand(line string) bool {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") || len(line) < 2 {
		return false
	}
	word := strings.Fields(line)[0]
	return !strings.Contains(word[1:], "/")
}

// Dispatch runs the command in line.
func Dispatch(env Env, line string) Result {
	line = strings.TrimSpace(line)
	name, arg, _ := strings.Cut(line, " ")
	for _, c := range Commands() {
		if c.Name == name {
			return c.run(env, strings.TrimSpace(arg))
		}
	}
	for _, c := range customs(env) {
		if c.Name == name {
			msg, err := c.Message(strings.TrimSpace(arg))
			if err != nil {
				return Result{Output: safe.Text(err.Error()), Err: true}
			}
			return Result{Action: Send, Prompt: msg, Args: strings.TrimSpace(arg)}
		}
	}
	msg := fmt.Sprintf("unknown command %s — type /help to see the commands", name)
	if m := CompleteIn(env, name); len(m) == 1 {
		msg = fmt.Sprintf("unknown command %s (did you mean %s?) — type /help to see the commands", name, m[0])
	}
	return Result{Output: msg, Err: true}
}

// Complete returns the built-in command names starting with prefix.
func Complete(prefix string) []string {
	var out []string
	for _, c := range Commands() {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c.Name)
		}
	}
	return out
}

// CompleteIn returns the command names starting with prefix: the
// built-in ones, then the custom commands and skills of env, sorted.
func CompleteIn(env Env, prefix string) []string {
	out := Complete(prefix)
	for _, c := range customs(env) {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Builtin reports whether name (with the slash) is a built-in command.
func Builtin(name string) bool {
	for _, c := range Commands() {
		if c.Name == name {
			return true
		}
	}
	return false
}

// customs are env's custom commands and skills, those a built-in command
// shadows left out.
func customs(env Env) []Custom {
	if env.Custom == nil {
		return nil
	}
	var out []Custom
	for _, c := range env.Custom() {
		if !Builtin(c.Name) {
			out = append(out, c)
		}
	}
	return out
}

func help(env Env, _ string) Result {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range Commands() {
		fmt.Fprintf(&b, "  %-10s %s\n", c.Name, c.Help)
	}
	b.WriteString("  !cmd       run a shell command (same approval policy as the agent's shell tool)\n")
	var cmds, skills []Custom
	for _, c := range customs(env) {
		if c.Skill {
			skills = append(skills, c)
		} else {
			cmds = append(cmds, c)
		}
	}
	for _, group := range []struct {
		title string
		cs    []Custom
	}{{"Custom commands (/NAME ARGS sends the file's text):", cmds}, {"Skills (/NAME ARGS asks the model to use the skill):", skills}} {
		if len(group.cs) == 0 {
			continue
		}
		b.WriteString("\n" + group.title + "\n")
		for _, c := range group.cs {
			help := []rune(safe.Text(c.Help))
			if len(help) > 100 {
				help = append(help[:99], '…')
			}
			fmt.Fprintf(&b, "  %-10s %s\n", safe.Text(c.Name), string(help))
		}
	}
	if env.HelpExtra != "" {
		b.WriteString("\n" + strings.TrimRight(env.HelpExtra, "\n") + "\n")
	}
	return Result{Output: strings.TrimRight(b.String(), "\n")}
}

// busy reports whether a turn is under way, in the agent or about to be.
func (env Env) busy() bool { return env.Running || env.Agent.Busy() }

func clear(env Env, _ string) Result {
	if env.busy() {
		return Result{Output: "a turn is running; cancel it first", Err: true}
	}
	env.Agent.Reset()
	if env.NewConversation != nil {
		env.NewConversation()
	}
	return Result{Output: "Started a new conversation (the previous one stays saved).", Action: Clear}
}

func sessionsCmd(env Env, arg string) Result {
	if env.Sessions == nil {
		return Result{Output: "saved sessions are not available here", Err: true}
	}
	if arg != "" && env.busy() {
		return Result{Output: "a turn is running; cancel it first", Err: true}
	}
	return env.Sessions(arg)
}

func exportCmd(env Env, arg string) Result {
	if env.Export == nil {
		return Result{Output: "saved sessions are not available here: there is nothing to export", Err: true}
	}
	return env.Export(arg)
}

func mcpCmd(env Env, arg string) Result {
	if env.MCP == nil {
		return Result{Output: "MCP servers are not available here", Err: true}
	}
	return env.MCP(arg)
}

func hooksCmd(env Env, arg string) Result {
	if env.Hooks == nil {
		return Result{Output: "hooks are not available here", Err: true}
	}
	return env.Hooks(arg)
}

func scheduleCmd(env Env, arg string) Result {
	if env.Schedule == nil {
		return Result{Output: "schedules are not available here", Err: true}
	}
	return env.Schedule(arg)
}

func inboxCmd(env Env, arg string) Result {
	if env.Inbox == nil {
		return Result{Output: "the inbox is not available here: saved sessions are not being kept in this chat", Err: true}
	}
	if sub, _, _ := strings.Cut(arg, " "); sub == "approve" && env.busy() {
		return Result{Output: "a turn is running; cancel it first", Err: true}
	}
	return env.Inbox(arg)
}

// InboxSubcommands are /inbox's words after the name.
var InboxSubcommands = []string{"approve", "deny", "open"}

// CompleteArg completes the argument of a command in line (the text
// typed so far, after "/NAME "): /inbox's subcommands and the ids of the
// calls waiting. lead is the part of line kept before the completed
// word; ok is false when line is no argument this completes.
func CompleteArg(env Env, line string) (lead string, cands []string, ok bool) {
	rest, found := strings.CutPrefix(line, "/inbox ")
	if !found || strings.ContainsAny(line, "\n\t") {
		return "", nil, false
	}
	sub, word, more := strings.Cut(rest, " ")
	if !more {
		for _, c := range InboxSubcommands {
			if strings.HasPrefix(c, sub) {
				cands = append(cands, c)
			}
		}
		return "/inbox ", cands, true
	}
	if (sub != "approve" && sub != "deny") || strings.Contains(word, " ") || env.InboxIDs == nil {
		return "", nil, false
	}
	for _, id := range env.InboxIDs() {
		if strings.HasPrefix(id, word) {
			cands = append(cands, id)
		}
	}
	return "/inbox " + sub + " ", cands, true
}

func memoryCmd(env Env, arg string) Result {
	if env.Memory == nil {
		return Result{Output: "memory is not available here", Err: true}
	}
	return env.Memory(arg)
}

func status(env Env, _ string) Result {
	if env.Status == nil {
		return Result{Output: "status is not available here", Err: true}
	}
	return Result{Output: strings.TrimRight(env.Status(), "\n")}
}

func toolsCmd(env Env, _ string) Result {
	if env.Tools == nil {
		return Result{Output: "tools listing is not available here", Err: true}
	}
	return Result{Output: strings.TrimRight(env.Tools(), "\n")}
}

func compact(env Env, _ string) Result {
	if err := env.Agent.CanCompact(); err != nil {
		return Result{Output: err.Error(), Err: true}
	}
	return Result{Output: "Summarising the conversation…", Action: Compact}
}

func history(env Env, _ string) Result {
	h := env.Agent.History()
	var users, tools int
	for _, m := range h {
		switch m.Role {
		case message.RoleUser:
			users++
		case message.RoleTool:
			tools++
		}
	}
	u := env.Agent.Usage()
	return Result{Output: fmt.Sprintf("%s, %s (%s); tokens this session: %d in, %d out",
		count(users, "turn"), count(len(h), "message"), count(tools, "tool result"), u.InputTokens, u.OutputTokens)}
}

func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func yolo(env Env, arg string) Result {
	ap := env.Agent.Approvals()
	on := !ap.Yolo()
	switch arg {
	case "on":
		on = true
	case "off":
		on = false
	case "":
	default:
		return Result{Output: "usage: /yolo [on|off]", Err: true}
	}
	if err := ap.SetYolo(on); err != nil {
		return Result{Output: err.Error(), Err: true}
	}
	if on {
		return Result{Output: "yolo on: ask-class calls run without asking (denied commands and writes to .git/ etc. still never run or still ask)."}
	}
	return Result{Output: "yolo off: calls that need approval ask again."}
}

// FetchingModels is what /model says while the list is fetched.
const FetchingModels = "fetching models…"

func modelCmd(env Env, arg string) Result {
	if arg == "" {
		if names := env.Agent.CachedModels(); names != nil {
			return ModelList(env.Agent, names, nil)
		}
		return Result{Output: FetchingModels, Action: ListModels}
	}
	p, err := env.Agent.SetModel(arg)
	if err != nil {
		return Result{Output: err.Error(), Err: true}
	}
	out := fmt.Sprintf("Switched to %s · %s for the next request on.", p.Name, safe.Text(p.Model))
	if names := env.Agent.CachedModels(); len(names) > 0 && !strings.Contains(arg, ":") && !contains(names, p.Model) {
		out += " (It is not in the provider's list; the next request will tell whether it exists.)"
	}
	return Result{Output: out, Action: ModelSwitched}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// ModelList is /model's answer once the list is fetched (err: it could
// not be): the models, the current one marked.
func ModelList(ag *agent.Agent, names []string, err error) Result {
	p, _, _ := ag.Provider()
	if err != nil {
		return Result{Output: fmt.Sprintf("could not list the models of %s: %s\n/model NAME still switches to a model you name.", p.Name, safe.Text(err.Error())), Err: true}
	}
	var b strings.Builder
	if len(names) == 0 {
		fmt.Fprintf(&b, "%s lists no chat models.\n", p.Name)
	} else {
		fmt.Fprintf(&b, "Models of %s (* current):\n", p.Name)
	}
	found := false
	for _, n := range names {
		mark := "  "
		if n == p.Model {
			mark, found = "* ", true
		}
		b.WriteString(mark + safe.Text(n) + "\n")
	}
	if !found && p.Model != "" {
		fmt.Fprintf(&b, "* %s (current; not in the list)\n", safe.Text(p.Model))
	}
	if r := ag.ReportedModel(); r != "" && r != p.Model {
		fmt.Fprintf(&b, "The server answers %s as %s.\n", safe.Text(p.Model), safe.Text(r))
	}
	b.WriteString("/model NAME switches for the next request on; /model ollama:NAME (or gemini:, openai:) switches provider too.")
	return Result{Output: b.String()}
}

// CompleteModel returns the model names starting with prefix, from the
// cached list (nil before it is fetched).
func CompleteModel(ag *agent.Agent, prefix string) []string {
	var out []string
	for _, n := range ag.CachedModels() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}
