package provider

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// ServerInfo is what an OpenAI-compatible server says of itself: its
// context window and where that came from, and, when it says so, what it
// is (Server "llama.cpp", with its build).
type ServerInfo struct {
	Window int
	Source string
	Server string
	Build  string
}

// LlamaCpp is the name co gives llama.cpp's llama-server once /props
// identifies it.
const LlamaCpp = "llama.cpp"

// AskWindow asks an OpenAI-compatible server for its context window.
func AskWindow(ctx context.Context, client *http.Client, p Provider) (int, string) {
	s := AskServer(ctx, client, p)
	return s.Window, s.Source
}

// AskServer asks an OpenAI-compatible server for its context window and
// what it is.
func AskServer(ctx context.Context, client *http.Client, p Provider) ServerInfo {
	base := strings.TrimRight(p.BaseURL, "/")
	root := strings.TrimSuffix(base, "/v1")
	// llama-server: GET /props (tools/server/README.md, "GET /props"; the
	// slot's n_ctx is default_generation_settings.n_ctx, older servers
	// also put n_ctx at the top level). Its answer names the server's
	// build (build_info) beside its default_generation_settings: that is
	// llama-server (docs/providers.md, llama.cpp).
	var props struct {
		Default *struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		NCtx      int    `json:"n_ctx"`
		BuildInfo string `json:"build_info"`
	}
	var info ServerInfo
	if status, _, err := DoJSON(ctx, client, http.MethodGet, root+"/props", p.APIKey, nil, &props); err == nil && status == http.StatusOK {
		if props.Default != nil && props.BuildInfo != "" {
			info.Server, info.Build = LlamaCpp, props.BuildInfo
		}
		switch {
		case props.Default != nil && props.Default.NCtx > 0:
			info.Window, info.Source = props.Default.NCtx, "llama.cpp /props n_ctx"
		case props.NCtx > 0:
			info.Window, info.Source = props.NCtx, "llama.cpp /props n_ctx"
		}
		if info.Window > 0 {
			return info
		}
	}
	var list struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
			Meta        *struct {
				NCtx      int `json:"n_ctx"`
				NCtxTrain int `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	if status, _, err := DoJSON(ctx, client, http.MethodGet, base+"/models", p.APIKey, nil, &list); err == nil && status == http.StatusOK {
		for _, m := range list.Data {
			// llama-server serves one model whatever the name asked; take
			// its entry when the name does not match.
			if m.ID != p.Model && len(list.Data) > 1 {
				continue
			}
			switch {
			case m.MaxModelLen > 0:
				info.Window, info.Source = m.MaxModelLen, "/v1/models max_model_len (vLLM)"
				return info
			case m.Meta != nil && m.Meta.NCtx > 0:
				info.Window, info.Source = m.Meta.NCtx, "llama.cpp /v1/models meta.n_ctx"
				return info
			case m.Meta != nil && m.Meta.NCtxTrain > 0:
				info.Window, info.Source = m.Meta.NCtxTrain, "llama.cpp /v1/models meta.n_ctx_train"
				return info
			}
		}
	}
	var lms struct {
		Data []struct {
			ID               string `json:"id"`
			MaxContextLength int    `json:"max_context_length"`
		} `json:"data"`
	}
	if status, _, err := DoJSON(ctx, client, http.MethodGet, root+"/api/v0/models", p.APIKey, nil, &lms); err == nil && status == http.StatusOK {
		for _, m := range lms.Data {
			if m.ID == p.Model && m.MaxContextLength > 0 {
				info.Window, info.Source = m.MaxContextLength, "LM Studio /api/v0/models max_context_length"
				return info
			}
		}
	}
	return info
}

// ContextExceeded is a request the provider refused as longer than its
// context window. Sent and Window are 0 when the answer did not say.
type ContextExceeded struct {
	Sent, Window int
	Message      string
	// LlamaCpp is set when the answer is llama-server's (its type
	// exceed_context_size_error, or its words).
	LlamaCpp bool
}

func (e *ContextExceeded) Error() string { return e.Message }

var (
	// llama.cpp: "request (12754 tokens) exceeds the available context
	// size (8192 tokens), try increasing it" (tools/server/server-context.cpp).
	llamaExceeded = regexp.MustCompile(`request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)`)
	// OpenAI and vLLM: "This model's maximum context length is 8192
	// tokens. However, your messages resulted in 9000 tokens".
	openaiExceeded = regexp.MustCompile(`maximum context length is (\d+) tokens.*?(?:resulted in|requested) (\d+) tokens`)
)

// AsContextExceeded recognises a provider's "context exceeded" answer:
// llama.cpp's HTTP 400 of type exceed_context_size_error, sent before any
// output when n_tokens >= n_ctx (server-context.cpp:3135-3144; the body
// carries n_prompt_tokens and n_ctx for this type only, server-task.cpp:
// 1503-1510), recorded from b10573:
// {"error":{"code":400,"message":"request (12754 tokens) exceeds the
// available context size (8192 tokens), try increasing it","type":
// "exceed_context_size_error","n_prompt_tokens":12754,"n_ctx":8192}}),
// OpenAI's code context_length_exceeded, the same words from vLLM, and
// llama.cpp's 500 "Context size has been exceeded." (contextFull).
func AsContextExceeded(err error) (*ContextExceeded, bool) {
	if err == nil {
		return nil, false
	}
	var ce *ContextExceeded
	if errors.As(err, &ce) {
		return ce, true
	}
	msg, typ, code := "", "", ""
	sent, window := 0, 0
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &reqErr):
		b, _ := parseErrorBody(reqErr.Body)
		msg, typ, code = b.Message, b.Type, b.code()
		sent, window = b.NPromptTokens, b.NCtx
		if msg == "" {
			msg = string(reqErr.Body)
		}
	case errors.As(err, &apiErr):
		msg, typ = apiErr.Message, apiErr.Type
		if s, ok := apiErr.Code.(string); ok {
			code = s
		}
	default:
		return nil, false
	}
	out := &ContextExceeded{Message: PlainMessage(msg), LlamaCpp: typ == "exceed_context_size_error"}
	if sent > 0 && window > 0 {
		// llama.cpp's own fields, when the body came whole.
		out.Sent, out.Window, out.LlamaCpp = sent, window, true
		return out, true
	}
	if m := llamaExceeded.FindStringSubmatch(msg); m != nil {
		out.Sent, _ = strconv.Atoi(m[1])
		out.Window, _ = strconv.Atoi(m[2])
		out.LlamaCpp = true
		return out, true
	}
	if m := openaiExceeded.FindStringSubmatch(msg); m != nil {
		out.Window, _ = strconv.Atoi(m[1])
		out.Sent, _ = strconv.Atoi(m[2])
		return out, true
	}
	if contextFull(msg) {
		// llama.cpp's 500 when the context filled up (errors.go): no
		// numbers, but llama.cpp's words.
		out.LlamaCpp = true
		return out, true
	}
	if typ == "exceed_context_size_error" || code == "context_length_exceeded" || strings.Contains(strings.ToLower(msg), "context length") && strings.Contains(strings.ToLower(msg), "exceed") {
		return out, true
	}
	return nil, false
}
