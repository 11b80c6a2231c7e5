package llmtest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/co-cli/co/agent/llmtest"
)

func ollamaHost(srv *llmtest.Server) string { return strings.TrimSuffix(srv.URL, "/v1") }

// ndjson decodes Ollama's newline-delimited stream.
func ndjson(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestOllamaProbes(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileOllama)
	host := ollamaHost(srv)
	if r := do(t, "GET", host+"/api/version", "", ""); r.status != 200 || strings.TrimSpace(string(r.body)) != `{"version":"0.32.15"}` {
		t.Errorf("version: %d %s", r.status, r.body)
	}
	srv.SetOllamaModels(
		llmtest.OllamaModel{Name: "qwen3:8b", Family: "qwen3", ParameterSize: "8.2B", Quantization: "Q4_K_M", ContextLength: 40960, Capabilities: []string{"completion", "tools", "thinking"}},
		llmtest.OllamaModel{Name: "llama3.2:latest", Family: "llama", ParameterSize: "3.2B", Quantization: "Q4_K_M", ContextLength: 131072, Capabilities: []string{"completion", "tools"}},
	)
	var tags struct {
		Models []struct {
			Name, Model string
			Details     struct {
				Family            string `json:"family"`
				ParameterSize     string `json:"parameter_size"`
				QuantizationLevel string `json:"quantization_level"`
			} `json:"details"`
		} `json:"models"`
	}
	r := do(t, "GET", host+"/api/tags", "", "")
	if err := json.Unmarshal(r.body, &tags); err != nil || len(tags.Models) != 2 ||
		tags.Models[1].Model != "llama3.2:latest" || tags.Models[0].Details.ParameterSize != "8.2B" || tags.Models[0].Details.QuantizationLevel != "Q4_K_M" {
		t.Errorf("tags: %s", r.body)
	}

	var show struct {
		ModelInfo    map[string]any `json:"model_info"`
		Capabilities []string       `json:"capabilities"`
	}
	r = do(t, "POST", host+"/api/show", "", `{"model":"qwen3:8b"}`)
	if err := json.Unmarshal(r.body, &show); err != nil || show.ModelInfo["qwen3.context_length"] != 40960.0 ||
		!slices.Equal(show.Capabilities, []string{"completion", "tools", "thinking"}) {
		t.Errorf("show: %s", r.body)
	}
	if r := do(t, "POST", host+"/api/show", "", `{"model":"llama3.2"}`); r.status != 200 {
		t.Errorf("show without tag: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", host+"/api/show", "", `{"model":"nope"}`); r.status != 404 || strings.TrimSpace(string(r.body)) != `{"error":"model 'nope' not found"}` {
		t.Errorf("show unknown: %d %s", r.status, r.body)
	}
	if r := do(t, "GET", host+"/api/ps", "", ""); strings.TrimSpace(string(r.body)) != `{"models":[]}` {
		t.Errorf("ps before any request: %s", r.body)
	}
}

func TestOllamaNativeChatStream(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileOllama)
	srv.Script(llmtest.Reply{Reasoning: "Let me see.", Text: "Reading.", ToolCalls: []llmtest.ToolCall{
		{Name: "read_file", Args: `{"path":"go.mod"}`}, {Name: "list", Args: `{}`},
	}})
	r := do(t, "POST", ollamaHost(srv)+"/api/chat", "", `{"model":"qwen3:8b","think":true,"options":{"num_ctx":8192},
		"messages":[{"role":"user","content":"what module?"}]}`)
	if r.status != 200 || r.header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("%d %v %s", r.status, r.header, r.body)
	}
	lines := ndjson(t, r.body)
	var thinking, content string
	var calls []any
	for _, l := range lines[:len(lines)-1] {
		if l["done"] != false || l["model"] != "qwen3:8b" || l["created_at"] == nil {
			t.Errorf("line %v", l)
		}
		m := l["message"].(map[string]any)
		if s, ok := m["thinking"].(string); ok {
			thinking += s
		}
		content += m["content"].(string)
		if tc, ok := m["tool_calls"].([]any); ok {
			calls = append(calls, tc...)
		}
	}
	if thinking != "Let me see." || content != "Reading." || len(calls) != 2 {
		t.Fatalf("thinking %q content %q calls %v", thinking, content, calls)
	}
	c1 := calls[1].(map[string]any)
	fn := c1["function"].(map[string]any)
	if !strings.HasPrefix(c1["id"].(string), "call_") || fn["index"] != 1.0 || fn["name"] != "list" {
		t.Errorf("call %v", c1)
	}
	if args, ok := calls[0].(map[string]any)["function"].(map[string]any)["arguments"].(map[string]any); !ok || args["path"] != "go.mod" {
		t.Errorf("arguments are not an object: %v", calls[0])
	}
	last := lines[len(lines)-1]
	if last["done"] != true || last["done_reason"] != "stop" || last["prompt_eval_count"] == nil || last["eval_count"] == nil {
		t.Errorf("last line %v", last)
	}

	if name, ctx := srv.OllamaLoaded(); name != "qwen3:8b" || ctx != 8192 {
		t.Errorf("loaded %s %d", name, ctx)
	}
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	r = do(t, "GET", ollamaHost(srv)+"/api/ps", "", "")
	if err := json.Unmarshal(r.body, &ps); err != nil || len(ps.Models) != 1 || ps.Models[0].ContextLength != 8192 {
		t.Errorf("ps: %s", r.body)
	}
	req := srv.Requests()[0]
	if req.LastUserMessage() != "what module?" || !req.Stream || string(req.Fields()["think"]) != "true" {
		t.Errorf("recorded %+v", req)
	}
}

func TestOllamaNativeChatNonStreamedAndThinkOff(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileOllama)
	srv.Script(llmtest.Reply{Reasoning: "hidden", Text: "hi"})
	r := do(t, "POST", ollamaHost(srv)+"/api/chat", "", `{"model":"qwen3:8b","stream":false,"think":false,"messages":[{"role":"user","content":"x"}]}`)
	var resp struct {
		Message struct {
			Content  string  `json:"content"`
			Thinking *string `json:"thinking"`
		} `json:"message"`
		Done bool `json:"done"`
	}
	if err := json.Unmarshal(r.body, &resp); err != nil || !resp.Done || resp.Message.Content != "hi" || resp.Message.Thinking != nil {
		t.Errorf("%d %s", r.status, r.body)
	}
	// num_ctx unset: the default, capped by the model's context.
	if _, ctx := srv.OllamaLoaded(); ctx != 4096 {
		t.Errorf("default num_ctx %d", ctx)
	}
	srv.SetOllamaModels(llmtest.OllamaModel{Name: "tiny:1b", Family: "llama", ContextLength: 2048, Capabilities: []string{"completion"}})
	srv.Script(llmtest.Reply{Text: "ok"})
	do(t, "POST", ollamaHost(srv)+"/api/chat", "", `{"model":"tiny:1b","stream":false,"options":{"num_ctx":65536},"messages":[{"role":"user","content":"x"}]}`)
	if _, ctx := srv.OllamaLoaded(); ctx != 2048 {
		t.Errorf("num_ctx above the model's context: %d", ctx)
	}
}

func TestOllamaNativeChatErrors(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileOllama)
	srv.SetOllamaModels(llmtest.OllamaModel{Name: "llama3.2:latest", Family: "llama", ContextLength: 131072, Capabilities: []string{"completion", "tools"}})
	srv.Script(llmtest.Reply{Text: "kept"})
	r := do(t, "POST", ollamaHost(srv)+"/api/chat", "", `{"model":"qwen3:8b","messages":[{"role":"user","content":"x"}]}`)
	if r.status != 404 || strings.TrimSpace(string(r.body)) != `{"error":"model 'qwen3:8b' not found"}` {
		t.Errorf("unknown model: %d %s", r.status, r.body)
	}
	r = do(t, "POST", ollamaHost(srv)+"/api/chat", "", `{"model":"llama3.2","think":true,"messages":[{"role":"user","content":"x"}]}`)
	if r.status != 400 || strings.TrimSpace(string(r.body)) != `{"error":"\"llama3.2\" does not support thinking"}` {
		t.Errorf("think on a non-thinking model: %d %s", r.status, r.body)
	}
	if srv.Pending() != 1 || len(srv.Requests()) != 2 {
		t.Errorf("pending %d, requests %d", srv.Pending(), len(srv.Requests()))
	}
}

func TestOllamaOpenAILayer(t *testing.T) {
	srv := newProfileServer(t, llmtest.ProfileOllama)
	srv.SetOllamaDefaultContext(2048)
	srv.Script(llmtest.Reply{Reasoning: "hmm", Text: "ok"})
	r := do(t, "POST", srv.URL+"/chat/completions", "", `{"model":"qwen3:8b","stream":true,"messages":[{"role":"user","content":"x"}]}`)
	chunks, _ := sse(t, r.body)
	var reasoning string
	for _, d := range deltas(chunks) {
		if _, ok := d["reasoning_content"]; ok {
			t.Errorf("reasoning_content from ollama: %v", d)
		}
		if s, ok := d["reasoning"].(string); ok {
			reasoning += s
		}
	}
	if reasoning != "hmm" {
		t.Errorf("reasoning %q", reasoning)
	}
	if name, ctx := srv.OllamaLoaded(); name != "qwen3:8b" || ctx != 2048 {
		t.Errorf("/v1 request loaded %s with %d, want the default context", name, ctx)
	}
	_, err := newClient(srv).CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{
		Model: "gpt-4o", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "x"}},
	})
	if err == nil || !strings.Contains(err.Error(), "model 'gpt-4o' not found") {
		t.Errorf("unknown model over /v1: %v", err)
	}
	models, err := newClient(srv).ListModels(t.Context())
	if err != nil || len(models.Models) != 1 || models.Models[0].ID != "qwen3:8b" || models.Models[0].OwnedBy != "library" {
		t.Errorf("models: %v %+v", err, models)
	}
}
