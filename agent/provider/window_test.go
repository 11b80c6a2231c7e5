package provider

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// llama.cpp's context 400 gives the numbers in its fields and its words;
// either is enough, and both say it is llama.cpp.
func TestAsContextExceededReadsLlamaCpp(t *testing.T) {
	body := `{"error":{"code":400,"message":"request (2172 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":2172,"n_ctx":2048}}`
	for name, err := range map[string]error{
		"undecoded body": &openai.RequestError{HTTPStatusCode: 400, Body: []byte(body)},
		"the fields alone": &openai.RequestError{HTTPStatusCode: 400,
			Body: []byte(`{"error":{"code":400,"message":"too long","type":"exceed_context_size_error","n_prompt_tokens":2172,"n_ctx":2048}}`)},
		"go-openai's APIError": &openai.APIError{HTTPStatusCode: 400, Type: "exceed_context_size_error",
			Message: "request (2172 tokens) exceeds the available context size (2048 tokens), try increasing it"},
	} {
		ce, ok := AsContextExceeded(err)
		if !ok || ce.Sent != 2172 || ce.Window != 2048 || !ce.LlamaCpp {
			t.Errorf("%s: %+v %v", name, ce, ok)
		}
	}
	ce, ok := AsContextExceeded(&openai.APIError{HTTPStatusCode: 400, Code: "context_length_exceeded",
		Message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."})
	if !ok || ce.Sent != 9000 || ce.Window != 8192 || ce.LlamaCpp {
		t.Errorf("OpenAI: %+v %v", ce, ok)
	}
}

// llama-server's refusal of tools without --jinja, in either error type;
// Ollama's "does not support tools" is another matter.
func TestToolsNeedJinja(t *testing.T) {
	for _, err := range []error{
		&openai.APIError{HTTPStatusCode: 500, Type: "server_error", Message: "tools param requires --jinja flag"},
		&openai.RequestError{HTTPStatusCode: 500, Body: []byte(`{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`)},
		&openai.APIError{HTTPStatusCode: 500, Type: "server_error", Message: "Unsupported param: tools"},
	} {
		if msg, ok := ToolsNeedJinja(err); !ok || msg == "" {
			t.Errorf("%v: not recognised", err)
		}
	}
	for _, err := range []error{
		&openai.APIError{HTTPStatusCode: 400, Message: "registry.ollama.ai/library/tiny:latest does not support tools"},
		&openai.APIError{HTTPStatusCode: 500, Message: "no slot available"},
		errors.New("tools param requires --jinja flag"), // no HTTP answer
	} {
		if _, ok := ToolsNeedJinja(err); ok {
			t.Errorf("%v: taken for the --jinja refusal", err)
		}
	}
}

// The retry policy waits out a 500, but not llama-server's refusal of
// tools without --jinja: asking again cannot help.
func TestRetryLeavesTheJinjaRefusal(t *testing.T) {
	var hits atomic.Int32
	var jinja atomic.Bool
	jinja.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		msg := "slot unavailable"
		if jinja.Load() {
			msg = "tools param requires --jinja flag"
		}
		_, _ = w.Write([]byte(`{"error":{"code":500,"message":"` + msg + `","type":"server_error"}}`))
	}))
	defer srv.Close()
	c := retryClient()
	resp := post(t, c, srv.URL)
	if resp.StatusCode != 500 || hits.Load() != 1 {
		t.Fatalf("the --jinja refusal: status %d after %d requests", resp.StatusCode, hits.Load())
	}
	jinja.Store(false)
	post(t, c, srv.URL)
	if hits.Load() != 1+3 {
		t.Fatalf("another 500: %d requests in all, want 1 + 3 attempts", hits.Load())
	}
}

// llama.cpp's 500 when the slot's context fills up is a request over the
// window, not a server fault: it is not asked again as it is, and the
// turn's retry with less (turn.go) takes it. The body is the one llama.cpp
// and LM Studio send (errors.go, contextFull).
func TestContextFullIsNotRetried(t *testing.T) {
	body := `{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}`
	for name, err := range map[string]error{
		"undecoded body":       &openai.RequestError{HTTPStatusCode: 500, Body: []byte(body)},
		"go-openai's APIError": &openai.APIError{HTTPStatusCode: 500, Type: "server_error", Message: "Context size has been exceeded."},
	} {
		ce, ok := AsContextExceeded(err)
		if !ok || !ce.LlamaCpp || ce.Sent != 0 || ce.Window != 0 {
			t.Errorf("%s: %+v %v", name, ce, ok)
		}
		if Unreachable(err) {
			t.Errorf("%s: taken for an unreachable model (a scheduled run would ask again)", name)
		}
	}
	if _, ok := AsContextExceeded(&openai.APIError{HTTPStatusCode: 500, Message: "no slot available"}); ok {
		t.Error("another 500 taken for a full context")
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	c := retryClient()
	resp := post(t, c, srv.URL)
	if resp.StatusCode != 500 || hits.Load() != 1 {
		t.Fatalf("a full context: status %d after %d requests, want one", resp.StatusCode, hits.Load())
	}
}

// retryClient is a client through the retry policy's transport, 3 attempts
// with no wait between them.
func retryClient() *http.Client {
	rp := RetryPolicy{Attempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
	return &http.Client{Transport: &retryTransport{next: http.DefaultTransport, policy: rp.withDefaults()}}
}

// post sends one request through c and closes the answer's body.
func post(t *testing.T, c *http.Client, url string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}
