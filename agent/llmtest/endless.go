package llmtest

// Sources: the answers of a real Ollama v0.24.0 and llama-server b10573 to
// a model that never emits its end token, recorded for co's issue 26 on
// 2026-11-26 (docs/recordings/local-servers-2026-11-26.md, section f; raw captures
// docs/recordings/local-servers-2026-11-26.md, capture ollama-f-endless-numctx2048.resp and
// llama-f-endless-c2048-stream.resp), and the sources named below.

import (
	"encoding/json"
	"unicode/utf8"
)

// endlessWindow is the context window the generic server imitates for a
// reply that never stops without a bound: llama-server's, stopped at the
// slot's window (-c 4096 here).
const endlessWindow = 4096

// endlessTokens are what the recorded model streamed, one token a chunk.
var endlessTokens = [2]string{" tick", " tock"}

// endlessReply turns an Endless reply into the finite one a server sends
// when the bound n (tokens; one a chunk) is reached: n chunks of " tick" /
// " tock", finish reason "length" and completion_tokens n, as both servers
// did (Ollama's last line "done_reason":"length","eval_count":20480;
// llama-server's {"finish_reason":"length","delta":{}} with
// completion_tokens 2007).
func endlessReply(r Reply, n, prompt int) Reply {
	if !r.Endless {
		return r
	}
	n = max(n, 1)
	r.Text, r.Echo, r.ToolCalls = "", false, nil
	r.Chunks = make([]string, n)
	for i := range r.Chunks {
		r.Chunks[i] = endlessTokens[i%2]
	}
	r.FinishReason = "length"
	if r.Usage == nil {
		r.Usage = &Usage{PromptTokens: prompt, CompletionTokens: n}
	}
	return r
}

// openAIBound is the bound an OpenAI-compatible request sets:
// max_completion_tokens, else max_tokens; without either, llama-server
// b10573 generates until the slot's window is full (n_predict -1,
// common/common.h:441; server-context.cpp:1831-1838 stops at n_tokens + 1
// >= n_ctx, "finish_reason":"length": prompt 41 + completion 2007 = 2048
// recorded with -c 2048), imitated with endlessWindow.
func openAIBound(req Request) (n, prompt int) {
	n, _ = openAIBoundSet(req)
	for _, m := range req.Body.Messages {
		prompt += (utf8.RuneCountInString(m.Content) + 3) / 4
	}
	if n <= 0 {
		n = max(endlessWindow-prompt, 1)
	}
	return n, prompt
}

// ollamaBound is what Ollama v0.24.0 does with num_predict: -1 by default
// (api/types.go:1073), and llm/server.go:1620-1623 "if
// req.Options.NumPredict < 0 || req.Options.NumPredict > 10*s.options.NumCtx
// { req.Options.NumPredict = 10 * s.options.NumCtx }": num_ctx 2048 and no
// num_predict streamed 20,480 tokens, then "done_reason":"length". The
// runner shifts the context when the window fills and goes on
// (runner/llamarunner/runner.go:430-445), so the window does not stop it.
// numCtx is the window in force.
func ollamaBound(numPredict, numCtx int) int {
	if numPredict <= 0 || numPredict > 10*numCtx {
		return 10 * numCtx
	}
	return numPredict
}

// llamaBound is where llama-server stops a reply that never ends: at the
// request's bound (max_tokens, its n_predict: "Set the maximum number of
// tokens to predict when generating text … Default: -1, where -1 is
// infinity", tools/server/README.md) or when prompt and reply fill the
// slot's context, whichever comes first (server-context.cpp:1831-1838,
// "finish_reason":"length" both ways; recorded: prompt 41 + completion
// 2007 = 2048 with -c 2048). bound is openAIBound's, nCtx the -c.
func llamaBound(req Request, bound, prompt, nCtx int) int {
	if n, _ := openAIBoundSet(req); n <= 0 || n > nCtx-prompt {
		bound = nCtx - prompt
	}
	return max(bound, 1)
}

// openAIBoundSet is the bound the request itself sets, 0 when none.
func openAIBoundSet(req Request) (n int, field string) {
	f := req.Fields()
	for _, k := range []string{"max_completion_tokens", "max_tokens"} {
		if json.Unmarshal(f[k], &n) == nil && n > 0 {
			return n, k
		}
	}
	return 0, ""
}
