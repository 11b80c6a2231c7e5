package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// contextWindows are the context sizes, in tokens, of model families co
// knows; the longest matching prefix wins.
var contextWindows = []struct {
	prefix string
	tokens int
}{
	{"gemini-1.5-pro", 2_097_152},
	{"gemini-", 1_048_576},
	{"gpt-4.1", 1_047_576},
	{"gpt-4o", 128_000},
	{"gpt-5", 400_000},
	{"o3", 200_000},
	{"o4", 200_000},
	{"claude", 200_000},
	{"llama3.1", 131_072},
	{"llama3.2", 131_072},
	{"llama3", 8_192},
	{"qwen2.5", 32_768},
	{"qwen3", 40_960},
	{"mistral", 32_768},
	{"glm-4", 131_072},
}

// ContextWindow returns the known context size of model in tokens, or 0.
func ContextWindow(model string) int {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	best, size := 0, 0
	for _, c := range contextWindows {
		if strings.HasPrefix(m, c.prefix) && len(c.prefix) > best {
			best, size = len(c.prefix), c.tokens
		}
	}
	return size
}

// ListModels asks p's server for its chat models: GET {base}/models for
// Gemini and OpenAI-compatible servers (Gemini's ids come as
// "models/gemini-…" and are listed without the prefix, which co accepts
// either way), GET /api/tags for Ollama. Models that cannot chat
// (embeddings, speech, images) are left out. It is never called on the
// start-up path: only for /model, `co models` and after a "model not
// found".
func ListModels(ctx context.Context, p Provider, client *http.Client) ([]string, error) {
	if client == nil {
		client = http.DefaultClient
	}
	if p.Name == "ollama" {
		var tags struct {
			Models []struct {
				Name string `json:"name"`
			} `json:"models"`
		}
		if err := getJSON(ctx, client, "listing Ollama's models", OllamaRoot(p.BaseURL)+"/api/tags", "", &tags); err != nil {
			return nil, err
		}
		var out []string
		for _, m := range tags.Models {
			if m.Name != "" && chatModel(m.Name) {
				out = append(out, m.Name)
			}
		}
		sort.Strings(out)
		return out, nil
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := getJSON(ctx, client, "listing models", strings.TrimRight(p.BaseURL, "/")+"/models", p.APIKey, &list); err != nil {
		return nil, err
	}
	var out []string
	for _, m := range list.Data {
		id := strings.TrimPrefix(m.ID, "models/")
		if id != "" && chatModel(id) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out, nil
}

// ListError is a model listing the server refused.
type ListError struct {
	What    string // "listing models"
	Status  int    // HTTP status
	Message string // the body, plain (PlainError)
}

func (e *ListError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.What, e.Status, e.Message)
}

// getJSON decodes the JSON answer to GET url (with key as a bearer token
// when set) into v; an error status is a *ListError about what, with the
// body's message in plain words.
func getJSON(ctx context.Context, client *http.Client, what, url, key string, v any) error {
	status, msg, err := DoJSON(ctx, client, http.MethodGet, url, key, nil, v)
	switch {
	case err != nil && status == http.StatusOK:
		return fmt.Errorf("%s: %w", what, err)
	case err != nil:
		return err
	case status != http.StatusOK:
		return &ListError{What: what, Status: status, Message: msg}
	}
	return nil
}

// doJSON makes one small JSON request (a bearer key and a body when set)
// and decodes a 200 answer into out. Another status is returned with the
// body's message in plain words (PlainError) and no error; err with status
// 200 means the answer did not decode, with status 0 that the request
// failed.
func DoJSON(ctx context.Context, client *http.Client, method, url, key string, body []byte, out any) (status int, msg string, err error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return 0, "", err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return 0, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, PlainError(b), nil
	}
	return http.StatusOK, "", json.Unmarshal(b, out)
}

// ollamaRoot is Ollama's address without the /v1 of its OpenAI-compatible
// API.
func OllamaRoot(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}

// chatModel reports whether a listed model id is one that chats.
func chatModel(id string) bool {
	l := strings.ToLower(id)
	for _, not := range []string{"embed", "tts", "whisper", "dall-e", "imagen", "veo", "moderation", "aqa", "transcribe", "realtime", "-audio", "image", "lyria", "babbage", "davinci"} {
		if strings.Contains(l, not) {
			return false
		}
	}
	return true
}

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
