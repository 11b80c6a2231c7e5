package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Reply is one scripted answer to a chat-completions request. The zero Reply
// is an empty assistant message that finishes with "stop".
//
// In a script file (see the llmtest command) a Reply is a JSON object with
// the snake_case names shown in the tags; durations are Go duration strings
// such as "2ms" or "1.5s"; unknown fields are an error.
type Reply struct {
	// Text is the assistant text. A streamed reply splits it into chunks of
	// ChunkSize runes.
	Text string `json:"text,omitempty"`
	// Chunks are explicit text chunks, sent as they are. They override Text.
	Chunks []string `json:"chunks,omitempty"`
	// ChunkSize is the number of runes per streamed chunk of Text; default 4.
	ChunkSize int `json:"chunk_size,omitempty"`
	// ChunkDelay is the pause between two streamed chunks.
	ChunkDelay time.Duration `json:"-"`
	// Delay is the pause before the response headers are written.
	Delay time.Duration `json:"-"`
	// Gate, when not nil, holds the response (after Delay, before the
	// headers) until it is closed: a test orders what it does against the
	// model's answer without a clock.
	Gate <-chan struct{} `json:"-"`
	// StallAfter, when positive, stops the stream after this many chunks
	// (text and tool-call chunks counted together) and holds the connection
	// open until the client goes away or the server closes. A non-streaming
	// reply stalls before writing anything.
	StallAfter int `json:"stall_after,omitempty"`
	// Reasoning is reasoning text, streamed (in ChunkSize pieces) before
	// the text and tool calls, in the field the profile uses:
	// reasoning_content without a profile and with deepseek, reasoning with
	// vllm and ollama's /v1 (message.thinking on /api/chat). The openai and
	// gemini profiles send none, and deepseek only when the model thinks.
	Reasoning string `json:"reasoning,omitempty"`
	// ToolCalls are sent after the text.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Usage is reported in a final chunk with empty choices (what OpenAI does
	// with stream_options.include_usage) and in a non-streaming response.
	// When nil, a usage estimated from the request and reply (a token per
	// four runes) is sent.
	Usage *Usage `json:"usage,omitempty"`
	// NoUsage leaves the usage chunk out of a stream.
	NoUsage bool `json:"no_usage,omitempty"`
	// FinishReason defaults to "stop", or to "tool_calls" when ToolCalls are
	// present.
	FinishReason string `json:"finish_reason,omitempty"`
	// Status, when neither 0 nor 200, is the HTTP status of a response whose
	// body is an OpenAI error object built from ErrorMessage, ErrorType and
	// ErrorCode (defaults depend on the status).
	Status       int    `json:"status,omitempty"`
	ErrorMessage string `json:"error_message,omitempty"`
	ErrorType    string `json:"error_type,omitempty"`
	ErrorCode    string `json:"error_code,omitempty"`
	// Header holds extra response headers, for example Retry-After.
	Header map[string]string `json:"header,omitempty"`
	// RetryDelay, when positive, answers 429. With the gemini profile the
	// body is Google's RESOURCE_EXHAUSTED array with a RetryInfo detail
	// carrying this delay and no Retry-After header; elsewhere it is an
	// OpenAI rate-limit error with Retry-After in whole seconds. In a
	// script file it is "retry_delay": "2s".
	RetryDelay time.Duration `json:"-"`
	// DailyQuota answers 429 for an exhausted per-day quota (gemini: a
	// QuotaFailure naming GenerateRequestsPerDayPerProjectPerModel-FreeTier).
	DailyQuota bool `json:"daily_quota,omitempty"`
	// DisconnectAfter, when positive, closes the TCP connection abruptly
	// after this many chunks: no finish chunk, no [DONE]. A non-streaming
	// reply closes the connection without writing a response.
	DisconnectAfter int `json:"disconnect_after,omitempty"`
	// Malformed sends one chunk that is not valid JSON after the text chunks
	// (a non-streaming reply gets a truncated JSON body).
	Malformed bool `json:"malformed,omitempty"`
	// SameIndex (gemini profile) sends every parallel tool call with index
	// 0, as Gemini's OpenAI layer has been seen to
	// (NousResearch/hermes-agent#62937 (2026-07-12)).
	SameIndex bool `json:"same_index,omitempty"`
	// Endless imitates a model that never emits its end token: it streams
	// " tick", " tock", … one token a chunk, until the request's bound
	// (max_completion_tokens or max_tokens; Ollama's num_predict, which
	// Ollama caps at 10 × num_ctx) and ends with finish reason "length",
	// as the real servers do (endless.go). Text, Chunks and ToolCalls are
	// ignored.
	Endless bool `json:"endless,omitempty"`
	// Raw, when set, is written verbatim as the body, with Status (default
	// 200) and Header. Content-Type defaults to text/event-stream for a
	// streaming request and application/json otherwise.
	Raw string `json:"raw,omitempty"`
	// Echo replies "You said: <last user message>" instead of Text.
	Echo bool `json:"echo,omitempty"`
	// Match selects this reply by the last user message; see Server.Rules.
	Match string `json:"match,omitempty"`
	// Reusable lets a rule answer any number of requests; see Server.Rules.
	Reusable bool `json:"reusable,omitempty"`
}

// ToolCall is a tool call in a Reply.
type ToolCall struct {
	// ID defaults to "call_<n>", n counting the server's tool calls from 1.
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Args is the JSON arguments text, sent as it is, so it may be invalid
	// on purpose. In a script file it is either a string holding that text
	// or any other JSON value, which is used as the text.
	Args string `json:"args,omitempty"`
	// Split sends Args across this many chunks (default 1). As with OpenAI,
	// the first delta carries the id and name; the others carry only the
	// index and their piece of the arguments.
	Split int `json:"split,omitempty"`
}

// Usage is the token usage a Reply reports.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens is the part of PromptTokens the provider served from
	// its prompt cache, reported in the profile's own field.
	CachedTokens int `json:"cached_tokens,omitempty"`
}

// Request is a chat-completions request as the server received it.
type Request struct {
	// Body is the decoded request; zero when Raw is not a valid request.
	Body   openai.ChatCompletionRequest
	Raw    []byte
	Header http.Header
	Path   string
	Stream bool
}

// LastUserMessage returns the text of the last message with role "user",
// the text parts joined when it has several, or "" when there is none.
func (r Request) LastUserMessage() string {
	return lastUserMessage(r.Body.Messages)
}

// ToolResults returns the contents of the request's tool messages, in
// order.
func (r Request) ToolResults() []string {
	var out []string
	for _, m := range r.Body.Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

// HistoryError says what makes the request's conversation invalid for a
// provider, or "" when it is valid: every assistant tool call must be
// answered by a tool message right after it (before the next non-tool
// message), with valid JSON arguments, and the conversation must not end
// with an unanswered call.
func (r Request) HistoryError() string {
	msgs := r.Body.Messages
	for i, m := range msgs {
		if m.Role != openai.ChatMessageRoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		for j := i + 1; j < len(msgs) && msgs[j].Role == openai.ChatMessageRoleTool; j++ {
			answered[msgs[j].ToolCallID] = true
		}
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				return fmt.Sprintf("tool call %s (%s) has no result right after it", tc.ID, tc.Function.Name)
			}
			if !json.Valid([]byte(tc.Function.Arguments)) {
				return fmt.Sprintf("tool call %s has invalid JSON arguments %q", tc.ID, tc.Function.Arguments)
			}
		}
	}
	return ""
}

func lastUserMessage(msgs []openai.ChatCompletionMessage) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != openai.ChatMessageRoleUser {
			continue
		}
		if len(m.MultiContent) == 0 {
			return m.Content
		}
		var b bytes.Buffer
		for _, p := range m.MultiContent {
			if p.Type == openai.ChatMessagePartTypeText {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	return ""
}

// UnmarshalJSON decodes a Reply from its script-file form: snake_case names,
// durations as Go duration strings, unknown fields rejected.
func (r *Reply) UnmarshalJSON(b []byte) error {
	type plain Reply
	var aux struct {
		plain
		ChunkDelay duration `json:"chunk_delay"`
		Delay      duration `json:"delay"`
		RetryDelay duration `json:"retry_delay"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&aux); err != nil {
		return fmt.Errorf("reply: %w", err)
	}
	*r = Reply(aux.plain)
	r.ChunkDelay = time.Duration(aux.ChunkDelay)
	r.Delay = time.Duration(aux.Delay)
	r.RetryDelay = time.Duration(aux.RetryDelay)
	return nil
}

// MarshalJSON encodes a Reply in the form UnmarshalJSON reads.
func (r Reply) MarshalJSON() ([]byte, error) {
	type plain Reply
	aux := struct {
		plain
		ChunkDelay duration `json:"chunk_delay,omitempty"`
		Delay      duration `json:"delay,omitempty"`
		RetryDelay duration `json:"retry_delay,omitempty"`
	}{plain(r), duration(r.ChunkDelay), duration(r.Delay), duration(r.RetryDelay)}
	return json.Marshal(aux)
}

// UnmarshalJSON reads args either as a JSON string holding the arguments
// text or as any other JSON value, whose text becomes the arguments.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	type plain ToolCall
	var aux struct {
		plain
		Args json.RawMessage `json:"args"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&aux); err != nil {
		return fmt.Errorf("tool call: %w", err)
	}
	*c = ToolCall(aux.plain)
	c.Args = ""
	args := bytes.TrimSpace(aux.Args)
	switch {
	case len(args) == 0:
	case args[0] == '"':
		if err := json.Unmarshal(args, &c.Args); err != nil {
			return fmt.Errorf("tool call args: %w", err)
		}
	default:
		var compact bytes.Buffer
		if err := json.Compact(&compact, args); err != nil {
			return fmt.Errorf("tool call args: %w", err)
		}
		c.Args = compact.String()
	}
	return nil
}

// duration is a time.Duration written in JSON as a Go duration string.
type duration time.Duration

func (d duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"2ms\": %s", b)
	}
	if s == "" {
		*d = 0
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = duration(v)
	return nil
}
