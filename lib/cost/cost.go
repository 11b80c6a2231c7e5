// Package cost is what an LLM call cost in US dollars: a table of prices
// per million tokens (prices.json, each row with the provider's page it
// was read from and when), which the user may extend or override with the
// model_prices setting, applied to the tokens a provider reported. Leaf:
// it imports nothing of ours.
//
// A model with no known price costs nothing known: Of says so and why,
// never a guess. Models run on this machine (Ollama, llama.cpp) cost 0.
package cost

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Price is one model's prices in US dollars per million tokens.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input,omitempty"` // input tokens served from the provider's cache
	Output      float64 `json:"output"`
	// Reasoning is the price of reasoning tokens where a provider bills
	// them apart from the answer; 0 bills them as output.
	Reasoning float64 `json:"reasoning,omitempty"`
	Source    string  `json:"source,omitempty"` // the pricing page it was read from
	Read      string  `json:"read,omitempty"`   // the date it was read, YYYY-MM-DD
	Note      string  `json:"note,omitempty"`
}

// Prices maps a model's name to its price.
type Prices map[string]Price

//go:embed prices.json
var builtin []byte

// Builtin is the table shipped with co (prices.json).
func Builtin() Prices {
	p, err := Parse(builtin)
	if err != nil {
		panic("lib/cost: prices.json: " + err.Error())
	}
	return p
}

// Parse reads a table ({"MODEL": {"input": …, "output": …}, …}) and
// checks every row: a clear error names the model and what is wrong.
func Parse(data []byte) (Prices, error) {
	var p Prices
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("model prices: %v (each model maps to {\"input\": N, \"cached_input\": N, \"output\": N, \"reasoning\": N}, US dollars per million tokens)", err)
	}
	return p, p.Check()
}

// Check reports the first bad row: an empty name, a negative or
// non-finite price.
func (p Prices) Check() error {
	for _, m := range p.Models() {
		r := p[m]
		if strings.TrimSpace(m) == "" {
			return fmt.Errorf("model prices: a row has an empty model name")
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"input", r.Input}, {"cached_input", r.CachedInput}, {"output", r.Output}, {"reasoning", r.Reasoning}} {
			if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
				return fmt.Errorf("model prices: %s: %q must be a number >= 0 (US dollars per million tokens), got %v", m, f.name, f.v)
			}
		}
	}
	return nil
}

// Models is the table's model names, sorted.
func (p Prices) Models() []string {
	out := make([]string, 0, len(p))
	for m := range p {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// With is p with over's rows added, a row of over replacing p's for the
// same model.
func (p Prices) With(over Prices) Prices {
	out := make(Prices, len(p)+len(over))
	for m, r := range p {
		out[strings.ToLower(m)] = r
	}
	for m, r := range over {
		out[strings.ToLower(m)] = r
	}
	return out
}

// Lookup finds model's row: by its name, case aside, and without a
// "models/" prefix (Gemini's) or a provider prefix ("openai/gpt-4.1", as
// routers name them).
func (p Prices) Lookup(model string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	for _, k := range []string{m, strings.TrimPrefix(m, "models/"), m[strings.LastIndex(m, "/")+1:]} {
		for name, r := range p {
			if strings.ToLower(name) == k {
				return r, true
			}
		}
	}
	return Price{}, false
}

// Usage is the tokens of one call, as the provider reported them. Cached
// and Reasoning are parts of Input and Output, not added to them.
type Usage struct {
	Input, Cached, Output, Reasoning int
}

// Local reports whether a provider runs on this machine and so costs
// nothing (Ollama, llama.cpp's llama-server).
func Local(provider string) bool {
	return provider == "ollama" || provider == "llama.cpp"
}

// Of is what u cost on model at provider, in US dollars. known is false
// when no price is known for the model; why then says so and how to add
// one. A local provider costs 0, known.
func (p Prices) Of(provider, model string, u Usage) (usd float64, known bool, why string) {
	if Local(provider) {
		return 0, true, ""
	}
	r, ok := p.Lookup(model)
	if !ok {
		return 0, false, NoPrice(model)
	}
	cached := min(max(u.Cached, 0), u.Input)
	reasoning := min(max(u.Reasoning, 0), u.Output)
	cachedPrice := r.CachedInput
	if cachedPrice == 0 {
		cachedPrice = r.Input // no cache discount known: billed as input
	}
	usd = float64(u.Input-cached)*r.Input + float64(cached)*cachedPrice
	if r.Reasoning > 0 {
		usd += float64(u.Output-reasoning)*r.Output + float64(reasoning)*r.Reasoning
	} else {
		usd += float64(u.Output) * r.Output
	}
	return usd / 1e6, true, ""
}

// NoPrice is the message for a model with no known price.
func NoPrice(model string) string {
	return fmt.Sprintf("no price known for %s: add it with model_prices", model)
}

// Format writes an amount of US dollars as people read it: cents for an
// amount of a dollar or more, four decimals below ("$0.0012"), "$0" for
// nothing.
func Format(usd float64) string {
	switch {
	case usd == 0:
		return "$0"
	case usd >= 1:
		return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
	case usd < 0.0001:
		return "<$0.0001"
	}
	return "$" + strconv.FormatFloat(usd, 'f', 4, 64)
}
