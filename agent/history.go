package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/lib/count"
	"github.com/co-cli/co/message"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
)

// History processing: what is sent to the model is a processed view of the
// conversation. Old tool output is trimmed in the view only; when the
// history grows past MaxHistoryMessages (or the last request filled most of
// a known context window, or the next would not fit it) a part of it is
// replaced by a summary, once before a request (budget.go, fitBudget),
// never separating a tool call from its result. The summary is bounded
// (summarybound.go).

// HistoryOptions configures history processing.
type HistoryOptions struct {
	// TrimChars cuts tool results older than the current turn to this many
	// characters in what is sent (tool_output_trim_chars); 0 disables.
	TrimChars int
	// MaxMessages is the sliding-window threshold (max_history_messages);
	// 0 disables the window.
	MaxMessages int
	// SummaryModel makes the summaries (summarization_model); empty means
	// the chat model.
	SummaryModel string
	// ContextWindow is the model's context size in tokens; 0 means the size
	// ContextWindow(model) knows, if any. When the last request used more
	// than 80% of it, co compacts before sending.
	ContextWindow int
}

const summaryPrompt = `Summarise the conversation below for your own later use: the user's goals, decisions made, facts learned (names, paths, numbers, URLs), what tools did and found, and what is still open. Be concise and concrete; use bullet points. Do not invent anything.`

// SummaryIntro begins the user message that carries a summary.
const SummaryIntro = "[Summary of the earlier conversation]\n"

// recallView returns msgs with block (the turn's recalled memories) put
// before the text of the last user message, the turn's own. msgs is not
// modified. Only the current turn's message changes, so the request
// encoder's cache of finished turns (provider/wire.go) still holds; the next turn's
// requests no longer carry this block (it is not in the history), which
// changes the provider's view of one finished turn only.
func recallView(msgs []message.Message, block string) []message.Message {
	if block == "" {
		return msgs
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == message.RoleUser {
			out := append([]message.Message(nil), msgs...)
			out[i].Content = block + "\n\n" + msgs[i].Content
			return out
		}
	}
	return msgs
}

// trimmedView returns msgs with tool results before the current turn (the
// last user message) cut to limit characters. msgs is not modified.
func trimmedView(msgs []message.Message, limit int) []message.Message {
	if limit <= 0 {
		return msgs
	}
	lastUser := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == message.RoleUser {
			lastUser = i
			break
		}
	}
	var out []message.Message
	for i := 0; i < lastUser; i++ {
		m := msgs[i]
		if m.Role != message.RoleTool || len(m.Content) <= limit {
			continue
		}
		if out == nil {
			out = append([]message.Message(nil), msgs...)
		}
		cut := limit
		for cut > 0 && !utf8Start(m.Content[cut]) {
			cut--
		}
		out[i].Content = m.Content[:cut] + fmt.Sprintf("\n[… %d more characters of old output trimmed]", len(m.Content)-cut)
	}
	if out == nil {
		return msgs
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// windowSplit finds where the sliding window cuts msgs: head is
// msgs[:headEnd] (the first exchange), tail is msgs[tailStart:] (about the
// last max/2 messages). ok is false when there is nothing to summarise.
func windowSplit(msgs []message.Message, max int) (headEnd, tailStart int, ok bool) {
	// The first exchange: up to and including the first assistant message
	// that makes no tool calls (or up to the second user message).
	headEnd = len(msgs)
	for i, m := range msgs {
		if i > 0 && m.Role == message.RoleUser {
			headEnd = i
			break
		}
		if m.Role == message.RoleAssistant && len(m.ToolCalls) == 0 {
			headEnd = i + 1
			break
		}
	}
	keep := max / 2
	if keep < 4 {
		keep = 4
	}
	tailStart = len(msgs) - keep
	// Never start the tail with tool results: their call must come along.
	for tailStart > 0 && msgs[tailStart].Role == message.RoleTool {
		tailStart--
	}
	if tailStart <= headEnd {
		return 0, 0, false
	}
	return headEnd, tailStart, true
}

// turnSplit summarises everything before the current turn (the last user
// message), the first exchange too: what the context budget does when the
// sliding window's split leaves too much.
func turnSplit(msgs []message.Message) (headEnd, tailStart int, ok bool) {
	for i := len(msgs) - 1; i > 0; i-- {
		if msgs[i].Role == message.RoleUser {
			// Only an earlier summary and its acknowledgement before this
			// turn: summarising them again gains nothing.
			if i <= 2 && strings.HasPrefix(msgs[0].Content, SummaryIntro) {
				return 0, 0, false
			}
			return 0, i, true
		}
	}
	return 0, 0, false
}

// needsCompaction reports whether the history must be compacted before the
// next request.
func (a *Agent) needsCompaction(n int) bool {
	h := a.cfg.History
	if h.MaxMessages > 0 && n > h.MaxMessages {
		return true
	}
	window := a.ContextWindow()
	a.mu.Lock()
	last, truncated := a.lastInput, a.budget.truncated
	a.mu.Unlock()
	return truncated || window > 0 && last > window*8/10
}

// ContextWindow is the context size, in tokens, that the summarising
// threshold is based on: the configured one, else the one in force at the
// provider when co knows it (Ollama's num_ctx), else the model's known
// size; 0 when unknown.
func (a *Agent) ContextWindow() int {
	if w := a.cfg.History.ContextWindow; w > 0 {
		return w
	}
	a.mu.Lock()
	p, inForce := a.provider, a.ctxInForce
	a.mu.Unlock()
	if inForce > 0 {
		return inForce
	}
	if n := a.learnedWindowOf(p); n > 0 {
		return n
	}
	return provider.ContextWindow(p.Model)
}

// compactKeep replaces the middle of the history by a summary, keeping
// about max/2 recent messages (at least 4); false when there was nothing
// to summarise.
func (a *Agent) compactKeep(ctx context.Context, p provider.Provider, e *emitter, max int) bool {
	return a.compactSplit(ctx, p, e, func(msgs []message.Message) (int, int, bool) { return windowSplit(msgs, max) })
}

// compactSplit replaces msgs[headEnd:tailStart], as split chooses them, by
// a summary; false when split finds nothing to summarise.
func (a *Agent) compactSplit(ctx context.Context, p provider.Provider, e *emitter, split func([]message.Message) (headEnd, tailStart int, ok bool)) bool {
	a.mu.Lock()
	msgs := append([]message.Message(nil), a.history...)
	a.mu.Unlock()
	headEnd, tailStart, ok := split(msgs)
	if !ok {
		return false
	}
	middle := msgs[headEnd:tailStart]
	a.compactHooks(ctx, e, "auto")
	summary, err := a.summarize(ctx, p, middle)
	var notice string
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		summary = fmt.Sprintf("(%d earlier messages were dropped to stay within the context; summarising them failed: %v)", len(middle), err)
		notice = "Summarising older messages failed; they were replaced by a marker: " + err.Error()
	} else {
		notice = fmt.Sprintf("Summarised %d older messages to stay within the context.", len(middle))
	}
	e.send(Notice{Text: notice})
	out := append([]message.Message(nil), msgs[:headEnd]...)
	out = append(out, message.Message{Role: message.RoleUser, Content: SummaryIntro + summary, Sources: summarySources(middle)})
	if msgs[tailStart].Role == message.RoleUser {
		out = append(out, message.Message{Role: message.RoleAssistant, Content: "Understood."})
	}
	newTail := len(out)
	out = append(out, msgs[tailStart:]...)
	x := message.Aside{After: headEnd, Notice: notice}
	a.mu.Lock()
	// Messages appended meanwhile (none: the turn goroutine is the only
	// writer) would follow the tail.
	a.history = append(out, a.history[len(msgs):]...)
	a.gen++
	a.asides = placeAsides(a.asides, headEnd, tailStart, newTail, x)
	a.mu.Unlock()
	// Saved, the notice where it happened: a resumed conversation starts
	// from this history and shows the notice.
	_ = a.saveCompaction(e, x)
	return true
}

// placeAsides moves the asides of a history whose messages [headEnd,
// tailStart) were replaced so that the tail now starts at newTail: those
// in the replaced middle go before the summary, those after it move with
// the tail, and notice goes before the summary, after the rest there.
func placeAsides(xs []message.Aside, headEnd, tailStart, newTail int, notice message.Aside) []message.Aside {
	out := make([]message.Aside, 0, len(xs)+1)
	placed := false
	for _, x := range xs {
		switch {
		case x.After <= headEnd:
		case x.After < tailStart:
			x.After = headEnd
		default:
			x.After += newTail - tailStart
		}
		if !placed && x.After > headEnd {
			out, placed = append(out, notice), true
		}
		out = append(out, x)
	}
	if !placed {
		out = append(out, notice)
	}
	return out
}

// ErrTooShortToCompact is Compact's error for a conversation with nothing
// to summarise.
var ErrTooShortToCompact = errors.New("nothing to compact yet: the conversation is too short for a summary to shorten it")

// CanCompact says why Compact would refuse now, before it starts (a turn
// running, a conversation too short), or nil: /compact says so at once
// rather than "Summarising…" first.
func (a *Agent) CanCompact() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.busy {
		return errors.New("a turn is running; wait for it or cancel it first")
	}
	if len(a.history) <= 2 {
		return ErrTooShortToCompact
	}
	return nil
}

// Compact summarises the whole conversation now (/compact), leaving a
// two-message history: the summary and an acknowledgement.
func (a *Agent) Compact(ctx context.Context) (int, error) {
	a.mu.Lock()
	if a.busy {
		a.mu.Unlock()
		return 0, errors.New("a turn is running; wait for it or cancel it first")
	}
	a.busy = true
	msgs := append([]message.Message(nil), a.history...)
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.busy = false
		a.mu.Unlock()
	}()
	if len(msgs) <= 2 {
		return 0, ErrTooShortToCompact
	}
	p, _, err := a.WaitProvider(ctx)
	if err != nil {
		return 0, err
	}
	a.compactHooks(ctx, nil, "manual")
	summary, err := a.summarize(ctx, p, msgs)
	if err != nil {
		return 0, fmt.Errorf("summarising failed, the conversation is unchanged: %w", err)
	}
	a.mu.Lock()
	a.gen++
	for i := range a.asides {
		a.asides[i].After = 0 // before the summary
	}
	a.history = []message.Message{
		{Role: message.RoleUser, Content: SummaryIntro + summary, Sources: summarySources(msgs)},
		{Role: message.RoleAssistant, Content: "Understood. I have the summary of our conversation so far."},
	}
	x := message.Aside{Notice: CompactedNotice(len(msgs))}
	a.asides = append(a.asides, x)
	a.mu.Unlock()
	if err := a.saveCompaction(nil, x); err != nil {
		return len(msgs), fmt.Errorf("compacted %d messages, but saving the compaction failed (%w): resuming this session summarises them again", len(msgs), err)
	}
	return len(msgs), nil
}

// CompactedNotice is what /compact says when it summarised n messages.
func CompactedNotice(n int) string { return "Compacted " + count.Of(n, "message") + " into a summary." }

// summarize asks the model (the summarization model when set) for a
// summary of msgs, with no tools.
func (a *Agent) summarize(ctx context.Context, p provider.Provider, msgs []message.Message) (summary string, err error) {
	model := a.cfg.History.SummaryModel
	if model == "" {
		model = p.Model
	}
	ctx, span := a.tracer.Start(ctx, "compact_history", traceAttrs(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.request.model", model),
		attribute.Int("co.history.summarised_messages", len(msgs)),
	))
	defer func() {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
			span.RecordError(err)
		}
		span.End()
	}()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	text := a.fitTranscript(transcript(msgs))
	// Bounded (summarybound.go): an unbounded summary can fill the window.
	window := a.ContextWindow()
	tokens := a.summaryTokens(window)
	q := p
	q.Model = model
	var (
		finish string
		u      message.Usage
	)
	if provider.OllamaNative(p) {
		// The same route and num_ctx as the chat: through /v1 Ollama
		// would reload the model with its default window and cut the
		// transcript (provider/ollama.go).
		bound := func(w int, caps []string) int { return summaryAsk(q, caps, a.summaryTokens(w), w) }
		text, finish, u, err = a.ollamaComplete(ctx, p, model, summaryPrompt, text, bound)
		if err != nil {
			return "", errors.New(provider.DescribeError(p, err))
		}
	} else {
		o := a.cfg.Request
		o.MaxTokens = summaryAsk(q, nil, tokens, window)
		body := provider.EncodeChatRequestCached(nil, "", q, o, summaryPrompt, []message.Message{{Role: message.RoleUser, Content: text}}, nil, false)
		resp, err := provider.CompleteOpenAI(ctx, a.client, model, body)
		if err != nil {
			return "", errors.New(provider.DescribeError(p, err))
		}
		u = provider.UsageOf(resp.Usage)
		text = ""
		if len(resp.Choices) > 0 {
			text, finish = resp.Choices[0].Message.Content, string(resp.Choices[0].FinishReason)
		}
	}
	u = a.priced(p, model, "", true, u)
	a.mu.Lock()
	a.session = a.session.Add(u)
	calib := a.budget.calib
	a.mu.Unlock()
	span.SetAttributes(attribute.Int("co.history.summary_bound", tokens), attribute.String("co.history.summary_finish", finish))
	text = strings.TrimSpace(text)
	if text == "" {
		if finish == "length" {
			return "", errors.New("the model stopped at its length bound without writing a summary (a model that thinks may have spent it thinking)")
		}
		return "", errors.New("the model returned an empty summary")
	}
	return cutSummary(text, finish, tokens, calib), nil
}

// transcript renders msgs as plain text for the summariser.
func transcript(msgs []message.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case message.RoleUser:
			b.WriteString("USER: " + m.Content + "\n\n")
			for _, at := range m.Attachments {
				// The summary cannot see the file; it can say one was there.
				b.WriteString("USER ATTACHED " + at.Summary() + "\n\n")
			}
		case message.RoleAssistant:
			if m.Content != "" {
				b.WriteString("ASSISTANT: " + m.Content + "\n\n")
			}
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "ASSISTANT CALLED %s(%s)\n\n", tc.Name, tc.Args)
			}
		case message.RoleTool:
			c := m.Content
			if len(c) > 2000 {
				c = c[:2000] + " […]"
			}
			fmt.Fprintf(&b, "TOOL %s RESULT: %s\n\n", m.ToolName, c)
		}
	}
	return b.String()
}

// fitTranscript cuts a transcript to be summarised so that the summary
// request fits a known context window: half the window for the transcript,
// its most recent part kept.
func (a *Agent) fitTranscript(t string) string {
	window := a.ContextWindow()
	if window <= 0 {
		return t
	}
	a.mu.Lock()
	c := a.budget.calib
	a.mu.Unlock()
	if c <= 0 {
		c = 1
	}
	limit := int(float64(window/2*4) / c)
	if len(t) <= limit || limit <= 0 {
		return t
	}
	cut := len(t) - limit
	for cut < len(t) && !utf8Start(t[cut]) {
		cut++
	}
	return "[… the oldest part of the conversation was left out to fit the context window]\n" + t[cut:]
}
