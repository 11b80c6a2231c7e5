package agent

// A request without tools, the last resort on a small window. When even
// the core tools (shell and files) and the compact system prompt leave no
// room for a long message after one compaction (a 1,100-token message on
// llama-server -c 2048: the core tools' schemas alone take about a
// thousand tokens), co sends that request without tools rather than
// refusing the turn, and says so once in the turn. It is decided again
// before every request: the next one, shorter, carries the tools again.

import (
	"context"
	"fmt"
	"strings"

	"github.com/co-cli/co/agent/provider"
)

func (a *Agent) setBare(b bool) {
	a.mu.Lock()
	a.budget.bare = b
	a.mu.Unlock()
}

// isBare reports whether the request about to go carries no tools.
func (a *Agent) isBare() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.budget.bare
}

// fitsBare reports whether the request as it would go now fits window
// without tools, with the least room for the reply.
func (a *Agent) fitsBare(ctx context.Context, p provider.Provider, window int) bool {
	if window <= 0 || a.isBare() || len(a.toolsFor(p)) == 0 {
		return false
	}
	return a.estimateWith(ctx, nil)+minReplyRoom <= window
}

// bareNotice says, once a turn, that a request goes without tools and
// what gives them back.
func (a *Agent) bareNotice(p provider.Provider, window int, st *turnState, e *emitter) {
	if st.bareTold {
		return
	}
	st.bareTold = true
	larger := "a larger context window"
	switch {
	case a.isLlamaCpp(p):
		larger = "llama-server started with a larger context (-c)"
	case provider.OllamaNative(p):
		larger = "a larger ollama_num_ctx"
	}
	e.send(Notice{Text: fmt.Sprintf("This request does not fit the context window (%d tokens) with tools, even with only the %s tools: co sends it without tools, so the model cannot run any for this answer. Shorter messages, or %s, give them back.", window, strings.Join(CoreToolGroups, " and "), larger)})
}
