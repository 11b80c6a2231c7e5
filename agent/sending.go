package agent

import (
	"context"

	"github.com/co-cli/co/agent/provider"
)

// lessFor is what co sends for window, without deciding it (sendLess
// keeps it): when the fixed part (system prompt full and the tool
// schemas) takes more than half of the window, only the core tools
// (reduced), and when that is still too much, the compact system prompt
// too. A choice already made stays.
func (a *Agent) lessFor(p provider.Provider, full string, window int) (reduced, compact bool) {
	a.mu.Lock()
	reduced, compact = a.budget.reduced, a.budget.compact
	a.mu.Unlock()
	if window <= 0 || reduced && compact {
		return reduced, compact
	}
	if a.calibrate(estimateChars(len(full)+len(a.toolsWith(p, reduced)))) <= window/2 {
		return reduced, compact
	}
	return true, compact || a.calibrate(estimateChars(len(full)+len(a.toolsWith(p, true)))) > window/2
}

// Sending is what the next request to the current provider carries for
// the context window known now, as it will be decided before that request
// (a choice already made included), without deciding it: the names of the
// tools sent, in the registry's order (none for a model that takes none),
// and what co leaves out for a small window, worded as SendingLess. For co
// status and /status; ctx bounds the wait for the system prompt's
// instructions and skills (Config.MorePrompt).
func (a *Agent) Sending(ctx context.Context) (names []string, less string) {
	a.mu.Lock()
	reduced, compact := a.budget.reduced, a.budget.compact
	a.mu.Unlock()
	p, done, err := a.Provider()
	if done && err == nil {
		full, _ := a.fullPrompt(ctx)
		reduced, compact = a.lessFor(p, full, a.ContextWindow())
		if a.toolsOff(p) {
			return nil, lessText(reduced, compact)
		}
	}
	for _, t := range a.cfg.Tools.All() {
		if a.toolSent(t.Name(), reduced) {
			names = append(names, t.Name())
		}
	}
	return names, lessText(reduced, compact)
}
