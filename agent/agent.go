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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/co-cli/co/tools"
)

// Config builds an Agent.
type Config struct {
	// Provider is the LLM endpoint. When Resolve is set it is used instead,
	// called once in the background by New.
	Provider Provider
	// ProviderErr, when set, makes every turn fail with it (no provider is
	// usable; its message says what to set).
	ProviderErr error
	Resolve     func(ctx context.Context) (Provider, string, error)
	// Transport, when set, carries the provider's HTTP requests in place
	// of http.DefaultTransport (tests, benchmarks).
	Transport http.RoundTripper
	// Request shapes each chat request (reasoning effort, token cap,
	// temperature, Ollama's context window).
	Request RequestOptions
	// SystemPrompt is sent first on every request.
	SystemPrompt string
	Tools        *tools.Registry
	Approvals    *Approvals
	// MaxRequests caps LLM round-trips per user turn (max_request_limit).
	MaxRequests int
	// ToolRetries caps consecutive "called wrongly" results per tool in a
	// turn (tool_retries).
	ToolRetries int
	// StallTimeout ends a turn when the stream sends nothing for this long.
	StallTimeout time.Duration
	Retry        RetryPolicy
	Tracer       trace.Tracer
	SessionID    string
	// History configures what is sent: trimming, the sliding window.
	History HistoryOptions
	// Recorder, when set, saves every completed step as it happens.
	Recorder Recorder
	// Settings are the providers' settings, for /model PROVIDER:NAME.
	Settings ProviderSettings
	// Temperature etc. could go here; providers' defaults are used.
}

// Agent is the conversation of one chat session.
type Agent struct {
	cfg       Config
	validator *tools.Validator
	tracer    trace.Tracer

	resolved chan struct{}
	provider Provider
	note     string
	provErr  error
	client   *openai.Client

	mu        sync.Mutex
	history   []Message
	busy      bool
	session   Usage
	turns     int
	lastInput int // input tokens of the last request, for the context window
	rec       Recorder
	recFailed bool // a save failed; said once

	drafts draftBuffer

	models   modelCache
	switched *Provider // a /model switch not yet taken up
	reported string    // the model the server last reported
	// gen counts rewrites of the history (not appends): the request
	// encoder's cache of finished turns is valid for one generation.
	gen int
	enc prefixCache
	// ctxInForce is the context window the provider applies, when known
	// (Ollama's num_ctx); 0 otherwise.
	ctxInForce int
	ollama     ollamaCache // what Ollama said of its models (ollama.go)
}

// New makes an Agent. If cfg.Resolve is set, provider resolution starts in
// the background at once; the first turn waits for it.
func New(cfg Config) *Agent {
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
	a := &Agent{cfg: cfg, validator: tools.NewValidator(), resolved: make(chan struct{}), tracer: cfg.Tracer, rec: cfg.Recorder}
	if a.tracer == nil {
		a.tracer = noop.NewTracerProvider().Tracer("co")
	}
	if cfg.Resolve == nil {
		a.setProvider(cfg.Provider, "", cfg.ProviderErr)
	} else {
		go func() {
			defer func() {
				if r := recover(); r != nil {
					a.setProvider(Provider{}, "", fmt.Errorf("resolving the provider panicked: %v", r))
				}
			}()
			p, note, err := cfg.Resolve(context.Background())
			a.setProvider(p, note, err)
		}()
	}
	return a
}

func (a *Agent) setProvider(p Provider, note string, err error) {
	a.provider, a.note, a.provErr = p, note, err
	if err == nil {
		a.client = newClient(p, a.cfg.Retry, a.cfg.Transport)
	}
	close(a.resolved)
}

// Provider returns the provider, whether resolution has finished, and the
// error that makes it unusable, if any.
func (a *Agent) Provider() (p Provider, done bool, err error) {
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
func (a *Agent) WaitProvider(ctx context.Context) (Provider, string, error) {
	select {
	case <-a.resolved:
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.provider, a.note, a.provErr
	case <-ctx.Done():
		return Provider{}, "", ctx.Err()
	}
}

// Tools is the session's tool registry.
func (a *Agent) Tools() *tools.Registry { return a.cfg.Tools }

// Approvals is the session's approval state.
func (a *Agent) Approvals() *Approvals { return a.cfg.Approvals }

// History returns a copy of the conversation.
func (a *Agent) History() []Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Message(nil), a.history...)
}

// SetHistory replaces the conversation (resume, /compact). Dangling tool
// calls are patched so the history is valid to send.
func (a *Agent) SetHistory(h []Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history = PatchDangling(h)
	a.gen++
}

// Restore continues a saved conversation: its history (patched so it is
// valid to send), its token usage and its number of turns.
func (a *Agent) Restore(h []Message, u Usage, turns int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history = PatchDangling(h)
	a.gen++
	a.session, a.turns, a.lastInput = u, turns, 0
}

// Reset starts a new conversation (/clear). Usage counters restart too.
func (a *Agent) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history = nil
	a.gen++
	a.session = Usage{}
	a.turns = 0
	a.lastInput = 0
}

// Usage is the session's token usage so far.
func (a *Agent) Usage() Usage {
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
func (a *Agent) appendHistory(e *emitter, ms ...Message) {
	a.mu.Lock()
	a.history = append(a.history, ms...)
	rec := a.rec
	a.mu.Unlock()
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
	patched := PatchDangling(a.history)
	var added []Message
	if len(patched) > len(a.history) {
		// Only the last assistant message can have dangling calls here, so
		// the missing results are the tail of the patched history.
		added = patched[len(a.history):]
	}
	a.mu.Unlock()
	a.appendHistory(e, added...)
}

// saved reports a failure to save, once per session, without stopping the
// conversation.
func (a *Agent) saved(e *emitter, err error) {
	if err == nil {
		return
	}
	a.mu.Lock()
	first := !a.recFailed
	a.recFailed = true
	a.mu.Unlock()
	if first && e != nil {
		e.send(Notice{Text: "Saving this session failed (" + err.Error() + "); the conversation goes on but may not be resumable."})
	}
}

// draftBuffer orders the agent's calls into its Recorder and, when a front
// end asked for it, holds streamed text until that front end is about to
// show it. Normally each chunk is saved as a draft as it arrives. The
// full-screen chat shows text only 15 times a second, so it calls
// DeferDrafts once and SyncDraft right before each frame: what it shows is
// still on disk first, in one append instead of one per chunk (a write
// per chunk was a twentieth of the chat's CPU for a streamed reply).
type draftBuffer struct {
	mu       sync.Mutex // held around every Recorder call
	deferred bool
	rec      Recorder // where pending goes
	pending  strings.Builder
	err      error // a deferred save failed; the turn reports it
}

// DeferDrafts makes the agent hold streamed text until SyncDraft, for a
// front end that shows text in frames and calls SyncDraft before each.
func (a *Agent) DeferDrafts() {
	a.drafts.mu.Lock()
	a.drafts.deferred = true
	a.drafts.mu.Unlock()
}

// SyncDraft saves the streamed text handed out so far (the events already
// sent), so that a front end which shows it next never shows unsaved text.
// It is safe to call from any goroutine, at any time.
func (a *Agent) SyncDraft() {
	a.drafts.mu.Lock()
	a.drafts.flush()
	a.drafts.mu.Unlock()
}

// flush writes the pending text; d.mu is held.
func (d *draftBuffer) flush() {
	if d.pending.Len() == 0 || d.rec == nil {
		return
	}
	if err := d.rec.Draft(d.pending.String()); err != nil && d.err == nil {
		d.err = err
	}
	d.pending.Reset()
}

// draft saves one streamed chunk, or holds it for SyncDraft. It runs on
// the turn goroutine before the chunk is sent as an event.
func (a *Agent) draft(e *emitter, rec Recorder, s string) {
	d := &a.drafts
	d.mu.Lock()
	var err error
	if d.deferred {
		if d.rec != rec {
			d.flush()
			d.rec = rec
		}
		d.pending.WriteString(s)
		err, d.err = d.err, nil
	} else {
		err = rec.Draft(s)
	}
	d.mu.Unlock()
	a.saved(e, err)
}

// endDrafts drops held text when a stream ends: the reply is saved as a
// message next, which replaces the draft, and text never synced was never
// shown.
func (a *Agent) endDrafts(e *emitter) {
	d := &a.drafts
	d.mu.Lock()
	d.pending.Reset()
	d.rec = nil
	err := d.err
	d.err = nil
	d.mu.Unlock()
	a.saved(e, err)
}

// record makes one Recorder call, in order with deferred drafts (which
// may be saved from the front end's goroutine).
func (a *Agent) record(e *emitter, f func() error) {
	a.drafts.mu.Lock()
	err := f()
	a.drafts.mu.Unlock()
	a.saved(e, err)
}

// SetRecorder switches where the conversation is saved (a new session
// after /clear, or none).
func (a *Agent) SetRecorder(r Recorder) {
	a.mu.Lock()
	a.rec, a.recFailed = r, false
	a.mu.Unlock()
}

// Submit starts a turn with the user's prompt and returns its events.
func (a *Agent) Submit(ctx context.Context, prompt string) <-chan Event {
	return a.start(ctx, func(ctx context.Context, e *emitter) { a.turn(ctx, prompt, e) })
}

// BangTool is the tool a !cmd runs through.
const BangTool = "run_shell_command"

// RunBang runs a command the user typed as !cmd through the shell tool, with
// exactly the same approval path as the model's calls and no LLM. The
// conversation history is not changed.
func (a *Agent) RunBang(ctx context.Context, cmd string) <-chan Event {
	return a.start(ctx, func(ctx context.Context, e *emitter) {
		args, _ := json.Marshal(map[string]any{"cmd": cmd})
		st := &turnState{retries: map[string]int{}}
		a.runCalls(ctx, e, st, []ToolCall{{ID: "bang", Name: BangTool, Args: string(args)}}, true)
		if ctx.Err() != nil {
			e.send(TurnFailed{Message: "Interrupted.", Err: ctx.Err(), Interrupted: true, Session: a.Usage()})
			return
		}
		e.send(TurnFinished{Session: a.Usage()})
	})
}

func (a *Agent) start(ctx context.Context, body func(context.Context, *emitter)) <-chan Event {
	e := newEmitter()
	a.mu.Lock()
	if a.busy {
		a.mu.Unlock()
		go func() {
			e.send(TurnFailed{Message: "a turn is already running; wait for it or cancel it"})
			e.close()
		}()
		return e.ch
	}
	a.busy = true
	a.mu.Unlock()
	go func() {
		defer func() {
			if r := recover(); r != nil {
				a.patchDangling(nil)
				e.send(TurnFailed{Message: fmt.Sprintf("internal error: %v (the conversation is kept; please report this)", r), Err: fmt.Errorf("panic: %v\n%s", r, debug.Stack())})
			}
			a.mu.Lock()
			a.busy = false
			a.mu.Unlock()
			e.close()
		}()
		body(ctx, e)
	}()
	return e.ch
}

type turnState struct {
	usage    Usage
	requests int
	retries  map[string]int
	failed   string // set when tool retries ran out
}

func (a *Agent) turn(ctx context.Context, prompt string, e *emitter) {
	a.mu.Lock()
	a.turns++
	turnNo := a.turns
	a.mu.Unlock()

	ctx, span := a.tracer.Start(ctx, "invoke_agent", trace.WithSpanKind(trace.SpanKindInternal), traceAttrs(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", "co"),
		attribute.String("co.session.id", a.cfg.SessionID),
		attribute.String("gen_ai.conversation.id", a.cfg.SessionID),
		attribute.Int("co.turn", turnNo),
	))
	if span.IsRecording() {
		// Content; the telemetry pipeline keeps or drops it per telemetry_capture_content.
		span.SetAttributes(attribute.String("gen_ai.input.messages", genaiMessages("user", "", prompt, nil, "")))
	}
	st := &turnState{retries: map[string]int{}}
	outcome := "error"
	defer func() {
		span.SetAttributes(attribute.Int("co.llm_requests", st.requests), attribute.String("co.outcome", outcome),
			attribute.Int("gen_ai.usage.input_tokens", st.usage.InputTokens), attribute.Int("gen_ai.usage.output_tokens", st.usage.OutputTokens))
		span.End()
	}()
	fail := func(msg string, err error, interrupted bool) {
		if interrupted {
			outcome = "interrupted"
		} else {
			span.SetStatus(codes.Error, msg)
			if err != nil {
				span.RecordError(err)
			}
		}
		e.send(TurnFailed{Message: msg, Err: err, Interrupted: interrupted, Usage: st.usage, Session: a.Usage(), Requests: st.requests})
	}

	p, note, err := a.WaitProvider(ctx)
	if err != nil {
		if ctx.Err() != nil {
			fail("Interrupted.", ctx.Err(), true)
			return
		}
		fail(err.Error(), err, false)
		return
	}
	if note != "" {
		a.note = ""
		e.send(Notice{Text: note})
	}

	for _, t := range a.cfg.Tools.All() {
		if o, ok := t.(tools.PromptObserver); ok {
			o.ObservePrompt(prompt)
		}
	}
	a.appendHistory(e, Message{Role: RoleUser, Content: prompt})
	for {
		if st.requests >= a.cfg.MaxRequests {
			fail(fmt.Sprintf("The turn stopped after %d LLM requests (max_request_limit). Ask again to continue, or raise CO_CLI_MAX_REQUEST_LIMIT.", st.requests), nil, false)
			return
		}
		a.mu.Lock()
		n := len(a.history)
		a.mu.Unlock()
		if a.needsCompaction(n) {
			a.compactWindow(ctx, p, e)
		}
		p = a.current(p)
		st.requests++
		res, err := a.stream(ctx, p, e)
		st.usage = st.usage.Add(res.usage)
		a.mu.Lock()
		a.session = a.session.Add(res.usage)
		if res.usage.InputTokens > 0 {
			a.lastInput = res.usage.InputTokens
		}
		session, rec := a.session, a.rec
		a.mu.Unlock()
		if rec != nil && res.usage != (Usage{}) {
			a.record(e, func() error { return rec.Usage(session) })
		}
		if err != nil {
			interrupted := ctx.Err() != nil
			if res.text != "" || len(res.calls) > 0 || res.reasoning != "" {
				a.appendHistory(e, a.reply(p, res, true))
				a.patchDangling(e)
			}
			if interrupted {
				fail("Interrupted.", err, true)
				return
			}
			fail(describeStreamError(p, err, a.cfg.StallTimeout, res.text != ""), err, false)
			return
		}
		a.appendHistory(e, a.reply(p, res, false))
		if len(res.calls) == 0 {
			outcome = "success"
			if span.IsRecording() {
				out := res.messages // no calls: the chat span's value is this answer's
				if out == "" {
					out = genaiMessages("assistant", res.reasoning, res.text, nil, res.finish)
				}
				span.SetAttributes(attribute.String("gen_ai.output.messages", out))
			}
			e.send(TurnFinished{Text: res.text, Usage: st.usage, Session: a.Usage(), Requests: st.requests})
			return
		}
		a.runCalls(ctx, e, st, res.calls, false)
		if ctx.Err() != nil {
			fail("Interrupted.", ctx.Err(), true)
			return
		}
		if st.failed != "" {
			fail(st.failed, nil, false)
			return
		}
	}
}

type streamResult struct {
	text      string
	reasoning string
	field     string // the wire field reasoning came in
	calls     []ToolCall
	usage     Usage
	finish    string
	model     string // the model the server reported
	// messages is the chat span's gen_ai.output.messages (when traced); the
	// turn's span records the same answer with the same string.
	messages string
}

var errStalled = errors.New("stream stalled")

// reply is the assistant message a request produced, with what must travel
// with it: its reasoning, where it came from.
func (a *Agent) reply(p Provider, res streamResult, interrupted bool) Message {
	return Message{Role: RoleAssistant, Content: res.text, ToolCalls: res.calls, Interrupted: interrupted,
		Reasoning: res.reasoning, ReasoningField: res.field, Origin: p.Origin(), Model: p.Model}
}

func describeStreamError(p Provider, err error, stall time.Duration, partial bool) string {
	keep := ""
	if partial {
		keep = " The partial reply is kept."
	}
	switch {
	case errors.Is(err, errStalled):
		return fmt.Sprintf("%s sent nothing for %s (llm_stall_timeout), so the turn ended.%s", p.Name, stall, keep)
	case errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected EOF") || strings.Contains(err.Error(), "connection reset"):
		return fmt.Sprintf("The connection to %s was cut in the middle of the reply.%s Ask again to retry.", p.Name, keep)
	}
	// An HTTP error (its body not JSON, e.g. a proxy's HTML page, unwraps
	// to a SyntaxError) or a quota is not a malformed chunk, and its body is
	// never dumped: describeError says it plainly.
	var reqErr *openai.RequestError
	var apiErr *openai.APIError
	var quota *QuotaError
	if errors.As(err, &reqErr) || errors.As(err, &apiErr) || errors.As(err, &quota) {
		return describeError(p, err) + keep
	}
	var se *json.SyntaxError
	if errors.As(err, &se) || strings.Contains(err.Error(), "invalid character") {
		msg := err.Error()
		if se != nil {
			msg = se.Error()
		}
		return fmt.Sprintf("%s sent a malformed stream chunk (%s).%s", p.Name, plainMessage(msg), keep)
	}
	return describeError(p, err) + keep
}

// toolDefs is the JSON array of the tools' definitions, nil with none.
func (a *Agent) toolDefs() []byte {
	var out []openai.Tool
	for _, t := range a.cfg.Tools.All() {
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name(), Description: t.Description(), Parameters: json.RawMessage(t.Schema()),
		}})
	}
	if len(out) == 0 {
		return nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return b
}

// stream makes one streaming LLM request and returns what arrived, also on
// error (the partial text and calls).
func (a *Agent) stream(ctx context.Context, p Provider, e *emitter) (res streamResult, err error) {
	ctx, span := a.tracer.Start(ctx, "chat "+p.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", p.Name),
		attribute.String("gen_ai.request.model", p.Model),
		attribute.String("server.address", p.BaseURL),
	))
	started := time.Now()
	var firstToken time.Duration
	defer func() {
		span.SetAttributes(
			attribute.Int("gen_ai.usage.input_tokens", res.usage.InputTokens),
			attribute.Int("gen_ai.usage.output_tokens", res.usage.OutputTokens),
			attribute.StringSlice("gen_ai.response.finish_reasons", []string{res.finish}),
			attribute.Float64("co.time_to_first_token_ms", float64(firstToken.Microseconds())/1000),
		)
		if res.model != "" {
			span.SetAttributes(attribute.String("gen_ai.response.model", res.model))
		}
		if span.IsRecording() && (res.text != "" || len(res.calls) > 0 || res.reasoning != "") {
			res.messages = genaiMessages("assistant", res.reasoning, res.text, res.calls, res.finish)
			span.SetAttributes(attribute.String("gen_ai.output.messages", res.messages))
		}
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
			span.RecordError(err)
		}
		span.End()
	}()

	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := time.AfterFunc(a.cfg.StallTimeout, func() { cancel(errStalled) })
	defer stall.Stop()
	sctx = withNotify(sctx, func(s string) { e.send(Notice{Text: s}) })

	stream, err := a.open(sctx, p)
	if err != nil {
		if c := context.Cause(sctx); errors.Is(c, errStalled) {
			return res, errStalled
		}
		return res, err
	}
	defer stream.close()

	var text, reasoning strings.Builder
	acc := &callAccumulator{}
	a.mu.Lock()
	rec := a.rec
	a.mu.Unlock()
	// Whatever ends the stream, the reply is then saved as a message (or
	// was never shown): text held for a deferred draft is not needed.
	defer a.endDrafts(e)
	done := func() {
		res.text, res.calls, res.reasoning = text.String(), acc.calls(), reasoning.String()
	}
	for {
		ch, rerr := stream.recv()
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			done()
			if c := context.Cause(sctx); errors.Is(c, errStalled) {
				return res, errStalled
			}
			return res, rerr
		}
		stall.Reset(a.cfg.StallTimeout)
		if ch.model != "" && res.model == "" {
			res.model = ch.model
			a.setReported(ch.model)
		}
		if ch.usage != nil {
			res.usage = *ch.usage
		}
		if ch.reasoning != "" {
			if firstToken == 0 {
				firstToken = time.Since(started)
			}
			reasoning.WriteString(ch.reasoning)
			res.field = ch.field
			e.reasoning(ch.reasoning)
		}
		if ch.text != "" {
			if firstToken == 0 {
				firstToken = time.Since(started)
			}
			text.WriteString(ch.text)
			if rec != nil {
				// Saved before it is shown: what is on screen is on disk.
				a.draft(e, rec, ch.text)
			}
			e.delta(ch.text)
		}
		for _, tc := range ch.calls {
			if firstToken == 0 {
				firstToken = time.Since(started)
			}
			acc.add(tc)
		}
		if ch.finish != "" {
			res.finish = ch.finish
		}
	}
	done()
	return res, nil
}

// open starts the streaming request for the conversation so far.
func (a *Agent) open(ctx context.Context, p Provider) (chatStream, error) {
	a.mu.Lock()
	msgs := trimmedView(a.history, a.cfg.History.TrimChars)
	client, gen := a.client, a.gen
	a.mu.Unlock()
	if a.ollamaNative(p) {
		return a.startOllama(ctx, p, msgs)
	}
	// Only the turn goroutine encodes, so the cache needs no lock.
	body := encodeChatRequestCached(&a.enc, cacheKey(gen, p), p, a.cfg.Request, a.cfg.SystemPrompt, msgs, a.toolDefs(), true)
	return startOpenAI(ctx, client, p.Model, body)
}

type callItem struct {
	call    ToolCall
	tool    tools.Tool
	check   tools.Check
	retry   string // set when the call is malformed
	decided bool
	run     bool
	by      Source
}

// runCalls decides, asks about and runs one batch of calls, appending their
// results to the history (unless bang).
func (a *Agent) runCalls(ctx context.Context, e *emitter, st *turnState, calls []ToolCall, bang bool) {
	items := make([]*callItem, len(calls))
	for i, c := range calls {
		it := &callItem{call: c}
		items[i] = it
		e.send(ToolCallStarted{CallID: c.ID, Name: c.Name, Args: c.Args, Bang: bang})
		t, ok := a.cfg.Tools.Get(c.Name)
		if !ok {
			it.retry = fmt.Sprintf("there is no tool named %q; the tools are: %s", c.Name, strings.Join(a.cfg.Tools.Names(), ", "))
			continue
		}
		it.tool = t
		if err := a.validator.Validate(t, json.RawMessage(c.Args)); err != nil {
			it.retry = err.Error()
			continue
		}
		it.check = tools.Decide(ctx, t, json.RawMessage(c.Args))
		it.decided, it.run, it.by = a.cfg.Approvals.Decide(it.check)
	}

	var pending []*callItem
	for _, it := range items {
		if it.retry == "" && !it.decided {
			pending = append(pending, it)
		}
	}
	if len(pending) > 0 {
		req := ApprovalRequested{reply: make(chan []Verdict, 1)}
		for _, it := range pending {
			req.Calls = append(req.Calls, PendingCall{CallID: it.call.ID, Tool: it.call.Name, Args: it.call.Args, Check: it.check})
		}
		e.send(req)
		var verdicts []Verdict
		select {
		case <-ctx.Done():
		case verdicts = <-req.reply:
		}
		for k, it := range pending {
			v := Deny
			if k < len(verdicts) {
				v = verdicts[k]
			}
			a.recordDecision(e, it, v)
			switch v {
			case ApproveSession:
				a.cfg.Approvals.Grant(it.check)
				it.run, it.by = true, ByUser
			case ApproveOnce:
				it.run, it.by = true, ByUser
			default:
				it.run, it.by = false, ByUserDenied
			}
		}
	}

	for _, it := range items {
		fin, content := a.runOne(ctx, it, st)
		fin.Bang = bang
		if !bang {
			// Saved before it is shown: what is on screen is on disk.
			a.appendHistory(e, Message{Role: RoleTool, ToolCallID: it.call.ID, ToolName: it.call.Name, Content: content})
		}
		e.send(fin)
	}
}

func (a *Agent) recordDecision(e *emitter, it *callItem, v Verdict) {
	a.mu.Lock()
	rec := a.rec
	a.mu.Unlock()
	if rec != nil {
		a.record(e, func() error { return rec.Decision(it.call.ID, it.call.Name, v) })
	}
}

func (a *Agent) runOne(ctx context.Context, it *callItem, st *turnState) (fin ToolCallFinished, content string) {
	fin = ToolCallFinished{CallID: it.call.ID, Name: it.call.Name, Decision: it.by}
	ctx, span := a.tracer.Start(ctx, "execute_tool "+it.call.Name, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", it.call.Name),
		attribute.String("gen_ai.tool.call.id", it.call.ID),
		attribute.Int("co.tool.args_size", len(it.call.Args)),
		attribute.String("co.approval.decision", it.check.Decision.String()),
		attribute.String("co.approval.by", string(it.by)),
	))
	if span.IsRecording() {
		span.SetAttributes(attribute.String("gen_ai.tool.call.arguments", it.call.Args))
	}
	start := time.Now()
	defer func() {
		fin.Duration = time.Since(start)
		span.SetAttributes(attribute.String("co.tool.status", fin.Status.String()), attribute.Int("co.tool.result_size", len(content)))
		if span.IsRecording() {
			span.SetAttributes(attribute.String("gen_ai.tool.call.result", content))
		}
		if code, ok := fin.Result.Meta["exit_code"]; ok {
			span.SetAttributes(attribute.String("co.tool.exit_code", fmt.Sprint(code)))
		}
		if iso, ok := fin.Result.Meta["isolation"]; ok {
			span.SetAttributes(attribute.String("co.sandbox.isolation", fmt.Sprint(iso)))
		}
		if fin.Status == CallFailed || fin.Status == CallRetry {
			span.SetStatus(codes.Error, fin.Err)
			span.RecordError(errors.New(fin.Err))
		}
		span.End()
	}()

	switch {
	case ctx.Err() != nil:
		fin.Status, fin.Err = CallInterrupted, InterruptedResult
		return fin, InterruptedResult
	case it.retry != "":
		return a.retryResult(fin, it.call.Name, it.retry, st)
	case !it.run:
		fin.Status = CallDenied
		if it.by == ByPolicyDeny {
			fin.Err = "denied by policy: " + it.check.Reason
			return fin, deniedJSON("policy", it.check.Reason, "This call is forbidden by co's policy and will never run. Do not retry it; find another way or tell the user.")
		}
		fin.Err = "denied by the user"
		return fin, deniedJSON("user", it.check.Reason, "The user denied this call; it did not run. Do not repeat it unchanged: propose another way or ask the user.")
	}

	res, err := safeRun(ctx, it.tool, json.RawMessage(it.call.Args))
	fin.Result = res
	switch {
	case ctx.Err() != nil:
		fin.Status, fin.Err = CallInterrupted, InterruptedResult
		return fin, InterruptedResult
	case tools.IsRetry(err):
		msg := err.Error()
		if res.Display != "" {
			msg = msg + "\n" + res.Display
		}
		return a.retryResult(fin, it.call.Name, msg, st)
	case err != nil:
		fin.Status, fin.Err = CallFailed, err.Error()
		return fin, errorPrefix + failedPrefix + err.Error()
	}
	st.retries[it.call.Name] = 0
	fin.Status = CallDone
	return fin, res.ForModel()
}

func (a *Agent) retryResult(fin ToolCallFinished, name, msg string, st *turnState) (ToolCallFinished, string) {
	fin.Status, fin.Err = CallRetry, msg
	if st.retries == nil {
		st.retries = map[string]int{}
	}
	st.retries[name]++
	if st.retries[name] > a.cfg.ToolRetries {
		st.failed = fmt.Sprintf("The model called %s wrongly %d times in a row (tool_retries is %d), so the turn stopped. Last error: %s", name, st.retries[name], a.cfg.ToolRetries, firstLine(msg))
	}
	return fin, errorPrefix + msg + retryHint
}

func deniedJSON(by, reason, msg string) string {
	b, _ := json.Marshal(map[string]any{"status": "denied", "denied_by": by, "reason": reason, "message": msg})
	return string(b)
}

func safeRun(ctx context.Context, t tools.Tool, args json.RawMessage) (res tools.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool %s panicked: %v", t.Name(), r)
		}
	}()
	return t.Run(ctx, args)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// emitter delivers a turn's events. Text and reasoning deltas that cannot
// be delivered at once are coalesced into the next delivery of their kind;
// any other event (or a delta of the other kind) first delivers the pending
// text, blocking, so that order is kept.
type emitter struct {
	ch          chan Event
	pending     strings.Builder
	pendingKind int // kindText or kindReasoning, when pending is not empty
}

const (
	kindText = iota
	kindReasoning
)

func newEmitter() *emitter { return &emitter{ch: make(chan Event, 64)} }

func makeDelta(kind int, s string) Event {
	if kind == kindReasoning {
		return ReasoningDelta{Text: s}
	}
	return TextDelta{Text: s}
}

func (e *emitter) delta(s string)     { e.piece(kindText, s) }
func (e *emitter) reasoning(s string) { e.piece(kindReasoning, s) }

func (e *emitter) piece(kind int, s string) {
	if e.pending.Len() > 0 && e.pendingKind != kind {
		e.flush()
	}
	if e.pending.Len() > 0 {
		e.pending.WriteString(s)
		select {
		case e.ch <- makeDelta(kind, e.pending.String()):
			e.pending.Reset()
		default:
		}
		return
	}
	select {
	case e.ch <- makeDelta(kind, s):
	default:
		e.pending.WriteString(s)
		e.pendingKind = kind
	}
}

// flush delivers the pending text, blocking.
func (e *emitter) flush() {
	if e.pending.Len() > 0 {
		e.ch <- makeDelta(e.pendingKind, e.pending.String())
		e.pending.Reset()
	}
}

func (e *emitter) send(ev Event) {
	e.flush()
	e.ch <- ev
}

func (e *emitter) close() {
	e.flush()
	close(e.ch)
}

func traceAttrs(kv ...attribute.KeyValue) trace.SpanStartOption { return trace.WithAttributes(kv...) }
