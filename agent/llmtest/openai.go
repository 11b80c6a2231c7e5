package llmtest

import (
	"bytes"
	"fmt"
	"strings"
)

// openaiModels is what the openai profile lists.
var openaiModels = []string{"gpt-5", "gpt-5-mini", "gpt-5.1", "o3", "o4-mini", "gpt-4.1", "gpt-4o"}

// openaiReasoning reports whether OpenAI treats model as a reasoning model
// with the restricted parameters: the gpt-5 family and the o-series.
func openaiReasoning(model string) bool {
	for _, p := range []string{"gpt-5", "o1", "o3", "o4"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

func openaiParamError(msg, param, code string) *profileError {
	return &profileError{status: 400, why: msg, body: map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": param, "code": code,
	}}}
}

// openaiCheck refuses what OpenAI refuses for reasoning models.
func openaiCheck(req Request) *profileError {
	if !openaiReasoning(req.Body.Model) {
		return nil
	}
	if req.has("max_tokens") {
		// griptape-ai/ComfyUI-Griptape#312 (2025-08-22), fish2018/YPrompt#26
		// (2025-12-22), MuiseDestiny/zotero-gpt#464 (2025-09-03) (gpt-5,
		// gpt-5.1, gpt-5-mini).
		return openaiParamError("Unsupported parameter: 'max_tokens' is not supported with this model. "+
			"Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter")
	}
	if t, ok := req.Fields()["temperature"]; ok {
		v := string(bytes.TrimSpace(t))
		if v != "null" && v != "1" && v != "1.0" {
			// cline/cline#341 (2024-09-21) (o1),
			// BeehiveInnovations/pal-mcp-server#78 (2025-06-18) (o3),
			// gabrii/Cursor-Azure-GPT-5#33 (2025-09-15) and
			// QwenLM/qwen-code#921 (2025-10-29) (gpt-5, gpt-5-mini): the
			// value is quoted as sent.
			return openaiParamError(fmt.Sprintf("Unsupported value: 'temperature' does not support %s with this model. "+
				"Only the default (1) value is supported.", v), "temperature", "unsupported_value")
		}
	}
	return nil
}
