package agent

// Replies that say nothing. A small model that writes an unfinished tool
// call gets it swallowed by Ollama (with tools in the request, the text
// from the tool-call tag on is held back and dropped when the model stops
// first: docs/providers.md, Ollama), so the reply is empty with done_reason
// "stop". Such a reply fails the turn with a message that says so (co run:
// on stderr, exit 1), and a reply whose text holds tool-call markup no
// parser read is kept as text, with a notice that nothing ran.

import (
	"fmt"
	"strings"

	"github.com/co-cli/co/agent/provider"
)

// callMarkup are the tool-call openings of common chat templates: Qwen2.5
// and Hermes (<tool_call>), Llama 3.x (<|python_tag|>), Mistral
// ([TOOL_CALLS]), Qwen3-Coder (<function=), DeepSeek (<｜tool▁calls▁begin｜>).
var callMarkup = []string{"<tool_call>", "<|python_tag|>", "[TOOL_CALLS]", "<function=", "<｜tool▁calls▁begin｜>"}

// unreadCallNotice is the notice for a reply whose text holds tool-call
// markup that reached co as text ("" when it holds none).
func unreadCallNotice(p provider.Provider, text string) string {
	for _, m := range callMarkup {
		if strings.Contains(text, m) {
			return fmt.Sprintf("%s wrote a tool call as text (%s…) that the server did not turn into a call, so nothing ran; its raw text is kept above. Ask again, or use a model that handles tools better.", p.Model, m)
		}
	}
	return ""
}

// describeEmptyReply is the message for a reply with no text and no tool
// call. maxTokens is the llm_max_tokens setting (0: co's default bound).
func describeEmptyReply(p provider.Provider, res streamResult, maxTokens int) string {
	if res.finish == "length" {
		return fmt.Sprintf("%s's reply reached the length limit before it said anything (%s); raise llm_max_tokens, or ask for something shorter.", p.Model, replyLimitSetting(maxTokens))
	}
	thought := ""
	if strings.TrimSpace(res.reasoning) != "" {
		thought = " (only reasoning)"
	}
	return fmt.Sprintf("%s answered with nothing%s: no text and no tool call (finish reason %q). A model that writes an unfinished tool call gets it dropped by the server (Ollama does so); ask again, or use a model that handles tools better.", p.Model, thought, res.finish)
}

// replyLimitSetting says where the reply's bound came from.
func replyLimitSetting(maxTokens int) string {
	if maxTokens > 0 {
		return fmt.Sprintf("llm_max_tokens %d", maxTokens)
	}
	return "co's default bound; llm_max_tokens sets another"
}
