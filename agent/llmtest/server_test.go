package llmtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/co-cli/co/agent/llmtest"
)

// newServer starts a server that the test closes.
func newServer(t *testing.T) *llmtest.Server {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	return srv
}

func newClient(srv *llmtest.Server) *openai.Client {
	return openai.NewClientWithConfig(srv.ClientConfig())
}

func chatRequest(user string) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Model: "test",
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "You are a test."},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
	}
}

// streamed is what a client made of one streamed response.
type streamed struct {
	chunks []openai.ChatCompletionStreamResponse
	text   []string // content deltas, in order
	calls  []openai.ToolCall
	finish openai.FinishReason
	usage  *openai.Usage
	err    error // nil when the stream ended with [DONE]
}

func (s streamed) joined() string { return strings.Join(s.text, "") }

// readStream reads a whole stream and accumulates tool-call deltas by index,
// the way an OpenAI client must: the first delta of an index carries the id
// and name, and every delta appends to the arguments.
func readStream(ctx context.Context, t *testing.T, client *openai.Client, req openai.ChatCompletionRequest) streamed {
	t.Helper()
	var out streamed
	stream, err := client.CreateChatCompletionStream(ctx, req)
	if err != nil {
		out.err = err
		return out
	}
	defer stream.Close()
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			out.err = err
			return out
		}
		out.chunks = append(out.chunks, chunk)
		if chunk.Usage != nil {
			out.usage = chunk.Usage
		}
		for _, c := range chunk.Choices {
			if c.Delta.Content != "" {
				out.text = append(out.text, c.Delta.Content)
			}
			if c.FinishReason != "" {
				out.finish = c.FinishReason
			}
			for _, d := range c.Delta.ToolCalls {
				if d.Index == nil {
					t.Fatalf("tool-call delta without index: %+v", d)
				}
				i := *d.Index
				for len(out.calls) <= i {
					out.calls = append(out.calls, openai.ToolCall{})
				}
				acc := &out.calls[i]
				if d.ID != "" {
					if acc.ID != "" {
						t.Errorf("tool call %d: id sent twice", i)
					}
					acc.ID, acc.Type = d.ID, d.Type
				}
				if d.Function.Name != "" {
					if acc.Function.Name != "" {
						t.Errorf("tool call %d: name sent twice", i)
					}
					acc.Function.Name = d.Function.Name
				}
				acc.Function.Arguments += d.Function.Arguments
			}
		}
	}
}

func TestStreamText(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		want  []string
	}{
		{"default chunk size", llmtest.Reply{Text: "Hello, world"}, []string{"Hell", "o, w", "orld"}},
		{"runes not bytes", llmtest.Reply{Text: "héllø wörld", ChunkSize: 3}, []string{"hél", "lø ", "wör", "ld"}},
		{"explicit chunks", llmtest.Reply{Text: "ignored", Chunks: []string{"a", "bc", "d"}}, []string{"a", "bc", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t)
			srv.Script(tt.reply)
			got := readStream(t.Context(), t, newClient(srv), chatRequest("hi"))
			if got.err != nil {
				t.Fatal(got.err)
			}
			if fmt.Sprint(got.text) != fmt.Sprint(tt.want) {
				t.Errorf("chunks = %q, want %q", got.text, tt.want)
			}
			if got.finish != openai.FinishReasonStop {
				t.Errorf("finish = %q, want stop", got.finish)
			}
			if got.chunks[0].Choices[0].Delta.Role != openai.ChatMessageRoleAssistant {
				t.Errorf("first chunk has no assistant role: %+v", got.chunks[0])
			}
			if srv.Pending() != 0 {
				t.Errorf("Pending = %d, want 0", srv.Pending())
			}
		})
	}
}

func TestStreamChunkDelay(t *testing.T) {
	srv := newServer(t)
	srv.Script(llmtest.Reply{Text: "abcdefgh", ChunkSize: 2, ChunkDelay: 20 * time.Millisecond})
	start := time.Now()
	got := readStream(t.Context(), t, newClient(srv), chatRequest("hi"))
	if got.err != nil {
		t.Fatal(got.err)
	}
	if got.joined() != "abcdefgh" {
		t.Errorf("text = %q", got.joined())
	}
	if d := time.Since(start); d < 60*time.Millisecond {
		t.Errorf("4 chunks with 20ms between took %v", d)
	}
}

func TestStreamToolCallSplit(t *testing.T) {
	args := `{"path":"/tmp/some/long/file/name.txt","content":"line one\nline two ünïcode"}`
	srv := newServer(t)
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "write_file", Args: args, Split: 9}}})
	got := readStream(t.Context(), t, newClient(srv), chatRequest("write it"))
	if got.err != nil {
		t.Fatal(got.err)
	}
	if len(got.calls) != 1 {
		t.Fatalf("calls = %+v, want 1", got.calls)
	}
	c := got.calls[0]
	if c.ID != "call_1" || c.Type != openai.ToolTypeFunction || c.Function.Name != "write_file" || c.Function.Arguments != args {
		t.Errorf("call = %+v", c)
	}
	var deltas int
	for _, ch := range got.chunks {
		for _, choice := range ch.Choices {
			deltas += len(choice.Delta.ToolCalls)
		}
	}
	if deltas != 9 {
		t.Errorf("tool-call deltas = %d, want 9", deltas)
	}
	if got.finish != openai.FinishReasonToolCalls {
		t.Errorf("finish = %q, want tool_calls", got.finish)
	}
}

func TestStreamTextThenTwoToolCalls(t *testing.T) {
	srv := newServer(t)
	srv.Script(llmtest.Reply{
		Text: "Let me look.",
		ToolCalls: []llmtest.ToolCall{
			{Name: "read_file", Args: `{"path":"a.go"}`, Split: 2},
			{ID: "call_custom", Name: "shell", Args: `{"command":`, Split: 3}, // invalid on purpose
		},
	})
	got := readStream(t.Context(), t, newClient(srv), chatRequest("look"))
	if got.err != nil {
		t.Fatal(got.err)
	}
	if got.joined() != "Let me look." {
		t.Errorf("text = %q", got.joined())
	}
	want := []openai.ToolCall{
		{ID: "call_1", Type: "function", Function: openai.FunctionCall{Name: "read_file", Arguments: `{"path":"a.go"}`}},
		{ID: "call_custom", Type: "function", Function: openai.FunctionCall{Name: "shell", Arguments: `{"command":`}},
	}
	if fmt.Sprint(got.calls) != fmt.Sprint(want) {
		t.Errorf("calls = %+v\nwant    %+v", got.calls, want)
	}
	// Text comes before the first tool call.
	var sawCall bool
	for _, ch := range got.chunks {
		for _, c := range ch.Choices {
			if len(c.Delta.ToolCalls) > 0 {
				sawCall = true
			}
			if sawCall && c.Delta.Content != "" {
				t.Errorf("text after a tool call: %q", c.Delta.Content)
			}
		}
	}
}

func TestStreamUsage(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		check func(t *testing.T, u *openai.Usage)
	}{
		{"scripted", llmtest.Reply{Text: "hi", Usage: &llmtest.Usage{PromptTokens: 120, CompletionTokens: 7}},
			func(t *testing.T, u *openai.Usage) {
				if u == nil || u.PromptTokens != 120 || u.CompletionTokens != 7 || u.TotalTokens != 127 {
					t.Errorf("usage = %+v", u)
				}
			}},
		{"estimated", llmtest.Reply{Text: "a reply of some length"},
			func(t *testing.T, u *openai.Usage) {
				if u == nil || u.PromptTokens == 0 || u.CompletionTokens == 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
					t.Errorf("usage = %+v", u)
				}
			}},
		{"none", llmtest.Reply{Text: "hi", NoUsage: true},
			func(t *testing.T, u *openai.Usage) {
				if u != nil {
					t.Errorf("usage = %+v, want none", u)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t)
			srv.Script(tt.reply)
			got := readStream(t.Context(), t, newClient(srv), chatRequest("hi"))
			if got.err != nil {
				t.Fatal(got.err)
			}
			tt.check(t, got.usage)
			if got.usage != nil {
				last := got.chunks[len(got.chunks)-1]
				if len(last.Choices) != 0 || last.Usage == nil {
					t.Errorf("usage is not in a last chunk with empty choices: %+v", last)
				}
			}
		})
	}
}

func TestNonStreaming(t *testing.T) {
	srv := newServer(t)
	srv.Script(
		llmtest.Reply{Text: "Plain answer.", Usage: &llmtest.Usage{PromptTokens: 10, CompletionTokens: 3}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "a", Args: `{}`, Split: 4}, {Name: "b", Args: `{"x":1}`}}},
	)
	client := newClient(srv)

	resp, err := client.CreateChatCompletion(t.Context(), chatRequest("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 {
		t.Fatalf("choices = %+v", resp.Choices)
	}
	c := resp.Choices[0]
	if c.Message.Role != "assistant" || c.Message.Content != "Plain answer." || c.FinishReason != openai.FinishReasonStop {
		t.Errorf("choice = %+v", c)
	}
	if resp.Usage.PromptTokens != 10 || resp.Usage.CompletionTokens != 3 || resp.Usage.TotalTokens != 13 {
		t.Errorf("usage = %+v", resp.Usage)
	}

	resp, err = client.CreateChatCompletion(t.Context(), chatRequest("tools"))
	if err != nil {
		t.Fatal(err)
	}
	c = resp.Choices[0]
	want := []openai.ToolCall{
		{ID: "call_1", Type: "function", Function: openai.FunctionCall{Name: "a", Arguments: `{}`}},
		{ID: "call_2", Type: "function", Function: openai.FunctionCall{Name: "b", Arguments: `{"x":1}`}},
	}
	if fmt.Sprint(c.Message.ToolCalls) != fmt.Sprint(want) || c.FinishReason != openai.FinishReasonToolCalls {
		t.Errorf("choice = %+v", c)
	}
	if resp.Usage.TotalTokens == 0 {
		t.Errorf("no estimated usage: %+v", resp.Usage)
	}
	if reqs := srv.Requests(); reqs[0].Stream || reqs[1].Stream {
		t.Errorf("requests recorded as streaming")
	}
}

// headerRecorder is an http.Client transport that keeps the last response's
// header, which go-openai's errors do not carry.
type headerRecorder struct {
	mu     sync.Mutex
	header http.Header
}

func (h *headerRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		h.mu.Lock()
		h.header = resp.Header.Clone()
		h.mu.Unlock()
	}
	return resp, err
}

func (h *headerRecorder) get(key string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.header.Get(key)
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name       string
		reply      llmtest.Reply
		wantHeader map[string]string
		wantType   string
		wantMsg    string
	}{
		{name: "401", reply: llmtest.Reply{Status: 401}, wantType: "invalid_request_error", wantMsg: "Incorrect API key"},
		{name: "429 with Retry-After",
			reply:      llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, ErrorMessage: "slow down"},
			wantHeader: map[string]string{"Retry-After": "7"}, wantType: "requests", wantMsg: "slow down"},
		{name: "500", reply: llmtest.Reply{Status: 500}, wantType: "server_error", wantMsg: "server had an error"},
		{name: "custom type", reply: llmtest.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorCode: "context_length_exceeded"},
			wantType: "invalid_request_error", wantMsg: "Bad Request"},
	}
	for _, tt := range tests {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stream=%t", tt.name, stream), func(t *testing.T) {
				srv := newServer(t)
				srv.Script(tt.reply)
				rec := &headerRecorder{}
				cfg := srv.ClientConfig()
				cfg.HTTPClient = &http.Client{Transport: rec}
				client := openai.NewClientWithConfig(cfg)

				var err error
				if stream {
					err = readStream(t.Context(), t, client, chatRequest("hi")).err
				} else {
					_, err = client.CreateChatCompletion(t.Context(), chatRequest("hi"))
				}
				var apiErr *openai.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("err = %v (%T), want *openai.APIError", err, err)
				}
				if apiErr.HTTPStatusCode != tt.reply.Status || apiErr.Type != tt.wantType || !strings.Contains(apiErr.Message, tt.wantMsg) {
					t.Errorf("APIError = %+v", apiErr)
				}
				if tt.reply.ErrorCode != "" && apiErr.Code != tt.reply.ErrorCode {
					t.Errorf("code = %v, want %s", apiErr.Code, tt.reply.ErrorCode)
				}
				for k, v := range tt.wantHeader {
					if got := rec.get(k); got != v {
						t.Errorf("header %s = %q, want %q", k, got, v)
					}
				}
			})
		}
	}
}

func TestRawBody(t *testing.T) {
	srv := newServer(t)
	srv.Script(
		llmtest.Reply{Raw: "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"raw\"}}]}\n\ndata: [DONE]\n\n"},
		llmtest.Reply{Raw: "<html>bad gateway</html>", Status: 502, Header: map[string]string{"Content-Type": "text/html"}},
	)
	client := newClient(srv)
	got := readStream(t.Context(), t, client, chatRequest("hi"))
	if got.err != nil || got.joined() != "raw" {
		t.Errorf("raw stream: text %q, err %v", got.joined(), got.err)
	}
	got = readStream(t.Context(), t, client, chatRequest("hi"))
	var reqErr *openai.RequestError
	if !errors.As(got.err, &reqErr) || reqErr.HTTPStatusCode != 502 || string(reqErr.Body) != "<html>bad gateway</html>" {
		t.Errorf("err = %v (%T), want *openai.RequestError with status 502", got.err, got.err)
	}
}

func TestDisconnectMidStream(t *testing.T) {
	srv := newServer(t)
	srv.Script(llmtest.Reply{Text: "aabbccddee", ChunkSize: 2, DisconnectAfter: 2})
	got := readStream(t.Context(), t, newClient(srv), chatRequest("hi"))
	if got.err == nil || errors.Is(got.err, io.EOF) {
		t.Fatalf("err = %v, want a read error", got.err)
	}
	if fmt.Sprint(got.text) != "[aa bb]" {
		t.Errorf("text before the disconnect = %q", got.text)
	}
	if got.finish != "" {
		t.Errorf("finish = %q after a disconnect", got.finish)
	}
}

func TestDisconnectNonStreaming(t *testing.T) {
	srv := newServer(t)
	srv.Script(llmtest.Reply{Text: "x", DisconnectAfter: 1})
	if _, err := newClient(srv).CreateChatCompletion(t.Context(), chatRequest("hi")); err == nil {
		t.Fatal("no error after the server dropped the connection")
	}
}

func TestMalformed(t *testing.T) {
	srv := newServer(t)
	srv.Script(
		llmtest.Reply{Text: "good text", Malformed: true},
		llmtest.Reply{Text: "x", Malformed: true},
	)
	client := newClient(srv)
	got := readStream(t.Context(), t, client, chatRequest("hi"))
	var syntaxErr *json.SyntaxError
	if !errors.As(got.err, &syntaxErr) {
		t.Fatalf("err = %v (%T), want *json.SyntaxError", got.err, got.err)
	}
	if got.joined() != "good text" {
		t.Errorf("text before the bad chunk = %q", got.joined())
	}
	if _, err := client.CreateChatCompletion(t.Context(), chatRequest("hi")); err == nil {
		t.Error("non-streaming: no error for a truncated body")
	}
}

func TestDelay(t *testing.T) {
	srv := newServer(t)
	srv.Script(
		llmtest.Reply{Text: "late", Delay: 100 * time.Millisecond},
		llmtest.Reply{Text: "too late", Delay: time.Hour}, // only the deadline ends it
	)
	client := newClient(srv)

	start := time.Now()
	got := readStream(t.Context(), t, client, chatRequest("hi"))
	if got.err != nil || got.joined() != "late" {
		t.Fatalf("text %q, err %v", got.joined(), got.err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("reply came after %v, want at least 100ms", d)
	}

	// The reply is held for longer than the test may take: only the
	// context's deadline can end the read (the test's own timeout would
	// catch a read that ignored it).
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	got = readStream(ctx, t, client, chatRequest("hi"))
	if !errors.Is(got.err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want deadline exceeded", got.err)
	}
}

func TestStall(t *testing.T) {
	srv := newServer(t)
	srv.Script(llmtest.Reply{Text: "abcdefgh", ChunkSize: 2, StallAfter: 2})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	got := readStream(ctx, t, newClient(srv), chatRequest("hi"))
	if !errors.Is(got.err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want deadline exceeded", got.err)
	}
	if got.joined() != "abcd" {
		t.Errorf("text before the stall = %q", got.joined())
	}
}

func TestCloseEndsStalledStream(t *testing.T) {
	srv := llmtest.NewServer()
	srv.Script(llmtest.Reply{Text: "abcd", StallAfter: 1})
	client := newClient(srv)
	stream, err := client.CreateChatCompletionStream(t.Context(), chatRequest("hi"))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	for range 2 { // the role chunk and one text chunk
		if _, err := stream.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	recvErr := make(chan error, 1)
	go func() {
		_, err := stream.Recv()
		recvErr <- err
	}()

	closed := make(chan struct{})
	go func() {
		srv.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs on a stalled stream")
	}
	select {
	case err := <-recvErr:
		if err == nil {
			t.Error("Recv after Close returned a chunk")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("client still blocked after Close")
	}
	srv.Close() // a second Close is harmless
}

func TestRequestsRecorded(t *testing.T) {
	srv := newServer(t)
	srv.Script(llmtest.Reply{Text: "one"}, llmtest.Reply{Status: 500})
	client := newClient(srv)

	req := chatRequest("first question")
	req.Tools = []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "shell"}}}
	req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	if got := readStream(t.Context(), t, client, req); got.err != nil {
		t.Fatal(got.err)
	}
	req2 := chatRequest("second question")
	req2.Messages = append(req2.Messages,
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "a"},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, Content: "tool output", ToolCallID: "call_1"})
	if _, err := client.CreateChatCompletion(t.Context(), req2); err == nil {
		t.Fatal("want the scripted 500")
	}

	reqs := srv.WaitRequests(2, time.Second)
	if len(reqs) != 2 {
		t.Fatalf("recorded %d requests, want 2", len(reqs))
	}
	r := reqs[0]
	if !r.Stream || r.Path != "/v1/chat/completions" || r.Body.Model != "test" {
		t.Errorf("request 1: stream %t, path %q, model %q", r.Stream, r.Path, r.Body.Model)
	}
	if len(r.Body.Messages) != 2 || r.Body.Messages[1].Content != "first question" || r.LastUserMessage() != "first question" {
		t.Errorf("request 1 messages = %+v", r.Body.Messages)
	}
	if len(r.Body.Tools) != 1 || r.Body.Tools[0].Function.Name != "shell" || !r.Body.StreamOptions.IncludeUsage {
		t.Errorf("request 1 tools or stream options lost: %s", r.Raw)
	}
	if r.Header.Get("Authorization") != "Bearer llmtest" {
		t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
	}
	if !json.Valid(r.Raw) {
		t.Errorf("raw body is not JSON: %s", r.Raw)
	}
	r = reqs[1]
	if r.Stream || len(r.Body.Messages) != 4 || r.Body.Messages[3].ToolCallID != "call_1" || r.LastUserMessage() != "second question" {
		t.Errorf("request 2 = %+v", r.Body)
	}
}

func TestWaitRequestsTimeout(t *testing.T) {
	srv := newServer(t)
	start := time.Now()
	if reqs := srv.WaitRequests(1, 50*time.Millisecond); len(reqs) != 0 {
		t.Errorf("got %d requests", len(reqs))
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Error("returned before the timeout")
	}
}

func TestEmptyQueueFailsLoudly(t *testing.T) {
	srv := newServer(t)
	srv.Script(llmtest.Reply{Text: "only one"})
	client := newClient(srv)
	if _, err := client.CreateChatCompletion(t.Context(), chatRequest("hi")); err != nil {
		t.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		var err error
		if stream {
			err = readStream(t.Context(), t, client, chatRequest("hi")).err
		} else {
			_, err = client.CreateChatCompletion(t.Context(), chatRequest("hi"))
		}
		var apiErr *openai.APIError
		if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 500 || !strings.Contains(apiErr.Message, "llmtest: no scripted reply left for request") {
			t.Errorf("stream=%t: err = %v", stream, err)
		}
	}
	if got := srv.Requests(); len(got) != 3 {
		t.Errorf("recorded %d requests, want 3", len(got))
	}
	_, err := client.CreateChatCompletion(t.Context(), chatRequest("hi"))
	if err == nil || !strings.Contains(err.Error(), "no scripted reply left for request 4") {
		t.Errorf("err = %v, want it to name request 4", err)
	}
}

func TestEchoDefault(t *testing.T) {
	srv := newServer(t)
	srv.Script(llmtest.Reply{Text: "scripted first"})
	srv.SetDefault(llmtest.Reply{Echo: true})
	client := newClient(srv)
	for _, want := range []string{"scripted first", "You said: ping", "You said: ping"} {
		got := readStream(t.Context(), t, client, chatRequest("ping"))
		if got.err != nil || got.joined() != want {
			t.Errorf("text %q, err %v; want %q", got.joined(), got.err, want)
		}
	}
}

func TestRules(t *testing.T) {
	srv := newServer(t)
	srv.Rules(
		llmtest.Reply{Match: "weather", ToolCalls: []llmtest.ToolCall{{Name: "forecast", Args: `{}`}}},
		llmtest.Reply{Match: "weather", Text: "Sunny."},
		llmtest.Reply{Match: "hello", Text: "Hi!", Reusable: true},
	)
	client := newClient(srv)

	weather := chatRequest("what's the weather?")
	got := readStream(t.Context(), t, client, weather)
	if got.err != nil || len(got.calls) != 1 || got.calls[0].Function.Name != "forecast" {
		t.Fatalf("first weather request: calls %+v, err %v", got.calls, got.err)
	}
	weather.Messages = append(weather.Messages,
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: got.calls[0].ID, Type: "function", Function: got.calls[0].Function}}},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, Content: "25C", ToolCallID: got.calls[0].ID})
	if got := readStream(t.Context(), t, client, weather); got.err != nil || got.joined() != "Sunny." {
		t.Errorf("tool result: text %q, err %v", got.joined(), got.err)
	}
	for range 2 {
		if got := readStream(t.Context(), t, client, chatRequest("hello there")); got.err != nil || got.joined() != "Hi!" {
			t.Errorf("reusable rule: text %q, err %v", got.joined(), got.err)
		}
	}
	// Both weather rules are used up.
	if got := readStream(t.Context(), t, client, chatRequest("weather again")); got.err == nil {
		t.Errorf("used rules answered again: %q", got.joined())
	}
}

func TestScriptTakesPrecedenceOverRules(t *testing.T) {
	srv := newServer(t)
	srv.Rules(llmtest.Reply{Text: "rule"})
	srv.Script(llmtest.Reply{Text: "queued"})
	client := newClient(srv)
	for _, want := range []string{"queued", "rule"} {
		if got := readStream(t.Context(), t, client, chatRequest("x")); got.joined() != want {
			t.Errorf("text %q, err %v; want %q", got.joined(), got.err, want)
		}
	}
}

func TestProbes(t *testing.T) {
	srv := newServer(t)
	srv.SetModels("test", "other")
	models, err := newClient(srv).ListModels(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(models.Models) != 2 || models.Models[0].ID != "test" || models.Models[1].ID != "other" {
		t.Errorf("models = %+v", models.Models)
	}

	base := strings.TrimSuffix(srv.URL, "/v1")
	resp, err := http.Get(base + "/api/tags")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != `{"models":[]}` {
		t.Errorf("tags: %d %s", resp.StatusCode, body)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("probes recorded as %d requests", n)
	}
}

func TestBadRequestsAreRecorded(t *testing.T) {
	srv := newServer(t)
	srv.Script(llmtest.Reply{Text: "kept"})
	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader("{not json"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status = %d, want 400", resp.StatusCode)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || string(reqs[0].Raw) != "{not json" {
		t.Errorf("requests = %+v", reqs)
	}
	if srv.Pending() != 1 {
		t.Errorf("a bad request took a reply: Pending = %d", srv.Pending())
	}
}

func TestConcurrentRequests(t *testing.T) {
	const n = 20
	srv := newServer(t)
	for i := range n {
		srv.Script(llmtest.Reply{Text: fmt.Sprintf("reply %d", i), ChunkSize: 2})
	}
	client := newClient(srv)
	var wg sync.WaitGroup
	seen := make(chan string, n)
	for range n {
		wg.Go(func() {
			got := readStream(t.Context(), t, client, chatRequest("hi"))
			if got.err != nil {
				t.Error(got.err)
			}
			seen <- got.joined()
		})
	}
	wg.Wait()
	close(seen)
	unique := map[string]bool{}
	for s := range seen {
		unique[s] = true
	}
	if len(unique) != n || srv.Pending() != 0 || len(srv.Requests()) != n {
		t.Errorf("%d distinct replies, %d pending, %d recorded", len(unique), srv.Pending(), len(srv.Requests()))
	}
}

func TestReplyJSON(t *testing.T) {
	in := `{"text":"hi","chunk_size":2,"chunk_delay":"2ms","delay":"1.5s","stall_after":3,
		"tool_calls":[{"name":"shell","args":{"command": "ls -l"},"split":2},{"id":"c9","name":"bad","args":"{oops"}],
		"usage":{"prompt_tokens":5,"completion_tokens":6},"status":429,"header":{"Retry-After":"1"},
		"match":"hello","reusable":true,"echo":false}`
	var r llmtest.Reply
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if r.ChunkDelay != 2*time.Millisecond || r.Delay != 1500*time.Millisecond || r.ChunkSize != 2 || r.StallAfter != 3 {
		t.Errorf("reply = %+v", r)
	}
	if r.ToolCalls[0].Args != `{"command":"ls -l"}` || r.ToolCalls[0].Split != 2 || r.ToolCalls[1].Args != "{oops" || r.ToolCalls[1].ID != "c9" {
		t.Errorf("tool calls = %+v", r.ToolCalls)
	}
	if r.Usage.PromptTokens != 5 || r.Header["Retry-After"] != "1" || r.Match != "hello" || !r.Reusable {
		t.Errorf("reply = %+v", r)
	}

	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back llmtest.Reply
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("round trip %s: %v", b, err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, r)
	}

	for _, bad := range []string{
		`{"txt":"typo"}`,
		`{"delay":2}`,
		`{"delay":"2 parsecs"}`,
		`{"tool_calls":[{"name":"x","argz":"{}"}]}`,
	} {
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestHistoryError(t *testing.T) {
	call := openai.ToolCall{ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "f", Arguments: `{}`}}
	asst := openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{call}}
	res := openai.ChatCompletionMessage{Role: "tool", ToolCallID: "c1", Content: "ok"}
	user := openai.ChatCompletionMessage{Role: "user", Content: "q"}
	cases := map[string]struct {
		msgs []openai.ChatCompletionMessage
		want string
	}{
		"valid":               {[]openai.ChatCompletionMessage{user, asst, res, user}, ""},
		"dangling at the end": {[]openai.ChatCompletionMessage{user, asst}, "has no result"},
		"result after a user": {[]openai.ChatCompletionMessage{user, asst, user, res}, "has no result"},
		"invalid arguments":   {[]openai.ChatCompletionMessage{user, {Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "c1", Function: openai.FunctionCall{Name: "f", Arguments: "{"}}}}, res}, "invalid JSON"},
	}
	for name, tc := range cases {
		r := llmtest.Request{Body: openai.ChatCompletionRequest{Messages: tc.msgs}}
		if got := r.HistoryError(); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: HistoryError() = %q, want %q", name, got, tc.want)
		}
	}
}
