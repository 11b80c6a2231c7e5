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
// # Provider profiles
//
// Without a profile the server is a tidy OpenAI. Server.SetProfile makes it
// imitate what one provider really puts on the wire, so that a client that
// mishandles that provider fails its tests. The scripted Reply still
// decides the content; the profile decides URLs, stream shapes, request
// validation and error bodies. Every imitated behaviour is commented in
// the source with the documentation page or public bug report it follows.
//
//   - ProfileGemini (Google's OpenAI-compatible endpoint): URL becomes
//     <host>/v1beta/openai (/v1 still answers); requests need
//     "Authorization: Bearer KEY" (SetAPIKey; any key when unset) or get
//     400; errors are Google's ARRAY body [{"error":{code,message,status}}];
//     retired model ids answer 404, the -latest aliases resolve
//     (SetGeminiAliases); the model list has "models/..." ids, non-chat
//     models included. All tool calls of a step stream in ONE delta
//     without index, each whole, the first carrying
//     extra_content.google.thought_signature, and the stream finishes with
//     "stop". The server remembers the signatures it issued
//     (ThoughtSignatures): a request whose current turn (after the last
//     user message) has a step whose first call lacks its signature, or
//     carries one never issued, gets 400; the documented placeholder
//     "skip_thought_signature_validator" passes; older turns are not
//     checked. Reply.RetryDelay and Reply.DailyQuota give Google's 429
//     (RESOURCE_EXHAUSTED with QuotaFailure and RetryInfo details, no
//     Retry-After header). Reply.Reasoning is not sent.
//   - ProfileDeepSeek: deepseek-flash (V4.1 Flash) and the V4 names routed
//     to it think ("thinking": {"type":"disabled"} turns it off; the
//     retired deepseek-chat and deepseek-reasoner are unknown models): reasoning_content streams before
//     the answer and tool calls. Streams open with ": keep-alive" SSE
//     comments (a non-streamed body with an empty line). In thinking mode,
//     every assistant message of a user turn that called tools must carry
//     the reasoning_content key ("" is fine) or the request gets 400. An
//     unknown model gets 400 "Model Not Exist".
//   - ProfileVLLM: reasoning streams as "reasoning" (vLLM dropped
//     reasoning_content); reasoning_content in requests is ignored, not
//     refused; the first delta of a tool call has "arguments": null (the
//     only one for a call without arguments). GET /v1/models gives each
//     model's max_model_len (40960).
//   - ProfileOpenAI: gpt-5* and o1/o3/o4 models refuse max_tokens and a
//     temperature other than 1 with OpenAI's 400 bodies; no reasoning text.
//   - ProfileOllama: GET /api/version, GET /api/tags, POST /api/show
//     (model_info "<family>.context_length", capabilities), GET /api/ps
//     (context_length in force), native POST /api/chat streaming NDJSON
//     (message.thinking, tool calls with object arguments, a last line
//     with done, done_reason and counts; options.num_ctx honoured, 4096
//     by default), and /v1/chat/completions with "reasoning" deltas.
//     Models are set with SetOllamaModels. As a real Ollama v0.24.0 does
//     (recorded for co's issue 26): tools sent to a model whose
//     capabilities lack "tools" get 400 "registry.ollama.ai/library/
//     NAME:TAG does not support tools" on both routes (OpenAI's error shape
//     on /v1); with tools in a /api/chat request, a reply's text from
//     "<tool_call>" on is held back as Ollama's tool parser does: a whole
//     call becomes a tool call, an unfinished one is dropped (the reply is
//     then a lone done line with empty content).
//     A prompt over num_ctx is cut, not refused: prompt_eval_count is
//     num_ctx, and the log says "truncating input prompt limit=… prompt=…"
//     as Ollama v0.24.0 does.
//   - ProfileLlamaCpp: llama.cpp's llama-server (b10573): GET /props
//     (default_generation_settings.n_ctx), GET /v1/models with "meta"
//     (n_ctx, n_ctx_train), the model name ignored, and a prompt of n_ctx
//     tokens or more (PromptTokens: characters / 4, tool schemas
//     included) refused with its HTTP 400 exceed_context_size_error body
//     (n_prompt_tokens, n_ctx). SetLlamaContext sets -c (4096 by default).
//     /props names the server's build (build_info) as b10573 does.
//     SetLlamaNoJinja imitates llama-server --no-jinja: any request with
//     tools gets HTTP 500 "tools param requires --jinja flag".
//
// Reply.Endless imitates a model that never stops: it streams " tick" /
// " tock" one token a chunk up to the request's bound (max_tokens,
// max_completion_tokens; Ollama's num_predict, or 10 × num_ctx when unset
// or larger; without any, the generic server stops at a 4096-token window
// as llama-server does) and finishes with "length".
//
// Each profile sets its own model list (SetModels changes it after
// SetProfile). Request.Messages decodes what the client sent per message,
// keeping reasoning_content, reasoning and extra_content that
// Request.Body (go-openai's struct) drops.
//
// The command llmtest (cmd/llmtest) serves a script file for end-to-end
// tests and people: it prints LLMTEST_URL=<base url> and serves until
// interrupted, e.g. OPENAI_BASE_URL=<base url> LLM_PROVIDER=openai
// OPENAI_MODEL=test co; --profile NAME selects a profile.
//
// Concurrency: a Server's methods may be called from any goroutine while it
// serves; requests are recorded and take their replies in arrival order.
// Close cancels requests in flight and waits for their handlers.
package llmtest
