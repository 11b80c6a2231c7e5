package llmtest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

func getBody(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func postBody(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// The llamacpp profile: /props and /v1/models say the window, the model
// name is ignored, and a prompt of n_ctx tokens or more is llama-server's
// 400, body as recorded from b10573.
func TestLlamaCppProfile(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	srv.SetLlamaContext(512)
	host := strings.TrimSuffix(srv.URL, "/v1")

	code, b := getBody(t, host+"/props")
	var props struct {
		Default struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		BuildInfo string `json:"build_info"`
	}
	if code != 200 || json.Unmarshal(b, &props) != nil || props.Default.NCtx != 512 || props.BuildInfo != llmtest.LlamaBuild {
		t.Fatalf("/props: %d %s", code, b)
	}
	code, b = getBody(t, srv.URL+"/models")
	if code != 200 || !bytes.Contains(b, []byte(`"owned_by":"llamacpp"`)) || !bytes.Contains(b, []byte(`"n_ctx":512`)) {
		t.Fatalf("/v1/models: %d %s", code, b)
	}

	srv.Script(llmtest.Reply{Text: "hello"})
	code, b = postBody(t, srv.URL+"/chat/completions", `{"model":"any-name-at-all","messages":[{"role":"user","content":"hi"}]}`)
	if code != 200 || !bytes.Contains(b, []byte("hello")) {
		t.Fatalf("the model name must be ignored: %d %s", code, b)
	}

	long := strings.Repeat("x", 4*600)
	code, b = postBody(t, srv.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"`+long+`"}]}`)
	want := `{"error":{"code":400,"message":"request (600 tokens) exceeds the available context size (512 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":600,"n_ctx":512}}`
	if code != 400 || strings.TrimSpace(string(b)) != want {
		t.Fatalf("over the window: %d %s", code, b)
	}
	// Without --jinja any request with tools is a 500, before the window is
	// even looked at; without tools it is answered.
	srv.SetLlamaNoJinja(true)
	tools := `,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`
	code, b = postBody(t, srv.URL+"/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"`+long+`"}]`+tools+`}`)
	if want := `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`; code != 500 || strings.TrimSpace(string(b)) != want {
		t.Fatalf("tools without --jinja: %d %s", code, b)
	}
	srv.Script(llmtest.Reply{Text: "plain"})
	if code, b = postBody(t, srv.URL+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`); code != 200 || !bytes.Contains(b, []byte("plain")) {
		t.Fatalf("no tools without --jinja: %d %s", code, b)
	}
	srv.SetLlamaNoJinja(false)

	// Another profile does not serve /props.
	srv.SetProfile(llmtest.ProfileVLLM)
	if code, _ := getBody(t, host+"/props"); code != 404 {
		t.Fatalf("/props outside the llamacpp profile: %d", code)
	}
}

// The ollama profile cuts a prompt over num_ctx as Ollama does:
// prompt_eval_count is num_ctx.
func TestOllamaProfileTruncates(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileOllama)
	var log bytes.Buffer
	srv.SetLog(&log)
	host := strings.TrimSuffix(srv.URL, "/v1")
	srv.Script(llmtest.Reply{Text: "cut"}, llmtest.Reply{Text: "whole"})
	long := strings.Repeat("y", 4*3000)
	code, b := postBody(t, host+"/api/chat", `{"model":"qwen3:8b","stream":false,"options":{"num_ctx":2048},"messages":[{"role":"user","content":"`+long+`"}]}`)
	var out struct {
		PromptEvalCount int `json:"prompt_eval_count"`
	}
	if code != 200 || json.Unmarshal(b, &out) != nil || out.PromptEvalCount != 2048 {
		t.Fatalf("truncated: %d %s", code, b)
	}
	if !strings.Contains(log.String(), "truncating input prompt limit=2048 prompt=3000") {
		t.Errorf("log: %s", log.String())
	}
	code, b = postBody(t, host+"/api/chat", `{"model":"qwen3:8b","stream":false,"options":{"num_ctx":2048},"messages":[{"role":"user","content":"short"}]}`)
	if code != 200 || json.Unmarshal(b, &out) != nil || out.PromptEvalCount >= 2048 {
		t.Fatalf("not truncated: %d %s", code, b)
	}
}
