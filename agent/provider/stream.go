package provider

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
)

// streamChunk is one piece of a streamed reply, whatever the provider's
// wire format.
type Chunk struct {
	Model     string // the model the server says answered
	Text      string
	Reasoning string
	Field     string // the wire field reasoning came in
	Calls     []CallDelta
	Finish    string
	Usage     *message.Usage
}

// callDelta is a piece of a tool call: the first names it, later ones add
// to its arguments. index is nil when the provider sends none (Gemini).
type CallDelta struct {
	index *int
	id    string
	name  string
	args  string
	extra json.RawMessage
}

// chatStream is a streaming chat request in flight.
type Stream interface {
	// recv returns the next chunk, or io.EOF after the last.
	Recv() (Chunk, error)
	Close()
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

// CompleteOpenAI sends body (EncodeChatRequestCached's, not streaming)
// and returns the whole answer (the summariser): the same encoder as the
// chat, so the same field bounds it (BoundField).
func CompleteOpenAI(ctx context.Context, c *openai.Client, model string, body [][]byte) (openai.ChatCompletionResponse, error) {
	return c.CreateChatCompletion(withBody(ctx, body), openai.ChatCompletionRequest{Model: model})
}

// startOpenAI sends body (encodeChatRequest's) as a streaming request.
func StartOpenAI(ctx context.Context, c *openai.Client, model string, body [][]byte) (Stream, error) {
	s, err := c.CreateChatCompletionStream(withBody(ctx, body), openai.ChatCompletionRequest{Model: model})
	if err != nil {
		return nil, err
	}
	return openaiStream{s}, nil
}

func (o openaiStream) Close() { o.s.Close() }

func (o openaiStream) Recv() (Chunk, error) {
	raw, err := o.s.RecvRaw()
	if err != nil {
		return Chunk{}, err
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
	Usage *wireUsage `json:"usage"`
}

// wireUsage is a response's token counts, with the parts providers report
// apart (docs/SOURCES.md#llm-prices-and-cached-tokens): the cached part of
// the prompt as OpenAI and Gemini's OpenAI-compatible endpoint say it
// (prompt_tokens_details.cached_tokens) or as DeepSeek does
// (prompt_cache_hit_tokens), and reasoning (completion_tokens_details).
type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"`
}

// usage is w as co counts it.
func (w wireUsage) usage() message.Usage {
	u := message.Usage{InputTokens: w.PromptTokens, OutputTokens: w.CompletionTokens, CachedTokens: w.PromptCacheHitTokens}
	if d := w.PromptTokensDetails; d != nil && d.CachedTokens > u.CachedTokens {
		u.CachedTokens = d.CachedTokens
	}
	if d := w.CompletionTokensDetails; d != nil {
		u.ReasoningTokens = d.ReasoningTokens
	}
	return u
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
func decodeChunk(raw []byte) (Chunk, error) {
	var w wireChunk
	if err := json.Unmarshal(raw, &w); err != nil {
		return Chunk{}, err
	}
	c := Chunk{Model: w.Model}
	if w.Usage != nil {
		u := w.Usage.usage()
		c.Usage = &u
	}
	if len(w.Choices) == 0 {
		return c, nil
	}
	ch := w.Choices[0]
	c.Finish = ch.FinishReason
	d := ch.Delta
	if d == nil {
		d = ch.Message
	}
	if d == nil {
		return c, nil
	}
	c.Text = d.Content
	switch {
	case d.ReasoningContent != "":
		c.Reasoning, c.Field = d.ReasoningContent, "reasoning_content"
	case d.Reasoning != "":
		c.Reasoning, c.Field = d.Reasoning, "reasoning"
	}
	for _, tc := range d.ToolCalls {
		cd := CallDelta{index: tc.Index, id: tc.ID, name: tc.Function.Name, args: tc.Function.Arguments}
		if e := bytes.TrimSpace(tc.ExtraContent); len(e) > 0 && !bytes.Equal(e, []byte("null")) {
			cd.extra = append(json.RawMessage(nil), e...)
		}
		c.Calls = append(c.Calls, cd)
	}
	return c, nil
}

// callAccumulator joins tool-call deltas, whether a provider sends the
// arguments in one chunk or many, with an index (OpenAI) or without.
// Gemini's OpenAI layer sends each parallel call whole in a chunk of its
// own, with its id and no index, or gives every parallel call the same
// index (docs/providers.md, Gemini). So a delta starts a new
// call, whatever its index says, when it carries another call's id, or a
// name while the call at that index already has its name and complete
// arguments; later deltas of that index go to the new call.
type CallAccumulator struct {
	list []*message.ToolCall
	last int
	// moved maps a provider's index to the call it now means, once a
	// reused index started a new call.
	moved map[int]int
}

func (c *CallAccumulator) Add(tc CallDelta) {
	var idx int
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
func (c *CallAccumulator) reused(x *message.ToolCall, tc CallDelta) bool {
	if tc.id != "" && x.ID != "" {
		return tc.id != x.ID
	}
	return tc.id == "" && tc.name != "" && x.Name != "" && strings.TrimSpace(x.Args) != "" && json.Valid([]byte(x.Args))
}

// byID is the position of the call with id, or -1.
func (c *CallAccumulator) byID(id string) int {
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

func (c *CallAccumulator) Calls() []message.ToolCall {
	var out []message.ToolCall
	for _, x := range c.list {
		if x == nil || x.Name == "" {
			continue
		}
		tc := *x
		if tc.ID == "" {
			// Some servers send none (docs/providers.md, "Tool calls without an id").
			tc.ID = newCallID()
		}
		if strings.TrimSpace(tc.Args) == "" {
			tc.Args = "{}"
		}
		out = append(out, tc)
	}
	return out
}

// ErrStalled ends a stream that sent nothing for the stall timeout.
var ErrStalled = errors.New("stream stalled")

func DescribeStreamError(p Provider, err error, stall time.Duration, partial bool) string {
	keep := ""
	if partial {
		keep = " The partial reply is kept."
	}
	switch {
	case errors.Is(err, ErrStalled):
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
		return fmt.Sprintf("%s sent a malformed stream chunk (%s).%s", p.Name, PlainMessage(msg), keep)
	}
	return describeError(p, err) + keep
}

// UsageOf is a whole (not streamed) response's usage as co counts it; a
// DeepSeek cache hit is not in go-openai's type and is not counted here.
func UsageOf(u openai.Usage) message.Usage {
	w := wireUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	if d := u.PromptTokensDetails; d != nil {
		w.PromptTokensDetails = &struct {
			CachedTokens int `json:"cached_tokens"`
		}{d.CachedTokens}
	}
	if d := u.CompletionTokensDetails; d != nil {
		w.CompletionTokensDetails = &struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		}{d.ReasoningTokens}
	}
	return w.usage()
}
