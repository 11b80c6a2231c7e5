package provider

// Ollama's native API. co chats with Ollama through POST /api/chat rather
// than its OpenAI-compatible /v1, because only the native route lets a
// request set the context window (options.num_ctx); without it Ollama
// silently cuts longer prompts. /api/chat also has "think" and
// message.thinking, and returns tool calls whole with their arguments as a
// JSON object. The request, message and NDJSON response shapes co relies
// on, and where each was read: docs/providers.md, Ollama.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/co-cli/co/message"
	openai "github.com/sashabaranov/go-openai"
)

// OllamaDefaultNumCtx is the context window co asks of Ollama when
// ollama_num_ctx is 0, or the model's maximum when that is smaller: large
// enough for an agent's tool output, small enough to fit the memory of
// most machines (Ollama itself recommends at least 64000 tokens for agents
// but defaults to 4096 below 24 GiB of VRAM: docs/context-length.mdx).
const OllamaDefaultNumCtx = 32768

// Ollama is a client of Ollama's native API for one run, and what it
// learned of each model (once a run).
type Ollama struct {
	chat, info *http.Client
	mu         sync.Mutex
	shown      map[string]OllamaModel // by ollamaKey
	ps         map[string]int         // context_length /api/ps reported, by ollamaKey
}

// NewOllama returns a client over base (http.DefaultTransport when nil):
// /api/chat with rp's retries of 429 and 5xx, as NewClient's for
// go-openai; the small questions (/api/show, /api/ps) without.
func NewOllama(base http.RoundTripper, rp RetryPolicy) *Ollama {
	info := http.DefaultClient
	if base != nil {
		info = &http.Client{Transport: base}
	} else {
		base = http.DefaultTransport
	}
	return &Ollama{chat: &http.Client{Transport: &retryTransport{next: base, policy: rp.withDefaults()}}, info: info}
}

// OllamaModel is what /api/show said of a model.
type OllamaModel struct {
	Max  int      // the model's maximum context, 0 when not said
	Caps []string // capabilities: completion, tools, thinking, vision…
	Err  error    // /api/show failed for good (not cached otherwise)
}

func OllamaKey(p Provider) string { return p.Origin() + " " + p.Model }

// OllamaNative reports whether p's chats go through Ollama's native
// /api/chat: always for the ollama provider (see the top of this file).
func OllamaNative(p Provider) bool { return p.Name == "ollama" }

// OllamaShow is what POST /api/show says of a model.
type OllamaShow struct {
	// MaxContext is model_info["<general.architecture>.context_length"],
	// the context the model was trained for; 0 when absent.
	MaxContext int
	// Capabilities are "completion", "tools", "thinking", "vision"…
	Capabilities []string
}

// ollamaShow asks POST {root}/api/show for model. The model's maximum
// context is model_info["<arch>.context_length"], arch being
// model_info["general.architecture"] (docs/api.md, "Show Model
// Information": "general.architecture": "llama", "llama.context_length":
// 8192); capabilities are listed since Ollama 0.6.4 (api/types.go
// ShowResponse.Capabilities). An unknown model is a 404 {"error":…}.
func ollamaShow(ctx context.Context, client *http.Client, root, model string) (OllamaShow, error) {
	body, _ := json.Marshal(map[string]string{"model": model})
	var out struct {
		ModelInfo    map[string]json.RawMessage `json:"model_info"`
		Capabilities []string                   `json:"capabilities"`
	}
	if err := ollamaDo(ctx, client, http.MethodPost, root+"/api/show", body, &out); err != nil {
		return OllamaShow{}, err
	}
	s := OllamaShow{Capabilities: out.Capabilities}
	var arch string
	if json.Unmarshal(out.ModelInfo["general.architecture"], &arch) == nil && arch != "" {
		var n float64
		if json.Unmarshal(out.ModelInfo[arch+".context_length"], &n) == nil && n > 0 {
			s.MaxContext = int(n)
		}
	}
	return s, nil
}

// ollamaLoaded asks GET {root}/api/ps for the context window model runs
// with, when it is loaded: models[].context_length (api/types.go
// ProcessModelResponse; `ollama ps` shows it as CONTEXT,
// docs/context-length.mdx). ok is false when the model is not loaded.
func ollamaLoaded(ctx context.Context, client *http.Client, root, model string) (n int, ok bool, err error) {
	var out struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if err := ollamaDo(ctx, client, http.MethodGet, root+"/api/ps", nil, &out); err != nil {
		return 0, false, err
	}
	for _, m := range out.Models {
		if sameOllamaModel(m.Name, model) || sameOllamaModel(m.Model, model) {
			return m.ContextLength, true, nil
		}
	}
	return 0, false, nil
}

// sameOllamaModel compares model names, a name without a tag meaning
// ":latest" (docs/api.md, "Model names").
func sameOllamaModel(a, b string) bool {
	tag := func(s string) string {
		if !strings.Contains(s[strings.LastIndexByte(s, '/')+1:], ":") {
			return s + ":latest"
		}
		return s
	}
	return a != "" && b != "" && tag(a) == tag(b)
}

// ollamaVersion asks GET {root}/api/version: {"version": "0.5.1"}
// (docs/api.md, "Version").
func ollamaVersion(ctx context.Context, client *http.Client, root string) (string, error) {
	var out struct {
		Version string `json:"version"`
	}
	if err := ollamaDo(ctx, client, http.MethodGet, root+"/api/version", nil, &out); err != nil {
		return "", err
	}
	if out.Version == "" {
		return "", errors.New("no version in the answer of /api/version: not Ollama")
	}
	return out.Version, nil
}

// ollamaDo makes one small JSON request. A non-200 answer is an
// *openai.APIError with Ollama's {"error": "…"} as its message, so that
// describeError treats it like the /v1 route's.
func ollamaDo(ctx context.Context, client *http.Client, method, url string, body []byte, out any) error {
	status, msg, err := DoJSON(ctx, client, method, url, "", body, out)
	if err == nil && status != http.StatusOK {
		return &openai.APIError{HTTPStatusCode: status, Message: msg}
	}
	return err
}

// Model returns what /api/show says of p.Model, asked once per model and
// run, lazily: on the first request, never at start-up. A failure is kept
// when the server answered with a status other than 404 (it will not
// change); otherwise (no such model yet, a network error) the next
// request asks again.
func (o *Ollama) Model(ctx context.Context, p Provider) OllamaModel {
	if s, ok := o.Known(p); ok {
		return s
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	info, err := ollamaShow(sctx, o.info, OllamaRoot(p.BaseURL), p.Model)
	s := OllamaModel{Max: info.MaxContext, Caps: info.Capabilities, Err: err}
	var apiErr *openai.APIError
	if err == nil || errors.As(err, &apiErr) && apiErr.HTTPStatusCode != http.StatusNotFound {
		o.mu.Lock()
		if o.shown == nil {
			o.shown = map[string]OllamaModel{}
		}
		o.shown[OllamaKey(p)] = s
		o.mu.Unlock()
	}
	return s
}

// Known is what /api/show said of p.Model, if it was asked (Model).
func (o *Ollama) Known(p Provider) (OllamaModel, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s, ok := o.shown[OllamaKey(p)]
	return s, ok
}

// NoTools reports whether /api/show lists capabilities for the model and
// "tools" is not among them (an older Ollama that lists none is given the
// tools).
func (m OllamaModel) NoTools() bool {
	return m.Err == nil && len(m.Caps) > 0 && !slices.Contains(m.Caps, "tools")
}

// OllamaNumCtx is the context window co asks Ollama for: the setting
// (ollama_num_ctx) when it is above 0, capped at the model's maximum when
// that is known (Ollama caps it there too: server/routes.go "if
// opts.NumCtx > ctxLen"), else OllamaDefaultNumCtx or the model's maximum
// when smaller. max is 0 when unknown.
func OllamaNumCtx(setting, max int) int {
	n := setting
	if n <= 0 {
		n = OllamaDefaultNumCtx
	}
	if max > 0 && n > max {
		n = max
	}
	return n
}

// ollamaThink is the "think" value for a model with capabilities caps:
// none unless the model can think, since Ollama answers 400 "%q does not
// support thinking" to think: true otherwise (server/routes.go
// ChatHandler). gpt-oss takes a level, "low", "medium" or "high", and
// ignores true/false (docs/capabilities/thinking.mdx); other models take
// true (levels only on recent servers: docs/api.md "Can be a boolean or a
// thinking level").
func ollamaThink(model, effort string, caps []string) json.RawMessage {
	if !slices.Contains(caps, "thinking") {
		return nil
	}
	if effort != "" && strings.Contains(strings.ToLower(model), "gpt-oss") {
		b, _ := json.Marshal(effort)
		return b
	}
	return json.RawMessage("true")
}

type ollamaOptions struct {
	NumCtx      int      `json:"num_ctx,omitempty"`
	NumPredict  int      `json:"num_predict,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
}

type ollamaChatRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Tools    json.RawMessage `json:"tools,omitempty"`
	Stream   bool            `json:"stream"`
	Think    json.RawMessage `json:"think,omitempty"`
	Options  *ollamaOptions  `json:"options,omitempty"`
}

type ollamaMessage struct {
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	Thinking   string           `json:"thinking,omitempty"`
	ToolCalls  []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName   string           `json:"tool_name,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
	// Images are a user message's images, base64 (docs/api.md, "Chat
	// request (with images)").
	Images []string `json:"images,omitempty"`
}

type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// ollamaArgs is a call's arguments as the JSON object /api/chat wants
// (api/types.go ToolCallFunctionArguments decodes an object only); {}
// when they are not one.
func ollamaArgs(args string) json.RawMessage {
	b := bytes.TrimSpace([]byte(args))
	if len(b) > 0 && b[0] == '{' && json.Valid(b) {
		return b
	}
	return json.RawMessage("{}")
}

// ollamaMessages converts the system prompt and msgs for /api/chat. As in
// encodeChatRequest, reasoning goes back only to the endpoint it came from
// (origin) and only for user turns that called tools: "When streaming,
// gather every chunk of thinking, content, and tool_calls, then return
// those fields together with any tool results in the follow-up request"
// (docs/capabilities/tool-calling.mdx, "Tool calling with streaming").
func ollamaMessages(origin, system string, msgs []message.Message) []ollamaMessage {
	out := make([]ollamaMessage, 0, len(msgs)+1)
	if system != "" {
		out = append(out, ollamaMessage{Role: "system", Content: system})
	}
	ti := turns(msgs, origin, 0)
	for i, m := range msgs {
		switch m.Role {
		case message.RoleUser:
			out = append(out, ollamaUser(m))
		case message.RoleTool:
			out = append(out, ollamaMessage{Role: "tool", Content: m.Content, ToolName: m.ToolName, ToolCallID: m.ToolCallID})
		default:
			om := ollamaMessage{Role: "assistant", Content: m.Content}
			if m.Interrupted {
				om.Content += interruptedNote
			}
			if m.Origin == origin && ti.used(i) {
				om.Thinking = m.Reasoning
			}
			for _, tc := range m.ToolCalls {
				var c ollamaToolCall
				c.ID = tc.ID
				c.Function.Name = tc.Name
				c.Function.Arguments = ollamaArgs(tc.Args)
				om.ToolCalls = append(om.ToolCalls, c)
			}
			out = append(out, om)
		}
	}
	return out
}

// OllamaRequest is one /api/chat request to encode.
type OllamaRequest struct {
	Model, System string
	Msgs          []message.Message
	Tools         []byte
	Stream        bool
	Options       RequestOptions
	// Window is the context window to bound the reply by when co sends no
	// num_ctx; Bound the reply's bound (num_predict) for a window and the
	// model's capabilities.
	Window func() int
	Bound  func(window int, caps []string) int
}

// Encode encodes r for p: it asks /api/show for the model's maximum
// context and capabilities (once), and chooses num_ctx and num_predict.
// numCtx is 0 when co could not choose one (no /api/show and no setting):
// Ollama's own default applies then.
func (o *Ollama) Encode(ctx context.Context, p Provider, r OllamaRequest) (body []byte, numCtx, numPredict int, err error) {
	q := p
	q.Model = r.Model
	info := o.Model(ctx, q)
	opts := &ollamaOptions{Temperature: r.Options.Temperature}
	if info.Err == nil || r.Options.OllamaNumCtx > 0 {
		opts.NumCtx = OllamaNumCtx(r.Options.OllamaNumCtx, info.Max)
	}
	window := opts.NumCtx
	if window == 0 {
		window = r.Window()
	}
	// Ollama's own num_predict is -1, "infinite generation" (agent/replybound.go).
	opts.NumPredict = r.Bound(window, info.Caps)
	req := ollamaChatRequest{
		Model:    r.Model,
		Messages: ollamaMessages(p.Origin(), r.System, r.Msgs),
		Tools:    r.Tools,
		Stream:   r.Stream,
		Think:    ollamaThink(r.Model, r.Options.ReasoningEffort, info.Caps),
	}
	if *opts != (ollamaOptions{}) {
		req.Options = opts
	}
	body, err = json.Marshal(req)
	return body, opts.NumCtx, opts.NumPredict, err
}

// LoadedCtx is the context window /api/ps reported for p.Model (AskLoaded),
// and whether it was asked.
func (o *Ollama) LoadedCtx(p Provider) (n int, asked bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, asked = o.ps[OllamaKey(p)]
	return n, asked
}

// AskLoaded asks /api/ps for the context window p.Model runs with (when co
// sent no num_ctx), and keeps the answer for LoadedCtx.
func (o *Ollama) AskLoaded(p Provider) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n, _, err := ollamaLoaded(ctx, o.info, OllamaRoot(p.BaseURL), p.Model)
	o.mu.Lock()
	if o.ps == nil {
		o.ps = map[string]int{}
	}
	if err == nil {
		o.ps[OllamaKey(p)] = n
	}
	o.mu.Unlock()
	return n, err
}

// Start sends body (Encode's) to p's /api/chat as a streaming request;
// onDone, when not nil, runs after the stream's last line.
func (o *Ollama) Start(ctx context.Context, p Provider, body []byte, onDone func()) (Stream, error) {
	resp, err := o.post(ctx, OllamaRoot(p.BaseURL)+"/api/chat", body)
	if err != nil {
		return nil, err
	}
	return &ollamaStream{body: resp.Body, r: bufio.NewReaderSize(resp.Body, 64<<10), onDone: onDone}, nil
}

// post sends body and returns the 200 answer; any other status is an
// *openai.APIError with Ollama's message (a 404 "model 'x' not found" is
// described with `ollama pull NAME` by describeError).
func (o *Ollama) post(ctx context.Context, url string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/x-ndjson")
	resp, err := o.chat.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return nil, &openai.APIError{HTTPStatusCode: resp.StatusCode, Message: PlainError(b)}
	}
	return resp, nil
}

// ollamaLine is one NDJSON line of /api/chat (api/types.go ChatResponse).
type ollamaLine struct {
	Model   string `json:"model"`
	Message *struct {
		Content   string           `json:"content"`
		Thinking  string           `json:"thinking"`
		ToolCalls []ollamaToolCall `json:"tool_calls"`
	} `json:"message"`
	Done            bool   `json:"done"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int    `json:"prompt_eval_count"`
	EvalCount       int    `json:"eval_count"`
	Error           string `json:"error"`
}

// ollamaStream reads /api/chat's NDJSON stream.
type ollamaStream struct {
	body   io.ReadCloser
	r      *bufio.Reader
	calls  int  // tool calls so far: each gets its own index
	called bool // the reply called tools
	done   bool // the done line came
	eof    bool // the body ended
	onDone func()
}

func (s *ollamaStream) Close() { s.body.Close() }

// maxOllamaLine bounds one NDJSON line (a whole tool call can be long).
const maxOllamaLine = 16 << 20

func (s *ollamaStream) Recv() (Chunk, error) {
	for {
		switch {
		case s.done:
			return Chunk{}, io.EOF
		case s.eof:
			// The stream ended without its done line: it was cut short.
			return Chunk{}, io.ErrUnexpectedEOF
		}
		line, err := s.readLine()
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			return Chunk{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return s.decode(line)
	}
}

func (s *ollamaStream) readLine() ([]byte, error) {
	var buf []byte
	for {
		part, err := s.r.ReadSlice('\n')
		buf = append(buf, part...)
		if err == bufio.ErrBufferFull {
			if len(buf) > maxOllamaLine {
				return nil, fmt.Errorf("a line of Ollama's stream is longer than %d bytes", maxOllamaLine)
			}
			continue
		}
		return buf, err
	}
}

func (s *ollamaStream) decode(line []byte) (Chunk, error) {
	var l ollamaLine
	if err := json.Unmarshal(line, &l); err != nil {
		return Chunk{}, err
	}
	if l.Error != "" {
		// docs/api/errors.mdx: an error mid-stream is a line {"error": …}.
		return Chunk{}, fmt.Errorf("Ollama stopped with an error: %s", l.Error)
	}
	c := Chunk{Model: l.Model}
	if m := l.Message; m != nil {
		c.Text = m.Content
		if m.Thinking != "" {
			c.Reasoning, c.Field = m.Thinking, "thinking"
		}
		// Ollama sends each call whole (name and arguments) in one chunk,
		// and older servers number none (function.index is recent): co
		// numbers them itself so the accumulator keeps them apart.
		for _, tc := range m.ToolCalls {
			idx := s.calls
			s.calls++
			s.called = true
			id := tc.ID
			if id == "" {
				id = newCallID()
			}
			args := "{}"
			if a := bytes.TrimSpace(tc.Function.Arguments); len(a) > 0 && !bytes.Equal(a, []byte("null")) {
				args = string(a)
			}
			c.Calls = append(c.Calls, CallDelta{index: &idx, id: id, name: tc.Function.Name, args: args})
		}
	}
	if l.Done {
		s.done = true
		// prompt_eval_count counts the whole prompt, cached or not
		// (docs/providers.md, Ollama), so the summarising threshold
		// compares like with like.
		c.Usage = &message.Usage{InputTokens: l.PromptEvalCount, OutputTokens: l.EvalCount}
		// Ollama ends a tool-calling reply with "stop"; say what the other
		// routes say.
		c.Finish = l.DoneReason
		if s.called && (c.Finish == "" || c.Finish == "stop") {
			c.Finish = "tool_calls"
		} else if c.Finish == "" {
			c.Finish = "stop"
		}
		if f := s.onDone; f != nil {
			// Network I/O: not on the stream's path.
			go func() {
				defer func() { _ = recover() }()
				f()
			}()
		}
	}
	return c, nil
}

// newCallID makes a call id for a call the server sent without one, unique
// in the whole history so that spans, approval decisions and results of
// different turns never share one.
func newCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

// Complete sends body (Encode's, not streaming) to p's /api/chat and
// returns the whole answer (the summariser) and its done_reason ("length"
// when num_predict stopped it).
func (o *Ollama) Complete(ctx context.Context, p Provider, body []byte) (text, finish string, u message.Usage, err error) {
	resp, err := o.post(ctx, OllamaRoot(p.BaseURL)+"/api/chat", body)
	if err != nil {
		return "", "", message.Usage{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxOllamaLine))
	if err != nil {
		return "", "", message.Usage{}, err
	}
	var l ollamaLine
	if err := json.Unmarshal(b, &l); err != nil {
		return "", "", message.Usage{}, err
	}
	if l.Error != "" {
		return "", "", message.Usage{}, fmt.Errorf("Ollama stopped with an error: %s", l.Error)
	}
	u = message.Usage{InputTokens: l.PromptEvalCount, OutputTokens: l.EvalCount}
	if l.Message == nil {
		return "", l.DoneReason, u, nil
	}
	return l.Message.Content, l.DoneReason, u, nil
}

// OllamaInfo is what `co status` shows of Ollama.
type OllamaInfo struct {
	Version string
	// ModelMax is the model's maximum context (/api/show), 0 when unknown;
	// ShowErr says why it is unknown.
	ModelMax int
	ShowErr  error
	// Asked is the num_ctx co sends.
	Asked int
	// Loaded says whether the model is in memory (/api/ps), and LoadedCtx
	// with which context window.
	Loaded    bool
	LoadedCtx int
	// Capabilities are what /api/show lists (nil when unknown).
	Capabilities []string
}

// NoTools reports whether the model takes no tools: /api/show lists its
// capabilities and "tools" is not among them (agent/toolless.go).
func (i OllamaInfo) NoTools() bool {
	return i.ShowErr == nil && len(i.Capabilities) > 0 && !slices.Contains(i.Capabilities, "tools")
}

// ContextLine is the status line of the context window, e.g. "32768
// tokens asked (model max 40960; loaded: 32768)".
func (i OllamaInfo) ContextLine() string {
	var parts []string
	switch {
	case i.ModelMax > 0:
		parts = append(parts, fmt.Sprintf("model max %d", i.ModelMax))
	case i.ShowErr != nil:
		parts = append(parts, "model max unknown: "+i.ShowErr.Error())
	}
	if i.Loaded {
		parts = append(parts, fmt.Sprintf("loaded: %d", i.LoadedCtx))
	} else {
		parts = append(parts, "not loaded")
	}
	return fmt.Sprintf("%d tokens asked (%s)", i.Asked, strings.Join(parts, "; "))
}

// OllamaStatus asks Ollama at p for its version, p.Model's maximum context
// and the context it runs with if loaded, and computes the num_ctx co
// asks for with the setting numCtx. Each question has at most a second;
// err is set when /api/version does not answer (Ollama is not reachable).
func OllamaStatus(ctx context.Context, p Provider, numCtx int, client *http.Client) (OllamaInfo, error) {
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	root := OllamaRoot(p.BaseURL)
	var (
		info            OllamaInfo
		verErr, showErr error
		show            OllamaShow
		wg              sync.WaitGroup
	)
	wg.Add(3)
	go func() { defer wg.Done(); info.Version, verErr = ollamaVersion(ctx, client, root) }()
	go func() { defer wg.Done(); show, showErr = ollamaShow(ctx, client, root, p.Model) }()
	go func() {
		defer wg.Done()
		info.LoadedCtx, info.Loaded, _ = ollamaLoaded(ctx, client, root, p.Model)
	}()
	wg.Wait()
	if verErr != nil {
		return info, verErr
	}
	info.ModelMax, info.ShowErr, info.Capabilities = show.MaxContext, showErr, show.Capabilities
	var apiErr *openai.APIError
	if errors.As(showErr, &apiErr) && apiErr.HTTPStatusCode == http.StatusNotFound {
		info.ShowErr = fmt.Errorf("%s (pull it with `ollama pull %s`)", apiErr.Message, p.Model)
	}
	info.Asked = OllamaNumCtx(numCtx, info.ModelMax)
	return info, nil
}
