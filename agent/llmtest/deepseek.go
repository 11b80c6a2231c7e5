package llmtest

import (
	"encoding/json"
	"fmt"
	"slices"
)

// deepseekModels are the model ids DeepSeek's API accepts today, all of
// which think by default; the old aliases deepseek-chat and
// deepseek-reasoner were retired and answer 400, as any unknown id does
// here (docs/providers.md, DeepSeek).
var deepseekModels = []string{"deepseek-flash", "deepseek-v4-flash", "deepseek-v4-flash-vision-exp", "deepseek-v4-pro"}

// deepseekThinks reports whether DeepSeek answers req in thinking mode:
// unless the request sets "thinking": {"type": "disabled"}
// (https://api-docs.deepseek.com/guides/thinking_mode, toggle table).
func deepseekThinks(req Request) bool {
	var t struct {
		Type string `json:"type"`
	}
	if raw, ok := req.Fields()["thinking"]; ok && json.Unmarshal(raw, &t) == nil && t.Type == "disabled" {
		return false
	}
	return true
}

// deepseekError is DeepSeek's error body: OpenAI's shape with code
// "invalid_request_error" (docs/providers.md, DeepSeek).
func deepseekError(status int, msg string) *profileError {
	return &profileError{status: status, why: msg, body: map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": nil, "code": "invalid_request_error",
	}}}
}

// deepseekCheck is DeepSeek's own check, which a gateway or proxy serving
// a deepseek-* model under another host passes on unchanged (the server
// here runs on 127.0.0.1, so every test of this profile is such a
// gateway): the rule is the model's, not the host's
// (https://api-docs.deepseek.com/guides/thinking_mode: "Thinking mode is
// enabled by default").
func (s *Server) deepseekCheck(req Request) *profileError {
	s.mu.Lock()
	known := slices.Contains(s.models, req.Body.Model)
	s.mu.Unlock()
	if !known {
		// 400 "Model Not Exist" (langbot-app/LangBot#1643 (2025-09-02),
		// ConardLi/easy-dataset#9 (2025-03-13), deepwn/addi#13 (2026-03-30)).
		return deepseekError(400, "Model Not Exist")
	}
	if _, i := imageParts(req.Messages()); i >= 0 {
		// DeepSeek's API takes text only: an image_url part fails its
		// deserializer with a 400 (jxxghp/MoviePilot#5863 (2026-05-30),
		// rikkahub/rikkahub#1433 (2026-07-03): "Failed to deserialize the
		// JSON body into the target type: messages[1]: unknown variant
		// `image_url`, expected `text` at line 1 column 679289").
		return deepseekError(400, fmt.Sprintf("Failed to deserialize the JSON body into the target type: messages[%d]: unknown variant `image_url`, expected `text` at line 1 column %d", i, len(req.Raw)/2))
	}
	if !deepseekThinks(req) {
		return nil
	}
	// "Between two user messages, if the model performed a tool call, the
	// intermediate assistant's reasoning_content must participate in the
	// context concatenation and must be passed back to the API in all
	// subsequent user interaction turns"; missing it is a 400
	// (https://api-docs.deepseek.com/guides/thinking_mode, "Tool calls";
	// anomalyco/opencode#24722 (2026-04-28); body from earendil-works/pi#3636 and
	// qwersyk/Newelle#404 (2026-07-04)). An empty string passes; an absent key does not.
	msgs := req.Messages()
	for start := 0; start < len(msgs); {
		end := start + 1
		for end < len(msgs) && msgs[end].Role != "user" {
			end++
		}
		turn := msgs[start:end]
		called := slices.ContainsFunc(turn, func(m WireMessage) bool {
			return m.Role == "assistant" && len(m.ToolCalls) > 0
		})
		if called {
			for _, m := range turn {
				if m.Role == "assistant" && m.ReasoningContent == nil {
					return deepseekError(400, "The `reasoning_content` in the thinking mode must be passed back to the API.")
				}
			}
		}
		start = end
	}
	return nil
}
