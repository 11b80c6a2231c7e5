package provider

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/co-cli/co/lib/jsonstr"
	"github.com/co-cli/co/message"
)

// The chat-completions request as co sends it. go-openai's request types
// have no field for what today's providers need back: Gemini's
// extra_content on a tool call, DeepSeek's reasoning_content when it is
// empty (go-openai drops it), vLLM's and Ollama's reasoning. So co encodes
// the body itself (here) and hands it to go-openai's client through the
// request's context (see bodySeam): go-openai still builds the request,
// sets the headers, reads the event stream and decodes errors.

// RequestOptions are the settings that shape a chat request.
type RequestOptions struct {
	// ReasoningEffort is low, medium or high; empty leaves the provider's
	// default (reasoning_effort).
	ReasoningEffort string
	// MaxTokens caps the reply (llm_max_tokens); 0 means co's default
	// bound (agent/replybound.go).
	MaxTokens int
	// Temperature, when set, is sent as is (llm_temperature).
	Temperature *float64
	// OllamaNumCtx is the context window asked of Ollama (ollama_num_ctx).
	OllamaNumCtx int
}

// Dummy signature Google documents for a function call that has none
// because it came from another model or provider, or from a history made
// before signatures existed:
// https://ai.google.dev/gemini-api/docs/thought-signatures ("If you are
// transferring a conversation trace from another model … you can set the
// thought signature to skip_thought_signature_validator").
const skipSignature = "skip_thought_signature_validator"

var skipSignatureExtra = json.RawMessage(`{"google":{"thought_signature":"` + skipSignature + `"}}`)

// Origin identifies the endpoint that produced a message: reasoning goes
// back only to the endpoint it came from.
func (p Provider) Origin() string { return p.Name + " " + strings.TrimRight(p.BaseURL, "/") }

// IsGemini reports whether p speaks to Google's Gemini API (directly or
// through LLM_PROVIDER=openai with Google's base URL).
func (p Provider) IsGemini() bool {
	if p.Name == "gemini" {
		return true
	}
	u := strings.ToLower(p.BaseURL)
	return strings.Contains(u, "generativelanguage.googleapis.com") || strings.Contains(u, "aiplatform.googleapis.com")
}

// fixedSamplingModel reports whether model is an OpenAI reasoning model:
// gpt-5* and the o-series reject max_tokens (they take
// max_completion_tokens) and any temperature but the default ("Unsupported
// parameter: 'max_tokens' is not supported with this model. Use
// 'max_completion_tokens' instead.": docs/providers.md, OpenAI).
func FixedSamplingModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if strings.HasPrefix(m, "gpt-5") {
		return true
	}
	return len(m) >= 2 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9'
}

// turnInfo says, for messages from index off on, whether their user turn
// called tools and the reasoning field this endpoint's messages in that
// turn came with.
type turnInfo struct {
	off       int
	usedTools []bool
	field     []string
}

func (ti turnInfo) used(i int) bool      { return ti.usedTools[i-ti.off] }
func (ti turnInfo) fieldOf(i int) string { return ti.field[i-ti.off] }

// turns groups msgs[from:] by user turn (a turn starts at a user message
// and runs to the next one), starting with the turn that holds msgs[from].
func turns(msgs []message.Message, origin string, from int) turnInfo {
	start := from
	for start > 0 && (start >= len(msgs) || msgs[start].Role != message.RoleUser) {
		start--
	}
	ti := turnInfo{off: start, usedTools: make([]bool, len(msgs)-start), field: make([]string, len(msgs)-start)}
	flush := func(end int) {
		used, field := false, ""
		for _, m := range msgs[start:end] {
			if m.Role != message.RoleAssistant {
				continue
			}
			if len(m.ToolCalls) > 0 {
				used = true
			}
			if field == "" && m.Origin == origin {
				field = m.ReasoningField
			}
		}
		for i := start; i < end; i++ {
			ti.usedTools[i-ti.off], ti.field[i-ti.off] = used, field
		}
	}
	for i := start; i < len(msgs); i++ {
		if msgs[i].Role == message.RoleUser && i > start {
			flush(i)
			start = i
		}
	}
	flush(len(msgs))
	return ti
}

// latestField is the reasoning field origin's messages in msgs used last.
func latestField(msgs []message.Message, origin string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == message.RoleAssistant && m.Origin == origin && m.ReasoningField != "" {
			return m.ReasoningField
		}
	}
	return ""
}

// sessionField is the reasoning field for a tool-using turn none of whose
// messages came with reasoning from p: the one p used last (latest), or
// for DeepSeek, whose thinking models require it, reasoning_content even
// before the first.
func sessionField(p Provider, latest string) string {
	if latest == "" && DeepseekThinking(p) {
		return "reasoning_content"
	}
	return latest
}

// DeepseekThinking reports whether p may be a DeepSeek model in thinking
// mode (on by default), which answers 400 "The `reasoning_content` in the
// thinking mode must be passed back to the API" when an assistant message
// of a tool-calling turn comes back without reasoning_content, even one
// that streamed none (docs/providers.md, DeepSeek). Decided by the host
// (api.deepseek.com) or by the model's name, since gateways serve
// DeepSeek's models under their own hosts with the name kept or prefixed
// (deepseek/deepseek-v4-flash). Servers that are not DeepSeek ignore the
// extra empty field.
func DeepseekThinking(p Provider) bool {
	if strings.Contains(strings.ToLower(p.BaseURL), "deepseek.com") {
		return true
	}
	m := strings.ToLower(p.Model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return strings.HasPrefix(m, "deepseek")
}

// encodeChatRequest writes the chat-completions request body for p: the
// system prompt, msgs (already trimmed for sending), the tool definitions
// (a JSON array, or nil) and the options.
//
// What goes back with each assistant message (docs/providers.md, Gemini
// and DeepSeek):
//   - A tool call's extra_content, verbatim, to the endpoint and model it
//     came from. To Gemini, the first call of a step without a signature
//     gets Google's documented placeholder; the other calls of a parallel
//     step carry none, as Gemini sends them.
//   - Reasoning, in the field this endpoint streams it in, for every
//     assistant message of a user turn that called tools ("" when there was
//     none: DeepSeek answers 400 otherwise). Turns without tool calls and
//     other endpoints' messages send none.
func encodeChatRequest(p Provider, o RequestOptions, system string, msgs []message.Message, tools []byte, stream bool) []byte {
	return bytes.Join(EncodeChatRequestCached(nil, "", p, o, system, msgs, tools, stream), nil)
}

// prefixCache keeps the encoding of the conversation's finished turns (the
// messages before the last user message), which do not change from one
// request to the next: each request then encodes only its own turn, so its
// cost does not grow with the conversation. Anything that rewrites the
// history (SetHistory, summarising, /clear) bumps the agent's generation,
// which is part of the key with the endpoint and model; the reasoning
// field the prefix was written with is checked too.
type PrefixCache struct {
	key    string
	n      int    // messages encoded
	buf    []byte // their encoding, each followed by a comma
	latest string // latestField of the n messages
	sfield string // the session field they were encoded with
}

// The body comes in three pieces, the cached prefix shared rather than
// copied: a new request only appends to the cache after this one is over,
// and appending never changes bytes already written.
func EncodeChatRequestCached(c *PrefixCache, key string, p Provider, o RequestOptions, system string, msgs []message.Message, tools []byte, stream bool) [][]byte {
	origin := p.Origin()
	split := 0 // msgs[:split] are finished turns
	for i := len(msgs) - 1; i > 0; i-- {
		if msgs[i].Role == message.RoleUser {
			split = i
			break
		}
	}
	if c == nil {
		c = &PrefixCache{}
		split = 0
	}
	if c.key != key || c.n > split {
		*c = PrefixCache{key: key, buf: c.buf[:0]}
	}
	if f := latestField(msgs[c.n:split], origin); f != "" {
		c.latest = f
	}
	latest := latestField(msgs[split:], origin)
	if latest == "" {
		latest = c.latest
	}
	sfield := sessionField(p, latest)
	if c.n > 0 && sfield != c.sfield {
		c.n, c.buf = 0, c.buf[:0]
	}
	e := msgEncoder{p: p, origin: origin, gemini: p.IsGemini(), ti: turns(msgs, origin, c.n), sfield: sfield}
	for i := c.n; i < split; i++ {
		c.buf = e.appendMessage(c.buf, i, msgs[i])
		c.buf = append(c.buf, ',')
	}
	c.n, c.sfield = split, sfield
	prefix := c.buf
	head := make([]byte, 0, 64+len(system))
	head = append(head, `{"model":`...)
	head = jsonstr.Append(head, p.Model)
	head = append(head, `,"messages":[`...)
	if system != "" {
		head = append(head, `{"role":"system","content":`...)
		head = jsonstr.Append(head, system)
		head = append(head, "},"...)
	}
	b := make([]byte, 0, 256+len(tools)+64*(len(msgs)-split))
	for i := split; i < len(msgs); i++ {
		b = e.appendMessage(b, i, msgs[i])
		b = append(b, ',')
	}
	switch {
	case len(b) > 0:
		b = b[:len(b)-1]
	case len(prefix) > 0:
		prefix = prefix[:len(prefix)-1]
	default:
		head = bytes.TrimSuffix(head, []byte(","))
	}
	b = append(b, ']')
	if len(tools) > 0 {
		b = append(b, `,"tools":`...)
		b = append(b, tools...)
	}
	if stream {
		b = append(b, `,"stream":true,"stream_options":{"include_usage":true}`...)
	}
	if o.ReasoningEffort != "" {
		b = append(b, `,"reasoning_effort":`...)
		b = jsonstr.Append(b, o.ReasoningEffort)
	}
	fixed := FixedSamplingModel(p.Model)
	if o.MaxTokens > 0 {
		b = append(b, `,"`+BoundField(p.Model)+`":`...)
		b = strconv.AppendInt(b, int64(o.MaxTokens), 10)
	}
	if o.Temperature != nil && !fixed {
		b = append(b, `,"temperature":`...)
		b = strconv.AppendFloat(b, *o.Temperature, 'g', -1, 64)
	}
	return [][]byte{head, prefix, append(b, '}')}
}

// BoundField is the request field that bounds a reply of model on an
// OpenAI-compatible route, the one place co chooses it:
// max_completion_tokens for OpenAI's reasoning models, which refuse
// max_tokens (FixedSamplingModel); max_tokens everywhere else, which
// llama-server takes as n_predict, vLLM as its max_tokens and Gemini's
// OpenAI-compatible endpoint as maxOutputTokens (docs/providers.md).
func BoundField(model string) string {
	if FixedSamplingModel(model) {
		return "max_completion_tokens"
	}
	return "max_tokens"
}

// cacheKey is what the encoding of finished turns depends on besides the
// messages themselves and the reasoning field.
func CacheKey(gen int, p Provider) string {
	return strconv.Itoa(gen) + "\x00" + p.Origin() + "\x00" + p.Model
}

// msgEncoder writes messages for one request.
type msgEncoder struct {
	p      Provider
	origin string
	gemini bool
	ti     turnInfo
	sfield string
}

// appendMessage writes msgs[i] (m).
func (e *msgEncoder) appendMessage(b []byte, i int, m message.Message) []byte {
	switch m.Role {
	case message.RoleUser:
		b = append(b, `{"role":"user","content":`...)
		if len(m.Attachments) > 0 {
			b = appendUserParts(b, m)
		} else {
			b = jsonstr.Append(b, m.Content)
		}
		return append(b, '}')
	case message.RoleTool:
		b = append(b, `{"role":"tool","tool_call_id":`...)
		b = jsonstr.Append(b, m.ToolCallID)
		b = append(b, `,"content":`...)
		b = jsonstr.Append(b, m.Content)
		return append(b, '}')
	}
	content := m.Content
	if m.Interrupted {
		content += interruptedNote
	}
	b = append(b, `{"role":"assistant","content":`...)
	b = jsonstr.Append(b, content)
	same := m.Origin == e.origin
	if e.ti.used(i) {
		field := ""
		if same {
			field = m.ReasoningField
		}
		if field == "" {
			field = e.ti.fieldOf(i)
		}
		if field == "" {
			field = e.sfield
		}
		if field == "reasoning_content" || field == "reasoning" {
			// Another endpoint's reasoning stays home: "" in its place.
			r := ""
			if same {
				r = m.Reasoning
			}
			b = append(b, `,"`...)
			b = append(b, field...)
			b = append(b, `":`...)
			b = jsonstr.Append(b, r)
		}
	}
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":[`...)
		sameModel := same && m.Model == e.p.Model
		for k, tc := range m.ToolCalls {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = jsonstr.Append(b, tc.ID)
			b = append(b, `,"type":"function","function":{"name":`...)
			b = jsonstr.Append(b, tc.Name)
			b = append(b, `,"arguments":`...)
			args := tc.Args
			if !json.Valid([]byte(args)) {
				args = "{}"
			}
			b = jsonstr.Append(b, args)
			b = append(b, '}')
			extra := tc.Extra
			switch {
			case e.gemini && !sameModel:
				extra = nil
				if k == 0 {
					extra = skipSignatureExtra
				}
			case e.gemini && k == 0 && !hasSignature(extra):
				extra = skipSignatureExtra
			case !same:
				extra = nil
			}
			if len(extra) > 0 && json.Valid(extra) {
				b = append(b, `,"extra_content":`...)
				b = append(b, extra...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// hasSignature reports whether a call's extra_content holds a thought
// signature (Gemini's under "google", Vertex's under "vertex").
func hasSignature(extra json.RawMessage) bool {
	return len(extra) > 0 && bytes.Contains(extra, []byte(`"thought_signature"`))
}

// interruptedNote ends an interrupted assistant reply as the model sees it.
const interruptedNote = "\n\n[reply interrupted by the user]"
