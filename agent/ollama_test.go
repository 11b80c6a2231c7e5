package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// fakeOllama imitates Ollama's native API as its documentation and source
// describe it (ollama/ollama docs/api.md, docs/api/errors.mdx,
// api/types.go, server/routes.go):
//   - GET /api/version → {"version": "…"}
//   - GET /api/tags → {"models": [{"name": …}]}
//   - POST /api/show {"model"} → model_info with "general.architecture"
//     and "<arch>.context_length", capabilities; 404 {"error": "model 'x'
//     not found"} for an unknown model
//   - GET /api/ps → {"models": [{"name", "context_length"}]}
//   - POST /api/chat → NDJSON lines, the last with "done": true; 404 for an
//     unknown model; 400 "%q does not support thinking" for "think": true
//     to a model without the thinking capability; with "stream": false one
//     object.
type fakeOllama struct {
	*httptest.Server
	mu        sync.Mutex
	models    map[string]fakeModel
	showFails int // status /api/show answers instead, when not 0
	shows     int
	chats     [][]byte   // the /api/chat bodies
	replies   [][]string // NDJSON lines, one list per /api/chat request
	loaded    string
	loadedCtx int
}

type fakeModel struct {
	max  int
	caps []string
}

func newFakeOllama(t *testing.T) *fakeOllama {
	t.Helper()
	f := &fakeOllama{models: map[string]fakeModel{
		"qwen3:8b":      {max: 40960, caps: []string{"completion", "tools", "thinking"}},
		"llama3.2:3b":   {max: 131072, caps: []string{"completion", "tools"}},
		"smol:1b":       {max: 16384, caps: []string{"completion", "tools"}},
		"gpt-oss:20b":   {max: 131072, caps: []string{"completion", "tools", "thinking"}},
		"nomic-embed:1": {max: 2048, caps: []string{"embedding"}},
	}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		writeJSONBody(w, 200, map[string]string{"version": "0.12.6"})
	})
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, _ *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		var list []map[string]string
		for name := range f.models {
			list = append(list, map[string]string{"name": name, "model": name})
		}
		writeJSONBody(w, 200, map[string]any{"models": list})
	})
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Model string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.shows++
		if f.showFails != 0 {
			writeJSONBody(w, f.showFails, map[string]string{"error": "show is broken"})
			return
		}
		m, ok := f.models[req.Model]
		if !ok {
			writeJSONBody(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", req.Model)})
			return
		}
		arch := strings.SplitN(req.Model, ":", 2)[0]
		writeJSONBody(w, 200, map[string]any{
			"model_info":   map[string]any{"general.architecture": arch, arch + ".context_length": m.max, arch + ".block_count": 36},
			"capabilities": m.caps,
		})
	})
	mux.HandleFunc("GET /api/ps", func(w http.ResponseWriter, _ *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		list := []map[string]any{}
		if f.loaded != "" {
			list = append(list, map[string]any{"name": f.loaded, "model": f.loaded, "context_length": f.loadedCtx})
		}
		writeJSONBody(w, 200, map[string]any{"models": list})
	})
	mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model   string
			Stream  *bool
			Think   json.RawMessage
			Options struct {
				NumCtx int `json:"num_ctx"`
			}
		}
		_ = json.Unmarshal(body, &req)
		f.mu.Lock()
		f.chats = append(f.chats, body)
		m, known := f.models[req.Model]
		var lines []string
		if len(f.replies) > 0 {
			lines, f.replies = f.replies[0], f.replies[1:]
		}
		if known {
			f.loaded, f.loadedCtx = req.Model, req.Options.NumCtx
			if f.loadedCtx == 0 {
				f.loadedCtx = 4096 // Ollama's default below 24 GiB of VRAM (docs/context-length.mdx)
			}
			f.loadedCtx = min(f.loadedCtx, m.max)
		}
		f.mu.Unlock()
		switch {
		case !known:
			writeJSONBody(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", req.Model)})
			return
		case string(req.Think) == "true" && !slices.Contains(m.caps, "thinking"):
			writeJSONBody(w, 400, map[string]string{"error": fmt.Sprintf("%q does not support thinking", req.Model)})
			return
		case lines == nil:
			writeJSONBody(w, 500, map[string]string{"error": "no scripted reply"})
			return
		}
		if req.Stream != nil && !*req.Stream {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, lines[0]) // the client sees a failed write
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, l := range lines {
			_, _ = io.WriteString(w, l+"\n") // the client sees a failed write
			w.(http.Flusher).Flush()
		}
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

func writeJSONBody(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client sees a failed write
}

func (f *fakeOllama) script(replies ...[]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies = append(f.replies, replies...)
}

// chat returns /api/chat request i, decoded.
func (f *fakeOllama) chat(t *testing.T, i int) map[string]any {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.chats) {
		t.Fatalf("only %d /api/chat requests", len(f.chats))
	}
	var m map[string]any
	if err := json.Unmarshal(f.chats[i], &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Lines in the shape of docs/api.md's "Chat request (Streaming)" and
// "(Streaming with tools)" examples.
func oLine(model, content, thinking string, calls ...string) string {
	msg := map[string]any{"role": "assistant", "content": content}
	if thinking != "" {
		msg["thinking"] = thinking
	}
	if len(calls) > 0 {
		var tc []json.RawMessage
		for _, c := range calls {
			tc = append(tc, json.RawMessage(c))
		}
		msg["tool_calls"] = tc
	}
	b, _ := json.Marshal(map[string]any{"model": model, "created_at": "2025-07-07T20:22:19.184789Z", "message": msg, "done": false})
	return string(b)
}

func oDone(model, reason string, in, out int) string {
	b, _ := json.Marshal(map[string]any{"model": model, "created_at": "2025-07-07T20:22:19.19314Z",
		"message": map[string]any{"role": "assistant", "content": ""}, "done": true, "done_reason": reason,
		"total_duration": 182242375, "prompt_eval_count": in, "eval_count": out})
	return string(b)
}

func newOllamaAgent(t *testing.T, f *fakeOllama, model string, mod func(*agent.Config)) *agent.Agent {
	t.Helper()
	reg, err := tools.NewRegistry(echoTool{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := agent.Config{
		Provider:     provider.Provider{Name: "ollama", BaseURL: f.URL + "/v1", APIKey: "ollama", Model: model},
		SystemPrompt: "You are a test.",
		Tools:        reg,
		Approvals:    agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		ToolRetries:  3,
		Retry:        provider.RetryPolicy{Base: 10 * time.Millisecond},
		StallTimeout: 5 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	return agent.New(cfg)
}

func reasoningText(evs []agent.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if d, ok := ev.(agent.ReasoningDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func TestOllamaToolTurnWithThinking(t *testing.T) {
	f := newFakeOllama(t)
	const m = "qwen3:8b"
	f.script(
		[]string{
			oLine(m, "", "I should "),
			oLine(m, "", "echo it."),
			oLine(m, "", "", `{"function":{"name":"echo_text","arguments":{"text":"hi"}}}`),
			oDone(m, "stop", 120, 15),
		},
		[]string{
			oLine(m, "", "It echoed."),
			oLine(m, "It said ", ""),
			oLine(m, "hi.", ""),
			oDone(m, "stop", 160, 8),
		},
	)
	ag := newOllamaAgent(t, f, m, nil)
	evs := run(t, context.Background(), ag, "echo hi", nil)
	fin := finished(t, evs)
	if got := text(evs); got != "It said hi." {
		t.Fatalf("text = %q", got)
	}
	if got := reasoningText(evs); got != "I should echo it.It echoed." {
		t.Fatalf("reasoning = %q", got)
	}
	cs := calls(evs)
	if len(cs) != 1 || cs[0].Name != "echo_text" || cs[0].Status != message.CallDone {
		t.Fatalf("calls = %+v", cs)
	}
	if fin.Usage.InputTokens != 280 || fin.Usage.OutputTokens != 23 {
		t.Fatalf("usage = %+v", fin.Usage)
	}

	h := ag.History()
	if len(h) != 4 {
		t.Fatalf("history has %d messages: %+v", len(h), h)
	}
	step := h[1]
	if step.Reasoning != "I should echo it." || step.ReasoningField != "thinking" || len(step.ToolCalls) != 1 ||
		step.ToolCalls[0].Args != `{"text":"hi"}` || step.ToolCalls[0].ID == "" {
		t.Fatalf("tool step kept as %+v", step)
	}
	if h[2].Role != message.RoleTool || h[2].ToolCallID != step.ToolCalls[0].ID || h[2].ToolName != "echo_text" {
		t.Fatalf("tool result kept as %+v", h[2])
	}
	if h[3].Reasoning != "It echoed." || h[3].ReasoningField != "thinking" {
		t.Fatalf("answer kept as %+v", h[3])
	}

	// The second request carries the step back whole: thinking, the call
	// with its arguments as an object, the result with tool_name.
	req := f.chat(t, 1)
	if req["stream"] != true || req["think"] != true || req["model"] != m {
		t.Fatalf("stream/think/model: %v %v %v", req["stream"], req["think"], req["model"])
	}
	if n := req["options"].(map[string]any)["num_ctx"]; n != float64(32768) {
		t.Fatalf("num_ctx = %v, want 32768 (min of 32768 and the model's 40960)", n)
	}
	toolsSent := req["tools"].([]any)
	if fn := toolsSent[0].(map[string]any)["function"].(map[string]any); fn["name"] != "echo_text" || fn["parameters"] == nil {
		t.Fatalf("tools = %v", toolsSent)
	}
	msgs := req["messages"].([]any)
	if len(msgs) != 4 {
		t.Fatalf("messages = %v", msgs)
	}
	sys, asst, tool := msgs[0].(map[string]any), msgs[2].(map[string]any), msgs[3].(map[string]any)
	if sys["role"] != "system" || sys["content"] != "You are a test." {
		t.Fatalf("system = %v", sys)
	}
	if asst["thinking"] != "I should echo it." {
		t.Fatalf("thinking not sent back for the tool turn: %v", asst)
	}
	call := asst["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if args, ok := call["arguments"].(map[string]any); !ok || args["text"] != "hi" || call["name"] != "echo_text" {
		t.Fatalf("call sent back as %v", call)
	}
	if tool["role"] != "tool" || tool["tool_name"] != "echo_text" || !strings.Contains(tool["content"].(string), "echo: hi") {
		t.Fatalf("tool result sent as %v", tool)
	}
	if w := ag.ContextWindow(); w != 32768 {
		t.Fatalf("ContextWindow = %d", w)
	}
	f.mu.Lock()
	shows := f.shows
	f.mu.Unlock()
	if shows != 1 {
		t.Fatalf("/api/show asked %d times, want once", shows)
	}
}

func TestOllamaTwoCallsWithoutIndexOrID(t *testing.T) {
	f := newFakeOllama(t)
	const m = "llama3.2:3b"
	call := `{"function":{"name":"echo_text","arguments":{"text":"%s"}}}`
	f.script(
		[]string{
			oLine(m, "", "", fmt.Sprintf(call, "a")),
			oLine(m, "", "", fmt.Sprintf(call, "b"), fmt.Sprintf(call, "c")),
			oDone(m, "stop", 10, 5),
		},
		[]string{oLine(m, "done", ""), oDone(m, "stop", 10, 1)},
	)
	ag := newOllamaAgent(t, f, m, nil)
	evs := run(t, context.Background(), ag, "three echoes", nil)
	finished(t, evs)
	cs := calls(evs)
	if len(cs) != 3 {
		t.Fatalf("calls = %+v", cs)
	}
	ids := map[string]bool{}
	for _, c := range cs {
		ids[c.CallID] = true
	}
	if len(ids) != 3 {
		t.Fatalf("call ids not distinct: %+v", cs)
	}
	// No thinking capability: no "think" (Ollama answers 400 to true).
	if _, ok := f.chat(t, 0)["think"]; ok {
		t.Fatal("think sent to a model that cannot think")
	}
}

func TestOllamaNumCtx(t *testing.T) {
	for _, tc := range []struct {
		name    string
		model   string
		setting int
		want    int
	}{
		{"default below the model's max", "qwen3:8b", 0, 32768},
		{"model max below the default", "smol:1b", 0, 16384},
		{"setting", "qwen3:8b", 8192, 8192},
		{"setting capped at the model's max", "qwen3:8b", 100000, 40960},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOllama(t)
			f.script([]string{oLine(tc.model, "ok", ""), oDone(tc.model, "stop", 10, 1)})
			ag := newOllamaAgent(t, f, tc.model, func(c *agent.Config) { c.Request.OllamaNumCtx = tc.setting })
			finished(t, run(t, context.Background(), ag, "hi", nil))
			if n := f.chat(t, 0)["options"].(map[string]any)["num_ctx"]; n != float64(tc.want) {
				t.Fatalf("num_ctx = %v, want %d", n, tc.want)
			}
			if w := ag.ContextWindow(); w != tc.want {
				t.Fatalf("ContextWindow = %d, want %d", w, tc.want)
			}
		})
	}
}

func TestOllamaShowFailsStillChats(t *testing.T) {
	f := newFakeOllama(t)
	f.showFails = http.StatusInternalServerError
	const m = "qwen3:8b"
	f.script([]string{oLine(m, "ok", ""), oDone(m, "stop", 10, 1)}, []string{oLine(m, "ok", ""), oDone(m, "stop", 10, 1)})
	ag := newOllamaAgent(t, f, m, nil)
	finished(t, run(t, context.Background(), ag, "hi", nil))
	req := f.chat(t, 0)
	// No num_ctx without knowing the model; the reply's bound all the
	// same (Ollama's own num_predict is -1, endless: replybound.go).
	if opts, _ := req["options"].(map[string]any); opts["num_ctx"] != nil || opts["num_predict"] == nil {
		t.Fatalf("options sent without knowing the model: %v", req["options"])
	}
	if _, ok := req["think"]; ok {
		t.Fatal("think sent without knowing the model's capabilities")
	}
	// Ollama's own default is in force; /api/ps, asked in the background
	// once the reply is in, says which.
	deadline := time.Now().Add(60 * time.Second) // a hang detector, not a measure
	for ag.ContextWindow() != 4096 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if w := ag.ContextWindow(); w != 4096 {
		t.Fatalf("ContextWindow = %d, want /api/ps's 4096", w)
	}
	finished(t, run(t, context.Background(), ag, "again", nil))
	f.mu.Lock()
	shows := f.shows
	f.mu.Unlock()
	if shows != 1 {
		t.Fatalf("a failing /api/show (500) was asked %d times", shows)
	}
}

func TestOllamaGptOssTakesAThinkingLevel(t *testing.T) {
	f := newFakeOllama(t)
	const m = "gpt-oss:20b"
	f.script([]string{oLine(m, "", "hmm"), oLine(m, "ok", ""), oDone(m, "stop", 10, 1)})
	ag := newOllamaAgent(t, f, m, func(c *agent.Config) {
		c.Request.ReasoningEffort = "high"
		c.Request.MaxTokens = 500
	})
	finished(t, run(t, context.Background(), ag, "hi", nil))
	req := f.chat(t, 0)
	if req["think"] != "high" {
		t.Fatalf("think = %v", req["think"])
	}
	if n := req["options"].(map[string]any)["num_predict"]; n != float64(500) {
		t.Fatalf("num_predict = %v", n)
	}
}

func TestOllamaUnknownModelSaysPull(t *testing.T) {
	f := newFakeOllama(t)
	ag := newOllamaAgent(t, f, "nope:1b", nil)
	fail := failed(t, run(t, context.Background(), ag, "hi", nil))
	if !strings.Contains(fail.Message, "ollama pull nope:1b") || !strings.Contains(fail.Message, "404") {
		t.Fatalf("message = %q", fail.Message)
	}
}

func TestOllamaErrorLineMidStream(t *testing.T) {
	f := newFakeOllama(t)
	const m = "llama3.2:3b"
	// docs/api/errors.mdx, "Errors that occur while streaming".
	f.script([]string{oLine(m, "Hel", ""), `{"error":"an error was encountered while running the model"}`})
	ag := newOllamaAgent(t, f, m, nil)
	evs := run(t, context.Background(), ag, "hi", nil)
	fail := failed(t, evs)
	if !strings.Contains(fail.Message, "an error was encountered while running the model") || !strings.Contains(fail.Message, "partial reply is kept") {
		t.Fatalf("message = %q", fail.Message)
	}
	h := ag.History()
	if last := h[len(h)-1]; last.Content != "Hel" || !last.Interrupted {
		t.Fatalf("partial reply kept as %+v", last)
	}
}

func TestOllamaStreamCutShort(t *testing.T) {
	f := newFakeOllama(t)
	const m = "llama3.2:3b"
	f.script([]string{oLine(m, "Hel", "")}) // no done line
	ag := newOllamaAgent(t, f, m, nil)
	fail := failed(t, run(t, context.Background(), ag, "hi", nil))
	if !strings.Contains(fail.Message, "cut in the middle") {
		t.Fatalf("message = %q", fail.Message)
	}
}

func TestOllamaSummaryGoesThroughAPIChat(t *testing.T) {
	f := newFakeOllama(t)
	const m = "llama3.2:3b"
	f.script([]string{`{"model":"llama3.2:3b","message":{"role":"assistant","content":"- a summary"},"done":true,"done_reason":"stop","prompt_eval_count":300,"eval_count":20}`})
	ag := newOllamaAgent(t, f, m, nil)
	ag.SetHistory(longHistory(3))
	if _, err := ag.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	req := f.chat(t, 0)
	if req["stream"] != false || req["options"].(map[string]any)["num_ctx"] != float64(32768) {
		t.Fatalf("summary request: stream %v, options %v", req["stream"], req["options"])
	}
	if h := ag.History(); !strings.Contains(h[0].Content, "- a summary") {
		t.Fatalf("history = %+v", h)
	}
	if u := ag.Usage(); u.InputTokens != 300 {
		t.Fatalf("usage = %+v", u)
	}
}

func TestOllamaProbeByVersion(t *testing.T) {
	f := newFakeOllama(t)
	if !provider.ProbeHTTP(context.Background(), f.URL+"/v1") {
		t.Fatal("Ollama not detected by /api/version")
	}
	// An OpenAI-compatible server that is not Ollama answers /models but
	// has no /api/version.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			writeJSONBody(w, 200, map[string]any{"data": []any{}})
			return
		}
		http.NotFound(w, r)
	}))
	defer other.Close()
	if provider.ProbeHTTP(context.Background(), other.URL+"/v1") {
		t.Fatal("a server without /api/version taken for Ollama")
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	if provider.ProbeHTTP(context.Background(), "http://"+addr+"/v1") {
		t.Fatal("probe of a closed port succeeded")
	}
}

func TestOllamaListModelsByTags(t *testing.T) {
	f := newFakeOllama(t)
	got, err := provider.ListModels(context.Background(), provider.Provider{Name: "ollama", BaseURL: f.URL + "/v1", Model: "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"gpt-oss:20b", "llama3.2:3b", "qwen3:8b", "smol:1b"}
	if !slices.Equal(got, want) {
		t.Fatalf("models = %v, want %v (embeddings left out)", got, want)
	}
}

func TestOllamaStatus(t *testing.T) {
	f := newFakeOllama(t)
	p := provider.Provider{Name: "ollama", BaseURL: f.URL + "/v1", Model: "qwen3:8b"}
	info, err := provider.OllamaStatus(context.Background(), p, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != "0.12.6" || info.ModelMax != 40960 || info.Asked != 32768 || info.Loaded {
		t.Fatalf("info = %+v", info)
	}
	if got := info.ContextLine(); got != "32768 tokens asked (model max 40960; not loaded)" {
		t.Fatalf("line = %q", got)
	}
	f.mu.Lock()
	f.loaded, f.loadedCtx = "qwen3:8b", 32768
	f.mu.Unlock()
	info, _ = provider.OllamaStatus(context.Background(), p, 0, nil)
	if got := info.ContextLine(); got != "32768 tokens asked (model max 40960; loaded: 32768)" {
		t.Fatalf("line = %q", got)
	}

	p.Model = "nope:1b"
	info, err = provider.OllamaStatus(context.Background(), p, 0, nil)
	if err != nil || !strings.Contains(info.ContextLine(), "ollama pull nope:1b") {
		t.Fatalf("unknown model: %v, %q", err, info.ContextLine())
	}

	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	if _, err := provider.OllamaStatus(context.Background(), provider.Provider{Name: "ollama", BaseURL: "http://" + addr + "/v1", Model: "x"}, 0, nil); err == nil {
		t.Fatal("no error from a closed port")
	}
}

// The same turn against llmtest's ollama profile, which imitates
// /api/version, /api/tags, /api/show, /api/ps and /api/chat after
// Ollama's source (see llmtest/ollama.go).
func TestOllamaProfileToolTurn(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama) // qwen3:8b, 40960 tokens, tools and thinking
	if !provider.ProbeHTTP(context.Background(), srv.URL) {
		t.Fatal("the ollama profile is not detected by /api/version")
	}
	p := provider.Provider{Name: "ollama", BaseURL: srv.URL, APIKey: "ollama", Model: "qwen3:8b"}
	if got, err := provider.ListModels(context.Background(), p, nil); err != nil || !slices.Contains(got, "qwen3:8b") {
		t.Fatalf("ListModels = %v, %v", got, err)
	}
	srv.Script(
		llmtest.Reply{Reasoning: "I will echo.", ToolCalls: []llmtest.ToolCall{{Name: "echo_text", Args: `{"text":"hi"}`}}},
		llmtest.Reply{Reasoning: "Done.", Text: "It said hi."},
	)
	reg, _ := tools.NewRegistry(echoTool{})
	ag := agent.New(agent.Config{Provider: p, Tools: reg, SystemPrompt: "You are a test.",
		Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}), StallTimeout: 5 * time.Second})
	evs := run(t, context.Background(), ag, "echo hi", nil)
	finished(t, evs)
	if text(evs) != "It said hi." || reasoningText(evs) != "I will echo.Done." {
		t.Fatalf("text %q, reasoning %q", text(evs), reasoningText(evs))
	}
	if model, n := srv.OllamaLoaded(); model != "qwen3:8b" || n != 32768 {
		t.Fatalf("loaded %q with num_ctx %d, want 32768", model, n)
	}
	if w := ag.ContextWindow(); w != 32768 {
		t.Fatalf("ContextWindow = %d", w)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Path != "/api/chat" {
		t.Fatalf("requests: %d, path %q", len(reqs), reqs[len(reqs)-1].Path)
	}
	var raw struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].Raw, &raw); err != nil {
		t.Fatal(err)
	}
	if th := raw.Messages[2]["thinking"]; th != "I will echo." {
		t.Fatalf("thinking sent back: %v", raw.Messages[2])
	}
	if tn := raw.Messages[3]["tool_name"]; tn != "echo_text" {
		t.Fatalf("tool result: %v", raw.Messages[3])
	}

	ag2 := agent.New(agent.Config{Provider: provider.Provider{Name: "ollama", BaseURL: srv.URL, Model: "nope:1b"}, StallTimeout: 5 * time.Second})
	fail := failed(t, run(t, context.Background(), ag2, "hi", nil))
	if !strings.Contains(fail.Message, "ollama pull nope:1b") {
		t.Fatalf("unknown model: %q", fail.Message)
	}
}
