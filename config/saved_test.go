package config

import (
	"slices"
	"testing"
)

// What /setup saved is what this run's Loaded says: the values, their
// source the user file, and the user file among the files read, before
// the project file. An environment variable's value is replaced too: the
// run uses what was saved.
func TestSavedUpdatesTheRunsSettings(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.projectFile(), `{"theme": "dark"}`)
	f.env["GEMINI_MODEL"] = "gemini-old"
	l := f.load(t)
	if slices.Contains(l.Files, f.userFile()) {
		t.Fatalf("Files before the save: %v", l.Files)
	}
	err := l.Saved(Change{Key: "llm_provider", Value: "gemini"}, Change{Key: "gemini_model", Value: "gemini-new"},
		Change{Key: "gemini_api_key", Value: "AIza-test"})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Files; !slices.Equal(got, []string{f.userFile(), f.projectFile()}) {
		t.Errorf("Files = %v", got)
	}
	if l.Settings.LLMProvider != "gemini" || l.Settings.GeminiModel != "gemini-new" || l.Settings.GeminiAPIKey != "AIza-test" {
		t.Errorf("Settings: provider %q model %q", l.Settings.LLMProvider, l.Settings.GeminiModel)
	}
	for _, k := range []string{"llm_provider", "gemini_model", "gemini_api_key"} {
		if src := l.Sources[k]; src != (Source{Layer: LayerUser, Name: f.userFile()}) {
			t.Errorf("Sources[%s] = %v", k, src)
		}
	}
	// Saved twice, the file is listed once.
	if err := l.Saved(Change{Key: "gemini_model", Value: "gemini-newer"}); err != nil || len(l.Files) != 2 {
		t.Errorf("Files = %v, %v", l.Files, err)
	}
	if err := l.Saved(Change{Key: "no_such_key", Value: "x"}); err == nil {
		t.Error("an unknown key was taken")
	}
	if err := l.Saved(Change{Key: "gemini_model", Unset: true}); err == nil {
		t.Error("an unset was taken")
	}
}
