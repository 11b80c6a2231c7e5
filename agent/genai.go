package agent

import (
	"encoding/json"
	"strings"
	"unsafe"

	"github.com/co-cli/co/lib/jsonstr"
	"github.com/co-cli/co/message"
)

// genaiMessages is a gen_ai.input.messages / gen_ai.output.messages value
// (OpenTelemetry GenAI conventions): one message of text and tool-call parts.
// A message without tool calls (every prompt and most answers) is written
// by hand: escaping the text is most of the work, and jsonstr skips plain
// text eight bytes at a time (encoding/json goes byte by byte).
func genaiMessages(role, reasoning, text string, calls []message.ToolCall, finish string) string {
	if len(calls) == 0 && reasoning == "" {
		b := make([]byte, 0, len(text)+len(role)+len(finish)+80)
		b = append(b, `[{"role":`...)
		b = jsonstr.Append(b, role)
		b = append(b, `,"parts":[`...)
		if text != "" {
			b = append(b, `{"type":"text","content":`...)
			b = jsonstr.Append(b, text)
			b = append(b, '}')
		}
		b = append(b, ']')
		if finish != "" {
			b = append(b, `,"finish_reason":`...)
			b = jsonstr.Append(b, finish)
		}
		b = append(b, "}]"...)
		// b is not touched again: share its bytes, as strings.Builder does.
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	type part struct {
		Type      string          `json:"type"`
		Content   string          `json:"content,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}
	msg := struct {
		Role         string `json:"role"`
		Parts        []part `json:"parts"`
		FinishReason string `json:"finish_reason,omitempty"`
	}{Role: role, Parts: []part{}, FinishReason: finish}
	if reasoning != "" {
		// A ReasoningPart of the GenAI semantic conventions.
		msg.Parts = append(msg.Parts, part{Type: "reasoning", Content: reasoning})
	}
	if text != "" {
		msg.Parts = append(msg.Parts, part{Type: "text", Content: text})
	}
	for _, c := range calls {
		p := part{Type: "tool_call", ID: c.ID, Name: c.Name}
		if json.Valid([]byte(c.Args)) {
			p.Arguments = json.RawMessage(c.Args)
		} else {
			p.Arguments, _ = json.Marshal(c.Args)
		}
		msg.Parts = append(msg.Parts, p)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <, > and & readable (and searchable)
	_ = enc.Encode([]any{msg})
	return strings.TrimSuffix(b.String(), "\n")
}
