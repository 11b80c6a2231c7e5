package llmtest

// The ollama profile follows Ollama's own source (github.com/ollama/ollama
// at v0.33 pre-releases): api/types.go for the shapes, server/routes.go
// for the handlers and errors, openai/openai.go for the /v1 layer, and
// docs/api.md.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// OllamaModel is a model the ollama profile has "pulled".
type OllamaModel struct {
	// Name is "model:tag", e.g. "qwen3:8b".
	Name string
	// Family is the architecture, e.g. "qwen3"; /api/show reports the
	// context length as model_info["<family>.context_length"].
	Family        string
	ParameterSize string // e.g. "8.2B"
	Quantization  string // e.g. "Q4_K_M"
	Size          int64  // bytes
	// ContextLength is the model's trained context, the cap on num_ctx.
	ContextLength int
	// Capabilities as /api/show lists them: "completion", "tools",
	// "thinking", "vision", ...
	Capabilities []string
}

var defaultOllamaModels = []OllamaModel{{
	Name: "qwen3:8b", Family: "qwen3", ParameterSize: "8.2B", Quantization: "Q4_K_M",
	Size: 5225388164, ContextLength: 40960, Capabilities: []string{"completion", "tools", "thinking"},
}}

// ollamaDefaultContext is the num_ctx Ollama uses when a request sets
// none on a machine with less than 24 GiB of VRAM (server/routes.go:
// defaultNumCtx 4096 / 32768 / 262144 by VRAM; docs/context-length.mdx).
const ollamaDefaultContext = 4096

type ollamaState struct {
	models     []OllamaModel
	version    string
	defaultCtx int
	loaded     string // model loaded by the last request
	loadedCtx  int    // its num_ctx in force
	loadedAt   time.Time
}

// SetOllamaModels sets the models the ollama profile serves (/api/tags,
// /api/show, /api/chat and /v1). The default is qwen3:8b with a 40960
// context and completion, tools and thinking.
func (s *Server) SetOllamaModels(models ...OllamaModel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ollama.models = slices.Clone(models)
	if s.profile == ProfileOllama {
		s.models = nil
		for _, m := range models {
			s.models = append(s.models, m.Name)
		}
	}
}

// SetOllamaVersion sets what GET /api/version answers; default "0.32.15".
func (s *Server) SetOllamaVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ollama.version = v
}

// SetOllamaDefaultContext sets the num_ctx the ollama profile uses when a
// request sets none (Ollama's OLLAMA_CONTEXT_LENGTH); default 4096.
func (s *Server) SetOllamaDefaultContext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ollama.defaultCtx = n
}

// OllamaLoaded returns the model the ollama profile has loaded and the
// num_ctx in force, as GET /api/ps reports them; "" when none is.
func (s *Server) OllamaLoaded() (model string, numCtx int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ollama.loaded, s.ollama.loadedCtx
}

// ollamaFind returns the model named name; a name without a tag means
// ":latest" (docs/api.md, "Model names").
func (s *Server) ollamaFind(name string) (OllamaModel, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.ollama.models {
		if m.Name == name || (!strings.Contains(name, ":") && m.Name == name+":latest") {
			return m, true
		}
	}
	return OllamaModel{}, false
}

// ollamaLoad records that m runs with the requested num_ctx (0: the
// default), capped at the model's context as Ollama does
// (server/routes.go: "if opts.NumCtx > ctxLen { copied.NumCtx = ctxLen }").
func (s *Server) ollamaLoad(m OllamaModel, numCtx int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if numCtx <= 0 {
		numCtx = s.ollama.defaultCtx
		if numCtx <= 0 {
			numCtx = ollamaDefaultContext
		}
	}
	if m.ContextLength > 0 {
		numCtx = min(numCtx, m.ContextLength)
	}
	s.ollama.loaded, s.ollama.loadedCtx, s.ollama.loadedAt = m.Name, numCtx, time.Now()
}

func ollamaDetails(m OllamaModel) map[string]any {
	return map[string]any{
		"parent_model":       "",
		"format":             "gguf",
		"family":             m.Family,
		"families":           []string{m.Family},
		"parameter_size":     m.ParameterSize,
		"quantization_level": m.Quantization,
	}
}

func ollamaDigest(m OllamaModel) string {
	return fmt.Sprintf("%064x", len(m.Name)*7919+int(m.Size%1000003))
}

func ollamaErr(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// handleTags answers GET /api/tags: nothing without a profile (the probe
// co makes), the models with the ollama profile (api/types.go
// ListModelResponse).
func (s *Server) handleTags(w http.ResponseWriter, _ *http.Request) {
	if s.Profile() != ProfileOllama {
		writeJSON(w, http.StatusOK, map[string][]any{"models": {}})
		return
	}
	s.mu.Lock()
	models := slices.Clone(s.ollama.models)
	s.mu.Unlock()
	list := []any{}
	for _, m := range models {
		list = append(list, map[string]any{
			"name":        m.Name,
			"model":       m.Name,
			"modified_at": "2026-08-01T10:00:00.000000000Z",
			"size":        m.Size,
			"digest":      ollamaDigest(m),
			"details":     ollamaDetails(m),
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": list})
}

// handleOllamaVersion answers GET /api/version: {"version": "..."}
// (server/routes.go).
func (s *Server) handleOllamaVersion(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	v := s.ollama.version
	s.mu.Unlock()
	if v == "" {
		v = "0.32.15"
	}
	writeJSON(w, http.StatusOK, map[string]string{"version": v})
}

// handleOllamaShow answers POST /api/show {"model": ...}: details,
// model_info with "<arch>.context_length" and capabilities
// (server/routes.go ShowHandler/GetModelInfo), or 404 {"error":"model
// 'x' not found"}.
func (s *Server) handleOllamaShow(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"` // deprecated spelling, still read
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		ollamaErr(w, http.StatusBadRequest, err.Error())
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	m, ok := s.ollamaFind(name)
	if !ok {
		ollamaErr(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"modelfile":  "# Modelfile generated by \"ollama show\"\nFROM " + m.Name + "\n",
		"parameters": "stop                           \"<|im_end|>\"",
		"template":   "{{ .Prompt }}",
		"details":    ollamaDetails(m),
		"model_info": map[string]any{
			"general.architecture":       m.Family,
			"general.parameter_count":    0,
			m.Family + ".context_length": m.ContextLength,
		},
		"capabilities": m.Capabilities,
		"modified_at":  "2026-08-01T10:00:00.000000000Z",
	})
}

// handleOllamaPS answers GET /api/ps: the loaded model with the
// context_length in force (api/types.go ProcessModelResponse).
func (s *Server) handleOllamaPS(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	name, numCtx, at := s.ollama.loaded, s.ollama.loadedCtx, s.ollama.loadedAt
	s.mu.Unlock()
	list := []any{}
	if m, ok := s.ollamaFind(name); ok && name != "" {
		list = append(list, map[string]any{
			"name":           m.Name,
			"model":          m.Name,
			"size":           m.Size,
			"digest":         ollamaDigest(m),
			"details":        ollamaDetails(m),
			"expires_at":     at.Add(5 * time.Minute).UTC().Format(time.RFC3339Nano),
			"size_vram":      m.Size,
			"context_length": numCtx,
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": list})
}

// thinkOn reads Ollama's "think": true, false or a level ("low", "medium",
// "high"). unset is reported as set == false.
func thinkOn(raw json.RawMessage) (on, set bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return false, false
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b, true
	}
	var level string
	if json.Unmarshal(raw, &level) == nil {
		return level != "", true
	}
	return false, false
}

// ollamaThinks reports whether Ollama's /v1 layer answers req with
// reasoning: the model has the thinking capability (thinking is then on
// unless turned off: server/routes.go "if req.Think == nil { req.Think =
// true }") and reasoning_effort is not "none" (openai/openai.go
// thinkFromReasoningEffort).
func (s *Server) ollamaThinks(req Request) bool {
	m, ok := s.ollamaFind(req.Body.Model)
	if !ok || !slices.Contains(m.Capabilities, "thinking") {
		return false
	}
	return req.Body.ReasoningEffort != "none"
}

// ollamaFullName is the model's name as Ollama's errors spell it,
// model.ParseName(name).String(): host, namespace and tag filled in with
// the defaults registry.ollama.ai, library and latest (v0.24.0
// types/model/name.go:39-41, String at :212).
func ollamaFullName(name string) string {
	if !strings.Contains(name[strings.LastIndexByte(name, '/')+1:], ":") {
		name += ":latest"
	}
	switch strings.Count(name, "/") {
	case 0:
		return "registry.ollama.ai/library/" + name
	case 1:
		return "registry.ollama.ai/" + name
	}
	return name
}

// ollamaNoTools is Ollama's refusal of tools for a model whose
// capabilities lack "tools": ChatHandler asks for the tools capability when
// len(req.Tools) > 0 (v0.24.0 server/routes.go:2349), scheduleRunner wraps
// CheckCapabilities' error as "%s %w" with the full name
// (server/routes.go:161-162; server/images.go:42,44 "does not support",
// "tools") and handleScheduleError answers 400 (server/routes.go:2715-2718).
// Recorded from a real v0.24.0 (issue 26, docs/recordings/local-servers-2026-11-26.md, capture
// ollama-a-api-chat-tools-notoolmodel.resp):
// 400 {"error":"registry.ollama.ai/library/tiny-chat:latest does not support tools"}.
func ollamaNoTools(m OllamaModel, tools int) string {
	if tools == 0 || slices.Contains(m.Capabilities, "tools") {
		return ""
	}
	return ollamaFullName(m.Name) + " does not support tools"
}

// ollamaOpenAICheck validates a /v1/chat/completions request to Ollama: an
// unknown model is a 404 in the OpenAI shape with type not_found_error
// (openai/openai.go NewError; the message from ChatHandler). A known one
// is loaded with the default context: /v1 cannot set num_ctx.
func (s *Server) ollamaOpenAICheck(req Request) *profileError {
	m, ok := s.ollamaFind(req.Body.Model)
	if !ok {
		msg := fmt.Sprintf("model '%s' not found", req.Body.Model)
		return &profileError{status: http.StatusNotFound, why: msg, body: map[string]any{"error": map[string]any{
			"message": msg, "type": "not_found_error", "param": nil, "code": nil,
		}}}
	}
	if msg := ollamaNoTools(m, len(req.Body.Tools)); msg != "" {
		// The /v1 layer passes ChatHandler's 400 on through NewError:
		// type invalid_request_error (openai/openai.go:218-222). Recorded:
		// docs/recordings/local-servers-2026-11-26.md, capture ollama-a-v1-tools-notoolmodel.resp.
		return &profileError{status: http.StatusBadRequest, why: msg, body: map[string]any{"error": map[string]any{
			"message": msg, "type": "invalid_request_error", "param": nil, "code": nil,
		}}}
	}
	s.ollamaLoad(m, 0)
	return nil
}

// ollamaImages counts the images of msgs (a message's "images": base64
// strings; docs/api.md, "Chat request (with images)").
func ollamaImages(msgs []WireMessage) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Images)
	}
	return n
}

// ollamaChatRequest is the part of POST /api/chat the server reads.
type ollamaChatRequest struct {
	Model    string            `json:"model"`
	Messages []WireMessage     `json:"messages"`
	Stream   *bool             `json:"stream"`
	Think    json.RawMessage   `json:"think"`
	Tools    []json.RawMessage `json:"tools"`
	Options  struct {
		NumCtx     int `json:"num_ctx"`
		NumPredict int `json:"num_predict"`
	} `json:"options"`
}

// handleOllamaChat answers Ollama's native POST /api/chat: NDJSON lines of
// {"model","created_at","message":{...},"done":false} and a last line with
// done true, done_reason and the counts; "stream": false gives one object.
func (s *Server) handleOllamaChat(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		unknownURL(w, r)
		return
	}
	if !s.enter() {
		ollamaErr(w, http.StatusServiceUnavailable, "llmtest: server closed")
		return
	}
	defer s.handlers.Done()

	raw, err := io.ReadAll(r.Body)
	var oreq ollamaChatRequest
	if err == nil {
		err = json.Unmarshal(raw, &oreq)
	}
	req := Request{Raw: raw, Header: r.Header.Clone(), Path: r.URL.Path, Stream: oreq.Stream == nil || *oreq.Stream}
	req.Body.Model = oreq.Model
	req.Body.Stream = req.Stream
	for _, m := range oreq.Messages {
		req.Body.Messages = append(req.Body.Messages, openai.ChatCompletionMessage{
			Role: m.Role, Content: m.Text(), ToolCallID: m.ToolCallID, Name: m.ToolName,
		})
	}

	var (
		status int
		msg    string
	)
	model, known := s.ollamaFind(oreq.Model)
	think, thinkSet := thinkOn(oreq.Think)
	switch {
	case err != nil:
		status, msg = http.StatusBadRequest, err.Error()
	case !known:
		// ChatHandler: c.JSON(404, {"error": "model '%s' not found"}).
		status, msg = http.StatusNotFound, fmt.Sprintf("model '%s' not found", oreq.Model)
	case think && !slices.Contains(model.Capabilities, "thinking"):
		// ChatHandler: "%q does not support thinking" with 400.
		status, msg = http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", oreq.Model)
	case ollamaNoTools(model, len(oreq.Tools)) != "":
		status, msg = http.StatusBadRequest, ollamaNoTools(model, len(oreq.Tools))
	case ollamaImages(oreq.Messages) > 0 && !slices.Contains(model.Capabilities, "vision"):
		// A model without a vision projector fails the request with
		// model.ErrNoVisionModel (ollama/ollama model/model.go: "this
		// model is missing data required for image input"), which
		// clients report arriving as a 500.
		status, msg = http.StatusInternalServerError, "this model is missing data required for image input"
	}
	n, reply, found := s.take(req, status == 0)
	switch {
	case status != 0:
		s.logf("llmtest: #%d ollama /api/chat: %s -> %d\n", n, msg, status)
		ollamaErr(w, status, msg)
		return
	case !found:
		s.logf("llmtest: #%d user=%q -> no scripted reply (500)\n", n, clip(req.LastUserMessage()))
		ollamaErr(w, http.StatusInternalServerError, fmt.Sprintf("llmtest: no scripted reply left for request %d", n))
		return
	}
	if len(oreq.Tools) > 0 {
		reply = ollamaToolParser(reply)
	}
	s.logf("llmtest: #%d ollama stream=%t user=%q -> %s\n", n, req.Stream, clip(req.LastUserMessage()), describe(reply))
	s.ollamaLoad(model, oreq.Options.NumCtx)
	if reply.Endless {
		_, numCtx := s.OllamaLoaded()
		_, prompt := openAIBound(req)
		reply = endlessReply(reply, ollamaBound(oreq.Options.NumPredict, numCtx), prompt)
	}
	// A prompt longer than num_ctx is cut, not refused: Ollama v0.24.0
	// keeps num_keep tokens and the last ones (runner/llamarunner/
	// runner.go:144-153, logging `level=WARN source=runner.go:153
	// msg="truncating input prompt" limit=2048 prompt=3848 keep=4
	// new=2048`) and answers 200 with prompt_eval_count equal to num_ctx
	// (recorded: "prompt_eval_count":2048 with "num_ctx": 2048).
	if _, numCtx := s.OllamaLoaded(); reply.Usage == nil && numCtx > 0 {
		schemas := 0
		for _, t := range oreq.Tools {
			schemas += utf8.RuneCount(t)
		}
		tokens := s.countPrompt(req, (schemas+3)/4)
		u := usage(req, response{reply: reply, text: textChunks(reply, req.LastUserMessage())})
		if tokens > numCtx {
			s.logf("llmtest: #%d ollama: truncating input prompt limit=%d prompt=%d keep=4 new=%d\n", n, numCtx, tokens, numCtx)
			tokens = numCtx
		}
		// prompt_eval_count: the prompt as the model saw it, tools included.
		reply.Usage = &Usage{PromptTokens: tokens, CompletionTokens: u.CompletionTokens}
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if !sleep(r.Context(), reply.Delay) || !wait(r.Context(), reply.Gate) {
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		_, _, m := errorDefaults(reply.Status)
		if reply.ErrorMessage != "" {
			m = reply.ErrorMessage
		}
		ollamaErr(w, reply.Status, m)
		return
	}
	// A thinking model thinks unless "think": false (ChatHandler sets
	// Think to true when unset for models with the capability).
	thinks := slices.Contains(model.Capabilities, "thinking") && (think || !thinkSet)
	s.ollamaRespond(w, r, req, reply, oreq.Model, thinks)
}

// ollamaToolTag is the tool-call tag of the Qwen2.5 template (and of most
// tool templates of Ollama's library), which tools.NewParser finds in the
// template.
const ollamaToolTag = "<tool_call>"

// ollamaToolParser imitates what /api/chat does to a reply's text when the
// request carries tools (v0.24.0 server/routes.go:2588-2612, the
// tools.Parser of tools/tools.go): text before the tag goes out as
// content; from the tag on it is held back until a whole call
// {"name","arguments"} has come, which goes out as a tool call; a call
// still unfinished when the model stops is dropped, since Parser.Content()
// returns "" for a tag that is not "{" or "[" (tools/tools.go:371-382). A
// real v0.24.0 answered a model that wrote `<tool_call>\n{"name":
// "list_directory", "arguments": {"path": ` and stopped with one line,
// {"message":{"role":"assistant","content":""},"done":true,
// "done_reason":"stop",…} (issue 26, docs/recordings/local-servers-2026-11-26.md, capture ollama-chat-malformed.resp);
// without tools the same text came as content
// (docs/recordings/local-servers-2026-11-26.md, capture ollama-chat-malformed-notools.resp).
func ollamaToolParser(r Reply) Reply {
	text := r.Text
	if len(r.Chunks) > 0 {
		text = strings.Join(r.Chunks, "")
	}
	i := strings.Index(text, ollamaToolTag)
	if i < 0 {
		return r
	}
	r.Chunks, r.Echo = nil, false
	r.Text = text[:i]
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	dec := json.NewDecoder(strings.NewReader(text[i+len(ollamaToolTag):]))
	if dec.Decode(&call) == nil && call.Name != "" {
		args := string(call.Arguments)
		if args == "" {
			args = "{}"
		}
		r.ToolCalls = append(r.ToolCalls, ToolCall{Name: call.Name, Args: args})
	}
	return r
}

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Thinking  string           `json:"thinking,omitempty"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
}

// ollamaToolCall is api.ToolCall: the index is inside function and the
// arguments are an object.
type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int             `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type ollamaChatLine struct {
	Model              string        `json:"model"`
	CreatedAt          string        `json:"created_at"`
	Message            ollamaMessage `json:"message"`
	Done               bool          `json:"done"`
	DoneReason         string        `json:"done_reason,omitempty"`
	TotalDuration      int64         `json:"total_duration,omitempty"`
	LoadDuration       int64         `json:"load_duration,omitempty"`
	PromptEvalCount    int           `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration int64         `json:"prompt_eval_duration,omitempty"`
	EvalCount          int           `json:"eval_count,omitempty"`
	EvalDuration       int64         `json:"eval_duration,omitempty"`
}

func (s *Server) ollamaRespond(w http.ResponseWriter, r *http.Request, req Request, reply Reply, model string, thinks bool) {
	resp := response{reply: reply, text: textChunks(reply, req.LastUserMessage())}
	if thinks && reply.Reasoning != "" {
		resp.reasoning = chunkRunes(reply.Reasoning, reply.ChunkSize)
	}
	u := usage(req, resp)
	now := func() string { return time.Now().UTC().Format(time.RFC3339Nano) }
	line := func(m ollamaMessage) ollamaChatLine {
		return ollamaChatLine{Model: model, CreatedAt: now(), Message: m}
	}
	var calls []ollamaToolCall
	for i, c := range reply.ToolCalls {
		var tc ollamaToolCall
		tc.ID = c.ID
		tc.Function.Index, tc.Function.Name = i, c.Name
		tc.Function.Arguments = json.RawMessage(c.Args)
		if a := bytes.TrimSpace([]byte(c.Args)); len(a) == 0 || a[0] != '{' || !json.Valid(a) {
			tc.Function.Arguments = json.RawMessage("{}")
		}
		calls = append(calls, tc)
	}
	final := line(ollamaMessage{Role: "assistant"})
	final.Done = true
	// The native API says "stop" even after tool calls; only the /v1
	// layer turns it into "tool_calls" (openai/openai.go ToChatCompletion).
	final.DoneReason = "stop"
	if reply.FinishReason != "" {
		final.DoneReason = reply.FinishReason
	}
	final.TotalDuration, final.LoadDuration = 1_500_000_000, 20_000_000
	final.PromptEvalCount, final.PromptEvalDuration = u.PromptTokens, 100_000_000
	final.EvalCount, final.EvalDuration = u.CompletionTokens, 1_000_000_000

	if !req.Stream {
		if reply.StallAfter > 0 {
			<-r.Context().Done()
			return
		}
		if reply.DisconnectAfter > 0 {
			disconnect(http.NewResponseController(w))
			return
		}
		final.Message.Content = strings.Join(resp.text, "")
		final.Message.Thinking = strings.Join(resp.reasoning, "")
		final.Message.ToolCalls = calls
		writeJSON(w, http.StatusOK, final)
		return
	}

	var lines []ollamaChatLine
	for _, t := range resp.reasoning {
		lines = append(lines, line(ollamaMessage{Role: "assistant", Thinking: t}))
	}
	for _, t := range resp.text {
		lines = append(lines, line(ollamaMessage{Role: "assistant", Content: t}))
	}
	if len(calls) > 0 {
		lines = append(lines, line(ollamaMessage{Role: "assistant", ToolCalls: calls}))
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	send := func(l ollamaChatLine) bool {
		b, _ := json.Marshal(l)
		if _, err := w.Write(append(b, '\n')); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	for i, l := range lines {
		if reply.StallAfter > 0 && i == reply.StallAfter {
			<-r.Context().Done()
			return
		}
		if reply.DisconnectAfter > 0 && i == reply.DisconnectAfter {
			disconnect(rc)
			return
		}
		if i > 0 && !sleep(r.Context(), reply.ChunkDelay) {
			return
		}
		if !send(l) {
			return
		}
	}
	if reply.Malformed {
		_, _ = w.Write([]byte(`{"model":"` + model + `","message":{"role":"assistant","content":` + "\n"))
		return
	}
	send(final)
}
