package agent

import (
	"errors"
	"fmt"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/lib/cost"
	"github.com/co-cli/co/message"
)

// ModelCost is what the calls to one model cost in this run: the chat's
// or, with Summary, the summaries' (/cost).
type ModelCost struct {
	Provider string
	Model    string
	Summary  bool
	Calls    int
	Usage    message.Usage
}

// priced is u with its cost on model (lib/cost), and the call counted in
// the breakdown by model. served is the model the response named: an
// alias with no price of its own (gemini-flash-latest) is priced as the
// model that answered.
func (a *Agent) priced(p provider.Provider, model, served string, summary bool, u message.Usage) message.Usage {
	name := a.nameOf(p)
	if _, ok := a.cfg.Prices.Lookup(model); !ok && served != "" && served != model {
		if _, ok := a.cfg.Prices.Lookup(served); ok {
			model = served
		}
	}
	usd, known, _ := a.cfg.Prices.Of(name, model, cost.Usage{Input: u.InputTokens, Cached: u.CachedTokens, Output: u.OutputTokens, Reasoning: u.ReasoningTokens})
	u.Cost, u.Unpriced = usd, ""
	if !known {
		u.Unpriced = model
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := range a.byModel {
		if m := &a.byModel[i]; m.Provider == name && m.Model == model && m.Summary == summary {
			m.Calls++
			m.Usage = m.Usage.Add(u)
			return u
		}
	}
	a.byModel = append(a.byModel, ModelCost{Provider: name, Model: model, Summary: summary, Calls: 1, Usage: u})
	return u
}

// Costs is this run's calls by model, in the order first used.
func (a *Agent) Costs() []ModelCost {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]ModelCost(nil), a.byModel...)
}

// overBudget is the message that ends a turn when the session's cost has
// reached MaxCost, or "".
func (a *Agent) overBudget() string {
	if a.cfg.MaxCost <= 0 {
		return ""
	}
	spent := a.Usage().Cost
	if spent < a.cfg.MaxCost {
		return ""
	}
	return fmt.Sprintf("max_cost %s reached (%s spent): the turn stopped after the call that reached it, before another request; nothing was lost. To go on, raise the limit (max_cost, co run --max-cost, or the schedule's max_cost).",
		cost.Format(a.cfg.MaxCost), cost.Format(spent))
}

// ErrMaxCost is the error a turn stopped by MaxCost carries
// (TurnFailed.Err), so co run can exit with its own code.
var ErrMaxCost = errors.New("max_cost reached")
