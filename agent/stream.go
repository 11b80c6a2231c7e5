package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
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
	usage     *Usage
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
		c.usage = &Usage{InputTokens: w.Usage.PromptTokens, OutputTokens: w.Usage.CompletionTokens}
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
// arguments in one chunk or many, with an index (OpenAI) or without
// (Gemini sends parallel calls in one delta, each with its id and no
// index: open-webui/computer#224, NousResearch/hermes-agent#62937).
type callAccumulator struct {
	list []*ToolCall
	last int
}

func (c *callAccumulator) add(tc callDelta) {
	idx := -1
	switch {
	case tc.index != nil:
		idx = *tc.index
	case tc.id != "":
		for i, x := range c.list {
			if x != nil && x.ID == tc.id {
				idx = i
			}
		}
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
		x = &ToolCall{}
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

func (c *callAccumulator) calls() []ToolCall {
	var out []ToolCall
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
