package config

import (
	"errors"
	"testing"
)

// llm_temperature takes what the providers take, 0 to 2, or -1 for none;
// anything else stops at load with the setting, the value and the range.
func TestTemperatureRange(t *testing.T) {
	const rng = `"llm_temperature" must be a number from 0 to 2, or -1 for none, got `
	tests := []struct {
		name, file, env string
		want            float64
		err             string // after the source; "" when accepted
	}{
		{name: "zero", file: `{"llm_temperature": 0}`, want: 0},
		{name: "two", file: `{"llm_temperature": 2}`, want: 2},
		{name: "fraction", file: `{"llm_temperature": 0.7}`, want: 0.7},
		{name: "none", file: `{"llm_temperature": -1}`, want: -1},
		{name: "unset", want: -1},
		{name: "env two", env: "2", want: 2},
		{name: "over two", file: `{"llm_temperature": 2.5}`, err: rng + "2.5"},
		{name: "just over two", file: `{"llm_temperature": 2.0001}`, err: rng + "2.0001"},
		{name: "negative", file: `{"llm_temperature": -0.5}`, err: rng + "-0.5"},
		{name: "very negative", file: `{"llm_temperature": -2}`, err: rng + "-2"},
		{name: "huge", file: `{"llm_temperature": 1e300}`, err: rng + "1e+300"},
		{name: "env over two", env: "2.5", err: rng + "2.5"},
		{name: "env negative", env: "-3", err: rng + "-3"},
		{name: "env NaN", env: "NaN", err: rng + `"NaN"`},
		{name: "env Inf", env: "Inf", err: rng + `"Inf"`},
		{name: "env -Inf", env: "-Inf", err: rng + `"-Inf"`},
		{name: "file infinite", file: `{"llm_temperature": 1e999}`, err: rng + "1e999 (number)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			source := ""
			if tc.file != "" {
				writeFile(t, f.userFile(), tc.file)
				source = f.userFile()
			}
			if tc.env != "" {
				f.env["CO_CLI_LLM_TEMPERATURE"] = tc.env
				source = "$CO_CLI_LLM_TEMPERATURE"
			}
			l, err := Load(f.opts())
			if tc.err == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if l.Settings.LLMTemperature != tc.want {
					t.Fatalf("llm_temperature = %v, want %v", l.Settings.LLMTemperature, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load accepted it (llm_temperature = %v); want %s", l.Settings.LLMTemperature, tc.err)
			}
			if want := source + ": " + tc.err; err.Error() != want {
				t.Fatalf("error =\n  %v\nwant\n  %s", err, want)
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.Key != "llm_temperature" {
				t.Fatalf("error %#v: want a *config.Error for llm_temperature", err)
			}
		})
	}
}
