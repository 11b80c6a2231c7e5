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
	"strings"
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
	// servers is what each endpoint said it is, by Origin (server.go).
	servers map[string]provider.ServerInfo
	// bare: the request about to go carries no tools, since even the core
	// ones leave no room for it (bare.go); decided again before each.
	bare bool
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
	if p.Name != "openai" || p.BaseURL == "" {
		close(ch)
		return ch
	}
	client := a.httpClient()
	go func() {
		defer close(ch)
		defer func() { _ = recover() }()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// Asked even when llm_context_window is set (which wins over it):
		// the answer also says what the server is (server.go).
		info := provider.AskServer(ctx, client, p)
		a.mu.Lock()
		defer a.mu.Unlock()
		if info.Server != "" {
			a.setServer(p, info)
		}
		if info.Window > 0 {
			if a.budget.learned == nil {
				a.budget.learned = map[string]learnedWindow{}
			}
			if _, ok := a.budget.learned[key]; !ok {
				a.budget.learned[key] = learnedWindow{tokens: info.Window, source: info.Source}
			}
		}
	}()
	return ch
}

// overflow is a request that does not fit the window, for its message.
type overflow struct {
	sent, window int
	// counted: sent is the server's count (llama.cpp's n_prompt_tokens),
	// not co's estimate.
	counted bool
	// source is where co has the window from ("" when the server said it).
	source string
	// summarised: older messages were summarised in this turn.
	summarised bool
	// less is what the request already left out for a small window
	// (SendingLess); still is co's estimate of it after what co then did
	// (after: "summarising older messages", "only the shell and files
	// tools"…), when even that would not fit.
	less  string
	after []string
	still int
}

// describeExceeded is the message of a request that does not fit: both
// numbers, what co already did to make it smaller (it says "after
// summarising" only when it did), and what the user can do: a larger
// window on the server (a figure for llama-server's -c), the setting if
// co has the window wrong, fewer tools.
func (a *Agent) describeExceeded(p provider.Provider, o overflow) string {
	name := a.nameOf(p)
	llama := a.isLlamaCpp(p)
	var b strings.Builder
	switch {
	case o.counted && llama:
		fmt.Fprintf(&b, "%s refused the request: its %d tokens (n_prompt_tokens) do not fit the server's context window of %d tokens (n_ctx)", name, o.sent, o.window)
	case o.counted && o.window > 0:
		fmt.Fprintf(&b, "%s refused the request: its %d tokens do not fit the model's context window of %d tokens", name, o.sent, o.window)
	case o.counted:
		fmt.Fprintf(&b, "%s refused the request as longer than the model's context window", name)
	default:
		size := "The request"
		if o.sent > 0 {
			size = fmt.Sprintf("The request (about %d tokens)", o.sent)
		}
		what := "the model's context window"
		if o.window > 0 {
			what = fmt.Sprintf("the model's context window (%d tokens", o.window)
			if o.source != "" {
				what += ", from " + o.source
			}
			what += ")"
		}
		fmt.Fprintf(&b, "%s does not fit %s of %s %s", size, what, name, p.Model)
	}
	var done []string
	if o.summarised {
		done = append(done, "after summarising older messages")
	}
	if o.less != "" {
		done = append(done, "with "+strings.ReplaceAll(o.less, "; ", " and "))
	}
	if len(done) > 0 {
		b.WriteString(", even " + strings.Join(done, " and "))
	}
	if o.still > 0 && len(o.after) > 0 {
		fmt.Fprintf(&b, "; after %s it would still be about %d tokens", strings.Join(o.after, " and "), o.still)
	}
	b.WriteString(". ")
	larger := "Use a model or server with a larger context window (llama-server -c, ollama_num_ctx)"
	switch {
	case provider.OllamaNative(p):
		larger = "Raise ollama_num_ctx"
		if o.sent > 0 {
			larger += fmt.Sprintf(" (to %d or more)", suggestWindow(o.sent))
		}
	case llama && o.sent > 0:
		larger = fmt.Sprintf("Start llama-server with a larger context (-c %d or more)", suggestWindow(o.sent))
	case llama:
		larger = "Start llama-server with a larger context (-c)"
	}
	b.WriteString(larger + ", set llm_context_window if co has the window wrong, or send fewer tools (llm_tool_groups)")
	if _, _, ok := turnSplit(a.History()); ok {
		b.WriteString("; /clear starts afresh")
	}
	b.WriteString(".")
	return b.String()
}

// suggestWindow is a context size to suggest for a request of sent tokens:
// room for it, for replies and a little conversation (a quarter more, at
// least 1024 tokens), as a power of two.
func suggestWindow(sent int) int {
	need := sent + max(1024, sent/4)
	n := 1024
	for n < need {
		n *= 2
	}
	return n
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
	a.setBare(false) // decided again for this request
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
	o := overflow{sent: est, window: window, source: a.ContextWindowSource(), summarised: st.compacted, less: a.SendingLess()}
	if len(tools) > 0 {
		// The last resort: this request without tools (bare.go).
		tools = nil
		_, bareRaw, bareEst := measure()
		if bareEst+minReplyRoom <= window {
			a.setBare(true)
			a.bareNotice(p, window, st, e)
			return bareRaw, ""
		}
		o.after, o.still = []string{"sending no tools at all"}, bareEst
		a.mu.Lock()
		a.budget.next = est
		a.mu.Unlock()
	}
	return rawEst, a.describeExceeded(p, o)
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

// exceededRetry handles the provider's "context exceeded" answer ce to the
// request estimated at rawEst. It learns the answer's numbers: the window
// (for the rest of the session) and the calibration. The first time in a
// turn it makes the request smaller — older messages summarised when there
// are any, then, while it still does not fit, only the core tools and the
// compact system prompt (toolgroups.go) — and reports retry when something
// got smaller and the request now fits: one retry. Otherwise, and the
// second time, msg says why not, with the server's numbers.
func (a *Agent) exceededRetry(ctx context.Context, p provider.Provider, e *emitter, st *turnState, ce *provider.ContextExceeded, rawEst int) (retry bool, msg string) {
	if ce.LlamaCpp && !a.isLlamaCpp(p) {
		// Its own words say it is llama-server, even where /props is not
		// reachable (a proxy in front of it).
		a.mu.Lock()
		a.setServer(p, provider.ServerInfo{Server: provider.LlamaCpp})
		a.mu.Unlock()
	}
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
	window := ce.Window
	if window <= 0 {
		window = a.ContextWindow()
	}
	sent := overflow{sent: ce.Sent, window: window, counted: true, summarised: st.summarised || st.compacted, less: a.SendingLess()}
	if st.exceeded {
		return false, a.describeExceeded(p, sent)
	}
	st.exceeded = true

	// What co did, for the notice (did) and for the message (after).
	var did, after []string
	if _, _, ok := turnSplit(a.History()); ok {
		a.mu.Lock()
		n := len(a.history)
		a.mu.Unlock()
		if a.compactKeep(ctx, p, e, n/2) || a.compactSplit(ctx, p, e, turnSplit) {
			st.summarised, st.compacted = true, true
			did, after = append(did, "summarised older messages"), append(after, "summarising older messages")
		}
	}
	if ctx.Err() != nil {
		return false, ""
	}
	fits := func(room int) bool { return window <= 0 || a.estimateRequest(ctx, p)+room <= window }
	core := fmt.Sprintf("only the %s tools", strings.Join(CoreToolGroups, " and "))
	if !fits(a.replyReserve(window)) && a.sendCoreTools(p) {
		did, after = append(did, "sends "+core), append(after, "with "+core)
	}
	if !fits(a.replyReserve(window)) && a.sendCompactPrompt() {
		did = append(did, "sends a compact system prompt without the project instructions and skills")
		after = append(after, "with a compact system prompt")
	}
	if !fits(minReplyRoom) && a.fitsBare(ctx, p, window) {
		// fitBudget sends the retry without tools (bare.go).
		did, after = append(did, "sends this request without tools"), append(after, "without tools")
	}
	if len(did) == 0 || !fits(minReplyRoom) && !a.fitsBare(ctx, p, window) {
		// Sending again would only be refused again.
		if len(after) > 0 && window > 0 {
			sent.after, sent.still = after, a.estimateRequest(ctx, p)
		}
		return false, a.describeExceeded(p, sent)
	}
	nums := ""
	if ce.Sent > 0 && ce.Window > 0 {
		nums = fmt.Sprintf(" (%d tokens sent, %d in the window)", ce.Sent, ce.Window)
	}
	e.send(Notice{Text: fmt.Sprintf("%s refused the request as longer than its context window%s: co %s, and tries once more (/tools shows what is sent).", a.nameOf(p), nums, strings.Join(did, ", "))})
	return true, ""
}

// estimateRequest is the calibrated estimate of the request as it would
// go now.
func (a *Agent) estimateRequest(ctx context.Context, p provider.Provider) int {
	return a.estimateWith(ctx, a.toolsFor(p))
}

// estimateWith is estimateRequest with tools as the tools sent.
func (a *Agent) estimateWith(ctx context.Context, tools []byte) int {
	system, _ := a.systemPrompt(ctx)
	a.mu.Lock()
	msgs := recallView(trimmedView(a.history, a.cfg.History.TrimChars), a.recall)
	a.mu.Unlock()
	return a.calibrate(rawEstimate(system, tools, msgs))
}
