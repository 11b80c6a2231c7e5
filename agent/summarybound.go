package agent

// The bound on a summary. A summary is a request co makes for itself, and a
// model that rambles (or never emits its end token) would otherwise fill
// what is left of the window with it: fed back, it makes the next request
// larger than the one it was meant to shrink. So every summary request
// carries a bound, in the field the route honours (max_tokens, or
// max_completion_tokens for OpenAI's reasoning models: provider.BoundField;
// options.num_predict on Ollama's /api/chat), and a summary that still
// comes back longer (a server that ignores the bound) is cut to it.
// Sources: docs/providers.md (llama.cpp n_predict, Ollama num_predict,
// Gemini maxOutputTokens, OpenAI max_completion_tokens).

import (
	"fmt"

	"github.com/co-cli/co/agent/provider"
)

const (
	// maxSummaryTokens bounds a summary on a large or unknown window.
	maxSummaryTokens = 1024
	// minSummaryTokens is the least a summary is given on a small window.
	minSummaryTokens = 128
	// thinkingRoom multiplies the bound asked of a model that thinks: its
	// reasoning counts against the same bound (OpenAI's
	// max_completion_tokens, Gemini's maxOutputTokens, Ollama's
	// num_predict), and a bound it spends thinking leaves no summary.
	thinkingRoom = 4
)

// summaryTokens is the most a summary may take, in tokens: an eighth of
// the window (0: unknown), between minSummaryTokens and maxSummaryTokens,
// and no more than llm_max_tokens when that is set.
func (a *Agent) summaryTokens(window int) int {
	n := maxSummaryTokens
	if window > 0 {
		n = min(max(window/8, minSummaryTokens), maxSummaryTokens)
	}
	if m := a.cfg.Request.MaxTokens; m > 0 && m < n {
		n = m
	}
	return n
}

// summaryAsk is the bound a summary request asks for: summaryTokens, with
// room for the reasoning of a model that thinks (at most a quarter of a
// known window, never less than the summary's own bound).
func summaryAsk(p provider.Provider, caps []string, tokens, window int) int {
	if !thinks(p, caps) {
		return tokens
	}
	n := tokens * thinkingRoom
	if window > 0 {
		n = max(min(n, window/4), tokens)
	}
	return n
}

// cutSummary returns a summary no longer than tokens (by co's estimate,
// calibrated by calib: characters / 4 × calib), cut on a UTF-8 boundary
// and marked as cut; finish "length" (the bound stopped it) marks it too.
func cutSummary(text, finish string, tokens int, calib float64) string {
	if calib <= 0 {
		calib = 1
	}
	limit := int(float64(tokens*4) / calib)
	cut := len(text) > limit
	if cut {
		i := limit
		for i > 0 && !utf8Start(text[i]) {
			i--
		}
		text = text[:i]
	}
	if cut || finish == "length" {
		text += fmt.Sprintf("\n[… summary cut at its bound of about %d tokens]", tokens)
	}
	return text
}
