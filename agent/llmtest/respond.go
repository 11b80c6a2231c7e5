package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// response is what respond needs to know about the reply being written.
type response struct {
	id        string
	model     string
	created   int64
	reply     Reply
	text      []string // text chunks
	reasoning []string // reasoning chunks
	usage     wireUsage
	style     style
}

// style is how a profile shapes the wire form of a reply. The zero style
// is the generic OpenAI-like behaviour.
type style struct {
	// noReasoning drops Reply.Reasoning; reasoningField otherwise names
	// the delta/message field it goes in ("" means reasoning_content).
	noReasoning    bool
	reasoningField string
	// geminiCalls sends all tool calls of the reply in one delta without
	// index, the first carrying a thought signature from signature.
	geminiCalls bool
	signature   func() string
	// toolFinish is the finish reason of a streamed tool-call reply when
	// the Reply sets none ("" means tool_calls).
	toolFinish string
	// keepAlive writes an SSE keep-alive comment (an empty line for a
	// non-streaming reply) before the body.
	keepAlive bool
	// nullArgs sends "arguments": null in the first delta of each tool
	// call instead of "".
	nullArgs bool
	// model, when set, is the model the response names.
	model string
	// errorBody writes the error body of a Reply with a Status.
	errorBody func(w http.ResponseWriter, status int, typ, code, msg string)
	// promptTokens, when set, counts the prompt tokens reported (the
	// llamacpp profile: tool schemas included, SetTokenScale applied).
	promptTokens func(Request) int
	// quota writes the answer to a Reply with RetryDelay or DailyQuota.
	quota func(w http.ResponseWriter, reply Reply, model string)
	// cacheHits reports cached prompt tokens as DeepSeek does
	// (prompt_cache_hit_tokens, prompt_cache_miss_tokens) instead of
	// prompt_tokens_details.cached_tokens.
	cacheHits bool
}

// respond writes reply as the answer to request number n.
func respond(ctx context.Context, w http.ResponseWriter, n int, req Request, reply Reply, st style) {
	h := w.Header()
	h.Set("X-Request-Id", fmt.Sprintf("req_llmtest_%d", n))
	for k, v := range reply.Header {
		h.Set(k, v)
	}
	if !sleep(ctx, reply.Delay) || !wait(ctx, reply.Gate) {
		return
	}

	resp := response{
		id:      fmt.Sprintf("chatcmpl-llmtest-%d", n),
		model:   req.Body.Model,
		created: time.Now().Unix(),
		reply:   reply,
		text:    textChunks(reply, req.LastUserMessage()),
		style:   st,
	}
	if !st.noReasoning && reply.Reasoning != "" {
		resp.reasoning = chunkRunes(reply.Reasoning, reply.ChunkSize)
	}
	if st.model != "" {
		resp.model = st.model
	}
	if resp.model == "" {
		resp.model = "llmtest"
	}
	resp.usage = usage(req, resp)
	if u := reply.Usage; u != nil && u.CachedTokens > 0 {
		if st.cacheHits {
			hit, miss := u.CachedTokens, u.PromptTokens-u.CachedTokens
			resp.usage.PromptCacheHitTokens, resp.usage.PromptCacheMissTokens = &hit, &miss
		} else {
			resp.usage.PromptTokensDetails = &wireTokenDetails{CachedTokens: u.CachedTokens}
		}
	}
	if st.promptTokens != nil && reply.Usage == nil {
		resp.usage.PromptTokens = st.promptTokens(req)
		resp.usage.TotalTokens = resp.usage.PromptTokens + resp.usage.CompletionTokens
	}

	switch {
	case reply.Raw != "":
		writeRaw(w, req, reply)
	case reply.RetryDelay > 0 || reply.DailyQuota:
		if st.quota != nil {
			st.quota(w, reply, resp.model)
			return
		}
		if reply.RetryDelay > 0 {
			secs := (reply.RetryDelay + time.Second - 1) / time.Second
			w.Header().Set("Retry-After", fmt.Sprint(int64(secs)))
		}
		typ, code, msg := errorDefaults(http.StatusTooManyRequests)
		writeError(w, http.StatusTooManyRequests, typ, code, msg)
	case reply.Status != 0 && reply.Status != http.StatusOK:
		typ, code, msg := errorDefaults(reply.Status)
		if reply.ErrorType != "" {
			typ = reply.ErrorType
		}
		if reply.ErrorCode != "" {
			code = reply.ErrorCode
		}
		if reply.ErrorMessage != "" {
			msg = reply.ErrorMessage
		}
		if st.errorBody != nil {
			st.errorBody(w, reply.Status, typ, code, msg)
			return
		}
		writeError(w, reply.Status, typ, code, msg)
	case req.Stream:
		stream(ctx, w, resp)
	default:
		complete(ctx, w, resp)
	}
}

func writeRaw(w http.ResponseWriter, req Request, reply Reply) {
	if w.Header().Get("Content-Type") == "" {
		if req.Stream {
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(reply.Raw))
}

// stream writes the reply as server-sent events: a role chunk, the text
// chunks, the tool-call chunks, a finish chunk, a usage chunk and [DONE].
func stream(ctx context.Context, w http.ResponseWriter, resp response) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)

	send := func(data []byte) bool {
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	chunk := func(choices []wireChoice, u *wireUsage) []byte {
		b, _ := json.Marshal(wireChunk{
			ID:                resp.id,
			Object:            "chat.completion.chunk",
			Created:           resp.created,
			Model:             resp.model,
			SystemFingerprint: "fp_llmtest",
			Choices:           choices,
			Usage:             u,
		})
		return b
	}
	delta := func(d wireDelta, finish *string) []byte {
		return chunk([]wireChoice{{Delta: d, FinishReason: finish}}, nil)
	}

	reply := resp.reply
	st := resp.style
	var events [][]byte
	for _, t := range resp.reasoning {
		events = append(events, delta(reasoningDelta(st, t), nil))
	}
	for i, t := range resp.text {
		d := wireDelta{Content: &t}
		if i == 0 && st.geminiCalls && len(reply.ToolCalls) == 0 && st.signature != nil {
			// A Gemini 3 answer without function calls carries a thought
			// signature too; through the OpenAI layer it arrives as
			// extra_content on the delta (SSE capture in
			// https://discuss.ai.google.dev/t/openai-api-compatibility-broken-due-to-thought-signature-on-gemini-3-pro-preview/109823).
			d.ExtraContent = signatureContent(st.signature())
		}
		events = append(events, delta(d, nil))
	}
	textEvents := len(events)
	switch {
	case st.geminiCalls && len(reply.ToolCalls) > 0:
		for _, tc := range geminiToolCalls(reply.ToolCalls, st.signature()) {
			if reply.SameIndex {
				zero := 0
				tc.Index = &zero
			}
			events = append(events, delta(wireDelta{ToolCalls: []wireToolCall{tc}}, nil))
		}
	default:
		for i, c := range reply.ToolCalls {
			for j, piece := range split(c.Args, c.Split) {
				tc := wireToolCall{Index: &i, Function: wireFunction{Arguments: &piece}}
				if j == 0 {
					tc.ID, tc.Type, tc.Function.Name = c.ID, "function", c.Name
					if st.nullArgs {
						// vLLM's Qwen (hermes) parser sends the name with
						// "arguments": null and the arguments, if any, in
						// later deltas (simonw/llm#1191 (2025-06-27): "Qwen 3 (using
						// vLLM) returns None for the tool_call arguments";
						// vllm-project/vllm#9693 (2024-10)).
						tc.Function.Arguments = nil
						events = append(events, delta(wireDelta{ToolCalls: []wireToolCall{tc}}, nil))
						if piece == "" {
							continue
						}
						tc = wireToolCall{Index: &i, Function: wireFunction{Arguments: &piece}}
					}
				}
				events = append(events, delta(wireDelta{ToolCalls: []wireToolCall{tc}}, nil))
			}
		}
	}
	stallAt, disconnectAt := -1, -1
	if reply.StallAfter > 0 {
		stallAt = min(reply.StallAfter, len(events))
	}
	if reply.DisconnectAfter > 0 {
		disconnectAt = min(reply.DisconnectAfter, len(events))
	}

	if st.keepAlive {
		// DeepSeek keeps a waiting stream open with SSE comments
		// (https://api-docs.deepseek.com/quick_start/rate_limit: "Streaming
		// requests: Continuously return SSE keep-alive comments (:
		// keep-alive)").
		if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
			return
		}
	}
	empty := ""
	if !send(delta(wireDelta{Role: "assistant", Content: &empty}, nil)) {
		return
	}
	for i := 0; ; i++ {
		if reply.Malformed && i == textEvents {
			if !send([]byte(`{"id":"` + resp.id + `","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":`)) {
				return
			}
		}
		if i == stallAt {
			<-ctx.Done()
			return
		}
		if i == disconnectAt {
			disconnect(rc)
			return
		}
		if i == len(events) {
			break
		}
		if i > 0 && !sleep(ctx, reply.ChunkDelay) {
			return
		}
		if !send(events[i]) {
			return
		}
	}
	finish := finishReason(reply)
	if reply.FinishReason == "" && len(reply.ToolCalls) > 0 && st.toolFinish != "" {
		finish = st.toolFinish
	}
	if !send(delta(wireDelta{}, &finish)) {
		return
	}
	if !reply.NoUsage {
		if !send(chunk([]wireChoice{}, &resp.usage)) {
			return
		}
	}
	send([]byte("[DONE]"))
}

// complete writes the reply as one JSON chat completion.
func complete(ctx context.Context, w http.ResponseWriter, resp response) {
	reply := resp.reply
	if reply.StallAfter > 0 {
		<-ctx.Done()
		return
	}
	if reply.DisconnectAfter > 0 {
		disconnect(http.NewResponseController(w))
		return
	}
	if reply.Malformed {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"` + resp.id + `","object":"chat.completion","choices":[`))
		return
	}
	text := strings.Join(resp.text, "")
	msg := wireMessage{Role: "assistant"}
	if text != "" || len(reply.ToolCalls) == 0 {
		msg.Content = &text
	}
	if len(resp.reasoning) > 0 {
		r := strings.Join(resp.reasoning, "")
		if resp.style.reasoningField == "reasoning" {
			msg.Reasoning = &r
		} else {
			msg.ReasoningContent = &r
		}
	}
	if resp.style.geminiCalls && len(reply.ToolCalls) > 0 {
		msg.ToolCalls = geminiToolCalls(reply.ToolCalls, resp.style.signature())
	} else {
		for _, c := range reply.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, wireToolCall{
				ID:       c.ID,
				Type:     "function",
				Function: wireFunction{Name: c.Name, Arguments: &c.Args},
			})
		}
	}
	prefix := ""
	if resp.style.keepAlive {
		// DeepSeek: "Non-streaming requests: Continuously return empty
		// lines" while waiting (https://api-docs.deepseek.com/quick_start/rate_limit).
		prefix = "\n"
	}
	writeJSONAfter(w, http.StatusOK, prefix, wireCompletion{
		ID:                resp.id,
		Object:            "chat.completion",
		Created:           resp.created,
		Model:             resp.model,
		SystemFingerprint: "fp_llmtest",
		Choices: []wireFullChoice{{
			Message:      msg,
			FinishReason: finishReason(reply),
		}},
		Usage: resp.usage,
	})
}

// reasoningDelta is a delta carrying reasoning text t in the style's field.
func reasoningDelta(st style, t string) wireDelta {
	if st.reasoningField == "reasoning" {
		return wireDelta{Reasoning: &t}
	}
	return wireDelta{ReasoningContent: &t}
}

// disconnect closes the connection under a response without ending it.
func disconnect(rc *http.ResponseController) {
	_ = rc.Flush()
	conn, _, err := rc.Hijack()
	if err != nil {
		// Not hijackable: a panic with ErrAbortHandler also drops the
		// connection without ending the response.
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

func finishReason(r Reply) string {
	switch {
	case r.FinishReason != "":
		return r.FinishReason
	case len(r.ToolCalls) > 0:
		return "tool_calls"
	default:
		return "stop"
	}
}

// textChunks returns the text of r in the chunks it is streamed in.
func textChunks(r Reply, lastUser string) []string {
	if len(r.Chunks) > 0 && !r.Echo {
		return r.Chunks
	}
	text := r.Text
	if r.Echo {
		text = "You said: " + lastUser
	}
	return chunkRunes(text, r.ChunkSize)
}

// chunkRunes cuts text into chunks of size runes (default 4); nil for "".
func chunkRunes(text string, size int) []string {
	if text == "" {
		return nil
	}
	if size <= 0 {
		size = 4
	}
	runes := []rune(text)
	var chunks []string
	for len(runes) > 0 {
		k := min(size, len(runes))
		chunks = append(chunks, string(runes[:k]))
		runes = runes[k:]
	}
	return chunks
}

// split cuts s into n pieces (at least one) of nearly equal rune counts.
func split(s string, n int) []string {
	n = max(n, 1)
	runes := []rune(s)
	pieces := make([]string, 0, n)
	for i := range n {
		pieces = append(pieces, string(runes[i*len(runes)/n:(i+1)*len(runes)/n]))
	}
	return pieces
}

// usage returns the reply's usage, or an estimate of a token per four runes.
func usage(req Request, resp response) wireUsage {
	if u := resp.reply.Usage; u != nil {
		return wireUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
	}
	var prompt int
	for _, m := range req.Body.Messages {
		prompt += utf8.RuneCountInString(m.Content)
		for _, p := range m.MultiContent {
			prompt += utf8.RuneCountInString(p.Text)
		}
		for _, c := range m.ToolCalls {
			prompt += utf8.RuneCountInString(c.Function.Name + c.Function.Arguments)
		}
	}
	var completion int
	for _, t := range resp.text {
		completion += utf8.RuneCountInString(t)
	}
	for _, t := range resp.reasoning {
		completion += utf8.RuneCountInString(t)
	}
	for _, c := range resp.reply.ToolCalls {
		completion += utf8.RuneCountInString(c.Name + c.Args)
	}
	prompt, completion = (prompt+3)/4, (completion+3)/4
	return wireUsage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
}

// sleep waits d, or less if ctx ends first; it reports whether ctx is live.
// wait waits until gate is closed (nil: not at all); false when ctx ended
// first.
func wait(ctx context.Context, gate <-chan struct{}) bool {
	if gate == nil {
		return ctx.Err() == nil
	}
	select {
	case <-gate:
		return true
	case <-ctx.Done():
		return false
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
