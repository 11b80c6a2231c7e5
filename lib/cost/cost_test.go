package cost

import (
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestBuiltinRowsSayWhereAndWhen(t *testing.T) {
	p := Builtin()
	if len(p) == 0 {
		t.Fatal("prices.json is empty")
	}
	for m, r := range p {
		if !strings.HasPrefix(r.Source, "https://") || len(r.Read) != len("2006-01-02") {
			t.Errorf("%s: source %q, read %q: every row names its pricing page and the date it was read", m, r.Source, r.Read)
		}
		if r.Input <= 0 || r.Output <= 0 {
			t.Errorf("%s: input %v, output %v: a hosted model's row has both", m, r.Input, r.Output)
		}
	}
}

func TestOfCountsCachedTokensAtTheirPrice(t *testing.T) {
	p := Prices{"m": {Input: 2, CachedInput: 0.5, Output: 8}}
	// 1,000 prompt tokens of which 400 cached, 100 output:
	// 600×2 + 400×0.5 + 100×8 = 1200 + 200 + 800 = 2200 per million.
	usd, known, why := p.Of("openai", "m", Usage{Input: 1000, Cached: 400, Output: 100})
	if !known || why != "" || !near(usd, 0.0022) {
		t.Fatalf("Of = %v, %v, %q; want 0.0022, true", usd, known, why)
	}
	// No cache price: cached tokens are billed as input.
	p = Prices{"m": {Input: 2, Output: 8}}
	if usd, _, _ := p.Of("openai", "m", Usage{Input: 1000, Cached: 400}); !near(usd, 0.002) {
		t.Errorf("without cached_input: %v, want 0.002", usd)
	}
	// Reasoning billed apart when it has its own price.
	p = Prices{"m": {Input: 1, Output: 4, Reasoning: 3}}
	if usd, _, _ := p.Of("openai", "m", Usage{Output: 100, Reasoning: 60}); !near(usd, (40*4+60*3)/1e6) {
		t.Errorf("reasoning apart: %v", usd)
	}
}

func TestOfLocalIsFreeUnknownSaysWhy(t *testing.T) {
	p := Builtin()
	for _, prov := range []string{"ollama", "llama.cpp"} {
		if usd, known, _ := p.Of(prov, "gpt-4.1", Usage{Input: 1e6, Output: 1e6}); usd != 0 || !known {
			t.Errorf("%s: %v, %v; want 0, known", prov, usd, known)
		}
	}
	usd, known, why := p.Of("openai", "my-own-model", Usage{Input: 10})
	if known || usd != 0 || why != "no price known for my-own-model: add it with model_prices" {
		t.Errorf("unknown model: %v, %v, %q", usd, known, why)
	}
}

func TestLookupNames(t *testing.T) {
	p := Builtin()
	for _, m := range []string{"gpt-4.1", "GPT-4.1", "openai/gpt-4.1", "models/gemini-2.5-flash"} {
		if _, ok := p.Lookup(m); !ok {
			t.Errorf("Lookup(%q) found nothing", m)
		}
	}
}

func TestWithOverridesAndExtends(t *testing.T) {
	over := Prices{"gpt-4.1": {Input: 1, Output: 1}, "Mine": {Input: 3, Output: 6}}
	p := Builtin().With(over)
	if r, _ := p.Lookup("gpt-4.1"); r.Input != 1 {
		t.Errorf("override: %+v", r)
	}
	if r, ok := p.Lookup("mine"); !ok || r.Output != 6 {
		t.Errorf("added row: %+v, %v", r, ok)
	}
	if _, ok := p.Lookup("gpt-4o"); !ok {
		t.Error("With dropped a builtin row")
	}
}

func TestParseErrorsNameTheRow(t *testing.T) {
	for in, want := range map[string]string{
		`{"m": {"input": -1, "output": 2}}`: `m: "input" must be a number >= 0`,
		`{"m": {"inptu": 1}}`:               `unknown field "inptu"`,
		`{"m": 3}`:                          `each model maps to {"input"`,
		`{"": {"input": 1, "output": 1}}`:   `empty model name`,
	} {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want it to say %q", in, err, want)
		}
	}
}

func TestFormat(t *testing.T) {
	for usd, want := range map[float64]string{0: "$0", 0.0022: "$0.0022", 1.234: "$1.23", 0.00001: "<$0.0001"} {
		if got := Format(usd); got != want {
			t.Errorf("Format(%v) = %q, want %q", usd, got, want)
		}
	}
}
