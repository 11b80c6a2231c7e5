package agent

// Sources: the documentation and bug reports cited in this file were read
// on 2026-11-24, from stored copies whose own age varies; a bug report is
// cited by repository and number, with its date where known (dates checked
// 2026-11-25).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/co-cli/co/message"
	openai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// streamChunk is one piece of a streamed reply, whatever the provider's
// wire format.
type streamChunk struct {
	model     string // the model the server says answered
	text      string
	reasoning string
	field     string // the wire field reasoning came in
	calls     []callDelta
	finish    string
	usage     *message.Usage
}

// callDelta is a piece of a tool call: the first names it, later ones add
// to its arguments. index is nil when the provider sends none (Gemini).
type callDelta struct {
	index *int
	id    string
	name  string
	args  string
	extra json.RawMessage
}

// chatStream is a streaming chat request in flight.
type chatStream interface {
	// recv returns the next chunk, or io.EOF after the last.
	recv() (streamChunk, error)
	close()
}

// bodyKey carries the request body co encoded (encodeChatRequest) to
// bodySeam.
type bodyKey struct{}

func withBody(ctx context.Context, body [][]byte) context.Context {
	return context.WithValue(ctx, bodyKey{}, body)
}

// bodySeam sends the body co encoded in place of the one go-openai built
// from its own request type, which cannot carry extra_content or reasoning
// (see wire.go). Requests without one pass unchanged.
type bodySeam struct{ next http.RoundTripper }

func (t bodySeam) RoundTrip(req *http.Request) (*http.Response, error) {
	pieces, ok := req.Context().Value(bodyKey{}).([][]byte)
	if !ok || req.Method != http.MethodPost {
		return t.next.RoundTrip(req)
	}
	if req.Body != nil {
		req.Body.Close()
	}
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	body := func() (io.ReadCloser, error) {
		rs := make([]io.Reader, len(pieces))
		for i, p := range pieces {
			rs[i] = bytes.NewReader(p)
		}
		return io.NopCloser(io.MultiReader(rs...)), nil
	}
	r := req.Clone(req.Context())
	r.Body, _ = body()
	r.ContentLength = int64(n)
	r.GetBody = body
	return t.next.RoundTrip(r)
}

// openaiStream reads an OpenAI-compatible event stream through go-openai,
// chunk by chunk as raw JSON (RecvRaw), so that fields go-openai does not
// know reach co: extra_content on tool calls, reasoning and
// reasoning_content.
type openaiStream struct {
	s *openai.ChatCompletionStream
}

// startOpenAI sends body (encodeChatRequest's) as a streaming request.
func startOpenAI(ctx context.Context, c *openai.Client, model string, body [][]byte) (chatStream, error) {
	s, err := c.CreateChatCompletionStream(withBody(ctx, body), openai.ChatCompletionRequest{Model: model})
	if err != nil {
		return nil, err
	}
	return openaiStream{s}, nil
}

func (o openaiStream) close() { o.s.Close() }

func (o openaiStream) recv() (streamChunk, error) {
	raw, err := o.s.RecvRaw()
	if err != nil {
		return streamChunk{}, err
	}
	return decodeChunk(raw)
}

// wireChunk is a chat.completion.chunk, and (with message instead of
// delta) a whole chat.completion, with the fields providers add.
type wireChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta        *wireDelta `json:"delta"`
		Message      *wireDelta `json:"message"`
		FinishReason string     `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

type wireDelta struct {
	Content string `json:"content"`
	// DeepSeek, llama.cpp's server and vLLM before 0.16 stream reasoning
	// as reasoning_content (https://api-docs.deepseek.com/guides/reasoning_model);
	// vLLM since 0.16, Ollama's /v1 and OpenRouter as reasoning
	// (https://docs.vllm.ai/en/latest/features/reasoning_outputs.html).
	ReasoningContent string         `json:"reasoning_content"`
	Reasoning        string         `json:"reasoning"`
	ToolCalls        []wireCallPart `json:"tool_calls"`
}

type wireCallPart struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name string `json:"name"`
		// Qwen on vLLM ends a call with "arguments": null; it decodes as "".
		Arguments string `json:"arguments"`
	} `json:"function"`
	// Gemini's thought signature: extra_content.google.thought_signature
	// (https://ai.google.dev/gemini-api/docs/thought-signatures).
	ExtraContent json.RawMessage `json:"extra_content"`
}

// decodeChunk reads one streamed chunk, or a whole non-streamed response.
func decodeChunk(raw []byte) (streamChunk, error) {
	var w wireChunk
	if err := json.Unmarshal(raw, &w); err != nil {
		return streamChunk{}, err
	}
	c := streamChunk{model: w.Model}
	if w.Usage != nil {
		c.usage = &message.Usage{InputTokens: w.Usage.PromptTokens, OutputTokens: w.Usage.CompletionTokens}
	}
	if len(w.Choices) == 0 {
		return c, nil
	}
	ch := w.Choices[0]
	c.finish = ch.FinishReason
	d := ch.Delta
	if d == nil {
		d = ch.Message
	}
	if d == nil {
		return c, nil
	}
	c.text = d.Content
	switch {
	case d.ReasoningContent != "":
		c.reasoning, c.field = d.ReasoningContent, "reasoning_content"
	case d.Reasoning != "":
		c.reasoning, c.field = d.Reasoning, "reasoning"
	}
	for _, tc := range d.ToolCalls {
		cd := callDelta{index: tc.Index, id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments}
		if e := bytes.TrimSpace(tc.ExtraContent); len(e) > 0 && !bytes.Equal(e, []byte("null")) {
			cd.extra = append(json.RawMessage(nil), e...)
		}
		c.calls = append(c.calls, cd)
	}
	return c, nil
}

// callAccumulator joins tool-call deltas, whether a provider sends the
// arguments in one chunk or many, with an index (OpenAI) or without.
// Gemini's OpenAI layer sends each parallel call whole in a chunk of its
// own, with its id and no index (open-webui/computer#224 (2026-08-17): it
// can "omit tool_calls[].index"; noho/dayu-agent PR #91 (2026-04-27): "one
// call per chunk"; brainlid/langchain#620 (2026-08-18): "each parallel call
// in its own SSE chunk, and its parts carry no index"), or gives every
// parallel call the same index (NousResearch/hermes-agent#62937
// (2026-07-12): the index is not incremented, so a client keyed by index
// concatenates the calls; PR #67507 (2026-07-19): "the same index and no
// tool call id"). So a delta starts a new
// call, whatever its index says, when it carries another call's id, or a
// name while the call at that index already has its name and complete
// arguments; later deltas of that index go to the new call.
type callAccumulator struct {
	list []*message.ToolCall
	last int
	// moved maps a provider's index to the call it now means, once a
	// reused index started a new call.
	moved map[int]int
}

func (c *callAccumulator) add(tc callDelta) {
	idx := -1
	switch {
	case tc.index != nil:
		idx = *tc.index
		if m, ok := c.moved[idx]; ok {
			idx = m
		}
		if idx >= 0 && idx < len(c.list) && c.list[idx] != nil && c.reused(c.list[idx], tc) {
			n := c.byID(tc.id)
			if n < 0 {
				n = len(c.list)
			}
			if c.moved == nil {
				c.moved = map[int]int{}
			}
			c.moved[*tc.index] = n
			idx = n
		}
	case tc.id != "":
		idx = c.byID(tc.id)
		if idx < 0 {
			idx = len(c.list)
		}
	case tc.name != "" && len(c.list) > 0 && c.list[c.last] != nil && c.list[c.last].Name != "":
		// A new call with neither index nor id.
		idx = len(c.list)
	default:
		idx = c.last
	}
	if idx < 0 || idx > 1024 {
		return
	}
	for len(c.list) <= idx {
		c.list = append(c.list, nil)
	}
	x := c.list[idx]
	if x == nil {
		x = &message.ToolCall{}
		c.list[idx] = x
	}
	c.last = idx
	if tc.id != "" {
		x.ID = tc.id
	}
	x.Name += tc.name
	x.Args += tc.args
	if tc.extra != nil {
		x.Extra = tc.extra
	}
}

// reused reports whether tc, sent with the index of call x, is another
// call: it has another id, or (no id) a name while x is complete.
func (c *callAccumulator) reused(x *message.ToolCall, tc callDelta) bool {
	if tc.id != "" && x.ID != "" {
		return tc.id != x.ID
	}
	return tc.id == "" && tc.name != "" && x.Name != "" && strings.TrimSpace(x.Args) != "" && json.Valid([]byte(x.Args))
}

// byID is the position of the call with id, or -1.
func (c *callAccumulator) byID(id string) int {
	if id == "" {
		return -1
	}
	for i, x := range c.list {
		if x != nil && x.ID == id {
			return i
		}
	}
	return -1
}

func (c *callAccumulator) calls() []message.ToolCall {
	var out []message.ToolCall
	for i, x := range c.list {
		if x == nil || x.Name == "" {
			continue
		}
		tc := *x
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d", i)
		}
		if strings.TrimSpace(tc.Args) == "" {
			tc.Args = "{}"
		}
		out = append(out, tc)
	}
	return out
}

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

var errStalled = errors.New("stream stalled")

// reply is the assistant message a request produced, with what must travel
// with it: its reasoning, where it came from.
func (a *Agent) reply(p Provider, res streamResult, interrupted bool) message.Message {
	return message.Message{Role: message.RoleAssistant, Content: res.text, ToolCalls: res.calls, Interrupted: interrupted,
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
		if !a.ToolSent(t.Name()) { // tool groups: toolgroups.go
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
	if err != nil && toolsRefused(err) && !a.toolsOff(p) && len(a.cfg.Tools.All()) > 0 {
		// The server could not be asked beforehand (toolless.go): the same
		// request again, without tools, and never again with them.
		a.markNoTools(p, err.Error())
		stream, err = a.open(sctx, p)
	}
	if err == nil {
		if msg := a.toolNotice(p); msg != "" {
			e.send(Notice{Text: msg})
		}
	}
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
			a.setReported(p, ch.model)
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
	system, err := a.systemPrompt(ctx)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	msgs := recallView(trimmedView(a.history, a.cfg.History.TrimChars), a.recall)
	client, gen := a.client, a.gen
	a.mu.Unlock()
	if OllamaNative(p) {
		return a.startOllama(ctx, p, system, msgs)
	}
	// Only the turn goroutine encodes, so the cache needs no lock.
	o := a.cfg.Request
	o.MaxTokens = a.replyBound(p, a.ContextWindow(), nil)
	a.setBound(o.MaxTokens)
	body := encodeChatRequestCached(&a.enc, cacheKey(gen, p), p, o, system, msgs, a.toolsFor(p), true)
	return startOpenAI(ctx, client, p.Model, body)
}
