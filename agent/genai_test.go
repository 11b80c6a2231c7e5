package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// encodedMessages is genaiMessages as encoding/json writes it (the
// reference for the hand-written path).
func encodedMessages(role, text, finish string) string {
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content,omitempty"`
	}
	msg := struct {
		Role         string `json:"role"`
		Parts        []part `json:"parts"`
		FinishReason string `json:"finish_reason,omitempty"`
	}{Role: role, Parts: []part{}, FinishReason: finish}
	if text != "" {
		msg.Parts = append(msg.Parts, part{Type: "text", Content: text})
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode([]any{msg})
	return strings.TrimSuffix(b.String(), "\n")
}

// FuzzGenaiMessages: a message without tool calls is written byte for byte
// as encoding/json writes it.
func FuzzGenaiMessages(f *testing.F) {
	for _, s := range []string{"", "go", "plain text longer than eight bytes", "quote \" backslash \\ nl \n tab \t bs \b ff \f",
		"\x00\x01\x1f\x7f <script>&", "é ü 日本 and more text", "\u2028\u2029", "bad \xff utf8 \xc3", strings.Repeat("abcd", 40)} {
		f.Add("assistant", s, "stop")
		f.Add("user", s, "")
	}
	f.Fuzz(func(t *testing.T, role, text, finish string) {
		if got, want := genaiMessages(role, "", text, nil, finish), encodedMessages(role, text, finish); got != want {
			t.Fatalf("genaiMessages(%q, %q, %q)\n = %s\nwant %s", role, text, finish, got, want)
		}
	})
}

func BenchmarkGenaiMessages(b *testing.B) {
	text := strings.Repeat("abcd", 2000) // the agent benchmark's answer
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = genaiMessages("assistant", "", text, nil, "stop")
	}
}
