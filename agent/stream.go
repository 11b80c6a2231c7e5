package agent

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/co-cli/co/lib/cost"
	"io"
	"strings"
	"time"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	openai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

type streamResult struct {
	text      string
	reasoning string
	field     string // the wire field reasoning came in
	calls     []message.ToolCall
	usage     message.Usage
	finish    string
	model     string // the model the server reported
	// messages is the chat span's gen_ai.output.messages (when traced); the
	// turn's span records the same answer with the same string.
	messages string
}

// reply is the assistant message a request produced, with what must travel
// with it: its reasoning, where it came from.
func (a *Agent) reply(p provider.Provider, res streamResult, interrupted bool) message.Message {
	return message.Message{Role: message.RoleAssistant, Content: res.text, ToolCalls: res.calls, Interrupted: interrupted,
		Reasoning: res.reasoning, ReasoningField: res.field, Origin: p.Origin(), Model: p.Model, InputTokens: res.usage.InputTokens}
}

// toolDefs is the JSON array of the tools' definitions, nil with none.
func (a *Agent) toolDefs() []byte {
	a.mu.Lock()
	reduced := a.budget.reduced
	a.mu.Unlock()
	return a.toolDefsWith(reduced)
}

// toolDefsWith is toolDefs with reduced saying whether co sends only the
// core tools for a small window.
func (a *Agent) toolDefsWith(reduced bool) []byte {
	var out []openai.Tool
	for _, t := range a.cfg.Tools.All() {
		if !a.toolSent(t.Name(), reduced) { // tool groups: toolgroups.go
			continue
		}
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
func (a *Agent) stream(ctx context.Context, p provider.Provider, e *emitter) (res streamResult, err error) {
	ctx, span := a.tracer.Start(ctx, "chat "+p.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", a.nameOf(p)),
		attribute.String("gen_ai.request.model", p.Model),
		attribute.String("server.address", p.BaseURL),
	))
	started := time.Now()
	var firstToken time.Duration
	defer func() {
		if res.usage != (message.Usage{}) {
			res.usage = a.priced(p, p.Model, res.model, false, res.usage)
			if res.usage.Unpriced == "" {
				span.SetAttributes(attribute.Float64("co.cost.usd", res.usage.Cost))
			} else {
				span.SetAttributes(attribute.String("co.cost.unknown", cost.NoPrice(res.usage.Unpriced)))
			}
			if res.usage.CachedTokens > 0 {
				span.SetAttributes(attribute.Int("gen_ai.usage.cache_read.input_tokens", res.usage.CachedTokens))
			}
		}
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
	stall := time.AfterFunc(a.cfg.StallTimeout, func() { cancel(provider.ErrStalled) })
	defer stall.Stop()
	sctx = provider.WithNotify(sctx, func(s string) { e.send(Notice{Text: s}) })

	stream, err := a.open(sctx, p)
	if err != nil && !a.toolsOff(p) && len(a.cfg.Tools.All()) > 0 {
		// The server could not be asked beforehand (toolless.go): the same
		// request again, without tools, and never again with them.
		why, jinja := provider.ToolsNeedJinja(err)
		if jinja || provider.ToolsRefused(err) {
			a.markNoTools(p, noToolsWhy{refusal: why, jinja: jinja})
			stream, err = a.open(sctx, p)
		}
	}
	if err == nil {
		if msg := a.toolNotice(p); msg != "" {
			e.send(Notice{Text: msg})
		}
	}
	if err != nil {
		if c := context.Cause(sctx); errors.Is(c, provider.ErrStalled) {
			return res, provider.ErrStalled
		}
		return res, err
	}
	defer stream.Close()

	var text, reasoning strings.Builder
	acc := &provider.CallAccumulator{}
	a.mu.Lock()
	rec := a.rec
	a.mu.Unlock()
	// Whatever ends the stream, the reply is then saved as a message (or
	// was never shown): text held for a deferred draft is not needed.
	defer a.endDrafts(e)
	done := func() {
		res.text, res.calls, res.reasoning = text.String(), acc.Calls(), reasoning.String()
	}
	for {
		ch, rerr := stream.Recv()
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			done()
			if c := context.Cause(sctx); errors.Is(c, provider.ErrStalled) {
				return res, provider.ErrStalled
			}
			return res, rerr
		}
		stall.Reset(a.cfg.StallTimeout)
		if ch.Model != "" && res.model == "" {
			res.model = ch.Model
			a.setReported(p, ch.Model)
		}
		if ch.Usage != nil {
			res.usage = *ch.Usage
		}
		if ch.Reasoning != "" {
			if firstToken == 0 {
				firstToken = time.Since(started)
			}
			reasoning.WriteString(ch.Reasoning)
			res.field = ch.Field
			e.reasoning(ch.Reasoning)
		}
		if ch.Text != "" {
			if firstToken == 0 {
				firstToken = time.Since(started)
			}
			text.WriteString(ch.Text)
			if rec != nil {
				// Saved before it is shown: what is on screen is on disk.
				a.draft(e, rec, ch.Text)
			}
			e.delta(ch.Text)
		}
		for _, tc := range ch.Calls {
			if firstToken == 0 {
				firstToken = time.Since(started)
			}
			acc.Add(tc)
		}
		if ch.Finish != "" {
			res.finish = ch.Finish
		}
	}
	done()
	return res, nil
}

// open starts the streaming request for the conversation so far.
func (a *Agent) open(ctx context.Context, p provider.Provider) (provider.Stream, error) {
	system, err := a.systemPrompt(ctx)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	msgs := recallView(trimmedView(a.history, a.cfg.History.TrimChars), a.recall)
	client, gen := a.client, a.gen
	a.mu.Unlock()
	msgs = a.mediaView(ctx, p, msgs)
	if provider.OllamaNative(p) {
		return a.startOllama(ctx, p, system, msgs)
	}
	// Only the turn goroutine encodes, so the cache needs no lock.
	o := a.cfg.Request
	o.MaxTokens = a.replyBound(p, a.ContextWindow(), nil)
	a.setBound(o.MaxTokens)
	body := provider.EncodeChatRequestCached(&a.enc, provider.CacheKey(gen, p), p, o, system, msgs, a.toolsFor(p), true)
	return provider.StartOpenAI(ctx, client, p.Model, body)
}
