package llmtest

import (
	"bytes"
	"encoding/json"
)

// WireMessage is one message of a request as the client sent it, decoded
// from Request.Raw. Unlike Request.Body (go-openai's struct) it keeps the
// provider extensions: reasoning_content and reasoning (nil when the key
// is absent, so absent differs from ""), Ollama's thinking, and each tool
// call's extra_content.
type WireMessage struct {
	Role string `json:"role"`
	// Content is the raw content: a JSON string, an array of parts or null.
	Content          json.RawMessage `json:"content,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	Reasoning        *string         `json:"reasoning,omitempty"`
	// Thinking is Ollama's /api/chat field for reasoning.
	Thinking   *string        `json:"thinking,omitempty"`
	ToolCalls  []WireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Name       string         `json:"name,omitempty"`
	// ToolName is Ollama's /api/chat name of the tool a result is for.
	ToolName string `json:"tool_name,omitempty"`
	// Images are Ollama's /api/chat images of a user message (base64).
	Images []string `json:"images,omitempty"`
}

// WirePart is one content part of a message sent as an array: text, an
// image (image_url.url, a data: URL) or a file (OpenAI's PDF part).
type WirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url,omitempty"`
	File *struct {
		Filename string `json:"filename"`
		FileData string `json:"file_data"`
	} `json:"file,omitempty"`
}

// Parts returns the content parts of a message sent as an array; nil for
// string content.
func (m WireMessage) Parts() []WirePart {
	c := bytes.TrimSpace(m.Content)
	if len(c) == 0 || c[0] != '[' {
		return nil
	}
	var parts []WirePart
	if json.Unmarshal(c, &parts) != nil {
		return nil
	}
	return parts
}

// imageParts counts the image_url parts of msgs and returns the index of
// the first message with one (-1 for none).
func imageParts(msgs []WireMessage) (n, first int) {
	first = -1
	for i, m := range msgs {
		for _, p := range m.Parts() {
			if p.Type == "image_url" {
				n++
				if first < 0 {
					first = i
				}
			}
		}
	}
	return n, first
}

// WireToolCall is a tool call in a WireMessage.
type WireToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function WireFunction `json:"function"`
	// ExtraContent is kept as sent, e.g. Gemini's
	// {"google":{"thought_signature":"..."}}.
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

// WireFunction is the function of a WireToolCall. Arguments is raw: a JSON
// string holding the arguments text (OpenAI) or an object (Ollama's
// /api/chat).
type WireFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ThoughtSignature returns extra_content.google.thought_signature and
// whether it is present.
func (c WireToolCall) ThoughtSignature() (string, bool) {
	var ec struct {
		Google *struct {
			ThoughtSignature *string `json:"thought_signature"`
		} `json:"google"`
	}
	if len(c.ExtraContent) == 0 || json.Unmarshal(c.ExtraContent, &ec) != nil ||
		ec.Google == nil || ec.Google.ThoughtSignature == nil {
		return "", false
	}
	return *ec.Google.ThoughtSignature, true
}

// Text returns the message's text: the string content, or its text parts
// joined.
func (m WireMessage) Text() string {
	c := bytes.TrimSpace(m.Content)
	if len(c) == 0 {
		return ""
	}
	var s string
	if c[0] == '"' && json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(c, &parts) != nil {
		return ""
	}
	var b bytes.Buffer
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Messages decodes the messages of Raw; nil when Raw has none or is not
// JSON.
func (r Request) Messages() []WireMessage {
	var body struct {
		Messages []WireMessage `json:"messages"`
	}
	if json.Unmarshal(r.Raw, &body) != nil {
		return nil
	}
	return body.Messages
}

// Fields returns the top-level fields of the request body as sent (for
// example "max_tokens", "thinking", "think" or "options"); nil when Raw is
// not a JSON object.
func (r Request) Fields() map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(r.Raw, &m) != nil {
		return nil
	}
	return m
}

// has reports whether the request sets field to something other than null.
func (r Request) has(field string) bool {
	v, ok := r.Fields()[field]
	return ok && string(bytes.TrimSpace(v)) != "null"
}
