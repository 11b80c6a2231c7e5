package agent

// The context budget: co learns the window of the model it talks to and
// never sends a request that does not fit it.
//
// Where the window comes from, first found wins (ContextWindowSource): the
// setting llm_context_window; Ollama's num_ctx as co asks it, or /api/ps
// when it asks none; llama-server's /props or /v1/models meta.n_ctx; vLLM's
// max_model_len; LM Studio's max_context_length (the model's maximum, so
// the last resort); the table of model families (provider.ContextWindow).
// It is asked once per endpoint and model, in the background (Warm, or the
// first request, waiting at most learnWait). Sources: docs/providers.md.
//
// A request's size is estimated as characters / 4 (as agent/llmtest
// counts), then calibrated by the ratio of the prompt tokens the server
// reported for the last request to co's estimate of it: real tokenizers
// count more (docs/providers.md, llama.cpp: the calibration figures).

import (
	"context"
	"fmt"
	"time"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
)

// budgetState is what co knows of the context budget.
type budgetState struct {
	learned map[string]learnedWindow // by Origin and model
	asking  map[string]chan struct{} // windows asked for, closed when answered
	calib   float64                  // reported prompt tokens / estimate; 0: none yet
	// truncated is set when the provider cut the last prompt (Ollama): the
	// next request summarises first.
	truncated bool
	// reduced and compact: co sends only CoreToolGroups, and compactPrompt,
	// for a small window (toolgroups.go).
	reduced, compact bool
	// next is the calibrated estimate of the request about to go, for the
	// reply bound (replyBound); 0 before the first.
	next int
}

type learnedWindow struct {
	tokens int
	source string
}

// replyReserve is the room left for the reply: llm_max_tokens when set,
// else an eighth of the window (at least 256 tokens).
func (a *Agent) replyReserve(window int) int {
	if m := a.cfg.Request.MaxTokens; m > 0 && m < window/2 {
		return m
	}
	r := window / 8
	if r < 256 {
		r = 256
	}
	return r
}

// minReplyRoom is the least room for the reply a request must leave when
// nothing more can be summarised.
const minReplyRoom = 128

// estimateChars is the token estimate of n characters, uncalibrated.
func estimateChars(n int) int { return (n + 3) / 4 }

func (a *Agent) calibrate(est int) int {
	a.mu.Lock()
	c := a.budget.calib
	a.mu.Unlock()
	if c <= 0 {
		return est
	}
	return int(float64(est)*c + 0.5)
}

// observeUsage calibrates the estimate with the prompt tokens the server
// reported for the request estimated at est (uncalibrated).
func (a *Agent) observeUsage(rawEst, reported int) {
	if rawEst <= 0 || reported <= 0 {
		return
	}
	c := float64(reported) / float64(rawEst)
	if c < 0.5 {
		c = 0.5
	}
	if c > 2.5 {
		c = 2.5
	}
	a.mu.Lock()
	a.budget.calib = c
	a.mu.Unlock()
}

// ContextWindowSource says where ContextWindow's figure comes from: "the
// setting llm_context_window", "Ollama num_ctx", "llama.cpp /props", …; ""
// when the window is unknown.
func (a *Agent) ContextWindowSource() string {
	if a.cfg.History.ContextWindow > 0 {
		return "the setting llm_context_window"
	}
	a.mu.Lock()
	p, inForce := a.provider, a.ctxInForce
	lw, ok := a.budget.learned[windowKey(p)]
	a.mu.Unlock()
	switch {
	case inForce > 0:
		return "Ollama's num_ctx for this model"
	case ok && lw.tokens > 0:
		return lw.source
	case provider.ContextWindow(p.Model) > 0:
		return "co's table of known models"
	}
	return ""
}

func windowKey(p provider.Provider) string { return p.Origin() + " " + p.Model }

// learnedWindow is the window learned from p's server, 0 when none.
func (a *Agent) learnedWindowOf(p provider.Provider) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.budget.learned[windowKey(p)].tokens
}

// LearnWindow asks the provider's server for its context window and waits
// for the answer (co status): once per endpoint and model (llama.cpp's
// /props, /v1/models' max_model_len or meta.n_ctx, LM Studio's
// /api/v0/models). Gemini and Ollama are not asked here (Ollama in
// ollama.go). Failures are silent: the window stays unknown.
func (a *Agent) LearnWindow(ctx context.Context) {
	p, done, err := a.Provider()
	if !done || err != nil {
		return
	}
	if provider.OllamaNative(p) {
		a.awaitWindow(ctx, p) // /api/show and num_ctx
		return
	}
	a.learnWindow(ctx, p)
}

func (a *Agent) learnWindow(ctx context.Context, p provider.Provider) {
	select {
	case <-a.startLearn(p):
	case <-ctx.Done():
	}
}

// awaitWindow waits a little for the window being learned (startLearn) so
// the first request can use it; a server slow to answer does not hold the
// turn up: the answer is used from the next request on.
func (a *Agent) awaitWindow(ctx context.Context, p provider.Provider) {
	if provider.OllamaNative(p) {
		// The num_ctx co will ask, known before the first request from
		// /api/show (asked once a model, and needed by the request anyway).
		info := a.ollama.Model(ctx, p)
		if o := a.cfg.Request.OllamaNumCtx; info.Err == nil || o > 0 {
			a.setCtxInForce(provider.OllamaNumCtx(o, info.Max))
		}
		return
	}
	t := time.NewTimer(learnWait)
	defer t.Stop()
	select {
	case <-a.startLearn(p):
	case <-t.C:
	case <-ctx.Done():
	}
}

// learnWait bounds how long a turn waits for the window to be learned.
const learnWait = 500 * time.Millisecond

// startLearn starts asking p's server for its window, once per endpoint
// and model, in the background; the channel is closed when it is known (or
// not to be known).
func (a *Agent) startLearn(p provider.Provider) <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.budget.asking == nil {
		a.budget.asking = map[string]chan struct{}{}
	}
	key := windowKey(p)
	if ch, ok := a.budget.asking[key]; ok {
		return ch
	}
	ch := make(chan struct{})
	a.budget.asking[key] = ch
	if p.Name != "openai" || p.BaseURL == "" || a.cfg.History.ContextWindow > 0 {
		close(ch)
		return ch
	}
	client := a.httpClient()
	go func() {
		defer close(ch)
		defer func() { _ = recover() }()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		n, src := provider.AskWindow(ctx, client, p)
		if n > 0 {
			a.mu.Lock()
			if a.budget.learned == nil {
				a.budget.learned = map[string]learnedWindow{}
			}
			if _, ok := a.budget.learned[key]; !ok {
				a.budget.learned[key] = learnedWindow{tokens: n, source: src}
			}
			a.mu.Unlock()
		}
	}()
	return ch
}

// describeExceeded is the message of a request that does not fit, even
// after summarising.
func describeExceeded(p provider.Provider, sent, window int, source string) string {
	what := "the model's context window"
	if window > 0 {
		what = fmt.Sprintf("the model's context window (%d tokens", window)
		if source != "" {
			what += ", from " + source
		}
		what += ")"
	}
	size := "The request"
	if sent > 0 {
		size = fmt.Sprintf("The request (about %d tokens)", sent)
	}
	return fmt.Sprintf("%s does not fit %s of %s %s, even after summarising older messages. Start the server with a larger context (llama-server -c, ollama_num_ctx), set llm_context_window if co has it wrong, send fewer tools (llm_tool_groups), or /clear.",
		size, what, p.Name, p.Model)
}

// fitBudget makes the next request fit the context window when it is
// known, with one compaction at most before it: the part to summarise is
// chosen before summarising (compactionSplit), as the least that makes the
// request fit once the summary takes its bound (summaryTokens), rather
// than summarising, measuring and summarising again. The soft reasons to
// compact (needsCompaction: max_history_messages, the last request over
// 80% of the window, Ollama's truncation) count only until the turn has
// compacted once; so a turn compacts once, and again only when its own
// tool results have filled the window since. It returns the uncalibrated
// estimate of the request (to calibrate with the usage the server
// reports), and a message when the request still does not fit: then
// nothing is sent.
func (a *Agent) fitBudget(ctx context.Context, p provider.Provider, e *emitter, st *turnState) (rawEst int, over string) {
	window := a.ContextWindow()
	full, _ := a.fullPrompt(ctx)
	a.sendLess(p, full, window, e)
	system, _ := a.systemPrompt(ctx)
	tools := a.toolsFor(p) // none for a model that takes none (toolless.go)
	measure := func() ([]message.Message, int, int) {
		a.mu.Lock()
		msgs := recallView(trimmedView(a.history, a.cfg.History.TrimChars), a.recall)
		a.mu.Unlock()
		raw := rawEstimate(system, tools, msgs)
		est := a.calibrate(raw)
		a.mu.Lock()
		a.budget.next = est
		a.mu.Unlock()
		return msgs, raw, est
	}
	msgs, rawEst, est := measure()
	fits := func(est int) bool { return window <= 0 || est+a.replyReserve(window) <= window }
	soft := !st.compacted && a.needsCompaction(len(msgs))
	if fits(est) && !soft {
		return rawEst, ""
	}
	if ctx.Err() == nil {
		// The views keep the history's indices: the split applies to it.
		if head, tail, ok := a.compactionSplit(msgs, est, window, !fits(est)); ok {
			a.mu.Lock()
			a.budget.truncated = false
			a.mu.Unlock()
			st.compacted = true
			a.compactSplit(ctx, p, e, func([]message.Message) (int, int, bool) { return head, tail, true })
			_, rawEst, est = measure()
		}
	}
	if fits(est) {
		return rawEst, ""
	}
	// Nothing more to summarise: a request that fits with less room for
	// the reply than wanted still goes (the reply may be cut); one that
	// leaves almost none does not.
	if est+minReplyRoom <= window {
		return rawEst, ""
	}
	return rawEst, describeExceeded(p, est, window, a.ContextWindowSource())
}

// compactionSplit chooses what one compaction summarises of msgs (whose
// request is estimated at est, calibrated): msgs[head:tail]. The
// candidates: the sliding window's split at max_history_messages, the
// sliding window keeping about a quarter, everything before this turn
// (turnSplit). Unless the request must be made to fit, the first that
// finds something (as the sliding window always did); else the one that
// summarises least among those after which the request fits, counting the
// summary at its bound, or failing that the one that leaves the smallest
// request.
func (a *Agent) compactionSplit(msgs []message.Message, est, window int, mustFit bool) (head, tail int, ok bool) {
	n := len(msgs)
	a.mu.Lock()
	truncated := a.budget.truncated
	a.mu.Unlock()
	var splits [][2]int
	add := func(h, t int, ok bool) {
		if ok {
			splits = append(splits, [2]int{h, t})
		}
	}
	if m := a.cfg.History.MaxMessages; m > 0 && !(truncated && m > n/2) {
		add(windowSplit(msgs, m))
	}
	add(windowSplit(msgs, n/2))
	add(turnSplit(msgs))
	if len(splits) == 0 {
		return 0, 0, false
	}
	if !mustFit || window <= 0 {
		return splits[0][0], splits[0][1], true
	}
	// The summary message at its bound, the acknowledgement and the cut
	// marker.
	summary := a.summaryTokens(window) + a.calibrate(estimateChars(len(SummaryIntro)+len("Understood.")+80))
	best, bestAfter := -1, 0
	for i, s := range splits {
		after := est - a.calibrate(rawEstimate("", nil, msgs[s[0]:s[1]])) + summary
		fitsAfter := after+a.replyReserve(window) <= window
		switch {
		case best < 0:
		case fitsAfter && bestAfter+a.replyReserve(window) <= window:
			// Both fit: the one that summarises less.
			if s[1]-s[0] >= splits[best][1]-splits[best][0] {
				continue
			}
		case !fitsAfter && after >= bestAfter:
			continue
		}
		best, bestAfter = i, after
	}
	return splits[best][0], splits[best][1], true
}

// rawEstimate is the uncalibrated token estimate of a request.
func rawEstimate(system string, tools []byte, msgs []message.Message) int {
	n := len(system) + len(tools)
	for _, m := range msgs {
		n += len(m.Content) + len(m.Reasoning)
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Args)
		}
	}
	return estimateChars(n)
}

// checkTruncated detects Ollama's silent truncation: when the prompt does
// not fit num_ctx, Ollama v0.24.0 cuts it (runner/llamarunner/runner.go:153
// logs `msg="truncating input prompt" limit=2048 prompt=3848 keep=4
// new=2048`) and answers 200 with prompt_eval_count equal to num_ctx
// (recorded: "prompt_eval_count":2048 for num_ctx 2048). co then says so and
// summarises before the next request. It reports whether the prompt was cut.
func (a *Agent) checkTruncated(p provider.Provider, u message.Usage, rawEst int, e *emitter) bool {
	if !provider.OllamaNative(p) {
		return false
	}
	n := a.ContextInForce()
	if n <= 0 || u.InputTokens < n {
		return false
	}
	// The prompt was at least n tokens: calibrate with that lower bound.
	a.observeUsage(rawEst, n)
	a.mu.Lock()
	a.budget.truncated = true
	a.mu.Unlock()
	e.send(Notice{Text: fmt.Sprintf("Ollama cut the prompt to its context window (%d tokens, num_ctx): the model did not see all of the conversation. Older messages will be summarised before the next request; a larger ollama_num_ctx avoids this.", n)})
	return true
}

// exceededRetry handles the provider's "context exceeded" answer: the
// first time in a turn, it learns the numbers the answer gives, summarises
// older messages and reports true (send again); after that, false.
func (a *Agent) exceededRetry(ctx context.Context, p provider.Provider, e *emitter, st *turnState, ce *provider.ContextExceeded, rawEst int) bool {
	if st.exceeded {
		return false
	}
	st.exceeded = true
	if ce.Window > 0 && a.cfg.History.ContextWindow <= 0 && a.ContextInForce() == 0 {
		a.mu.Lock()
		if a.budget.learned == nil {
			a.budget.learned = map[string]learnedWindow{}
		}
		a.budget.learned[windowKey(p)] = learnedWindow{tokens: ce.Window, source: "the server's context-exceeded answer"}
		a.mu.Unlock()
	}
	if ce.Sent > 0 {
		a.observeUsage(rawEst, ce.Sent)
	}
	nums := ""
	if ce.Sent > 0 && ce.Window > 0 {
		nums = fmt.Sprintf(" (%d tokens sent, %d in the window)", ce.Sent, ce.Window)
	}
	a.mu.Lock()
	n := len(a.history)
	a.mu.Unlock()
	// Nothing before this turn to summarise: sending again would only be
	// refused again.
	if _, _, ok := turnSplit(a.History()); !ok {
		return false
	}
	e.send(Notice{Text: fmt.Sprintf("%s refused the request as longer than its context window%s; summarising older messages and trying once more.", p.Name, nums)})
	if !a.compactKeep(ctx, p, e, n/2) {
		a.compactSplit(ctx, p, e, turnSplit)
	}
	return ctx.Err() == nil
}
