package slash

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/co-cli/co/lib/cost"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/present"
)

// costCmd is /cost: what the session has cost, by model, the summaries
// (and the summarisation model) apart; a model with no known price says
// so and how to add one.
func costCmd(env Env, _ string) Result {
	total := env.Agent.Usage()
	by := env.Agent.Costs()
	var b strings.Builder
	fmt.Fprintf(&b, "This session: %s — %s tokens in (%s cached), %s out\n", costText(total.Cost, total.Unpriced != "", total.Cost == 0 && total.Unpriced != ""),
		present.Tokens(total.InputTokens), present.Tokens(total.CachedTokens), present.Tokens(total.OutputTokens))
	if len(by) == 0 {
		b.WriteString("No LLM call in this run yet.")
		return Result{Output: strings.TrimRight(b.String(), "\n")}
	}
	var shown float64
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, m := range by {
		what := safe.Text(m.Model) + " (" + safe.Text(m.Provider) + ")"
		if m.Summary {
			what += ", summaries"
		}
		price := costText(m.Usage.Cost, false, false)
		if m.Usage.Unpriced != "" {
			price = cost.NoPrice(safe.Text(m.Usage.Unpriced))
		} else if cost.Local(m.Provider) {
			price = "$0 (runs on this machine)"
		}
		shown += m.Usage.Cost
		calls := "calls"
		if m.Calls == 1 {
			calls = "call"
		}
		fmt.Fprintf(w, "  %s\t%d %s\t%s in (%s cached)\t%s out\t%s\n", what, m.Calls, calls,
			present.Tokens(m.Usage.InputTokens), present.Tokens(m.Usage.CachedTokens), present.Tokens(m.Usage.OutputTokens), price)
	}
	if before := total.Cost - shown; before > 0.00005 {
		fmt.Fprintf(w, "  before this run (resumed)\t\t\t\t%s\n", cost.Format(before))
	}
	_ = w.Flush()
	b.WriteString("Prices: co's table (lib/cost/prices.json, each row dated) and your model_prices setting.")
	return Result{Output: b.String()}
}

// costText is an amount, "+" after it when some calls had no price, or
// "unknown" when none had.
func costText(usd float64, partial, unknown bool) string {
	switch {
	case unknown:
		return "unknown (no price known: see below)"
	case partial:
		return cost.Format(usd) + " + calls with no price"
	}
	return cost.Format(usd)
}
