package provider

import (
	"context"
	"fmt"
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
