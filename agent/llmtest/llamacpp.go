package llmtest

// The llamacpp profile imitates llama.cpp's llama-server (build b10573,
// started with `-c N --jinja` and one GGUF model), as recorded in
// docs/recordings/local-servers-2026-11-26.md ("llama.cpp", items d and g):
//   - GET /props reports the slot's context in default_generation_settings.n_ctx;
//   - GET /v1/models answers in both Ollama's shape ("models") and OpenAI's
//     ("data"), each entry "owned_by":"llamacpp" with a "meta" of n_ctx and more;
//   - a chat request's model name is ignored: the one loaded model answers,
//     naming itself in "model" as the request did;
//   - a prompt of n_ctx tokens or more is refused before any output with HTTP
//     400 of type "exceed_context_size_error" (the recorded body, with
//     n_prompt_tokens and n_ctx), streamed or not;
//   - with SetLlamaNoJinja, any request with tools gets HTTP 500.
// The server's source lines for each: docs/providers.md, "llama.cpp". Tokens
// are counted as everywhere in llmtest (characters / 4, PromptTokens), here
// with the tool schemas, which the chat template puts in the prompt.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// llamaDefaultContext is the context the llamacpp profile serves unless
// SetLlamaContext changes it (llama-server's -c 4096 default,
// common/common.h n_ctx = 4096).
const llamaDefaultContext = 4096

// llamaModel is the path the llamacpp profile's model is listed under.
const llamaModel = "gguf/tiny.gguf"

type llamaState struct {
	nCtx    int
	mmproj  bool // started with --mmproj: takes images
	noJinja bool // started with --no-jinja: refuses tools
}

// SetLlamaNoJinja makes the llamacpp profile's server run without Jinja
// chat templates, as llama-server started with --no-jinja does (or one
// built before --jinja became its default, huggingface/hub-docs#2420): any
// chat request that carries tools gets HTTP 500
// {"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}
// (tools/server/server-common.cpp, oaicompat_chat_params_parse: thrown
// when the request's tools are not empty and use_jinja is off, before the
// prompt is rendered; the handler's exception wrapper answers 500
// server_error; bodies as reported in containers/ramalama#988 and
// defilantech/LLMKube#126).
func (s *Server) SetLlamaNoJinja(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.llama.noJinja = on
}

// SetLlamaMMProj makes the llamacpp profile's server take images, as
// llama-server started with --mmproj does; without it an image part is
// refused.
func (s *Server) SetLlamaMMProj(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.llama.mmproj = on
}

// SetTokenScale makes the llamacpp and ollama profiles count f times
// PromptTokens for a prompt, as a real tokenizer that counts more than
// characters / 4 does (co's first request, about 2,530 by characters / 4,
// counted 3,015 tokens on Ollama v0.24.0 and 3,598 on llama-server b10573
// with the tiny test models: 1.2 and 1.4 times); 0 or 1 counts
// PromptTokens.
func (s *Server) SetTokenScale(f float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenScale = f
}

// countPrompt is the prompt size the server counts for req, with extra
// tokens (tool schemas sent outside req.Body).
func (s *Server) countPrompt(req Request, extra int) int {
	s.mu.Lock()
	f := s.tokenScale
	s.mu.Unlock()
	n := PromptTokens(req) + extra
	if f > 0 {
		n = int(float64(n)*f + 0.5)
	}
	return n
}

// SetLlamaContext sets the context (llama-server -c) of the llamacpp
// profile.
func (s *Server) SetLlamaContext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.llama.nCtx = n
}

func (s *Server) llamaCtx() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.llama.nCtx > 0 {
		return s.llama.nCtx
	}
	return llamaDefaultContext
}

// PromptTokens is the size llmtest counts for a request's prompt:
// characters / 4 of the messages' text and tool calls and of the tool
// schemas.
func PromptTokens(req Request) int {
	n := 0
	for _, m := range req.Body.Messages {
		n += utf8.RuneCountInString(m.Content)
		for _, p := range m.MultiContent {
			n += utf8.RuneCountInString(p.Text)
		}
		for _, c := range m.ToolCalls {
			n += utf8.RuneCountInString(c.Function.Name + c.Function.Arguments)
		}
	}
	for _, t := range req.Body.Tools {
		if f := t.Function; f != nil {
			n += utf8.RuneCountInString(f.Name + f.Description)
			if b, err := json.Marshal(f.Parameters); err == nil {
				n += utf8.RuneCount(b)
			}
		}
	}
	return (n + 3) / 4
}

// llamaCheck refuses a prompt that does not fit the context.
func (s *Server) llamaCheck(req Request) *profileError {
	s.mu.Lock()
	mmproj, noJinja := s.llama.mmproj, s.llama.noJinja
	s.mu.Unlock()
	if noJinja && len(req.Body.Tools) > 0 {
		return llamaServerError("tools param requires --jinja flag")
	}
	if n, _ := imageParts(req.Messages()); n > 0 && !mmproj {
		// Without a projector llama-server answers an image part with 500
		// {"code":500,"message":"image input is not supported - hint: if
		// this is unexpected, you may need to provide the mmproj","type":
		// "server_error"} (ggml-org/llama.cpp#15377 (2025-08-17), #13566).
		return llamaServerError("image input is not supported - hint: if this is unexpected, you may need to provide the mmproj")
	}
	n, ctx := s.countPrompt(req, 0), s.llamaCtx()
	if n < ctx {
		return nil
	}
	msg := fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", n, ctx)
	type body struct {
		Code          int    `json:"code"`
		Message       string `json:"message"`
		Type          string `json:"type"`
		NPromptTokens int    `json:"n_prompt_tokens"`
		NCtx          int    `json:"n_ctx"`
	}
	return &profileError{status: http.StatusBadRequest, why: msg, body: struct {
		Error body `json:"error"`
	}{body{400, msg, "exceed_context_size_error", n, ctx}}}
}

// llamaServerError is llama-server's answer to a request its handler threw
// on: HTTP 500 of type server_error (format_error_response, ERROR_TYPE_SERVER).
func llamaServerError(msg string) *profileError {
	type body struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Type    string `json:"type"`
	}
	return &profileError{status: http.StatusInternalServerError, why: msg, body: struct {
		Error body `json:"error"`
	}{body{500, msg, "server_error"}}}
}

// LlamaBuild is the build the llamacpp profile reports (/props build_info,
// as recorded from b10573).
const LlamaBuild = "b10573-d775b8967"

// handleLlamaProps answers GET /props with the fields recorded from
// b10573 (docs/recordings/local-servers-2026-11-26.md, item d; source:
// tools/server/server-context.cpp, the /props handler): the slot's n_ctx
// under default_generation_settings, the model, its modalities, chat
// template and what it supports, and build_info, which names the server.
func (s *Server) handleLlamaProps(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	mmproj := s.llama.mmproj
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"default_generation_settings": map[string]any{
			"params": map[string]any{"seed": 4294967295, "temperature": 0.8, "top_k": 40, "top_p": 0.95, "min_p": 0.05,
				"max_tokens": -1, "n_predict": -1, "n_keep": 0, "chat_format": "Content-only"},
			"n_ctx": s.llamaCtx(),
		},
		"total_slots":      4,
		"model_alias":      llamaModel,
		"model_ftype":      "all F32",
		"model_path":       llamaModel,
		"modalities":       map[string]any{"vision": mmproj, "video": false, "audio": false},
		"endpoint_slots":   true,
		"endpoint_props":   false,
		"endpoint_metrics": false,
		"ui":               true,
		"ui_settings":      map[string]any{},
		"chat_template":    "{%- if tools %}…",
		"chat_template_caps": map[string]any{"supports_object_arguments": true, "supports_parallel_tool_calls": true,
			"supports_preserve_reasoning": false, "supports_reasoning_effort": false, "supports_string_content": true,
			"supports_system_role": true, "supports_tool_calls": true, "supports_tools": true, "supports_typed_content": false},
		"bos_token":          "<|endoftext|>",
		"eos_token":          "<|im_end|>",
		"build_info":         LlamaBuild,
		"is_sleeping":        false,
		"cors_proxy_enabled": false,
	})
}

// llamaModels answers GET /v1/models as llama-server does.
func (s *Server) llamaModels(w http.ResponseWriter) {
	n := s.llamaCtx()
	writeJSON(w, http.StatusOK, map[string]any{
		"models": []map[string]any{{"name": llamaModel, "model": llamaModel, "type": "model", "capabilities": []string{"completion"}}},
		"object": "list",
		"data": []map[string]any{{
			"id": llamaModel, "aliases": []string{llamaModel}, "tags": []string{}, "object": "model",
			"created": 1795702121, "owned_by": "llamacpp",
			"meta": map[string]any{"vocab_type": 2, "n_vocab": 3328, "n_ctx": n, "n_ctx_train": n,
				"n_embd": 64, "n_params": 467136, "size": 1868544, "ftype": "all F32"},
		}},
	})
}
