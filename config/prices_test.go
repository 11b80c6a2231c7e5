package config

import (
	"strings"
	"testing"
)

// model_prices adds and overrides rows of lib/cost's table; a bad row is
// refused naming the setting, the model and what is wrong.
func TestModelPricesSetting(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), `{"model_prices": {"my-model": {"input": 0.5, "cached_input": 0.05, "output": 2}}, "max_cost": 0.25}`)
	l := f.load(t)
	if r, ok := l.Settings.ModelPrices.Lookup("my-model"); !ok || r.Input != 0.5 || r.CachedInput != 0.05 || r.Output != 2 {
		t.Errorf("model_prices = %+v", l.Settings.ModelPrices)
	}
	wantValue(t, l.Settings.MaxCost, 0.25)

	for raw, want := range map[string]string{
		`{"m": {"input": -1, "output": 1}}`: `"model_prices": m: "input" must be a number >= 0`,
		`{"m": {"price": 1}}`:               `"model_prices": json: unknown field "price"`,
		`[1]`:                               `"model_prices": json: cannot unmarshal array`,
	} {
		writeFile(t, f.userFile(), `{"model_prices": `+raw+`}`)
		_, err := Load(f.opts())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("model_prices %s: err = %v, want it to say %s", raw, err, want)
		}
	}
	writeFile(t, f.userFile(), `{"max_cost": -1}`)
	if _, err := Load(f.opts()); err == nil || !strings.Contains(err.Error(), `"max_cost" must be a number >= 0`) {
		t.Errorf("max_cost -1: err = %v", err)
	}
}
