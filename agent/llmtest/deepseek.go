package llmtest

// Sources: the documentation and bug reports cited in this file were read
// on 2026-11-24, from stored copies whose own age varies; a bug report is
// cited by repository and number, with its date where known (dates checked
// 2026-11-25).

import (
	"encoding/json"
	"slices"
)

// deepseekModels are DeepSeek's model ids: the V4 models, which think by
// default, and the legacy aliases deepseek-chat (non-thinking) and
// deepseek-reasoner (thinking) (https://api-docs.deepseek.com/guides/thinking_mode:
// "Thinking mode is enabled by default"; the aliases' mapping as quoted in
// AmintaCCCP/GithubStarsManager#193 from DeepSeek's pricing page; ids in
// earendil-works/pi#3636).
var deepseekModels = []string{"deepseek-v4-flash", "deepseek-v4-pro", "deepseek-chat", "deepseek-reasoner"}

// deepseekThinks reports whether DeepSeek answers req in thinking mode:
// deepseek-reasoner always, deepseek-chat never, the others unless the
// request sets "thinking": {"type": "disabled"}
// (https://api-docs.deepseek.com/guides/thinking_mode, toggle table).
func deepseekThinks(req Request) bool {
	switch req.Body.Model {
	case "deepseek-reasoner":
		return true
	case "deepseek-chat":
		return false
	}
	var t struct {
		Type string `json:"type"`
	}
	if raw, ok := req.Fields()["thinking"]; ok && json.Unmarshal(raw, &t) == nil && t.Type == "disabled" {
		return false
	}
	return true
}

// deepseekError is DeepSeek's error body: OpenAI's shape with code
// "invalid_request_error" (langbot-app/LangBot#1643 (2025-09-02),
// qwersyk/Newelle#404 (2026-07-04)).
func deepseekError(status int, msg string) *profileError {
	return &profileError{status: status, why: msg, body: map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": nil, "code": "invalid_request_error",
	}}}
}

func (s *Server) deepseekCheck(req Request) *profileError {
	s.mu.Lock()
	known := slices.Contains(s.models, req.Body.Model)
	s.mu.Unlock()
	if !known {
		// 400 "Model Not Exist" (langbot-app/LangBot#1643 (2025-09-02),
		// ConardLi/easy-dataset#9 (2025-03-13), deepwn/addi#13 (2026-03-30)).
		return deepseekError(400, "Model Not Exist")
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
