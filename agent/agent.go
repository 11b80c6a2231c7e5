// Package agent runs co's conversation with an LLM: one turn at a time, it
// streams the model's reply, runs the tools it calls (asking the user first
// when the approval policy says so) and keeps the history valid whatever
// happens (errors, interrupts, denials).
//
// # Events
//
// Submit returns a channel of Events for one turn. The channel is closed
// after exactly one TurnFinished or TurnFailed, which is always the last
// event. TextDelta values may be coalesced when the reader falls behind (the
// text is never lost or reordered); every other event is delivered exactly
// once and in order. The reader must drain the channel until it is closed;
// an ApprovalRequested must be answered with Reply or by cancelling the
// turn's context.
//
// # Concurrency
//
// One turn runs at a time, in its own goroutine; Submit while a turn runs
// fails that submission with TurnFailed. History, Usage and the other
// accessors are safe to call from any goroutine. A panic in the turn
// goroutine or in a tool is recovered and reported as TurnFailed or as a
// failed call.
//
// Nothing here knows which front end listens: events carry plain data and no
// styling.
package agent

import (
	"context"
	"fmt"
	"github.com/co-cli/co/lib/cost"
	"net/http"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/hooks"
	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/lib/media"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// Config builds an Agent.
type Config struct {
	// Provider is the LLM endpoint. When Resolve is set it is used instead,
	// called once in the background by New.
	Provider provider.Provider
	// ProviderErr, when set, makes every turn fail with it (no provider is
	// usable; its message says what to set).
	ProviderErr error
	Resolve     func(ctx context.Context) (provider.Provider, string, error)
	// Transport, when set, carries the provider's HTTP requests in place
	// of http.DefaultTransport (tests, benchmarks).
	Transport http.RoundTripper
	// Request shapes each chat request (reasoning effort, token cap,
	// temperature, Ollama's context window).
	Request provider.RequestOptions
	// SystemPrompt is sent first on every request.
	SystemPrompt string
	// MorePrompt, when set, gives what follows SystemPrompt (project
	// instructions, the skills' list) while it is read in the background:
	// the first request waits for it, later ones reuse it.
	MorePrompt func(ctx context.Context) (string, error)

	Tools *tools.Registry
	// ToolGroups, when set, are the tool groups sent to the model
	// (llm_tool_groups; ToolGroup names them); empty sends all.
	ToolGroups []string
	Approvals  *Approvals
	// MaxRequests caps LLM round-trips per user turn (max_request_limit).
	MaxRequests int
	// Prices prices each call (lib/cost's table with the user's
	// model_prices); nil: the built-in table.
	Prices cost.Prices
	// MaxCost, when > 0, is the most the session may cost in US dollars
	// (max_cost, co run --max-cost): a turn that reaches it ends after
	// the call that crossed it, before another request (cost.go).
	MaxCost float64
	// ToolRetries caps consecutive "called wrongly" results per tool in a
	// turn (tool_retries).
	ToolRetries int
	// StallTimeout ends a turn when the stream sends nothing for this long.
	StallTimeout time.Duration
	Retry        provider.RetryPolicy
	Tracer       trace.Tracer
	SessionID    string
	// History configures what is sent: trimming, the sliding window.
	History HistoryOptions
	// Recorder, when set, saves every completed step as it happens.
	Recorder Recorder
	// Settings are the providers' settings, for /model PROVIDER:NAME.
	Settings provider.ProviderSettings
	// ToolsStart, when set, starts the tools that come up in the
	// background (MCP servers, the sandbox's container) and returns at once; Warm calls it once,
	// after the front end's first frame, and the first turn calls it if
	// Warm did not.
	ToolsStart func()
	// ToolsReady, when set, runs before every LLM request of a turn: it
	// waits for tools still starting (bounded by each one's own timeout,
	// and by ctx, the turn's: Ctrl+C ends the wait) and returns what to
	// tell the user (a server that failed, tools withdrawn), each sent as
	// a Notice. Before it blocks it calls waiting with what it waits for
	// ("waiting for MCP server X to start…"), sent as a Notice at once, so
	// the user sees why the turn has not begun.
	ToolsReady func(ctx context.Context, waiting func(notice string)) []string
	// Recall, when set, is asked at the start of each turn what the turn
	// should know besides the conversation (co's memories): block is put
	// before the user's message in that turn's requests only (never saved
	// in the history; see recallView), recalled says what it holds (a
	// MemoryRecalled event and the turn span's co.memory.recalled).
	// notice, when not empty, is sent as a Notice: why the turn goes on
	// without memories (a damaged store), said once, not on every turn.
	Recall func(ctx context.Context, prompt string) (block string, recalled []Recalled, notice string)
	// Protected checks the workspace's protected paths again around the turns (protected.go);
	// nil: no check beyond the sandbox's own.
	Protected ProtectedWatch
	// Checkpoints, when set, keeps a checkpoint of the workspace around
	// each turn of a saved session (undoable.go); it may open its store
	// on the first Begin.
	Checkpoints Checkpointer
	// Journal, when set, gives the journal of a saved session, where tools
	// record what they send (journal.RecordIn); called off the turn's path,
	// once per turn.
	Journal func(session string) (*journal.Journal, error)
	// Hooks are the user's commands at fixed points of a turn (issue 42;
	// hooks.go); nil: none. internal/app makes them from the settings,
	// a project's only with the user's consent.
	Hooks *hooks.Set
}

// Agent is the conversation of one chat session.
type Agent struct {
	cfg       Config
	validator *tools.Validator
	tracer    trace.Tracer

	resolved chan struct{}
	provider provider.Provider
	note     string
	provErr  error
	client   *openai.Client

	mu        sync.Mutex
	history   []message.Message
	asides    []message.Aside // in order; After counts history
	shown     *shownState     // a restored conversation as saved, for front ends (compactsave.go)
	risk      Risk            // what the history holds: untrusted sources, private data (risk.go)
	busy      bool
	session   message.Usage
	byModel   []ModelCost // this run's calls by model (cost.go)
	turns     int
	lastTurn  trace.SpanContext
	lastInput int // input tokens of the last request, for the context window
	rec       Recorder
	sessionID string // the saved session's id (SetRecorder); "" if none
	recFailed bool   // a save failed; said once
	// unattended is set for a scheduled run (unattended.go).
	unattended *Unattended

	drafts draftBuffer

	models   modelCache
	switched *provider.Provider // a /model switch not yet taken up
	reported string             // the model the server last reported
	// reportedFor is the model (and endpoint) that request asked for.
	reportedFor string
	// gen counts rewrites of the history (not appends): the request
	// encoder's cache of finished turns is valid for one generation.
	gen int
	enc provider.PrefixCache
	// ctxInForce is the context window the provider applies, when known
	// (Ollama's num_ctx); 0 otherwise.
	ctxInForce int
	ollama     *provider.Ollama // Ollama's native API and what it said of its models (provider/ollama.go)
	budget     budgetState      // the context budget (budget.go)
	// noTools are the models (by endpoint) that take no tools, with why
	// (toolless.go); toolNoticed is the one last said so of.
	noTools     map[string]noToolsWhy
	toolNoticed string
	// noVision are the models (by endpoint) that refused an image, with
	// their answer; fits the images scaled for them (attach.go).
	noVision map[string]string
	fits     map[fitKey]media.Fitted
	// bound is the reply bound the last request asked for (replybound.go).
	bound    int
	system   string // the system prompt with MorePrompt's text, once known
	systemOK bool

	toolsStart sync.Once // Config.ToolsStart, once
	// recall is the running turn's Config.Recall block; only the turn
	// goroutine touches it.
	recall string

	// ckptPending is closed when the last turn's checkpoint End returned;
	// ckptEndErr is its failure, said at the next turn; ckptTold is the
	// session told its files cannot be undone (undoable.go).
	ckptPending chan struct{}
	ckptEndErr  error
	ckptTold    string

	hooks hookState // hooks.go
}

// startTools runs Config.ToolsStart once (it returns at once: the tools
// come up in its own goroutines); a second caller waits for the first.
func (a *Agent) startTools() {
	if a.cfg.ToolsStart == nil {
		return
	}
	a.toolsStart.Do(func() {
		defer func() { _ = recover() }()
		a.cfg.ToolsStart()
	})
}

// toolsReady waits for tools still starting and sends what Config.ToolsReady
// has to say as Notices.
func (a *Agent) toolsReady(ctx context.Context, e *emitter) {
	// A front end that never called Warm (co run) starts them here.
	a.startTools()
	if a.cfg.ToolsReady == nil {
		return
	}
	waiting := func(n string) { e.send(Notice{Text: n}) }
	for _, n := range a.cfg.ToolsReady(ctx, waiting) {
		e.send(Notice{Text: n})
	}
}

// New makes an Agent. If cfg.Resolve is set, provider resolution starts in
// the background at once; the first turn waits for it.
func New(cfg Config) *Agent {
	if cfg.Prices == nil {
		cfg.Prices = cost.Builtin()
	}
	if cfg.MaxRequests <= 0 {
		cfg.MaxRequests = 25
	}
	if cfg.ToolRetries < 0 {
		cfg.ToolRetries = 0
	}
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = 60 * time.Second
	}
	if cfg.Approvals == nil {
		cfg.Approvals = NewApprovals(ApprovalOptions{})
	}
	if cfg.Tools == nil {
		cfg.Tools, _ = tools.NewRegistry()
	}
	a := &Agent{cfg: cfg, validator: tools.NewValidator(), resolved: make(chan struct{}), tracer: cfg.Tracer, rec: cfg.Recorder,
		ollama: provider.NewOllama(cfg.Transport, cfg.Retry)}
	if a.tracer == nil {
		a.tracer = noop.NewTracerProvider().Tracer("co")
	}
	if cfg.Resolve == nil {
		a.setProvider(cfg.Provider, "", cfg.ProviderErr)
	} else {
		go func() {
			defer func() {
				if r := recover(); r != nil {
					a.setProvider(provider.Provider{}, "", fmt.Errorf("resolving the provider panicked: %v", r))
				}
			}()
			p, note, err := cfg.Resolve(context.Background())
			a.setProvider(p, note, err)
		}()
	}
	return a
}

func (a *Agent) setProvider(p provider.Provider, note string, err error) {
	a.provider, a.note, a.provErr = p, note, err
	if err == nil {
		a.client = provider.NewClient(p, a.cfg.Retry, a.cfg.Transport)
	}
	close(a.resolved)
}

// Provider returns the provider, whether resolution has finished, and the
// error that makes it unusable, if any.
func (a *Agent) Provider() (p provider.Provider, done bool, err error) {
	select {
	case <-a.resolved:
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.switched != nil {
			return *a.switched, true, nil
		}
		return a.provider, true, a.provErr
	default:
		return a.cfg.Provider, false, nil
	}
}

// WaitProvider blocks until the provider is resolved or ctx ends.
func (a *Agent) WaitProvider(ctx context.Context) (provider.Provider, string, error) {
	select {
	case <-a.resolved:
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.provider, a.note, a.provErr
	case <-ctx.Done():
		return provider.Provider{}, "", ctx.Err()
	}
}

// Tools is the session's tool registry.
func (a *Agent) Tools() *tools.Registry { return a.cfg.Tools }

// Approvals is the session's approval state.
func (a *Agent) Approvals() *Approvals { return a.cfg.Approvals }

// History returns a copy of the conversation.
func (a *Agent) History() []message.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]message.Message(nil), a.history...)
}

// SetHistory replaces the conversation (resume, /compact). Dangling tool
// calls are patched so the history is valid to send.
func (a *Agent) SetHistory(h []message.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history = message.PatchDangling(h)
	a.risk = riskOf(a.history)
	a.shown = nil
	a.gen++
}

// Restore continues a saved conversation: its history (patched so it is
// valid to send), its token usage and its number of turns. The last
// request's size is its last assistant message's InputTokens, so the
// first turn compacts when the window was nearly full, as the chat would
// have (needsCompaction).
func (a *Agent) Restore(h []message.Message, u message.Usage, turns int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history = message.PatchDangling(h)
	a.risk = riskOf(a.history)
	a.asides = nil
	a.shown = nil
	a.gen++
	a.session, a.turns, a.lastInput = u, turns, lastInputOf(a.history)
	a.hooks = hookState{resumed: true, told: a.hooks.told}
}

// lastInputOf is the prompt tokens of the request that produced h's last
// assistant message: 0 when it was not counted, or is a compaction's
// acknowledgement (the history is small since).
func lastInputOf(h []message.Message) int {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == message.RoleAssistant {
			return h[i].InputTokens
		}
	}
	return 0
}

// RestoreAsides gives a restored conversation the asides it showed (saved
// !cmd runs and notices), After counting the history Restore was given.
func (a *Agent) RestoreAsides(x []message.Aside) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asides = append([]message.Aside(nil), x...)
}

// Asides are the !cmd runs and notices of the conversation, in order, each
// placed by the number of history messages before it.
func (a *Agent) Asides() []message.Aside {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]message.Aside(nil), a.asides...)
}

// addAside keeps x in the conversation (placed after the history so far)
// and saves it.
func (a *Agent) addAside(e *emitter, x message.Aside) {
	a.mu.Lock()
	x.After = len(a.history)
	a.asides = append(a.asides, x)
	rec := a.rec
	a.mu.Unlock()
	if rec != nil {
		a.record(e, func() error { return rec.Aside(x) })
	}
}

// Reset starts a new conversation (/clear). Usage counters restart too.
func (a *Agent) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history = nil
	a.asides = nil
	a.shown = nil
	a.risk = Risk{}
	a.gen++
	a.session = message.Usage{}
	a.byModel = nil
	a.turns = 0
	a.lastInput = 0
	a.hooks = hookState{cleared: true, told: a.hooks.told}
}

// Usage is the session's token usage so far.
func (a *Agent) Usage() message.Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.session
}

// Turns is the number of user turns so far.
func (a *Agent) Turns() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turns
}

// Busy reports whether a turn is running.
func (a *Agent) Busy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.busy
}

// appendHistory adds completed messages and saves them, each in its own
// transaction, before anything else happens.
func (a *Agent) appendHistory(e *emitter, ms ...message.Message) {
	a.mu.Lock()
	a.history = append(a.history, ms...)
	var fresh []tools.Origin
	for _, m := range ms {
		fresh = append(fresh, a.risk.add(m)...)
	}
	all := a.risk.clone().Untrusted
	rec := a.rec
	a.mu.Unlock()
	if len(fresh) > 0 && e != nil {
		e.send(RiskRaised{Untrusted: all, New: fresh})
	}
	if rec == nil {
		return
	}
	for _, m := range ms {
		a.record(e, func() error { return rec.Append(m) })
	}
}

// patchDangling answers every unanswered tool call with "Interrupted by the
// user." and saves those results.
func (a *Agent) patchDangling(e *emitter) {
	a.mu.Lock()
	patched := message.PatchDangling(a.history)
	var added []message.Message
	if len(patched) > len(a.history) {
		// Only the last assistant message can have dangling calls here, so
		// the missing results are the tail of the patched history.
		added = patched[len(a.history):]
	}
	a.mu.Unlock()
	a.appendHistory(e, added...)
}
