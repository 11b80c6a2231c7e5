package llmtest

import (
	"encoding/json"
	"net/http"
)

// The types below are the OpenAI chat-completions wire format, written by
// hand rather than borrowed from go-openai so that the bytes match what
// OpenAI sends (a tool-call delta after the first has no "type", content is
// null beside tool calls, and so on).

type wireChunk struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	SystemFingerprint string       `json:"system_fingerprint"`
	Choices           []wireChoice `json:"choices"`
	Usage             *wireUsage   `json:"usage,omitempty"`
}

type wireChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	Logprobs     any       `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type wireDelta struct {
	Role             string         `json:"role,omitempty"`
	Content          *string        `json:"content,omitempty"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	Reasoning        *string        `json:"reasoning,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	// ExtraContent carries Gemini's thought signature on a text delta.
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

type wireToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
	// ExtraContent is Gemini's {"google":{"thought_signature":...}}.
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

type wireFunction struct {
	Name string `json:"name,omitempty"`
	// Arguments is null only where a profile imitates a server that
	// sends null (vLLM).
	Arguments *string `json:"arguments"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// The cached part of the prompt, as OpenAI reports it
	// (prompt_tokens_details.cached_tokens, part of prompt_tokens), and
	// Gemini's OpenAI-compatible endpoint with it; DeepSeek reports
	// prompt_cache_hit_tokens and prompt_cache_miss_tokens instead, which
	// add up to prompt_tokens (api-docs.deepseek.com/guides/kv_cache;
	// docs/SOURCES.md#llm-prices-and-cached-tokens).
	PromptTokensDetails   *wireTokenDetails `json:"prompt_tokens_details,omitempty"`
	PromptCacheHitTokens  *int              `json:"prompt_cache_hit_tokens,omitempty"`
	PromptCacheMissTokens *int              `json:"prompt_cache_miss_tokens,omitempty"`
}

type wireTokenDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type wireCompletion struct {
	ID                string           `json:"id"`
	Object            string           `json:"object"`
	Created           int64            `json:"created"`
	Model             string           `json:"model"`
	SystemFingerprint string           `json:"system_fingerprint"`
	Choices           []wireFullChoice `json:"choices"`
	Usage             wireUsage        `json:"usage"`
}

type wireFullChoice struct {
	Index        int         `json:"index"`
	Message      wireMessage `json:"message"`
	Logprobs     any         `json:"logprobs"`
	FinishReason string      `json:"finish_reason"`
}

type wireMessage struct {
	Role             string         `json:"role"`
	Content          *string        `json:"content"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	Reasoning        *string        `json:"reasoning,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	Refusal          *string        `json:"refusal"`
}

type wireError struct {
	Error wireErrorBody `json:"error"`
}

type wireErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	// Code is left out when empty: go-openai reads a null code as the
	// integer 0.
	Code string `json:"code,omitempty"`
}

type wireModel struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// MaxModelLen is vLLM's context window (vllm/entrypoints/openai/
	// protocol.py ModelCard.max_model_len).
	MaxModelLen int `json:"max_model_len,omitempty"`
}

type wireModels struct {
	Object string      `json:"object"`
	Data   []wireModel `json:"data"`
}

// writeJSON writes v as a JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	writeJSONAfter(w, status, "", v)
}

// writeJSONAfter writes v as a JSON response preceded by prefix
// (whitespace a provider sends while it waits).
func writeJSONAfter(w http.ResponseWriter, status int, prefix string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"message":"llmtest: cannot encode response","type":"server_error","param":null}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append([]byte(prefix), append(b, '\n')...))
}

// writeError writes an OpenAI error object.
func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	writeJSON(w, status, wireError{wireErrorBody{Message: msg, Type: typ, Code: code}})
}

// errorDefaults returns the error type, code and message OpenAI uses for an
// HTTP status, near enough for a client to treat them the same way.
func errorDefaults(status int) (typ, code, msg string) {
	text := http.StatusText(status)
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_request_error", "invalid_api_key", "llmtest: Incorrect API key provided."
	case status == http.StatusTooManyRequests:
		return "requests", "rate_limit_exceeded", "llmtest: Rate limit reached. Please try again later."
	case status >= 500:
		return "server_error", "", "llmtest: The server had an error while processing your request."
	case status >= 400:
		return "invalid_request_error", "", "llmtest: " + text
	default:
		return "api_error", "", "llmtest: " + text
	}
}
