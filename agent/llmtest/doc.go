// Package llmtest is a scripted server that speaks the OpenAI
// chat-completions wire protocol, as net/http/httptest is for HTTP. It is a
// real HTTP server on 127.0.0.1, so co's agent, go-openai's client and
// anything else pointed at its URL go through the same bytes as with
// OpenAI: server-sent events of JSON chunks ending in [DONE], tool calls as
// deltas to accumulate by index, a final usage chunk with empty choices,
// and error bodies {"error":{"message":...,"type":...,"code":...}}.
//
// A test scripts the replies, points a client at Server.URL and then checks
// what the client did and what it sent:
//
//	srv := llmtest.NewServer()
//	defer srv.Close()
//	srv.Script(
//		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "read_file", Args: `{"path":"go.mod"}`, Split: 3}}},
//		llmtest.Reply{Text: "It is a Go module.", ChunkDelay: time.Millisecond},
//	)
//	client := openai.NewClientWithConfig(srv.ClientConfig())
//	// ... run the agent with client ...
//	reqs := srv.WaitRequests(2, time.Second)
//	// reqs[1].Body.Messages ends with the tool result.
//
// Each POST /v1/chat/completions takes the next scripted Reply; with none
// left it takes a rule (Server.Rules), then the default (Server.SetDefault),
// and otherwise fails loudly with a 500. A Reply can also fail with an HTTP
// status, stall, disconnect mid-stream or send a malformed chunk. GET
// /v1/models and the Ollama probe GET /api/tags answer too.
//
// The command llmtest (cmd/llmtest) serves a script file for end-to-end
// tests and people: it prints LLMTEST_URL=<base url> and serves until
// interrupted, e.g. OPENAI_BASE_URL=<base url> LLM_PROVIDER=openai
// OPENAI_MODEL=test co.
//
// Concurrency: a Server's methods may be called from any goroutine while it
// serves; requests are recorded and take their replies in arrival order.
// Close cancels requests in flight and waits for their handlers.
package llmtest
