package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// Submit starts a turn with the user's prompt and returns its events.
func (a *Agent) Submit(ctx context.Context, prompt string) <-chan Event {
	return a.SubmitShown(ctx, prompt, "")
}

// SubmitShown is Submit for a prompt the user typed as something else
// (shown: "/review src/a.go" for a custom command's text): the history
// keeps shown beside the prompt, for the transcript of a resumed session.
func (a *Agent) SubmitShown(ctx context.Context, prompt, shown string) <-chan Event {
	return a.SubmitInput(ctx, Input{Prompt: prompt, Shown: shown})
}

// Input is a user message and what it carries.
type Input struct {
	Prompt string
	// Shown is what the user typed when Prompt is made from it (see
	// SubmitShown).
	Shown string
	// Attachments are the images and PDFs it carries (attach.go).
	Attachments []message.Attachment
	// Piped is data piped to co run on standard input: it goes after the
	// prompt (message.Piped.Attach) and is untrusted (message.PipedOrigin),
	// so outbound calls after it ask as after a fetched page.
	Piped *message.Piped
}

// SubmitInput starts a turn with in and returns its events.
func (a *Agent) SubmitInput(ctx context.Context, in Input) <-chan Event {
	return a.start(ctx, func(ctx context.Context, e *emitter) { a.turnAtt(ctx, in, nil, e) })
}

// RunBang runs a command the user typed as !cmd through the shell tool, with
// exactly the same approval path as the model's calls and no LLM. The
// conversation history is not changed.
func (a *Agent) RunBang(ctx context.Context, cmd string) <-chan Event {
	return a.start(ctx, func(ctx context.Context, e *emitter) {
		args, _ := json.Marshal(map[string]any{"cmd": cmd})
		st := &turnState{retries: map[string]int{}}
		fins := a.runCalls(ctx, e, st, []message.ToolCall{{ID: message.BangCallID, Name: message.BangTool, Args: string(args)}}, true)
		for _, f := range fins {
			// Kept and saved, so a resumed conversation shows it.
			a.addAside(e, message.Aside{Bang: &message.BangRun{Args: string(args), Finished: message.ToolCallFinished(f)}})
		}
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
		watched := a.watchTurn(ctx, e)
		defer func() {
			if r := recover(); r != nil {
				a.patchDangling(nil)
				e.send(TurnFailed{Message: fmt.Sprintf("internal error: %v (the conversation is kept; please report this)", r), Err: fmt.Errorf("panic: %v\n%s", r, debug.Stack())})
			}
			watched()
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
	usage    message.Usage
	requests int
	retries  map[string]int
	failed   string // set when tool retries ran out
	// summarised is set when exceededRetry summarised older messages.
	summarised bool
	// exceeded is set once the provider refused a request as over its
	// context window: the turn summarised and retried once.
	exceeded bool
	// compacted is set once the turn summarised older messages before a
	// request (fitBudget): the soft reasons to compact no longer count.
	compacted bool
	// bareTold is set once the turn said that a request went without
	// tools (bare.go).
	bareTold bool
	// undo is the turn's checkpoint and journal; nil when the turn is not
	// undoable (no saved session, a !cmd).
	undo *undoTurn
	// started is when the turn began (the journal's turn start).
	started time.Time
	// stopActive is set once a Stop hook made the turn go on (hooks.go).
	stopActive bool
}

// LastTurnSpan is the span of the latest turn: what is done for that turn
// after it ended (a scheduled run's deliveries) is traced under it.
func (a *Agent) LastTurnSpan() trace.SpanContext {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastTurn
}

// turn runs one turn: the user's prompt (shown: as typed), or, with w set,
// a waiting call approved from the inbox (waiting.go), then the model's
// requests and calls until it answers.
func (a *Agent) turn(ctx context.Context, prompt, shown string, w *WaitingCall, e *emitter) {
	a.turnAtt(ctx, Input{Prompt: prompt, Shown: shown}, w, e)
}

// turnAtt is turn with what the prompt carries (attachments, piped data).
func (a *Agent) turnAtt(ctx context.Context, in Input, w *WaitingCall, e *emitter) {
	prompt, shown, atts := in.Prompt, in.Shown, in.Attachments
	var sources []tools.Origin
	if in.Piped != nil {
		prompt = in.Piped.Attach(prompt)
		sources = []tools.Origin{message.PipedOrigin()}
	}
	sid := a.SessionID()
	turnStart := time.Now()
	a.mu.Lock()
	a.turns++
	turnNo := a.turns
	a.mu.Unlock()

	ctx, span := a.tracer.Start(ctx, "invoke_agent", trace.WithSpanKind(trace.SpanKindInternal), traceAttrs(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", "co"),
		attribute.String("co.session.id", sid),
		attribute.String("gen_ai.conversation.id", sid),
		attribute.Int("co.turn", turnNo),
	))
	a.mu.Lock()
	a.lastTurn = span.SpanContext()
	a.mu.Unlock()
	if span.IsRecording() {
		// Content; the telemetry pipeline keeps or drops it per telemetry_capture_content.
		span.SetAttributes(attribute.String("gen_ai.input.messages", genaiMessages("user", "", prompt, nil, "")))
	}
	if len(atts) > 0 {
		// What was attached, never its bytes.
		span.SetAttributes(attribute.StringSlice("co.attachments", attachmentAttrs(atts)))
	}
	if w != nil && span.IsRecording() {
		span.SetAttributes(attribute.Int64("co.inbox.pending_id", w.ID), attribute.String("co.schedule.name", w.Schedule))
	}
	if u := a.Unattended(); u != nil {
		span.SetAttributes(attribute.String("co.run.kind", "scheduled"), attribute.String("co.schedule.name", u.Schedule))
	}
	st := &turnState{retries: map[string]int{}, started: turnStart}
	// The turn's checkpoint ends after it, whatever its outcome.
	defer func() { a.endUndo(st.undo) }()
	if msg := a.endFailure(); msg != "" {
		e.send(Notice{Text: msg})
	}
	a.sessionHooks(ctx, e)
	outcome := "error"
	defer func() {
		if r := a.Risk(); len(r.Untrusted) > 0 {
			span.SetAttributes(attribute.StringSlice("co.risk.untrusted", r.Labels()))
		}
		span.SetAttributes(attribute.Int("co.llm_requests", st.requests), attribute.String("co.outcome", outcome),
			attribute.Int("gen_ai.usage.input_tokens", st.usage.InputTokens), attribute.Int("gen_ai.usage.output_tokens", st.usage.OutputTokens),
			attribute.Float64("co.cost.usd", st.usage.Cost))
		span.End()
	}()
	notSent := false
	fail := func(msg string, err error, interrupted bool) {
		if interrupted {
			outcome = "interrupted"
		} else {
			span.SetStatus(codes.Error, msg)
			if err != nil {
				span.RecordError(err)
			}
		}
		e.send(TurnFailed{Message: msg, Err: err, Interrupted: interrupted, NotSent: notSent, Usage: st.usage, Session: a.Usage(), Requests: st.requests})
	}

	if w != nil {
		// The call runs (or not) first: the user answers it whatever the
		// provider's state, and only an approved call's result goes on to
		// the model.
		if !a.runWaiting(ctx, e, st, *w) {
			outcome = "denied"
			return
		}
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
	// The project instructions and the skills' list are read in the
	// background from start-up; the first request waits for them.
	if _, err := a.systemPrompt(ctx); err != nil {
		if ctx.Err() != nil {
			fail("Interrupted.", ctx.Err(), true)
			return
		}
		fail(err.Error(), err, false)
		return
	}

	a.reloadAttachments(e)
	if len(atts) > 0 {
		notes, stop := a.checkAttachments(ctx, p, atts)
		if stop != "" {
			notSent = true
			fail(stop, nil, false)
			return
		}
		for _, n := range notes {
			e.send(Notice{Text: n})
		}
	}
	var hookCtx []string
	if w == nil {
		var block string
		if block, hookCtx = a.promptHooks(ctx, e, in.Prompt); block != "" {
			// Not saved: the chat gives the prompt back, as for an
			// attachment that stopped it.
			notSent, outcome = true, "blocked"
			fail(block, nil, false)
			return
		}
		typed, attached := splitAttached(prompt)
		for _, t := range a.cfg.Tools.All() {
			if o, ok := t.(tools.PromptObserver); ok {
				o.ObservePrompt(typed)
			}
			if o, ok := t.(tools.AttachmentObserver); ok && attached != "" {
				o.ObserveAttached(attached)
			}
		}
		before := a.recorderSeq()
		a.appendHistory(e, message.Message{Role: message.RoleUser, Content: prompt, Shown: shown, Attachments: atts, Sources: sources})
		st.undo = a.beginUndo(before, turnStart)
	}
	a.recall = ""
	if a.cfg.Recall != nil && w == nil {
		block, recalled, notice := a.cfg.Recall(ctx, prompt)
		if notice != "" {
			e.send(Notice{Text: notice})
		}
		a.recall = block
		if len(recalled) > 0 {
			ids := make([]string, len(recalled))
			for i, r := range recalled {
				ids[i] = r.ID
			}
			span.SetAttributes(attribute.StringSlice("co.memory.recalled", ids))
			a.markPrivate()
			e.send(MemoryRecalled{Memories: recalled})
		}
		defer func() { a.recall = "" }()
	}
	if c := a.hookContext(hookCtx); c != "" {
		a.recall = strings.TrimSpace(c + "\n\n" + a.recall)
		defer func() { a.recall = "" }()
	}
	for {
		if st.requests >= a.cfg.MaxRequests {
			fail(fmt.Sprintf("The turn stopped after %d LLM requests (max_request_limit). Ask again to continue, or raise CO_CLI_MAX_REQUEST_LIMIT.", st.requests), nil, false)
			return
		}
		if msg := a.overBudget(); msg != "" {
			fail(msg, ErrMaxCost, false)
			return
		}
		a.toolsReady(ctx, e)
		if ctx.Err() != nil {
			fail("Interrupted.", ctx.Err(), true)
			return
		}
		p = a.current(p)
		a.awaitWindow(ctx, p)
		rawEst, over := a.fitBudget(ctx, p, e, st)
		if over != "" {
			fail(over, nil, false)
			return
		}
		if w := a.cfg.Protected; w != nil {
			a.recheck(ctx, e, fmt.Sprintf("before request %d", st.requests+1), w.Check)
		}
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
		if rec != nil && res.usage != (message.Usage{}) {
			a.record(e, func() error { return rec.Usage(session) })
		}
		if !a.checkTruncated(p, res.usage, rawEst, e) {
			a.observeUsage(rawEst, res.usage.InputTokens)
		}
		if ce, ok := provider.AsContextExceeded(err); ok && res.text == "" && len(res.calls) == 0 && ctx.Err() == nil {
			retry, msg := a.exceededRetry(ctx, p, e, st, ce, rawEst)
			switch {
			case retry:
				continue
			case ctx.Err() != nil:
				fail("Interrupted.", ctx.Err(), true)
			default:
				fail(msg, err, false)
			}
			return
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
			if why, ok := provider.ImagesRefused(err); ok && a.sendsImages(ctx, p) {
				a.markNoVision(p, why)
				fail(fmt.Sprintf("The model %s refused the image: %s. It takes no images: the conversation keeps the image but no longer sends it to this model. Switch with /model (or --model) to a model that takes images.", p.Model, why), err, false)
				return
			}
			fail(provider.DescribeStreamError(p, err, a.cfg.StallTimeout, res.text != ""), err, false)
			return
		}
		a.appendHistory(e, a.reply(p, res, false))
		if len(res.calls) == 0 && strings.TrimSpace(res.text) == "" {
			// Never a silent empty answer (emptyreply.go).
			fail(describeEmptyReply(p, res, a.cfg.Request.MaxTokens), nil, false)
			return
		}
		if msg := cutNotice(p, res, a.cfg.Request.MaxTokens, a.lastBound()); msg != "" {
			e.send(Notice{Text: msg})
		}
		if len(res.calls) == 0 {
			if goOn := a.stopHooks(ctx, e, st); goOn != "" {
				a.appendHistory(e, message.Message{Role: message.RoleUser, Content: goOn})
				continue
			}
			if msg := unreadCallNotice(p, res.text); msg != "" {
				e.send(Notice{Text: msg})
			}
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
func traceAttrs(kv ...attribute.KeyValue) trace.SpanStartOption { return trace.WithAttributes(kv...) }
