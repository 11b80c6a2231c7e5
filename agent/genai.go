package agent

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// genaiMessages is a gen_ai.input.messages / gen_ai.output.messages value
// (OpenTelemetry GenAI conventions): one message of text and tool-call parts.
// A message without tool calls (every prompt and most answers) is written
// by hand: escaping the text is most of the work, and writeJSONString
// skips plain text eight bytes at a time (encoding/json goes byte by byte).
func genaiMessages(role, text string, calls []ToolCall, finish string) string {
	if len(calls) == 0 {
		var b strings.Builder
		b.Grow(len(text) + len(role) + len(finish) + 80)
		b.WriteString(`[{"role":`)
		writeJSONString(&b, role)
		b.WriteString(`,"parts":[`)
		if text != "" {
			b.WriteString(`{"type":"text","content":`)
			writeJSONString(&b, text)
			b.WriteByte('}')
		}
		b.WriteByte(']')
		if finish != "" {
			b.WriteString(`,"finish_reason":`)
			writeJSONString(&b, finish)
		}
		b.WriteString("}]")
		return b.String()
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

// writeJSONString writes s as a JSON string exactly as encoding/json does
// without HTML escaping: \b \f \n \r \t and \u00XX for control bytes,
// U+FFFD for invalid UTF-8, \u2028 and \u2029 escaped.
func writeJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) && plainJSON8(s[i:i+8]) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			b.WriteString(s[start:i])
			switch r {
			case utf8.RuneError:
				b.WriteString(`\ufffd`)
			default:
				b.WriteString(`\u202`)
				b.WriteByte(hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// plainJSON8 reports whether none of the 8 bytes of s needs escaping or
// decoding: each is printable ASCII other than '"' and '\\'.
func plainJSON8(s string) bool {
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	ctl := (x - 0x20*lo) & ^x & hi // some byte < 0x20
	q := x ^ ('"' * lo)
	bs := x ^ ('\\' * lo)
	return (x&hi)|ctl|(q-lo)&^q&hi|(bs-lo)&^bs&hi == 0
}
