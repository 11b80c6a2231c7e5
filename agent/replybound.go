package agent

// A bound on every reply. Local servers put none of their own (Ollama's
// num_predict and llama-server's n_predict default to -1), and a model that
// never emits its end token streams until co is stopped; the stall timeout
// never fires since tokens keep coming. So without llm_max_tokens co asks
// for at most DefaultMaxTokens (DefaultMaxTokensThinking for a model that
// thinks: reasoning counts against the same bound), and never more than
// the context window leaves after the prompt. The servers honour it and
// end with "length". Sources: docs/providers.md, Ollama, llama.cpp, OpenAI.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/co-cli/co/agent/provider"
)

const (
	// DefaultMaxTokens bounds a reply when llm_max_tokens is 0: room for a
	// long answer or a large file written in one call.
	DefaultMaxTokens = 8192
	// DefaultMaxTokensThinking is the bound for a model that thinks, whose
	// reasoning counts against it.
	DefaultMaxTokensThinking = 32768
	// minReplyBound is the least co asks for when the window is nearly full.
	minReplyBound = 256
)

// thinks reports whether p's model reasons before answering, as far as co
// can tell: OpenAI's reasoning models, DeepSeek's (thinking by default),
// Gemini 2.5 and later, and an Ollama model whose capabilities (caps) list
// "thinking".
func thinks(p provider.Provider, caps []string) bool {
	m := strings.ToLower(p.Model)
	switch {
	case slices.Contains(caps, "thinking"), provider.FixedSamplingModel(p.Model), provider.DeepseekThinking(p):
		return true
	case p.IsGemini():
		return !strings.Contains(m, "gemini-1") && !strings.Contains(m, "gemini-2.0")
	}
	return false
}

// replyBound is the reply's bound for p: the setting (llm_max_tokens) when
// above 0; else the default, at most what window (0: unknown) leaves after
// this request's prompt, and at most half the window before the server has
// counted a prompt. Until then co's estimate (characters / 4) is not
// calibrated: real tokenizers counted 1.2 and 1.4 times it (docs/providers.md,
// llama.cpp), and vLLM and OpenAI refuse a prompt plus max_tokens over the
// window, so the first reply leaves the prompt room to be larger than co
// thinks; a small first prompt still leaves the reply half the window.
func (a *Agent) replyBound(p provider.Provider, window int, caps []string) int {
	if n := a.cfg.Request.MaxTokens; n > 0 {
		return n
	}
	n := DefaultMaxTokens
	if thinks(p, caps) {
		n = DefaultMaxTokensThinking
	}
	if window <= 0 {
		return n
	}
	a.mu.Lock()
	// This request's own estimate (budget.go) when there is one: the
	// last prompt's size is one request late, and vLLM and OpenAI refuse
	// a prompt plus max_tokens over the window.
	used := a.budget.next
	if used <= 0 {
		used = a.lastInput
	}
	// Calibrated by a prompt the server counted in this run: a resumed
	// conversation's saved lastInput does not calibrate the estimate.
	counted := a.budget.calib > 0
	a.mu.Unlock()
	if used <= 0 || used >= window {
		used = window / 2
	}
	if !counted {
		n = min(n, window/2)
	}
	return max(min(n, window-used), min(minReplyBound, window/4))
}

// cutNotice is the notice for a reply the bound cut (finish reason
// "length"), "" otherwise.
func cutNotice(p provider.Provider, res streamResult, setting, bound int) string {
	if res.finish != "length" {
		return ""
	}
	if out := res.usage.OutputTokens; out > 0 && bound > 0 && out < bound {
		// Stopped short of co's bound: the server's own limit, which is
		// its context window for llama-server (recorded for issue 26:
		// prompt 3597 + reply 499 = its 4096 window, max_tokens 8192).
		return fmt.Sprintf("%s's reply was cut after %d tokens by the server's own limit (its context window, most likely: the prompt took %d), not by co's bound of %d.", p.Model, out, res.usage.InputTokens, bound)
	}
	if setting > 0 {
		return fmt.Sprintf("%s's reply was cut at the length limit (llm_max_tokens %d); raise it to let replies run longer.", p.Model, setting)
	}
	return fmt.Sprintf("%s's reply was cut at the length limit (%d tokens, co's default bound); set llm_max_tokens to allow longer replies.", p.Model, bound)
}

// setBound records the bound the request in flight asked for.
func (a *Agent) setBound(n int) {
	a.mu.Lock()
	a.bound = n
	a.mu.Unlock()
}

// lastBound is the bound the last request asked for.
func (a *Agent) lastBound() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bound
}
