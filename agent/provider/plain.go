package provider

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A provider's error bodies made one plain line for the user.

// PlainError turns a provider's error body into one plain sentence: the
// message of OpenAI's {"error":{…}}, of Google's [{"error":{…}}], or of
// Ollama's {"error":"…"}; otherwise the body itself, cut short.
func PlainError(body []byte) string {
	body = bytes.TrimSpace(body)
	msg := ""
	if e, ok := parseErrorBody(body); ok {
		msg = e.Message
	} else if m, ok := ollamaError(body); ok {
		msg = m
	}
	if msg == "" {
		msg = htmlText(string(body))
	}
	return PlainMessage(msg)
}

// ollamaError is the message of Ollama's error body, {"error": "…"}.
func ollamaError(body []byte) (string, bool) {
	var s struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &s) != nil || s.Error == "" {
		return "", false
	}
	return s.Error, true
}

// htmlText is the title of an HTML error page (a proxy's "502 Bad
// Gateway"), or its text without tags; anything else is returned as it is.
func htmlText(s string) string {
	l := strings.ToLower(strings.TrimSpace(s))
	if !strings.HasPrefix(l, "<") {
		return s
	}
	if i := strings.Index(l, "<title>"); i >= 0 {
		if j := strings.Index(l[i:], "</title>"); j > len("<title>") {
			return strings.TrimSpace(s[i+len("<title>") : i+j])
		}
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
			b.WriteByte(' ')
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plainMessage makes msg one line of at most 300 runes. A message that is
// itself an error body (Gemini's errors passed through another layer
// arrive as {"error":{"message":"{\n  \"error\": {…}}"}}:
// continuedev/continue#9939, earendil-works/pi#2893) is unwrapped.
func PlainMessage(msg string) string {
	msg = strings.TrimSpace(msg)
	for range 3 {
		if msg == "" || (msg[0] != '{' && msg[0] != '[') {
			break
		}
		e, ok := parseErrorBody([]byte(msg))
		if !ok || e.Message == "" {
			break
		}
		msg = strings.TrimSpace(e.Message)
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:300]) + "…"
	}
	return msg
}
